"""Batta Maki, Atosaki, Koi-Koi no Atosaki, Mutsu-wari (RULES.md §3.1-3.4, §10 A1-A5, A9).

Each case: the cards of Saki and Ato, the bets, the house options, and the scores, winner and nets
worked out by hand from the rules."""
from fractions import Fraction

import pytest

from dealer.games import RoundError, get_game, settle_round
from dealer.games.batta_maki import play, score_row, standard_value, atosaki_value, mutsu_wari_value

# Sets used below, with their values worked out by hand.
# standard months: 1+2+3 = 6; Atosaki the same
LOW = ["pine-crane", "plum-warbler", "cherry-curtain"]
# standard 10+11+5 = 26 -> 6; Atosaki 10+10+5 = 25 -> 5
MAPLE_WILLOW_IRIS = ["maple-deer", "willow-rainman", "iris-bridge"]
# 8+7+6 = 21 -> 1 (both maps)
MOON_BOAR_PEONY = ["susuki-moon", "clover-boar", "peony-butterflies"]
# standard 12+11+1 = 24 -> 4; Atosaki 10+10+1 = 21 -> 1
PHOENIX_SWALLOW_PINE = ["paulownia-phoenix", "willow-swallow", "pine-chaff-1"]
# 4+6+10 = 20 -> 0: a buta
BUTA = ["wisteria-cuckoo", "peony-blue", "maple-chaff-1"]
# 9+1+... : 9+8+2 = 19 -> 9
NINE = ["chrysanthemum-sake", "susuki-geese", "plum-poetry"]


def round_(game, saki, ato, bets, house=None, **extra):
    r = {"game": game, "rows": {"saki": saki, "ato": ato},
         "bets": [{"player": p, "on": on, "amount": a} for p, on, a in bets]}
    if house is not None:
        r["house"] = house
    r.update(extra)
    return r


# --- values and scores ----------------------------------------------------------------------

@pytest.mark.parametrize("game, cards, values, score", [
    ("batta-maki", LOW, [1, 2, 3], 6),
    ("batta-maki", MAPLE_WILLOW_IRIS, [10, 11, 5], 6),
    ("batta-maki", PHOENIX_SWALLOW_PINE, [12, 11, 1], 4),
    ("batta-maki", BUTA, [4, 6, 10], 0),
    ("atosaki", MAPLE_WILLOW_IRIS, [10, 10, 5], 5),        # November counts 10
    ("atosaki", PHOENIX_SWALLOW_PINE, [10, 10, 1], 1),     # December counts 10
    ("mutsu-wari", ["maple-deer", "maple-blue", "maple-chaff-1"], [10, 10, 10], 0),  # October 10 -> 0
    ("mutsu-wari", NINE, [9, 8, 2], 9),
])
def test_set_values_and_score(game, cards, values, score):
    r = settle_round(round_(game, cards, ["susuki-chaff-1", "susuki-chaff-2", "clover-chaff-1"], []))
    assert r["rows"]["saki"]["values"] == values
    assert r["rows"]["saki"]["total"] == sum(values)
    assert r["scores"]["saki"] == score


def test_koikoi_atosaki_scores_sets_of_four():
    saki = ["pine-crane", "plum-warbler", "cherry-curtain", "paulownia-phoenix"]   # 1+2+3+10 = 16 -> 6
    ato = ["willow-rainman", "maple-deer", "susuki-moon", "iris-bridge"]           # 10+10+8+5 = 33 -> 3
    r = settle_round(round_("koikoi-atosaki", saki, ato, [("a", "ato", 10)]))
    assert r["scores"] == {"saki": 6, "ato": 3}
    assert r["winner"] == "saki"
    assert r["net"] == {"a": -10, "dealer": 10}


def test_value_maps():
    from dealer.cards import get_card
    assert standard_value(get_card("paulownia-chaff-3")) == 12
    assert atosaki_value(get_card("paulownia-chaff-3")) == 10
    assert atosaki_value(get_card("willow-lightning")) == 10
    assert atosaki_value(get_card("maple-chaff-1")) == 10
    assert mutsu_wari_value(get_card("maple-chaff-1")) == 10


def test_score_is_ones_digit_whatever_the_order():
    a = score_row(["maple-deer", "willow-rainman", "iris-bridge"], standard_value)
    b = score_row(["iris-bridge", "maple-deer", "willow-rainman"], standard_value)
    assert (a.total, a.score, a.card_points) == (b.total, b.score, b.card_points) == (26, 6, 40)


# --- decks ----------------------------------------------------------------------------------

