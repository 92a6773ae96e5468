"""Who put in a pot carried over from a tie (dealer/pot.py): a pot given up goes back to them."""
import json
from fractions import Fraction
from pathlib import Path

import pytest

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


def test_kabu_tsukuri_a_pot_as_large_as_the_one_carried_in_may_be_another():
    # the pot of 2 carried in was won by row 1, and row 3 drawn carried the same 2 out: the antes of
    # Aki and Ben, not the dealer's pot of before (he got back chips Aki had won)
    result = {"carry": 2, "carry_in": 2, "net": {"Aki": 3, "Ben": -1},
              "rounds": [{"row": 1, "pot": 4, "winner": "Aki"}, {"row": 2, "pot": 2, "winner": "Ben"},
                         {"row": 3, "pot": 2, "winner": "tie"}]}
    assert pot_stakers(result, {"dealer": Fraction(2)}, Fraction(2)) == {"Aki": 1, "Ben": 1}


def test_a_pot_of_unknown_stakers_or_of_another_shape_is_the_dealers_to_hand_back():
    second = atosaki_tie([("a", "saki", 10), ("c", "ato", 10)], carry=200)
    # the pot carried in named when the session started: nobody known put it in
    assert pot_stakers(second, {}) == {"dealer": 200, "a": 10, "c": 10}
    assert pot_stakers({"carry": 50, "net": {"a": 10, "b": -10}}, {}) == {"dealer": 50}


def test_a_pot_the_dealer_takes_the_stakes_beside_keeps_its_stakers():
    # under dealer_takes_all the round's stakes went to the dealer, not into the pot: counted into it,
    # the parts no longer added up and the whole pot became the dealer's
    round_ = {"game": "atosaki", "house": {"tie_rule": "dealer_takes_all"}, "rows": {"saki": LOW, "ato": SAME},
              "bets": [{"player": "a", "on": "saki", "amount": 10}, {"player": "b", "on": "ato", "amount": 10}],
              "carry": 200}
    taken = settle_round(round_)
    assert taken["carry"] == 200 and taken["net"] == {"a": -10, "b": -10, "dealer": 20}
    stakers = {"a": Fraction(100), "b": Fraction(60), "dealer": Fraction(40)}
    assert pot_stakers(taken, stakers, Fraction(200)) == stakers


def test_a_pot_too_large_for_a_json_number_keeps_its_stakers_exactly():
    # the result's carry_in is a JSON number: 100000000000.1 and its millionths compared unequal to
    # the exact stakers, and the pot became the dealer's
    first = atosaki_tie([("a", "saki", 100000000000.1), ("c", "saki", 0.000001), ("b", "ato", 0.000003)])
    stakers = pot_stakers(first, {})
    assert sum(stakers.values()) == Fraction(first["carry_exact"]) == Fraction("200000000000.200002")
    second = atosaki_tie([("a", "saki", 1), ("b", "ato", 1)], carry=first["carry_exact"])
    again = pot_stakers(second, stakers, sum(stakers.values()))
    assert again == {p: stakers[p] + (1 if p in ("a", "b") else 0) for p in stakers}


def test_the_books_say_who_put_in_the_pot_they_hold():
    from dealer.pot import stakers_on_the_books
    first = atosaki_tie([("a", "saki", 100), ("b", "ato", 60)])
    second = atosaki_tie([("a", "saki", 10), ("c", "ato", 10)], carry=200)
    won = settle_round({"game": "atosaki", "rows": {"saki": LOW, "ato": ["maple-deer", "susuki-moon", "pine-chaff-2"]},
                        "bets": [{"player": "a", "on": "saki", "amount": 10}], "carry": 220})
    assert stakers_on_the_books([second, first]) == {"a": 110, "b": 60, "c": 10, "dealer": 40}
    assert stakers_on_the_books([won, second, first]) == {}
    assert stakers_on_the_books([first, won]) == {"a": 100, "b": 60, "dealer": 40}
    assert stakers_on_the_books([second]) == {"dealer": 220}  # (the books begin after its first tie)
    assert stakers_on_the_books([]) == {}


def test_a_round_whose_record_cannot_be_read_is_told_by_its_bookings():
    from dealer.pot import carried, result_from_bookings, stakers_on_the_books
    first = atosaki_tie([("a", "saki", 100), ("b", "ato", 60)])
    second = atosaki_tie([("a", "saki", 10), ("c", "ato", 10)], carry=200)
    booked = {p: Fraction(str(a)) for p, a in second["net"].items()}
    told = result_from_bookings(booked, Fraction(200))
    assert carried(told) == carried(second) == 220
    # the stakers are those of the round itself, as far as its bookings say them
    assert stakers_on_the_books([told, first]) == stakers_on_the_books([second, first])
    won = settle_round({"game": "atosaki", "rows": {"saki": LOW, "ato": ["maple-deer", "susuki-moon", "pine-chaff-2"]},
                        "bets": [{"player": "a", "on": "saki", "amount": 10}], "carry": 220})
    told_won = result_from_bookings({p: Fraction(str(a)) for p, a in won["net"].items()}, Fraction(220))
    assert carried(told_won) == 0 and stakers_on_the_books([told_won, told, first]) == {}
    # a pot carried in as a JSON number is off by what it rounded away: not a pot of its own
    assert carried(result_from_bookings({"a": Fraction(1, 3)}, Fraction(1, 3) + Fraction(1, 10**7))) == 0
    # bookings paying out more than the pot there was are no round's: said, not taken as a pot
    with pytest.raises(ValueError, match="more than the pot of 200"):
        result_from_bookings({"a": Fraction(250), "dealer": Fraction(-10)}, Fraction(200))


def test_a_pot_is_said_only_by_a_result_whose_amounts_are_amounts():
    from dealer.pot import pot_said, result_from_bookings, stakers_on_the_books
    tie = atosaki_tie([("a", "saki", 100), ("b", "ato", 60)])
    assert pot_said(tie) == 200 and pot_said({}) is None and pot_said(None) is None
    assert pot_said(dict(tie, carry_in="1/0")) is None and pot_said(dict(tie, net={"a": "x"})) is None
    assert pot_said(dict(tie, rounds=[{"pot": None, "winner": "tie"}])) is None
    # bookings that do not say who lost what into the pot (Kabu-Tsukuri's): the dealer hands it back
    told = result_from_bookings({"a": Fraction(-10), "b": Fraction(-30)}, Fraction(0), stakers_known=False)
    assert stakers_on_the_books([told]) == {"dealer": 40}


@pytest.mark.parametrize("amount, said", [
    ("1/0", "amount must be a number, not '1/0'"), (float("inf"), "must be a finite number, not inf"),
    (float("nan"), "must be a finite number, not nan"), (True, "must be a number, not True"),
    ([1], r"must be a number, not \[1\]")])
def test_an_amount_that_is_no_number_is_a_value_error_naming_it(amount, said):
    # a carried pot read from a damaged record is caught as a ValueError by every reader; a
    # ZeroDivisionError or OverflowError went past the ones that did not name those too
    from dealer.pot import carried, exact
    with pytest.raises(ValueError, match=said):
        exact(amount)
    with pytest.raises(ValueError, match=said):
        carried({"carry_exact": amount})
    assert exact(0.1) == Fraction(1, 10) and exact("40/3") == Fraction(40, 3)
