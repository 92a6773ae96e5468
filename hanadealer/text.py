"""Text for the terminal."""
from __future__ import annotations


def shown_text(text: str) -> str:
    """Text holding a file name that is not UTF-8 (an old camera's), its odd bytes escaped as ``\\xff``:
    the same on standard error as in the JSON (stderr wrote ``\\udcff`` for the one byte), and never a
    lone surrogate that strict JSON parsers refuse."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # (a surrogate no file name decodes to: escaped as it is)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