@pytest.mark.parametrize("game, house, size, copies", [
    ("batta-maki", {}, 48, 1),
    ("batta-maki", {"deck_count": 2}, 96, 2),
    ("atosaki", {}, 48, 1),
    ("koikoi-atosaki", {}, 48, 1),
    ("mutsu-wari", {}, 40, 1),
    ("mutsu-wari", {"deck_count": 2}, 80, 2),
])
def test_decks(game, house, size, copies):
    g = get_game(game)
    deck = g.deck(g.resolve_house(house))
    assert sum(deck.values()) == size
    assert set(deck.values()) == {copies}


def test_mutsu_wari_has_no_willow_or_paulownia():
    deck = get_game("mutsu-wari").deck({"deck_count": 1})
    assert not any(c.startswith(("willow", "paulownia")) for c in deck)
    with pytest.raises(RoundError, match="'willow-rainman' in row 'saki' .* is not in the deck of mutsu-wari"):
        settle_round(round_("mutsu-wari", MAPLE_WILLOW_IRIS, LOW, []))


def test_two_decks_allow_a_card_twice_but_not_three_times():
    twice = ["pine-crane", "pine-crane", "plum-warbler"]
    with pytest.raises(RoundError, match="'pine-crane' is dealt more than once"):
        settle_round(round_("batta-maki", twice, MAPLE_WILLOW_IRIS, []))
    r = settle_round(round_("batta-maki", twice, MAPLE_WILLOW_IRIS, [], {"deck_count": 2}))
    assert r["scores"]["saki"] == 4
    with pytest.raises(RoundError, match="'pine-crane' is dealt more than 2 times"):
        settle_round(round_("batta-maki", twice, ["pine-crane"] + MAPLE_WILLOW_IRIS[1:], [], {"deck_count": 2}))


def test_layout():
    zones = get_game("batta-maki").layout({})
    assert [(z.name, z.cards, z.label_en, z.label_ja, z.scored) for z in zones] == [
        ("saki", 3, "Saki", "先", True), ("ato", 3, "Ato", "後", True)]
    assert [z.cards for z in get_game("koikoi-atosaki").layout({})] == [4, 4]
    assert get_game("atosaki").bet_targets({}) == ["saki", "ato"]


# --- settlement: who wins, who pays whom ------------------------------------------------------

BETS = [("a", "saki", 100), ("b", "ato", 60)]          # the dealer adds 40 on ato

