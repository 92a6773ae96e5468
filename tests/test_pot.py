"""Who put in a pot carried over from a tie (dealer/pot.py): a pot given up goes back to them."""
import json
from fractions import Fraction
from pathlib import Path

from dealer.games import settle_round
from dealer.pot import pot_stakers

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
LOW = ["pine-crane", "plum-chaff-1", "cherry-chaff-1"]        # 1+2+3: 6
SAME = ["pine-chaff-1", "plum-warbler", "cherry-curtain"]      # 1+2+3: 6, a tie


def atosaki_tie(bets, carry=0):
    round_ = {"game": "atosaki", "house": {"tie_rule": "carry_over"}, "rows": {"saki": LOW, "ato": SAME},
              "bets": [{"player": p, "on": on, "amount": a} for p, on, a in bets]}
    if carry:
        round_["carry"] = carry
    return settle_round(round_)


def test_a_tie_carries_every_stake_and_a_second_tie_adds_its_own():
    first = atosaki_tie([("a", "saki", 100), ("b", "ato", 60)])
    assert first["carry"] == 200  # (the dealer tops Ato up to 100)
    stakers = pot_stakers(first, {})
    assert stakers == {"a": 100, "b": 60, "dealer": 40}
    second = atosaki_tie([("a", "saki", 10), ("c", "ato", 10)], carry=200)
    assert pot_stakers(second, stakers) == {"a": 110, "b": 60, "c": 10, "dealer": 40}
    assert sum(pot_stakers(second, stakers).values()) == second["carry"] == 220


def test_a_pot_won_has_no_stakers_left():
    won = settle_round({"game": "atosaki", "rows": {"saki": LOW, "ato": ["maple-deer", "susuki-moon", "pine-chaff-2"]},
                        "bets": [{"player": "a", "on": "saki", "amount": 10}], "carry": 200})
    assert won["carry"] == 0 and pot_stakers(won, {"a": Fraction(200)}) == {}


def test_kabu_tsukuri_the_antes_of_the_rows_drawn_at_the_end_of_the_hand():
    # the documented hand: row 1 won (with the 15 carried in), row 2 won, row 3 drawn: its pot of 30
    # is the three players' antes of 10
    result = settle_round(json.loads((EXAMPLES / "kabu-tsukuri.json").read_text(encoding="utf-8")))
    assert result["carry"] == 30
    assert pot_stakers(result, {"x": Fraction(15)}) == {"ann": 10, "bob": 10, "cat": 10}
    # every row drawn: the pot carried in stays its stakers', and each row's antes are added
    drawn = dict(result, rounds=[dict(r, winner="tie", pot=pot) for r, pot in zip(result["rounds"], (45, 75, 105))],
                 carry=105)
    assert pot_stakers(drawn, {"x": Fraction(15)}) == {"x": 15, "ann": 30, "bob": 30, "cat": 30}


def test_a_pot_of_unknown_stakers_or_of_another_shape_is_the_dealers_to_hand_back():
    second = atosaki_tie([("a", "saki", 10), ("c", "ato", 10)], carry=200)
    # the pot carried in named when the session started: nobody known put it in
    assert pot_stakers(second, {}) == {"dealer": 200, "a": 10, "c": 10}
    assert pot_stakers({"carry": 50, "net": {"a": 10, "b": -10}}, {}) == {"dealer": 50}
