"""Bad round files for the row games: each is refused with one RoundError line naming the problem."""
import re
from fractions import Fraction

import pytest

from dealer.games import RoundError, parse_amount, settle_round

SAKI = ["pine-crane", "plum-warbler", "cherry-curtain"]
ATO = ["maple-deer", "susuki-moon", "iris-bridge"]


def batta(**changes):
    r = {"game": "batta-maki", "rows": {"saki": list(SAKI), "ato": list(ATO)},
         "bets": [{"player": "a", "on": "saki", "amount": 10}]}
    for key, value in changes.items():
        if value is None:
            del r[key]
        else:
            r[key] = value
    return r


def bet(**b):
    base = {"player": "a", "on": "saki", "amount": 10}
    base.update(b)
    return base


def hankan(**changes):
    r = {"game": "hankan", "rows": {"naka-e": list(SAKI), "oto-e": list(ATO)},
         "bets": [{"player": "a", "on": "naka-e", "amount": 10}]}
    r.update(changes)
    return r


BAD = [
    # id, round, message (regex)
    ("not an object", ["batta-maki"], "a round must be a JSON object"),
    ("missing game", batta(game=None), "missing field 'game'"),
    ("unknown game", batta(game="koi-koi"), "unknown game 'koi-koi'"),
    ("missing rows", batta(rows=None), "missing field 'rows'"),
    ("rows not an object", batta(rows=[SAKI, ATO]), "field 'rows' must be an object"),
    ("missing row", batta(rows={"saki": SAKI}), "missing row 'ato'"),
    ("unknown row", batta(rows={"saki": SAKI, "ato": ATO, "middle": []}), "unknown row 'middle' in 'rows'"),
    ("row not a list", batta(rows={"saki": "pine-crane", "ato": ATO}), "row 'saki' must be a list of card ids"),
    ("row too short", batta(rows={"saki": SAKI[:2], "ato": ATO}), "row 'saki' must have 3 cards, not 2"),
    ("row too long", batta(rows={"saki": SAKI, "ato": ATO + ["pine-chaff-1"]}), "row 'ato' must have 3 cards, not 4"),
    ("koikoi rows of 3", dict(batta(), game="koikoi-atosaki"), "row 'saki' must have 4 cards, not 3"),
    ("unknown card", batta(rows={"saki": ["pine-cran"] + SAKI[1:], "ato": ATO}),
     r"unknown card 'pine-cran' in row 'saki' \(card 1\) \(did you mean pine-crane"),
    ("face-down card", batta(rows={"saki": SAKI, "ato": ["back"] + ATO[1:]}), r"a card in row 'ato' \(card 1\) is face down \('back'\): every card must be revealed"),
    ("card id not a string", batta(rows={"saki": SAKI, "ato": [12] + ATO[1:]}), "unknown card 12 in row 'ato'"),
    ("card not in deck", dict(batta(), game="mutsu-wari", rows={"saki": SAKI, "ato": ["willow-rainman"] + ATO[1:]}),
     "card 'willow-rainman' in row 'ato' .card 1. is not in the deck of mutsu-wari"),
    ("card dealt twice", batta(rows={"saki": SAKI, "ato": ["pine-crane"] + ATO[1:]}),
     r"card 'pine-crane' is dealt more than once \(in row 'saki' \(card 1\), again in row 'ato' \(card 1\): "
     r"one of them is another card\)"),
    ("missing bets", batta(bets=None), "missing field 'bets'"),
    ("bets not a list", batta(bets={"a": 10}), "field 'bets' must be a list"),
    ("bet not an object", batta(bets=[10]), "bet 1 must be an object"),
    ("bet without amount", batta(bets=[{"player": "a", "on": "saki"}]), "bet 1 is missing field 'amount'"),
    ("bet without player", batta(bets=[{"on": "saki", "amount": 1}]), "bet 1 is missing field 'player'"),
    ("bet with a misspelt field", batta(bets=[bet(amout=99)]),
     r"bet 1 has a field 'amout' that a bet does not have \(did you mean 'amount'\?\); a bet is player, on and amount"),
    # written instead of amount (the usual slip): named, not only "missing field 'amount'"
    ("bet with amount misspelt", batta(bets=[{"player": "a", "on": "saki", "amout": 99}]),
     r"bet 1 has a field 'amout' that a bet does not have \(did you mean 'amount'\?\)"),
    ("bet with empty player", batta(bets=[bet(player=" ")]), "bet 1: player must be a non-empty name"),
    ("dealer as a player", batta(bets=[bet(player="dealer")]), "'dealer' is the bank"),
    ("bet on a row that does not exist", batta(bets=[bet(), bet(player="b", on="middle")]),
     "bet 2 is on 'middle', which does not exist in this game"),
    ("bet on a Hankan row in Batta Maki", batta(bets=[bet(on="naka-e")]), "bet 1 is on 'naka-e'"),
    ("bet on shi-e", hankan(bets=[bet(on="shi-e")]), "bet 1 is on 'shi-e', which is shown for reference only"),
    ("zero bet", batta(bets=[bet(amount=0)]), "bet 1 amount must be a positive number, not 0"),
    ("negative bet", batta(bets=[bet(amount=-5)]), "bet 1 amount must be a positive number, not -5"),
    ("bet as a string", batta(bets=[bet(amount="10")]), "bet 1 amount must be a positive number, not '10'"),
    ("bet as true", batta(bets=[bet(amount=True)]), "bet 1 amount must be a positive number, not True"),
    ("bet as null", batta(bets=[bet(amount=None)]), "bet 1 amount must be a positive number, not None"),
    ("bet infinite", batta(bets=[bet(amount=float("inf"))]), "bet 1 amount must be a positive number"),
    ("bet too small to count", batta(bets=[bet(amount=5e-324)]), "bet 1 amount is 5e-324, below the smallest amount"),
    ("bet too large", batta(bets=[bet(amount=10**13)]), "bet 1 amount is 10000000000000, above the largest amount"),
    ("player on both sides", batta(bets=[bet(), bet(on="ato")]),
     "player 'a' bets on both 'saki' and 'ato'; a player may bet on one side only"),
    ("house not an object", batta(house=["push"]), "'house' must be an object"),
    ("unknown house option", batta(house={"tie": "push"}), "unknown house option 'tie' for batta-maki"),
    ("bad deck_count", batta(house={"deck_count": 3}), "house option 'deck_count' cannot be 3"),
    ("deck_count as a string", batta(house={"deck_count": "2"}), "house option 'deck_count' cannot be '2'"),
    ("deck_count for atosaki", dict(batta(), game="atosaki", house={"deck_count": 2}),
     "unknown house option 'deck_count' for atosaki"),
    ("bad tie_rule", batta(house={"tie_rule": "coin"}), "house option 'tie_rule' cannot be 'coin'"),
    ("bad fee_model", batta(house={"fee_model": "fixed"}), "house option 'fee_model' cannot be 'fixed'"),
    ("buta_han in shoniban", dict(hankan(), game="shoniban", house={"fee_model": "buta_han"}),
     "house option 'fee_model' cannot be 'buta_han'"),
    ("fee_rate 1.5", batta(house={"fee_model": "percent", "fee_rate": 1.5}), "house option 'fee_rate' cannot be 1.5"),
    ("fee_rate as text", batta(house={"fee_model": "percent", "fee_rate": "10%"}), "house option 'fee_rate' cannot be '10%'"),
    ("fee_rate without percent", batta(house={"fee_rate": 0.05}), "'fee_rate' needs fee_model 'percent'"),
    ("bad card_points_table", batta(house={"card_points_table": "tensho"}), "'card_points_table' cannot be 'tensho'"),
    ("bad equalise", batta(house={"equalise": "never"}), "house option 'equalise' cannot be 'never'"),
    ("above max_bet", batta(house={"max_bet": 5}), "player 'a' stakes 10 on 'saki', above the house's max_bet 5"),
    ("max_bet counts a player's total", batta(bets=[bet(amount=6), bet(amount=6)], house={"max_bet": 10}),
     "player 'a' stakes 12 on 'saki', above the house's max_bet 10"),
    ("below min_bet", hankan(house={"min_bet": 20}), "player 'a' stakes 10 on 'naka-e', below the house's min_bet 20"),
    ("min_bet above max_bet", batta(house={"min_bet": 20, "max_bet": 10}), "'min_bet' .20. is above 'max_bet' .10."),
    ("max_bet not a number", batta(house={"max_bet": "lots"}), "house option 'max_bet' cannot be 'lots'"),
    ("min_bet too small to count", batta(house={"min_bet": 1e-9}), "house option 'min_bet' cannot be 1e-09"),
    ("carry in hankan", hankan(carry=10), "field 'carry' does not apply here: hankan has no carried pot"),
    ("redraws in shoniban", dict(hankan(), game="shoniban", redraws=[]), "field 'redraws' does not apply here"),
    ("deck_exhausted without redraw", dict(batta(), deck_exhausted=True),
     "field 'deck_exhausted' does not apply here: the tie rule is 'push', not 'redraw'"),
    ("negative carry", dict(batta(), game="atosaki", carry=-5), "'carry' .the pot carried in. must be a positive number"),
    ("carry as text that is no amount", dict(batta(), game="atosaki", carry="five"),
     "'carry' .the pot carried in. must be a positive number, or its exact amount as text"),
]


