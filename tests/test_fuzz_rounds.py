"""Any malformed round of any of the ten games is refused with a RoundError (one clear line), never
another exception (the requirements: "never a traceback"). The rounds are the documented examples with one
value anywhere inside replaced by arbitrary JSON (nulls, lists where objects are expected, nested
garbage, huge and tiny numbers), with an optional field or a house option of any game added, or the
whole document replaced. A round that is still accepted must give plain JSON with the required keys
and ``net`` summing to zero (plus ``carry`` minus ``carry_in`` where the game carries a pot)."""
import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer.equalise import equalise_round
from dealer.games import GAME_NAMES, RoundError, get_game, settle_round

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
BASE = {g: json.loads((EXAMPLES / f"{g}.json").read_text()) for g in GAME_NAMES}

# every optional top-level field some game reads, and every house option of every game
OPTIONAL_FIELDS = ["house", "carry", "redraws", "deck_exhausted", "chosen", "dealers", "stones_held", "trump",
                   "share", "bet", "bets", "players", "seats", "hands", "rows", "tricks", "dealer_card"]
HOUSE_OPTIONS = sorted({o.name for g in GAME_NAMES for o in get_game(g).options} | {"x"})

leaves = (st.none() | st.booleans()
          | st.integers(-5, 60) | st.sampled_from([0, -1, 10**400, -10**400, 2**63])
          | st.floats(allow_nan=True, allow_infinity=True)
          | st.sampled_from([5e-324, 1e-9, 1e308, 0.1, 4.5, 4.6, -0.0])
          | st.sampled_from(["", " ", "dealer", "ann", "back", "saki", "ato", "naka-e", "shi-e", "AS", "KS",
                             "10H", "pine-crane", "maple-deer", "willow-swallow", "paulownia-chaff-1", "S", "X",
                             "3", "push", "percent", "western"]))
json_values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["ann", "bob", "dealer", "saki", "ato", "player", "on", "amount", "x"]),
                      inner, max_size=3),
    max_leaves=10)


def paths(value, prefix=()):
    """Every path to a value inside a JSON document."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


def put(doc, where, junk):
    """Put ``junk`` at ``where`` (a path of keys and indices), where that path still exists."""
    target = doc
    for key in where[:-1]:
        if isinstance(target, dict):
            target = target.setdefault(key, {})
        elif isinstance(target, list) and isinstance(key, int) and key < len(target):
            target = target[key]
        else:
            return
    if isinstance(target, dict) or isinstance(target, list) and isinstance(where[-1], int) and where[-1] < len(target):
        target[where[-1]] = junk


def check_accepted(out):
    json.dumps(out, allow_nan=False)
    assert "net" in out and "winner" in out and "scores" in out
    # without net_exact every amount is exact in 6 decimals
    total = sum(Fraction(str(v)) for v in out.get("net_exact", out["net"]).values())
    assert total + Fraction(str(out.get("carry", 0))) - Fraction(str(out.get("carry_in", 0))) == 0


def refused_or_sound(round_):
    try:
        out = settle_round(round_)
    except RoundError as err:
        assert str(err) and "\n" not in str(err)
    else:
        check_accepted(out)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GAME_NAMES), st.data(), json_values)
def test_one_value_anywhere_replaced(game, data, junk):
    round_ = copy.deepcopy(BASE[game])
    where = data.draw(st.sampled_from([p for p in paths(round_) if p]
                                      + [(f,) for f in OPTIONAL_FIELDS]
                                      + [("house", o) for o in HOUSE_OPTIONS]))
    put(round_, where, junk)
    refused_or_sound(round_)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GAME_NAMES), st.data(), json_values, json_values)
def test_two_values_replaced(game, data, junk1, junk2):
    round_ = copy.deepcopy(BASE[game])
    spots = [p for p in paths(round_) if p] + [("house", o) for o in HOUSE_OPTIONS]
    put(round_, data.draw(st.sampled_from(spots)), junk1)
    put(round_, data.draw(st.sampled_from(spots)), junk2)
    refused_or_sound(round_)


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_a_round_that_is_not_an_object(junk):
    if isinstance(junk, dict):
        junk = [junk]
    with pytest.raises(RoundError):
        settle_round(junk)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([g for g in GAME_NAMES if "equalise" in get_game(g).resolve_house({})]), st.data(),
       json_values)
def test_equalise_before_the_reveal_refuses_cleanly(game, data, junk):
    round_ = {k: copy.deepcopy(v) for k, v in BASE[game].items() if k in ("game", "house", "bets")}
    where = data.draw(st.sampled_from([p for p in paths(round_) if p and p[0] != "game"]
                                      + [("house", "equalise"), ("house", "x"), ("bets",)]))
    put(round_, where, junk)
    try:
        out = equalise_round(round_)
    except RoundError as err:
        assert str(err) and "\n" not in str(err)
    else:
        json.dumps(out, allow_nan=False)


REGRESSIONS = [
    # (game, path, junk): each found by hand or by the fuzz tests above
    ("echobo", ("bets", 0, "on"), float("nan")),
    ("echobo", ("bets", 0, "on"), float("inf")),
    ("echobo", ("bets", 0, "on"), 10**400),
    ("kakeya-toranpu", ("dealers",), 5),
    ("kakeya-toranpu", ("dealers",), [["bob"], "dan"]),
    ("kakeya-toranpu", ("trump",), ["S"]),
    ("otoroku", ("chosen",), [["ann"]]),
    ("kabu-tsukuri", ("carry",), float("nan")),
    ("atosaki", ("bets", 0, "amount"), 5e-324),
    ("otoroku", ("share",), 1e-300),
    ("atosaki", ("bets", 0, "amount"), 10**400),
    ("kabu-tsukuri", ("bet",), 10**400),
]


@pytest.mark.parametrize("game, where, junk", REGRESSIONS, ids=[f"{g}:{w}" for g, w, _ in REGRESSIONS])
def test_regressions(game, where, junk):
    round_ = copy.deepcopy(BASE[game])
    put(round_, where, junk)
    with pytest.raises(RoundError):
        settle_round(round_)