CASES = [
    # id, game, saki, ato, bets, house, winner, decided_by, nets, fee
    ("bm ato wins, dealer topped up ato",
     "batta-maki", MOON_BOAR_PEONY, PHOENIX_SWALLOW_PINE, BETS, {}, "ato", "score",
     {"a": -100, "b": 60, "dealer": 40}, 0),
    ("bm saki wins",
     "batta-maki", NINE, LOW, BETS, {}, "saki", "score", {"a": 100, "b": -60, "dealer": -40}, 0),
    ("bm 10% fee on the winners' profit",
     "batta-maki", MOON_BOAR_PEONY, PHOENIX_SWALLOW_PINE, BETS, {"fee_model": "percent"}, "ato", "score",
     {"a": -100, "b": 54, "dealer": 46}, 6),
    ("bm fee at another rate",
     "batta-maki", NINE, LOW, BETS, {"fee_model": "percent", "fee_rate": 0.05}, "saki", "score",
     {"a": 95, "b": -60, "dealer": -35}, 5),
    ("bm buta-han: losing set is a buta, half the profit kept",
     "batta-maki", NINE, BUTA, BETS, {"fee_model": "buta_han"}, "saki", "score",
     {"a": 50, "b": -60, "dealer": 10}, 50),
    ("bm buta-han: losing set not a buta, no fee",
     "batta-maki", NINE, LOW, BETS, {"fee_model": "buta_han"}, "saki", "score",
     {"a": 100, "b": -60, "dealer": -40}, 0),
    # the boundaries next to a buta: a losing score of 1, and of 9 (two nines, card points breaking
    # the tie) charge nothing (only a random property test told a fee on 1 from none)
    ("bm buta-han: losing set scores 1, no fee",
     "batta-maki", NINE, MOON_BOAR_PEONY, BETS, {"fee_model": "buta_han"}, "saki", "score",
     {"a": 100, "b": -60, "dealer": -40}, 0),
    ("bm buta-han: losing set scores 9 (a tie broken by card points), no fee",
     "batta-maki", NINE, ["chrysanthemum-chaff-1", "susuki-chaff-1", "plum-chaff-1"], BETS,
     {"fee_model": "buta_han", "tie_rule": "card_points"}, "saki", "card_points",
     {"a": 100, "b": -60, "dealer": -40}, 0),
    ("bm buta-han: losing raw total 30 ends in 0 too",
     "batta-maki", NINE, ["maple-deer", "maple-blue", "maple-chaff-1"], [("a", "saki", 10)],
     {"fee_model": "buta_han"}, "saki", "score", {"a": 5, "dealer": -5}, 5),
    ("bm tie pushes by default",
     "batta-maki", LOW, MAPLE_WILLOW_IRIS, BETS, {}, "tie", None, {"a": 0, "b": 0, "dealer": 0}, 0),
    ("bm tie: dealer takes all",
     "batta-maki", LOW, MAPLE_WILLOW_IRIS, BETS, {"tie_rule": "dealer_takes_all"}, "tie", None,
     {"a": -100, "b": -60, "dealer": 160}, 0),
    ("bm tie: card points (standard) 50 vs 40",
     "batta-maki", LOW, MAPLE_WILLOW_IRIS, BETS, {"tie_rule": "card_points"}, "saki", "card_points",
     {"a": 100, "b": -60, "dealer": -40}, 0),
    ("bm tie: raw total 6 vs 26",
     "batta-maki", LOW, MAPLE_WILLOW_IRIS, BETS, {"tie_rule": "raw_total"}, "ato", "raw_total",
     {"a": -100, "b": 60, "dealer": 40}, 0),
    ("bm no bets at all",
     "batta-maki", NINE, LOW, [], {}, "saki", "score", {"dealer": 0}, 0),
    ("bm several players on each side, same player twice on one side",
     "batta-maki", NINE, LOW, [("a", "saki", 30), ("c", "saki", 20), ("a", "saki", 10), ("b", "ato", 100)],
     {"fee_model": "percent"}, "saki", "score", {"a": 36, "c": 18, "b": -100, "dealer": 46}, 6),
    ("bm equal bets need no top-up",
     "batta-maki", NINE, LOW, [("a", "saki", 50), ("b", "ato", 50)], {"equalise": "required"}, "saki", "score",
     {"a": 50, "b": -50, "dealer": 0}, 0),
    ("atosaki: the winners split the pot pro rata (dealer 90 on ato)",
     "atosaki", MOON_BOAR_PEONY, MAPLE_WILLOW_IRIS, [("a", "saki", 100), ("c", "saki", 50), ("b", "ato", 60)],
     {}, "ato", "score", {"a": -100, "c": -50, "b": 60, "dealer": 90}, 0),
    ("atosaki: Dec counts 10 so this is a tie, broken by card points 40 vs 31",
     "atosaki", MOON_BOAR_PEONY, PHOENIX_SWALLOW_PINE, BETS, {}, "saki", "card_points",
     {"a": 100, "b": -60, "dealer": -40}, 0),
    ("atosaki: same cards in Batta Maki are no tie",
     "batta-maki", MOON_BOAR_PEONY, PHOENIX_SWALLOW_PINE, BETS, {}, "ato", "score",
     {"a": -100, "b": 60, "dealer": 40}, 0),
    ("atosaki: tie push",
     "atosaki", MOON_BOAR_PEONY, PHOENIX_SWALLOW_PINE, BETS, {"tie_rule": "push"}, "tie", None,
     {"a": 0, "b": 0, "dealer": 0}, 0),
    ("atosaki: fee percent is allowed",
     "atosaki", MOON_BOAR_PEONY, MAPLE_WILLOW_IRIS, BETS, {"fee_model": "percent"}, "ato", "score",
     {"a": -100, "b": 54, "dealer": 46}, 6),
    ("bm buta-han when card points break a tie of two butas (§10 A2: the losing set ends in 0)",
     "batta-maki", BUTA, ["pine-crane", "clover-boar", "plum-chaff-1"], BETS,
     {"fee_model": "buta_han", "tie_rule": "card_points"}, "ato", "card_points",
     {"a": -100, "b": 30, "dealer": 70}, 30),
    ("koikoi-atosaki: sets of 4, Nov/Dec count 10, a 0-0 tie goes to card points 23 vs 22 (§3.2, §3.3)",
     "koikoi-atosaki", ["pine-crane", "plum-chaff-1", "cherry-chaff-1", "wisteria-chaff-1"],
     ["maple-deer", "willow-swallow", "paulownia-chaff-1", "maple-chaff-1"], BETS, {}, "saki", "card_points",
     {"a": 100, "b": -60, "dealer": -40}, 0),
    ("mutsu-wari: October 10 -> 0 loses to 9",
     "mutsu-wari", ["maple-deer", "maple-blue", "maple-chaff-1"], ["pine-crane", "maple-chaff-2", "susuki-moon"],
     BETS, {}, "ato", "score", {"a": -100, "b": 60, "dealer": 40}, 0),
    ("mutsu-wari: ties push by default (as Batta Maki)",
     "mutsu-wari", ["pine-crane", "plum-warbler", "cherry-curtain"], ["iris-bridge", "pine-chaff-1", "maple-deer"],
     BETS, {}, "tie", None, {"a": 0, "b": 0, "dealer": 0}, 0),
]