@pytest.mark.parametrize("round_, message", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_round_is_refused_with_one_line(round_, message):
    with pytest.raises(RoundError, match=message) as info:
        settle_round(round_)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("amounts, house", [
    ([6, 4], {"min_bet": 10, "max_bet": 10}),
    # RULES.md §3.1 wager limits: a stake exactly at a decimal limit is within it (0.1 is not the binary
    # 0.1000000000000000055...)
    ([0.1], {"min_bet": 0.1}),
    ([0.1, 0.2], {"min_bet": 0.3, "max_bet": 0.3}),
    ([2.675], {"min_bet": 2.675, "max_bet": 2.675}),
])
def test_wager_limits_met(amounts, house):
    r = settle_round(batta(bets=[bet(amount=a) for a in amounts], house=house))
    assert r["players"]["a"]["stake"] == pytest.approx(sum(amounts))


@pytest.mark.parametrize("value, amount", [
    (10, Fraction(10)), (0.1, Fraction(1, 10)), (2.5, Fraction(5, 2)), (0.333333, Fraction(333333, 10**6)),
    (999999999999.5, Fraction(1999999999999, 2)),      # exact as written, not a nearby binary fraction
    (1e-6, Fraction(1, 10**6)), (10**12, Fraction(10**12)),
])
def test_amounts_are_counted_to_six_decimals(value, amount):
    assert parse_amount(value, "bet") == amount


@pytest.mark.parametrize("value", [0.3333333333333333, 2.0000004, 1.0000004, 0.0000015])
def test_an_amount_of_more_decimals_is_refused_not_rounded(value):
    # rounded, a bet of 1.0000004 in a round file was settled as 1 (the page refused it already)
    with pytest.raises(RoundError, match=f"bet is {value!r}: amounts are counted to 6 decimals"):
        parse_amount(value, "bet")


def test_large_amounts_settle_to_exact_decimals():
    r = batta(game="atosaki", bets=[bet(amount=999999999999.5), bet(player="b", amount=0.25),
                                    bet(player="c", on="ato", amount=999999999999.123456)])
    out = settle_round(r)
    assert out["net"] == {"a": 999999999999.5, "b": 0.25, "c": -999999999999.1234, "dealer": -0.6266}
    assert "net_exact" not in out


TIED = {"saki": ["pine-crane", "plum-chaff-1", "cherry-curtain"], "ato": ["wisteria-cuckoo", "iris-bridge", "clover-boar"]}


def test_a_pot_carried_that_a_json_number_cannot_hold_is_given_exactly_and_taken_back_so():
    tied = batta(rows=TIED, house={"tie_rule": "carry_over"},
                 bets=[bet(amount=12345678901.2345), bet(player="b", amount=0.000001)])
    out = settle_round(tied)
    assert out["carry"] == 24691357802.469 and out["carry_exact"] == "12345678901234501/500000"
    won = settle_round(batta(carry=out["carry_exact"]))
    assert Fraction(won["carry_in"]) != Fraction(out["carry_exact"])  # (the JSON number rounds it)
    assert sum(Fraction(v) for v in won["net_exact"].values()) == Fraction(out["carry_exact"])
    # a pot a number holds exactly needs no text
    assert "carry_exact" not in settle_round(batta(rows=TIED, house={"tie_rule": "carry_over"}))


@pytest.mark.parametrize("carry, message", [
    ("ten", "'carry' (the pot carried in) must be a positive number, or its exact amount as text, not 'ten'"),
    ("1/0", "must be a positive number, or its exact amount as text"),
    ("-5", "must be a positive number, or its exact amount as text"),
    ("0/5", "a pot is above 0 and at most"),
    ("1e100000000", "must be a positive number, or its exact amount as text"),  # (took Fraction minutes)
    ("1/3", "amounts are counted to 6 decimals"),
])
def test_a_pot_carried_as_text_that_is_no_amount_is_refused(carry, message):
    with pytest.raises(RoundError, match=re.escape(message)):
        settle_round(batta(carry=carry))


@pytest.mark.parametrize("bets", [
    [bet(player="Jos\u00e9", amount=100), bet(player="Jose\u0301", on="ato", amount=100)],   # both sides
    [bet(player="Jos\u00e9", on="ato", amount=100), bet(player="Jose\u0301", on="ato", amount=100)],  # past max_bet
])
def test_one_name_written_two_ways_is_refused_not_taken_for_two_bettors(bets):
    # the ledger takes them as one player: one person bet on both sides, or 200 past a limit of 100
    with pytest.raises(RoundError, match="are one name written two ways"):
        settle_round(batta(bets=bets, house={"max_bet": 100}))


def test_the_bank_is_no_bettor_however_it_is_written():
    with pytest.raises(RoundError, match="bet 1: 'Dealer' is the bank, not a player name"):
        settle_round(batta(bets=[bet(player="Dealer")]))


_ROWS = {"saki": ["pine-crane", "plum-warbler", "cherry-curtain"], "ato": ["iris-bridge", "maple-deer", "willow-swallow"]}


@pytest.mark.parametrize("name, round_doc, said", [
    # each just past its limit, where a limit moved by a step (10^12 + 1, a fee of 100%, a stake a
    # half past) had passed every test
    ("pot as text above 10^12", {"carry": "1000000000000.5"}, "a pot is above 0 and at most 1000000000000"),
    ("bet a half above the largest amount", {"bets": [{"player": "ann", "on": "saki", "amount": 10**12 + 0.5}]},
     "above the largest amount 1000000000000"),
    ("a fee of 100%", {"house": {"fee_model": "percent", "fee_rate": 1}}, "house option 'fee_rate' cannot be 1"),
    ("a stake a half over max_bet", {"house": {"max_bet": 10}, "bets": [{"player": "ann", "on": "saki", "amount": 10.5}]},
     "stakes 10.5 on 'saki', above the house's max_bet 10"),
    ("a stake a half under min_bet", {"house": {"min_bet": 10}, "bets": [{"player": "ann", "on": "saki", "amount": 9.5}]},
     "stakes 9.5 on 'saki', below the house's min_bet 10"),
])
def test_amounts_just_past_a_limit_are_refused(name, round_doc, said):
    doc = {"game": "batta-maki", "rows": _ROWS, "bets": [{"player": "ann", "on": "saki", "amount": 100}], **round_doc}
    with pytest.raises(RoundError, match=re.escape(said)):
        settle_round(doc)
    at_limit = {"carry": "1000000000000", "house": {"fee_model": "percent", "fee_rate": 0.99}}
    if name in ("pot as text above 10^12", "a fee of 100%"):  # (the limit itself is taken)
        key = "carry" if "pot" in name else "house"
        assert settle_round({**doc, key: at_limit[key]})["game"] == "batta-maki"


def test_echobo_stakes_just_over_the_bet_limit_are_refused():
    doc = {"game": "echobo", "dealer_card": "pine-crane", "house": {"bet_mode": "limit_per_player", "bet_limit": 40},
           "bets": [{"player": "ann", "on": 1, "amount": 20}, {"player": "ann", "on": 2, "amount": 20.5}]}
    with pytest.raises(RoundError, match="ann stakes 40.5 in all, over the bet_limit 40"):
        settle_round(doc)
    doc["bets"][1]["amount"] = 20
    assert settle_round(doc)["game"] == "echobo"
