"""``hanadealer settle ROUND.json|-``: score and settle one round file and print the JSON result.

Bad input (a missing or unreadable file, bad JSON, an unknown card, a wrong row, a bad bet, ...) ends
with exit status 2 and one line on standard error naming the problem; never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dealer.cards import UnknownCardError
from dealer.games import InexactNumber, RoundError, exact_json_float, settle_round
from hanadealer.args import named
from hanadealer.text import shown_text

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 1


class BadInput(Exception):
    """Input that cannot be read as a round document."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "settle", help="score and settle one round file (JSON) and print the result",
        description="Score and settle one round (a JSON round file, or - for standard input) and print "
                    "the result as JSON: winner, scores, and net (who pays whom).")
    p.add_argument("round", type=named, metavar="ROUND.json", help="the round file, or - to read standard input")
    p.add_argument("--equalise", action="store_true",
                   help="before the reveal: print only how much the dealer must add, and on which side, "
                        "to make the bets equal (reads game, house and bets; cards may be absent)")
    p.set_defaults(func=run_settle)


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise BadInput(f"key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def _reject_constant(name: str):
    raise BadInput(f"{name} is not a number a round may contain")


# the most a round document read may hold (a round of a whole deck with notes is a few kB)
MAX_ROUND_BYTES = 16 * 2 ** 20


def read_round(source: str) -> Any:
    name = "standard input" if source == "-" else source
    if source == "-" and sys.stdin is None:  # started with it closed
        raise BadInput("cannot read standard input: it is closed")
    try:
        # standard input read as bytes too: its text layer would let bytes that are not UTF-8 through
        # as stand-ins, and the error named the JSON instead. At most MAX_ROUND_BYTES and one more:
        # a device or a huge file named by mistake (/dev/zero) filled the memory until the process was
        # killed
        if source != "-":
            with open(source, "rb") as stream:
                raw = stream.read(MAX_ROUND_BYTES + 1)
        elif hasattr(sys.stdin, "buffer"):
            raw = sys.stdin.buffer.read(MAX_ROUND_BYTES + 1)
        else:
            raw = sys.stdin.read(MAX_ROUND_BYTES + 1)
        if len(raw) > MAX_ROUND_BYTES:
            raise BadInput(f"{name} is larger than {MAX_ROUND_BYTES // 2 ** 20} MB: no round document is "
                           f"(is it the file meant?)")
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except OSError as exc:
        raise BadInput(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{name} is not UTF-8 text") from None
    # (a file saved as "UTF-8 with BOM", as Windows editors do, was refused with advice to programmers)
    text = text.removeprefix("\ufeff")
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant,
                          parse_float=exact_json_float)
    except InexactNumber as exc:
        raise BadInput(f"{name}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{name} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise BadInput(f"{name} is nested too deeply") from None
    except ValueError as exc:  # Python's limit on the digits of an integer
        raise BadInput(f"{name} holds a number too long to read ({' '.join(str(exc).split()).split(';')[0]})") from None


def run_settle(args: argparse.Namespace) -> int:
    try:
        round_ = read_round(args.round)
        if args.equalise:
            from dealer.equalise import equalise_round
            result = equalise_round(round_)
        else:
            result = settle_round(round_)
    except (BadInput, RoundError, UnknownCardError) as exc:
        return _fail(str(exc))
    except ImportError as exc:  # a game whose module is not part of this build
        return _fail(f"this game is not available: {exc}")
    except Exception as exc:  # a defect, not bad input: still one line, and a different status
        print(f"hanadealer settle: internal error ({type(exc).__name__}: {' '.join(str(exc).split())})",
              file=sys.stderr)
        return EXIT_INTERNAL
    try:
        print(json.dumps(result, indent=2), flush=True)
    except BrokenPipeError:
        raise  # (the reader went away, ``| head``: no error of ours, as for every command)
    except OSError as exc:  # a full disk
        return _fail(f"cannot write the result: {exc.strerror or exc}")
    return 0


def _fail(message: str) -> int:
    # one line, whatever the message holds
    # (a file name that is not UTF-8 said with its odd bytes as \xe9, as recognise says it)
    print("hanadealer settle: " + " ".join(shown_text(message).split()), file=sys.stderr)
    return EXIT_BAD_INPUT
