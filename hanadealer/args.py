"""Argument types for the sub-commands: a number outside its range is refused by argparse with one line
naming the option (exit status 2), before any work is done."""
from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path


def whole(least: int, most: int | None = None):
    """A whole number from ``least`` (to ``most``)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least or (most is not None and value > most):
            bounds = f"from {least} to {most}" if most is not None else f"{least} or more"
            raise argparse.ArgumentTypeError(f"{value} is out of range: a whole number {bounds}")
        return value
    parse.__name__ = "whole number"
    return parse


def number(least: float, most: float | None = None, above: bool = False):
    """A finite number from ``least`` (or above it, with ``above``) to ``most``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or (value <= least if above else value < least) or \
                (most is not None and value > most):
            low = f"above {least:g}" if above else f"from {least:g}"
            bounds = f"{low} to {most:g}" if most is not None else (low if above else f"{least:g} or more")
            raise argparse.ArgumentTypeError(f"{text} is out of range: a number {bounds}")
        return value
    parse.__name__ = "number"
    return parse


PORT = whole(0, 65535)  # 0: any free port
PROBABILITY = number(0.0, 1.0)
SEED = whole(0)


def named(text: str) -> str:
    """A file or folder name. An empty one is refused: Path("") is the current folder, and ``--data ""``
    (a variable left unset in a script) used the default books, ``--video ""`` named the folder '.'."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty or blank name names no file or folder")
    return text


named.__name__ = "name"


def writable_dir(path: str | os.PathLike, option: str = "--out") -> Path:
    """The folder ``path``, made if it is not there, that a file can be written in: else a ValueError
    naming ``option`` and why (checked before the work, which may take minutes to hours: a training run
    that could not write its net at the end lost it with a traceback)."""
    out = Path(path)
    if not str(path).strip():
        raise ValueError(f"{option}: an empty or blank name names no folder")
    if out.exists() and not out.is_dir():
        raise ValueError(f"{option} {path} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # under a file, or a folder that may not be written
        raise ValueError(f"{option} {path} cannot be made: {exc.strerror or exc}") from None
    try:  # (a file written and taken away: the folder's permissions alone say nothing to root)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ValueError(f"{option} {path} is not writable: {exc.strerror or exc}") from None
    return out