@pytest.mark.parametrize("rate", [0.9999996, 4e-7, 0.0123457])
def test_a_fee_rate_of_more_than_6_decimals_is_refused_not_rounded(rate):
    # read as its nearest millionths fraction, 0.9999996 charged the whole profit and 4e-7 nothing
    with pytest.raises(RoundError, match=f"house option 'fee_rate' cannot be {rate!r} .*6 decimals at most"):
        settle_round(round_("batta-maki", NINE, LOW, BETS, {"fee_model": "percent", "fee_rate": rate}))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_settlement(case):
    _id, game, saki, ato, bets, house, winner, decided_by, nets, fee = case
    r = settle_round(round_(game, saki, ato, bets, house))
    assert r["winner"] == winner
    assert r["decided_by"] == decided_by
    assert r["net"] == nets
    assert r["fee"] == fee
    assert r["settled"] is True
    assert sum(r["net"].values()) + r["carry"] - r["carry_in"] == 0


def test_banker_formula_of_3_1_holds():
    """Δb = (1−f)·stake on W, −stake on L, Δdealer = Σ_L − (1−f)·Σ_W, whatever the bets."""
    bets = [("a", "saki", 70), ("b", "saki", 35), ("c", "ato", 12), ("d", "ato", 3)]
    p = play(round_("batta-maki", NINE, LOW, bets, {"fee_model": "percent"}))
    f = Fraction(1, 10)
    assert p.settlement.net == {"a": 63, "b": Fraction(63, 2), "c": -12, "d": -3,
                                "dealer": 15 - (1 - f) * 105}


def test_defaults_follow_the_rules():
    assert get_game("batta-maki").resolve_house({}) == {
        "deck_count": 1, "fee_model": "none", "fee_rate": 0.1, "tie_rule": "push", "tie_fallback": "push",
        "card_points_table": "standard", "equalise": "dealer_tops_up", "settlement": "banker",
        "min_bet": None, "max_bet": None}
    for g in ("atosaki", "koikoi-atosaki"):
        h = get_game(g).resolve_house({})
        assert h["tie_rule"] == "card_points" and h["fee_model"] == "none" and h["card_points_table"] == "standard"
        assert h["settlement"] == "parimutuel"  # §3.2: the winners take all the bets and split them
        assert "deck_count" not in h
    assert get_game("mutsu-wari").resolve_house({})["tie_rule"] == "push"


def test_equalise_output():
    r = settle_round(round_("batta-maki", NINE, LOW, BETS))
    assert r["equalise"] == {"totals": {"saki": 100, "ato": 60}, "lighter_side": "ato", "difference": 40,
                             "dealer_adds": 40, "dealer_side": "ato"}


def test_required_equal_bets():
    with pytest.raises(RoundError, match=r"bets are not equal \(saki 100, ato 60\)"):
        settle_round(round_("atosaki", NINE, LOW, BETS, {"equalise": "required"}))


# --- the card-points table ------------------------------------------------------------------

# Atosaki values: 10+1+3 = 14 -> 4; points standard 20+1+1 = 22, Hon-Bana 10+0+0 = 10
RAINMAN_SET = ["willow-rainman", "pine-chaff-1", "cherry-chaff-1"]
# 2+2+10 = 14 -> 4; points standard 10+1+1 = 12, Hon-Bana 20+0+0 = 20
WARBLER_SET = ["plum-warbler", "plum-chaff-1", "maple-chaff-1"]


@pytest.mark.parametrize("table, winner, values", [
    ("standard", "saki", {"saki": 22, "ato": 12}),
    ("honbana", "ato", {"saki": 10, "ato": 20}),
])
def test_card_points_table(table, winner, values):
    r = settle_round(round_("atosaki", RAINMAN_SET, WARBLER_SET, BETS, {"card_points_table": table}))
    assert r["scores"] == {"saki": 4, "ato": 4}
    assert r["winner"] == winner and r["decided_by"] == "card_points"
    assert r["tie_break"] == {"method": "card_points", "values": values, "table": table}


