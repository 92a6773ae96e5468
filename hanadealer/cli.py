"""``hanadealer`` command line. Each sub-command lives with the package it belongs to; this module
only dispatches, importing a package when its command is used (so ``settle`` never loads OpenCV)."""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys

# command -> module with ``register(subparsers)`` that adds it and sets ``func`` (returns exit code)
COMMANDS = {
    "settle": "dealer.cli",
    "deck": "datasets.cli",
    "synth": "datasets.cli",
    "bench-synth": "datasets.cli",
    "recognise": "vision.cli",
    "bench-vision": "vision.cli",
    "bench-western": "vision.bench_western",
    "serve": "webui.cli",
    "bench-latency": "webui.cli",
    "bench-tricks": "webui.cli",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hanadealer", description="The dealer's assistant for hanafuda betting "
                                     "games: the page, the rule engine, recognition and their benchmarks.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parser.commands = sub.choices  # each command's own parser, for its own usage line
    for module_name in dict.fromkeys(m for c, m in COMMANDS.items() if only in (None, c)):
        try:
            importlib.import_module(module_name).register(sub)
        except ImportError as exc:  # a part not installed: say so instead of failing every command
            name = [c for c, m in COMMANDS.items() if m == module_name]
            for c in name:
                p = sub.add_parser(c, help=f"(unavailable: {exc})")
                p.set_defaults(func=lambda args, exc=exc: _unavailable(exc))
    return parser


def _unavailable(exc: Exception) -> int:
    print(f"hanadealer: this command is unavailable: {exc}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Load only the module of the command asked for, so a fast command stays fast.
    only = argv[0] if argv and argv[0] in COMMANDS else None
    # OpenCV's and FFmpeg's own warnings (a camera index not there, a PNG signature) came before our
    # one line naming the problem, and FFmpeg's at every loop of a damaged video: ours say it all.
    # (Read when OpenCV loads, before the command's module imports it; a value set by hand wins.)
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET
    parser = build_parser(only)
    args, extra = parser.parse_known_args(argv)
    if extra:  # said with the command's usage (the top level's said nothing of what it takes)
        parser.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    # started with its output closed, every line printed would vanish (serve writes only to stderr)
    if sys.stdout is None and args.command != "serve":
        print(f"hanadealer {args.command}: cannot write the output: standard output is closed", file=sys.stderr)
        return 2
    try:
        status = int(args.func(args) or 0)
        if sys.stdout is not None:  # (here, so that a failed write is said below, not at the interpreter's exit)
            sys.stdout.flush()
        return status
    except KeyboardInterrupt:
        # Ctrl-C: the command stops, in one line (130: stopped by SIGINT, as a shell says it)
        print(f"hanadealer {args.command}: stopped (Ctrl-C)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``| head``): not an error of ours, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EIO):
            raise
        # the output could not be written (a full disk): one line, as for any other bad place to write
        print(f"hanadealer {argv[0]}: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 2


if __name__ == "__main__":
    sys.exit(main())
