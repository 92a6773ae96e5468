"""Any malformed round for Otoroku, Kabu-Tsukuri, Echobo or Kakeya Toranpu is refused with a
RoundError (one clear line), never another exception: the documented examples with one field,
one nested value or one house option replaced by arbitrary JSON."""
import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer.games import RoundError, settle_round

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
GAMES = ["otoroku", "kabu-tsukuri", "echobo", "kakeya-toranpu"]
BASE = {g: json.loads((EXAMPLES / f"{g}.json").read_text()) for g in GAMES}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "dealer", "ann", "AS", "KS", "pine-crane", "maple-deer", "willow-swallow", "S", "X", "3"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["ann", "bob", "dealer", "x"]),
                                                                 inner, max_size=3),
    max_leaves=8)


def paths(value, prefix=()):
    """Every path to a value inside a JSON document."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GAMES), st.data(), json_values)
def test_malformed_rounds_are_refused_cleanly(game, data, junk):
    round_ = copy.deepcopy(BASE[game])
    where = data.draw(st.sampled_from([p for p in paths(round_) if p and p[0] != "game"]
                                      + [("house", "x"), ("house", "profit"), ("house", "rensho_rule"),
                                         ("house", "teyaku_multipliers"), ("chosen",), ("dealers",)]))
    target = round_
    for key in where[:-1]:
        target = target.setdefault(key, {}) if isinstance(target, dict) else target[key]
    if isinstance(target, (dict, list)):
        target[where[-1]] = junk
    try:
        out = settle_round(round_)
    except RoundError as err:
        assert str(err) and "\n" not in str(err)
    else:
        json.dumps(out)
        assert "net" in out and "winner" in out and "scores" in out


def test_regressions_found_by_hand():
    import pytest
    bad = [
        ("echobo", ("bets", 0, "on"), float("nan")),
        ("echobo", ("bets", 0, "on"), float("inf")),
        ("kakeya-toranpu", ("dealers",), 5),
        ("kakeya-toranpu", ("dealers",), [["bob"], "dan"]),
        ("kakeya-toranpu", ("trump",), ["S"]),
        ("otoroku", ("chosen",), [["ann"]]),
        ("kabu-tsukuri", ("carry",), float("nan")),
    ]
    for game, where, junk in bad:
        round_ = copy.deepcopy(BASE[game])
        target = round_
        for key in where[:-1]:
            target = target[key]
        target[where[-1]] = junk
        with pytest.raises(RoundError):
            settle_round(round_)