def test_honbana_table_counts_paulownia_chaff_zero():
    saki = ["paulownia-chaff-1", "pine-chaff-1", "cherry-chaff-1"]   # 10+1+3 -> 4, Hon-Bana 0
    r = settle_round(round_("atosaki", saki, WARBLER_SET, [], {"card_points_table": "honbana"}))
    assert r["rows"]["saki"]["card_points"] == 0
    assert r["winner"] == "ato"


# --- ties that the tie-break cannot break ----------------------------------------------------

# Atosaki: 3+7+1 = 11 -> 1, points 20+10+20 = 50 ; 8+6+7 = 21 -> 1, points 20+10+5 = 35
CHERRY_SET = ["cherry-curtain", "clover-boar", "pine-crane"]
MOON_SET = ["susuki-moon", "peony-butterflies", "clover-ribbon"]


@pytest.mark.parametrize("rule, winner, values", [
    ("card_points", "saki", {"saki": 50, "ato": 35}),
    ("raw_total", "ato", {"saki": 11, "ato": 21}),
])
def test_card_points_and_raw_total_disagree(rule, winner, values):
    r = settle_round(round_("atosaki", CHERRY_SET, MOON_SET, BETS, {"tie_rule": rule}))
    assert r["winner"] == winner and r["decided_by"] == rule
    assert r["tie_break"]["values"] == values


@pytest.mark.parametrize("rule", ["card_points", "raw_total"])
@pytest.mark.parametrize("fallback, nets, carry", [
    ("push", {"a": 0, "b": 0, "dealer": 0}, 0),
    ("dealer_takes_all", {"a": -100, "b": -60, "dealer": 160}, 0),
    ("carry_over", {"a": -100, "b": -60, "dealer": -40}, 200),
])
def test_tie_still_equal_goes_to_the_fallback(rule, fallback, nets, carry):
    # identical month values and card points: 4+5+6 = 15 -> 5 both, points 5+1+1 = 7 both
    saki = ["wisteria-ribbon", "iris-chaff-1", "peony-chaff-1"]
    ato = ["wisteria-chaff-1", "iris-ribbon", "peony-chaff-2"]
    r = settle_round(round_("atosaki", saki, ato, BETS, {"tie_rule": rule, "tie_fallback": fallback}))
    assert r["winner"] == "tie" and r["tie"] == fallback and r["tie_break"]["then"] == fallback
    assert r["net"] == nets and r["carry"] == carry


# --- carry-over -----------------------------------------------------------------------------

def test_carry_over_tie_puts_every_stake_in_the_pot():
    r = settle_round(round_("atosaki", LOW, ["pine-chaff-1", "plum-chaff-1", "cherry-chaff-1"], BETS,
                            {"tie_rule": "carry_over"}))
    assert r["winner"] == "tie" and r["tie"] == "carry_over"
    assert r["net"] == {"a": -100, "b": -60, "dealer": -40}
    assert r["carry"] == 200 and r["carry_in"] == 0


@pytest.mark.parametrize("house, refused", [({"tie_rule": "carry_over"}, True), ({"tie_rule": "redraw"}, True),
                                            ({"tie_rule": "card_points", "tie_fallback": "carry_over"}, True),
                                            ({"tie_rule": "push"}, False),
                                            ({"tie_rule": "card_points", "tie_fallback": "push"}, False),
                                            ({"tie_rule": "dealer_takes_all"}, False)])
def test_a_pot_a_tie_could_not_carry_on_is_refused_whatever_the_cards(house, refused):
    # one bet of 6e11 and the dealer's top-up carried 1.2e12, which the next round refused as its
    # 'carry': the whole pot was stranded
    big = [("a", "saki", 6 * 10**11)]
    for saki, ato in ((NINE, LOW), (LOW, ["pine-chaff-1", "plum-chaff-1", "cherry-chaff-1"])):
        doc = round_("batta-maki", saki, ato, big, house)
        if refused:
            with pytest.raises(RoundError, match="a tie would carry a pot of 1200000000000 .*above the largest"):
                settle_round(doc)
        else:
            settle_round(doc)
    settle_round(round_("batta-maki", NINE, LOW, [("a", "saki", 5 * 10**11)], house))  # 1e12 fits


@pytest.mark.parametrize("bets, winner_cards, nets", [
    # equal bets, saki wins and takes the whole pot: 100 + 30
    ([("a", "saki", 100), ("b", "ato", 100)], "saki", {"a": 130, "b": -100, "dealer": 0}),
    # the dealer's 50 top-up on ato wins with b: pool 100 + 40 split 50:50
    ([("a", "saki", 100), ("b", "ato", 50)], "ato", {"a": -100, "b": 70, "dealer": 70}),
])
def test_carried_pot_goes_to_the_next_winners(bets, winner_cards, nets):
    saki, ato = (NINE, LOW) if winner_cards == "saki" else (LOW, NINE)
    carry = 30 if winner_cards == "saki" else 40
    r = settle_round(round_("atosaki", saki, ato, bets, {"tie_rule": "carry_over"}, carry=carry))
    assert r["net"] == nets
    assert r["carry_in"] == carry and r["carry"] == 0


