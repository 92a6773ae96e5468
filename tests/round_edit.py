"""Small helpers for the bad-input tables: a round document with some fields changed, and the check
that a round is refused with one clear line."""
from __future__ import annotations

import copy

import pytest

from dealer.games import RoundError, settle_round


def edited(doc: dict, **changes) -> dict:
    """A deep copy of ``doc`` with top-level fields replaced; a field given as None is removed."""
    out = copy.deepcopy(doc)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def assert_refused(round_, message: str) -> None:
    """``settle_round`` refuses the round with a RoundError whose one line contains ``message``."""
    with pytest.raises(RoundError) as err:
        settle_round(round_)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
