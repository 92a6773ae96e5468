"""The dealer's helper for equalising bets (RULES.md §3.1: the dealer stakes the difference on the
lighter side; §10 A5)."""
from fractions import Fraction

import pytest

from dealer.equalise import equalise, equalise_round
from dealer.games import RoundError
from dealer.games.common import Bet

SIDES = ("saki", "ato")


@pytest.mark.parametrize("bets, tops_up, totals, lighter, adds, side", [
    ([], True, {"saki": 0, "ato": 0}, None, 0, None),
    ([("a", "saki", 100), ("b", "ato", 60)], True, {"saki": 100, "ato": 60}, "ato", 40, "ato"),
    ([("a", "ato", 25), ("b", "ato", 5), ("c", "saki", 12)], True, {"saki": 12, "ato": 30}, "saki", 18, "saki"),
    ([("a", "saki", 50), ("b", "ato", 50)], True, {"saki": 50, "ato": 50}, None, 0, None),
    ([("a", "saki", 7)], True, {"saki": 7, "ato": 0}, "ato", 7, "ato"),
    ([("a", "saki", Fraction(5, 2)), ("b", "ato", 1)], True, {"saki": Fraction(5, 2), "ato": 1}, "ato",
     Fraction(3, 2), "ato"),
    ([("a", "saki", 100), ("b", "ato", 60)], False, {"saki": 100, "ato": 60}, "ato", 0, None),
])
def test_equalise(bets, tops_up, totals, lighter, adds, side):
    eq = equalise([Bet(p, on, Fraction(a)) for p, on, a in bets], SIDES, dealer_tops_up=tops_up)
    assert eq.totals == totals
    assert (eq.lighter_side, eq.dealer_adds, eq.dealer_side) == (lighter, adds, side)
    assert eq.difference == abs(totals["saki"] - totals["ato"])
    if tops_up:
        assert len(set(eq.side_totals_after().values())) == 1


def test_equalise_round_reads_only_game_house_and_bets():
    r = equalise_round({"game": "koikoi-atosaki", "bets": [{"player": "a", "on": "ato", "amount": 3}]})
    assert (r["dealer_adds"], r["dealer_side"], r["message"]) == (3, "saki", "the dealer adds 3 on saki")


@pytest.mark.parametrize("round_, message", [
    ({"game": "hankan", "bets": []}, "hankan does not equalise bets"),
    ({"bets": []}, "missing field 'game'"),
    ({"game": "atosaki", "bets": [{"player": "a", "on": "naka-e", "amount": 3}]}, "bet 1 is on 'naka-e'"),
    ({"game": "atosaki", "house": {"equalise": "sometimes"}, "bets": []}, "'equalise' cannot be 'sometimes'"),
])
def test_equalise_round_errors(round_, message):
    with pytest.raises(RoundError, match=message):
        equalise_round(round_)