@pytest.mark.parametrize("equalise", ["none", "encouraged"])
@pytest.mark.parametrize("bets, nets, carry", [
    # the dealer covers b's lighter side as banker (40 at the showdown, none of it in the pot): he
    # wins 40 from a's 100 as a stake of 40 would, and the carried pot of the players' 160 is b's
    # (he took 64 of it as if his cover had been in the pot)
    ([("a", "saki", 100), ("b", "ato", 60)], {"a": -100, "b": 220, "dealer": 40}, 0),
    # nobody on the winning side but the dealer's cover: the pot is carried on (he took all of it)
    ([("a", "saki", 100)], {"a": -100, "dealer": 100}, 160),
])
def test_a_carried_pot_goes_to_the_players_not_to_a_dealer_who_covers_as_banker(equalise, bets, nets, carry):
    r = settle_round(round_("atosaki", LOW, NINE, bets, {"tie_rule": "carry_over", "equalise": equalise,
                                                         "settlement": "banker"}, carry=160))
    assert r["winner"] == "ato" and r["net"] == nets
    assert r["carry_in"] == 160 and r["carry"] == carry
    assert sum(r["net"].values()) + r["carry"] - r["carry_in"] == 0
    # with a fee, it is taken from the players' share of the pot as from their other winnings
    r = settle_round(round_("batta-maki", LOW, NINE, bets, {"tie_rule": "carry_over", "equalise": equalise,
                                                             "fee_model": "percent"}, carry=160))
    if carry == 0:
        assert r["net"]["b"] == 220 * Fraction(9, 10) and r["net"]["dealer"] == 40 + 22
    assert sum(r["net"].values()) + r["carry"] - r["carry_in"] == 0


@pytest.mark.parametrize("game", ["atosaki", "koikoi-atosaki", "batta-maki"])
@pytest.mark.parametrize("equalise", ["none", "encouraged"])
def test_parimutuel_the_winners_split_the_losing_stakes_where_the_sides_stay_unequal(game, equalise):
    # RULES.md §3.2: payout_b = stake_b + stake_b/ΣW · ΣL: b's 60 takes all of a's 100 (the banker
    # formula gave b 60 and the dealer, covering 40 of it, the other 40)
    saki, ato = (LOW + ["pine-chaff-2"], NINE + ["maple-chaff-2"]) if game == "koikoi-atosaki" else (LOW, NINE)
    house = {"equalise": equalise, "settlement": "parimutuel"}
    r = settle_round(round_(game, saki, ato, [("a", "saki", 100), ("b", "ato", 60), ("c", "ato", 20)], house))
    assert r["winner"] == "ato" and r["net"] == {"a": -100, "b": 75, "c": 25, "dealer": 0}
    assert r["equalise"]["dealer_adds"] == 0 and r["equalise"]["dealer_side"] is None  # (he covers nothing)
    # under banker the dealer covers the 20 left: each winner 1:1, his 20 wins a's other 20
    r = settle_round(round_(game, saki, ato, [("a", "saki", 100), ("b", "ato", 60), ("c", "ato", 20)],
                            {**house, "settlement": "banker"}))
    assert r["net"] == {"a": -100, "b": 60, "c": 20, "dealer": 20}
    # nobody on the winning set: no one to split the losing stakes, which go back; a carried pot stays
    r = settle_round(round_(game, saki, ato, [("a", "saki", 100)], {**house, "tie_rule": "carry_over"}, carry=30))
    assert r["net"] == {"a": 0, "dealer": 0} and r["carry"] == 30
    # with equal sides (the dealer's top-up, the default) the two are the same: 1:1
    tops_up = settle_round(round_(game, saki, ato, [("a", "saki", 100), ("b", "ato", 60)], {"settlement": "parimutuel"}))
    banker = settle_round(round_(game, saki, ato, [("a", "saki", 100), ("b", "ato", 60)], {"settlement": "banker"}))
    assert tops_up["net"] == banker["net"] == {"a": -100, "b": 60, "dealer": 40}


def test_carried_pot_stays_on_a_push():
    r = settle_round(round_("atosaki", MOON_BOAR_PEONY, PHOENIX_SWALLOW_PINE, BETS, {"tie_rule": "push"}, carry=25))
    assert r["net"] == {"a": 0, "b": 0, "dealer": 0} and r["carry"] == 25


