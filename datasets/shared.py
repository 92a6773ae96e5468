"""Where the outside data lives: ``../shared`` beside the project, or a path given by option."""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def shared_dir(override: str | os.PathLike | None = None) -> Path | None:
    """The shared data folder, or None where there is none.

    Order: an explicit path, the HANADEALER_SHARED environment variable, ``../shared`` beside the
    project checkout, ``../shared`` beside the working directory. A folder named (by path or by the
    variable) that holds no cards.csv is a FileNotFoundError, never passed over for another.
    """
    if override:
        # a path given is the one meant: falling back to ../shared would report figures of other data
        if (Path(override) / "cards.csv").is_file():
            return Path(override).resolve()
        raise FileNotFoundError(f"no shared data folder at {override} (it must hold cards.csv)")
    named = os.environ.get("HANADEALER_SHARED")
    if named:
        # named is meant too: a mistyped variable fell back to ../shared without a word
        if (Path(named) / "cards.csv").is_file():
            return Path(named).resolve()
        raise FileNotFoundError(f"no shared data folder at {named} (HANADEALER_SHARED; it must hold cards.csv)")
    candidates = [PROJECT_ROOT.parent / "shared", Path.cwd().parent / "shared"]
    for c in candidates:
        if (c / "cards.csv").is_file():
            return c.resolve()
    return None