# --- redraw ---------------------------------------------------------------------------------

# Atosaki: both sets total 21 -> 1
TIED = (MOON_BOAR_PEONY, PHOENIX_SWALLOW_PINE)
DRAW_TIED = {"saki": "iris-chaff-1", "ato": "iris-chaff-2"}          # +5 each: 6 and 6
DRAW_ATO = {"saki": "wisteria-chaff-1", "ato": "cherry-chaff-1"}      # +4, +3: 30 -> 0, 29 -> 9


def test_redraw_breaks_the_tie():
    r = settle_round(round_("atosaki", *TIED, BETS, {"tie_rule": "redraw"}, redraws=[DRAW_TIED, DRAW_ATO]))
    assert r["winner"] == "ato" and r["decided_by"] == "redraw"
    assert [d["scores"] for d in r["tie_break"]["draws"]] == [{"saki": 6, "ato": 6}, {"saki": 0, "ato": 9}]
    assert r["scores"] == {"saki": 1, "ato": 1}
    assert r["net"] == {"a": -100, "b": 60, "dealer": 40}


def test_redraw_still_to_be_made_settles_nothing():
    for redraws in ([], [DRAW_TIED]):
        r = settle_round(round_("atosaki", *TIED, BETS, {"tie_rule": "redraw"}, redraws=redraws))
        assert r["settled"] is False and r["tie"] == "pending" and r["winner"] == "tie"
        assert r["net"] == {"a": 0, "b": 0, "dealer": 0}
        assert "redraws" in r["tie_break"]["next"]


def test_redraw_with_the_deck_run_out_carries_over():
    r = settle_round(round_("atosaki", *TIED, BETS, {"tie_rule": "redraw"}, redraws=[DRAW_TIED],
                            deck_exhausted=True))
    assert r["settled"] is True and r["tie"] == "carry_over"
    assert r["net"] == {"a": -100, "b": -60, "dealer": -40} and r["carry"] == 200


@pytest.mark.parametrize("house, extra, message", [
    ({"tie_rule": "redraw"}, {"redraws": [DRAW_ATO, DRAW_TIED]}, "'redraws' has 2 draws but the tie was broken by draw 1"),
    ({"tie_rule": "push"}, {"redraws": [DRAW_ATO]}, "field 'redraws' does not apply here: the tie rule is 'push', not 'redraw'"),
    ({"tie_rule": "redraw"}, {"redraws": [{"saki": "susuki-moon", "ato": "iris-chaff-1"}]},
     "'susuki-moon' is dealt more than once .in row 'saki' .card 1., again in redraw 1 .saki.: one of them"),
    ({"tie_rule": "redraw"}, {"redraws": [{"saki": "iris-chaff-1"}]}, "redraw 1 must be an object with exactly"),
    ({"tie_rule": "redraw"}, {"redraws": {"saki": "iris-chaff-1"}}, "field 'redraws' must be a list"),
    ({"tie_rule": "redraw"}, {"redraws": [{"saki": "iris-chaf", "ato": "pine-poetry"}]}, "unknown card 'iris-chaf' in redraw 1"),
    ({"tie_rule": "redraw"}, {"deck_exhausted": "yes"}, "'deck_exhausted' must be true or false"),
    # the deck can only have run out on sets still tied
    ({"tie_rule": "redraw"}, {"redraws": [DRAW_ATO], "deck_exhausted": True},
     "'deck_exhausted' is true but the tie was broken by draw 1"),
])
def test_bad_redraws(house, extra, message):
    with pytest.raises(RoundError, match=message):
        settle_round(round_("atosaki", *TIED, BETS, house, **extra))


def test_redraws_when_not_tied():
    with pytest.raises(RoundError, match="'redraws' is given but the sets are not tied"):
        settle_round(round_("atosaki", NINE, LOW, BETS, {"tie_rule": "redraw"}, redraws=[DRAW_TIED]))
    with pytest.raises(RoundError, match="'deck_exhausted' is true but the sets are not tied"):
        settle_round(round_("atosaki", NINE, LOW, BETS, {"tie_rule": "redraw"}, deck_exhausted=True))


def test_shares_that_decimals_cannot_show_are_also_given_exactly():
    bets = [("a", "saki", 10), ("b", "saki", 10), ("c", "saki", 10), ("d", "ato", 30)]
    r = settle_round(round_("atosaki", NINE, LOW, bets, {"tie_rule": "carry_over"}, carry=10))
    # the pool 30 + 10 split three ways: each winner gains 40/3
    assert r["net"] == {"a": 13.333333, "b": 13.333333, "c": 13.333333, "d": -30, "dealer": 0}
    assert r["net_exact"] == {"a": "40/3", "b": "40/3", "c": "40/3", "d": "-30", "dealer": "0"}
    assert "net_exact" not in settle_round(round_("atosaki", NINE, LOW, bets))


# --- equalise: encouraged and none (RULES.md §3.7) --------------------------------------------

@pytest.mark.parametrize("mode", ["encouraged", "none"])
def test_unequal_sides_left_as_bet_pay_a_win_as_the_banker_formula_does(mode):
    # §3.1: Δdealer = Σ_L stake − (1 − f)·Σ_W stake, whatever the dealer staked on the table
    bets = [("a", "saki", 100), ("b", "ato", 60)]
    r = settle_round(round_("batta-maki", NINE, LOW, bets, {"equalise": mode}))  # Saki 9 beats Ato 6
    assert r["winner"] == "saki" and r["net"] == {"a": 100, "b": -60, "dealer": -40}
    assert r["net"] == settle_round(round_("batta-maki", NINE, LOW, bets))["net"]  # as with the top-up
    assert r["equalise"]["dealer_adds"] == 0 and r["equalise"]["dealer_side"] is None  # nothing staked
    r = settle_round(round_("batta-maki", LOW, NINE, bets, {"equalise": mode}))
    assert r["winner"] == "ato" and r["net"] == {"a": -100, "b": 60, "dealer": 40}


def test_a_tie_carried_over_holds_no_stake_of_a_dealer_who_covers_as_banker():
    bets = [("a", "saki", 100), ("b", "ato", 60)]
    same = ["pine-chaff-1", "plum-chaff-1", "cherry-chaff-1"]
    topped = settle_round(round_("atosaki", LOW, same, bets, {"tie_rule": "carry_over"}))
    assert topped["carry"] == 200 and topped["net"]["dealer"] == -40
    banker = settle_round(round_("atosaki", LOW, same, bets, {"tie_rule": "carry_over", "equalise": "none"}))
    assert banker["carry"] == 160 and banker["net"] == {"a": -100, "b": -60, "dealer": 0}


@pytest.mark.parametrize("mode, said", [
    ("encouraged", "ato is short by 40: encourage bets on ato; the dealer covers the rest as banker"),
    ("none", "ato is short by 40: the dealer covers it as banker at the showdown"),
    ("dealer_tops_up", "the dealer adds 40 on ato"),
    ("required", "ato is short by 40: the players must equalise"),
])
def test_the_dealers_advice_follows_the_equalise_rule(mode, said):
    from dealer.equalise import equalise_round
    advice = equalise_round({"game": "batta-maki", "house": {"equalise": mode},
                             "bets": [{"player": "a", "on": "saki", "amount": 100},
                                      {"player": "b", "on": "ato", "amount": 60}]})
    assert advice["message"] == said


@pytest.mark.parametrize("mode, said", [
    ("encouraged", "ato is short by 40: encourage bets on ato; the winners split the losing stakes pro rata (parimutuel)"),
    ("none", "ato is short by 40: the winners split the losing stakes pro rata (parimutuel)"),
])
def test_the_dealers_advice_under_parimutuel_says_he_covers_nothing(mode, said):
    # (it said he covers the difference as banker, which under parimutuel he does not)
    from dealer.equalise import equalise_round
    advice = equalise_round({"game": "atosaki", "house": {"equalise": mode},
                             "bets": [{"player": "a", "on": "saki", "amount": 100},
                                      {"player": "b", "on": "ato", "amount": 60}]})
    assert advice["message"] == said and advice["dealer_adds"] == 0
    # a one-sided book: there are no losing stakes to split, whichever set wins
    advice = equalise_round({"game": "atosaki", "house": {"equalise": mode},
                             "bets": [{"player": "a", "on": "saki", "amount": 100}]})
    assert advice["message"] == "ato has no bets: under parimutuel nothing is won or lost unless someone bets on ato"


@pytest.mark.parametrize("rule", ["push", "dealer_takes_all", "carry_over", "redraw"])
def test_a_tie_fallback_with_a_tie_rule_that_never_falls_back_is_refused(rule):
    # "ties carry over" written as the fallback of a push pushed every tie without a word
    with pytest.raises(RoundError, match=f"house option 'tie_fallback' needs tie_rule 'card_points' or "
                                         f"'raw_total' \\(tie_rule is '{rule}'"):
        settle_round(round_("batta-maki", NINE, LOW, BETS, {"tie_rule": rule, "tie_fallback": "carry_over"}))
