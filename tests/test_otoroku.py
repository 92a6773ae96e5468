"""Otoroku (RULES.md §4.1, §4.4, §10 O1-O7): every teyaku with who may avail it, buta limits,
the tie rules, the dealer's choice, shares, fee and multipliers, and bad input."""
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dealer.cards import all_cards
from dealer.games import RoundError, get_game, settle_round
from dealer.games.otoroku import OPTIONS, evaluate
from pool_by_month import CardPool
from round_edit import assert_refused, edited

DEFAULTS = {o.name: o.default for o in OPTIONS}
CRANE, CUCKOO = "pine-crane", "wisteria-cuckoo"


def build(spec: dict, seed_taken=()) -> dict:
    """spec: who -> list of months (ints) or card ids (str); months get distinct chaff-first cards."""
    explicit = tuple(c for cards in spec.values() if cards for c in cards if isinstance(c, str))
    pool = CardPool(taken=explicit, chaff_first=True)
    return {who: None if cards is None else [c if isinstance(c, str) else pool.take(c) for c in cards]
            for who, cards in spec.items()}


def hand(spec, role, **house):
    return evaluate(build({"x": spec})["x"], role, {**DEFAULTS, **house})


# (cards: months or ids, role, house, expected name (None: plain total), expected rank; -1 is buta)
TEYAKU = [
    pytest.param([6, 9], "bettor", {}, "makezu", 90, id="makezu-bettor"),
    pytest.param([9, 6], "last", {}, "makezu", 90, id="makezu-last-bettor"),
    pytest.param([6, 9], "dealer", {}, None, 50, id="makezu-not-for-dealer-is-15"),
    pytest.param([6, 10], "last", {}, "otoroku", 90, id="otoroku-jun-oct"),
    pytest.param([9, 7], "last", {}, "otoroku", 90, id="otoroku-jul-sep"),
    pytest.param([6, 10], "bettor", {}, "buta", -1, id="otoroku-not-availed-and-16-is-buta"),
    pytest.param([7, 9], "bettor", {}, "buta", -1, id="jul-sep-for-bettor-is-buta"),
    pytest.param([6, 10], "dealer", {}, "buta", -1, id="jun-oct-for-dealer-is-buta"),
    pytest.param([CRANE, CUCKOO], "dealer", {}, "toritori", 80, id="toritori-dealer"),
    pytest.param([CUCKOO, CRANE], "dealer", {}, "toritori", 80, id="toritori-any-order"),
    pytest.param([CRANE, CUCKOO], "bettor", {}, None, 5, id="toritori-not-for-bettor"),
    pytest.param([CRANE, CUCKOO], "last", {}, None, 5, id="toritori-not-for-last-bettor"),
    pytest.param([CRANE, "wisteria-ribbon"], "dealer", {}, None, 5, id="toritori-needs-the-cuckoo"),
    pytest.param(["pine-chaff-1", CUCKOO], "dealer", {}, None, 5, id="toritori-needs-the-crane"),
    pytest.param([CRANE, CUCKOO, 3], "dealer", {}, None, 8, id="toritori-void-with-a-third-card"),
    pytest.param([5, 5, 4, 1, 5], "bettor", {}, "goshita-gomai", 70, id="goshita-bettor-total-20-not-buta"),
    pytest.param([1, 2, 3, 4, 5], "dealer", {}, "goshita-gomai", 70, id="goshita-dealer"),
    pytest.param([2, 2, 3, 3, 5], "last", {}, "goshita-gomai", 70, id="goshita-last-bettor"),
    pytest.param([1, 1, 2, 2], "bettor", {}, None, 6, id="four-small-cards-are-not-goshita"),
    pytest.param([1, 1, 2, 2, 6], "bettor", {}, None, 12, id="goshita-needs-every-card-at-most-may"),
    pytest.param([1, 1, 2, 6, 6], "bettor", {}, "buta", -1, id="five-cards-with-a-june-can-be-buta"),
    pytest.param([10, 5], "bettor", {}, None, 50, id="15"),
    pytest.param([10, 3, 2], "dealer", {}, None, 50, id="15-dealer"),
    pytest.param([8, 8], "bettor", {}, "buta", -1, id="16-bettor-buta"),
    pytest.param([8, 8], "last", {}, None, 60, id="16-last-bettor-stands"),
    pytest.param([10, 3, 3], "last", {}, None, 60, id="16-last-bettor-three-cards"),
    pytest.param([10, 7], "last", {}, "buta", -1, id="17-last-bettor-buta"),
    pytest.param([10, 8], "dealer", {}, "buta", -1, id="dealer-buta-at-16-plus"),
    pytest.param([10, 6], "dealer", {"dealer_bust_limit": 17}, None, 60, id="dealer-16-with-limit-17"),
    pytest.param([10, 7], "dealer", {"dealer_bust_limit": 17}, "buta", -1, id="dealer-17-with-limit-17"),
    pytest.param([1, 9], "bettor", {}, "14.5", 45, id="14.5-bettor"),
    pytest.param([9, 1], "dealer", {}, "14.5", 45, id="14.5-dealer"),
    pytest.param([1, 9], "last", {}, "14.5", 45, id="14.5-last"),
    pytest.param([1, 5], "bettor", {}, "14", 14, id="14-jan-may"),
    pytest.param([10, 1], "dealer", {}, "14", 14, id="14-jan-oct"),
    pytest.param([1, 4, 5], "bettor", {}, None, 10, id="14.5-void-with-three-cards"),
    pytest.param([1, 5, 3], "bettor", {}, None, 9, id="14-void-with-three-cards"),
    pytest.param([10, 4], "bettor", {}, None, 14, id="plain-14"),
    pytest.param([2, 3], "bettor", {}, None, 5, id="plain-5"),
    pytest.param([8, 8], "last", {"goshita_vs_16": "sixteen_higher"}, None, 70, id="sixteen-higher-option"),
    pytest.param([1, 2, 3, 4, 5], "dealer", {"goshita_vs_16": "sixteen_higher"}, "goshita-gomai", 60,
                 id="goshita-lower-option"),
]


@pytest.mark.parametrize("cards, role, house, name, rank", TEYAKU)
def test_teyaku(cards, role, house, name, rank):
    h = hand(cards, role, **house)
    assert (h.name, h.rank) == (name, rank)
    assert h.buta == (rank == -1)


def round_of(seats, hands, share=100, chosen=None, house=None):
    r = {"game": "otoroku", "seats": seats, "hands": build(hands), "share": share}
    if chosen is not None:
        r["chosen"] = chosen
    if house:
        r["house"] = house
    return r


# (seats, hands (last seat is the last bettor), chosen, house, expected results, expected shares)
SETTLE = [
    pytest.param(["ann", "bob"], {"ann": [10, 4], "bob": [10, 5], "dealer": [10, 3]}, None, {},
                 {"ann": "win", "bob": "win"}, {"ann": 1, "bob": 1, "dealer": -2}, id="higher-wins-one-share"),
    pytest.param(["ann", "bob"], {"ann": [10, 3], "bob": [10, 2], "dealer": [7, 6]}, None, {},
                 {"ann": "lose", "bob": "lose"}, {"ann": -1, "bob": -1, "dealer": 2},
                 id="equal-below-15-dealer-wins"),
    pytest.param(["ann", "bob"], {"ann": [10, 5], "bob": [10, 4], "dealer": [9, 6]}, None, {},
                 {"ann": "push", "bob": "lose"}, {"ann": 0, "bob": -1, "dealer": 1}, id="equal-15-pushes"),
    pytest.param(["ann", "bob"], {"ann": [10, 9], "bob": [10, 4], "dealer": [10, 8]}, None, {},
                 {"ann": "buta", "bob": "dealer_buta"}, {"ann": -1, "bob": 1, "dealer": 0},
                 id="buta-bettor-pays-even-when-dealer-busts"),
    pytest.param(["ann", "bob", "cat"], {"ann": [2, 3], "bob": [1, 2], "cat": [10, 5], "dealer": [10, 2, 7]},
                 None, {}, {"ann": "dealer_buta", "bob": "dealer_buta", "cat": "dealer_buta"},
                 {"ann": 1, "bob": 1, "cat": 1, "dealer": -3}, id="buta-dealer-pays-every-live-bettor"),
    pytest.param(["ann", "bob"], {"ann": [10, 2, 3], "bob": [10, 2, 4], "dealer": [9, 6]}, None, {},
                 {"ann": "push", "bob": "win"}, {"ann": 0, "bob": 1, "dealer": -1},
                 id="last-bettor-16-beats-15"),
    pytest.param(["ann", "bob"], {"ann": [6, 9], "bob": [6, 10], "dealer": [CRANE, CUCKOO]}, None, {},
                 {"ann": "win", "bob": "win"}, {"ann": 1, "bob": 1, "dealer": -2},
                 id="makezu-and-otoroku-beat-toritori"),
    pytest.param(["ann", "bob"], {"ann": [1, 2, 3, 4, 5], "bob": [10, 5], "dealer": [CRANE, CUCKOO]}, None, {},
                 {"ann": "lose", "bob": "lose"}, {"ann": -1, "bob": -1, "dealer": 2},
                 id="toritori-beats-goshita-and-15"),
    pytest.param(["ann", "bob"], {"ann": [1, 2, 3, 4, 5], "bob": [10, 2, 4], "dealer": [10, 5]}, None, {},
                 {"ann": "win", "bob": "win"}, {"ann": 1, "bob": 1, "dealer": -2}, id="goshita-and-16-beat-15"),
    pytest.param(["ann", "bob"], {"ann": [10, 4], "bob": [10, 2, 4], "dealer": [1, 1, 2, 3, 5]}, None, {},
                 {"ann": "lose", "bob": "lose"}, {"ann": -1, "bob": -1, "dealer": 2},
                 id="dealer-goshita-beats-last-bettor-16"),
    pytest.param(["ann", "bob"], {"ann": [10, 4], "bob": [10, 2, 4], "dealer": [1, 1, 2, 3, 5]}, None,
                 {"goshita_vs_16": "sixteen_higher"}, {"ann": "lose", "bob": "win"},
                 {"ann": -1, "bob": 1, "dealer": 0}, id="option-16-beats-goshita"),
    pytest.param(["ann", "bob"], {"ann": [6, 9], "bob": [7, 9], "dealer": [1, 2, 3, 4, 5]}, None, {},
                 {"ann": "win", "bob": "win"}, {"ann": 1, "bob": 1, "dealer": -2},
                 id="makezu-and-otoroku-beat-dealer-goshita"),
    pytest.param(["ann", "bob"], {"ann": [10, 3], "bob": [10, 2, 4], "dealer": [CRANE, CUCKOO]}, None, {},
                 {"ann": "lose", "bob": "lose"}, {"ann": -1, "bob": -1, "dealer": 2},
                 id="toritori-beats-last-bettor-16"),
    pytest.param(["ann", "bob"], {"ann": [1, 2, 3, 4, 5], "bob": [10, 4], "dealer": [1, 2, 3, 4, 5]}, None, {},
                 {"ann": "push", "bob": "lose"}, {"ann": 0, "bob": -1, "dealer": 1}, id="goshita-v-goshita-pushes"),
    pytest.param(["ann", "bob"], {"ann": [1, 2, 3, 4, 5], "bob": [10, 4], "dealer": [1, 2, 3, 4, 5]}, None,
                 {"teyaku_tie": "dealer_wins"}, {"ann": "lose", "bob": "lose"}, {"ann": -1, "bob": -1, "dealer": 2},
                 id="option-equal-teyaku-to-dealer"),
    pytest.param(["ann", "bob"], {"ann": [10, 5], "bob": [10, 2, 4], "dealer": [10, 6]}, None,
                 {"dealer_bust_limit": 17, "teyaku_tie": "dealer_wins"}, {"ann": "lose", "bob": "lose"},
                 {"ann": -1, "bob": -1, "dealer": 2}, id="option-dealer-stands-on-16"),
    pytest.param(["ann", "bob"], {"ann": [10, 5], "bob": [10, 2, 4], "dealer": [10, 6]}, None,
                 {"dealer_bust_limit": 17}, {"ann": "lose", "bob": "push"},
                 {"ann": -1, "bob": 0, "dealer": 1}, id="16-v-16-pushes"),
    pytest.param(["ann", "bob"], {"ann": [1, 9], "bob": [1, 5], "dealer": [10, 4]}, None, {},
                 {"ann": "win", "bob": "lose"}, {"ann": 1, "bob": -1, "dealer": 0}, id="14.5-beats-14;14-yaku-v-14"),
    pytest.param(["ann", "bob"], {"ann": [1, 9], "bob": [1, 10], "dealer": [9, 1]}, None, {},
                 {"ann": "lose", "bob": "lose"}, {"ann": -1, "bob": -1, "dealer": 2}, id="14.5-v-14.5-dealer"),
    pytest.param(["ann", "bob"], {"ann": [1, 5], "bob": [10, 3], "dealer": [8, 5]}, None, {},
                 {"ann": "win", "bob": "lose"}, {"ann": 1, "bob": -1, "dealer": 0}, id="14-yaku-beats-13"),
    pytest.param(["ann", "bob", "cat"], {"ann": [10, 5], "bob": None, "cat": [10, 9], "dealer": [10, 4]},
                 ["ann"], {}, {"ann": "win", "bob": "not_chosen", "cat": "buta"},
                 {"ann": 1, "bob": 0, "cat": -1, "dealer": 0}, id="dealers-choice-unseen-hand"),
    # §4.1: bettors not chosen discard without revealing: their cards may stay face down
    pytest.param(["ann", "bob", "cat"], {"ann": [10, 5], "bob": ["back", "back", "back"], "cat": [10, 3],
                                        "dealer": [10, 4]},
                 ["ann"], {}, {"ann": "win", "bob": "not_chosen", "cat": "not_chosen"},
                 {"ann": 1, "bob": 0, "cat": 0, "dealer": -1}, id="dealers-choice-face-down-hand"),
    # ...as they lie: the first card hidden, those dealt after it face up (it was refused, "every card
    # must be revealed")
    pytest.param(["ann", "bob"], {"ann": [10, 5], "bob": ["back", 2, 4], "dealer": [10, 4]},
                 ["ann"], {}, {"ann": "win", "bob": "not_chosen"},
                 {"ann": 1, "bob": 0, "dealer": -1}, id="dealers-choice-hand-as-it-lies"),
    # (a goshita-gomai whose fourth card face up was the 4: 1 + 5 + 5 + 4 before its last 5)
    pytest.param(["ann", "bob", "cat"], {"ann": [10, 5], "bob": ["back", 5, 5, 5, 4], "cat": [10, 3],
                                        "dealer": [10, 4]},
                 ["ann"], {}, {"ann": "win", "bob": "not_chosen", "cat": "not_chosen"},
                 {"ann": 1, "bob": 0, "cat": 0, "dealer": -1}, id="dealers-choice-goshita-as-it-lies"),
    pytest.param(["ann", "bob"], {"ann": [10, 3], "bob": [10, 4], "dealer": [1, 9]}, ["bob"], {},
                 {"ann": "not_chosen", "bob": "lose"}, {"ann": 0, "bob": -1, "dealer": 1},
                 id="choice-on-point-total-10-with-14.5"),
    pytest.param(["ann", "bob"], {"ann": [10, 3], "bob": [10, 4], "dealer": [7, 3]}, [], {},
                 {"ann": "not_chosen", "bob": "not_chosen"}, {"ann": 0, "bob": 0, "dealer": 0},
                 id="dealer-chooses-nobody"),
    pytest.param(["ann"], {"ann": [5, 5, 5], "dealer": [10, 3]}, None, {"teyaku_multipliers": True},
                 {"ann": "win"}, {"ann": 3, "dealer": -3}, id="multiplier-kingo-x3"),
    pytest.param(["ann", "bob"], {"ann": [4, 6, 5], "bob": [8, 8], "dealer": [10, 3]}, None,
                 {"teyaku_multipliers": True}, {"ann": "win", "bob": "win"}, {"ann": 2, "bob": 3, "dealer": -5},
                 id="multiplier-shigoro-x2-ittan-juuroku-x3"),
    pytest.param(["ann", "bob"], {"ann": [3, 3, 3], "bob": [6, 9], "dealer": [7, 1]}, None,
                 {"teyaku_multipliers": True}, {"ann": "win", "bob": "win"}, {"ann": 2, "bob": 1, "dealer": -3},
                 id="multiplier-arashi-x2-makezu-x1"),
    pytest.param(["ann", "bob"], {"ann": [3, 3, 3], "bob": [10, 2], "dealer": [10, 4]}, None,
                 {"teyaku_multipliers": True}, {"ann": "lose", "bob": "lose"}, {"ann": -1, "bob": -1, "dealer": 2},
                 id="multiplier-only-on-wins"),
    pytest.param(["ann"], {"ann": [5, 5, 5], "dealer": [10, 3]}, None, {},
                 {"ann": "win"}, {"ann": 1, "dealer": -1}, id="no-multipliers-by-default"),
    pytest.param(["ann", "bob"], {"ann": [10, 2], "bob": [10, 4], "dealer": [1, 1, 1, 2, 2, 3]}, None,
                 {"dealer_max_cards": 6}, {"ann": "win", "bob": "win"}, {"ann": 1, "bob": 1, "dealer": -2},
                 id="dealer-six-cards-not-goshita"),
]


@pytest.mark.parametrize("seats, hands, chosen, house, results, shares", SETTLE)
def test_settle(seats, hands, chosen, house, results, shares):
    out = settle_round(round_of(seats, hands, chosen=chosen, house=house))
    assert out["results"] == results
    assert out["shares"] == shares
    assert out["net"] == {who: s * 100 for who, s in shares.items()}
    assert sum(out["net"].values()) == 0


def test_scores_winner_and_labels():
    out = settle_round(round_of(["ann", "bob", "cat"], {"ann": [6, 9], "bob": [10, 9], "cat": [10, 2],
                                                        "dealer": [CRANE, CUCKOO]}))
    assert out["scores"] == {"ann": "makezu", "bob": "buta", "cat": 12, "dealer": "toritori"}
    assert out["winner"] == {"ann": "ann", "bob": "dealer", "cat": "dealer"}
    assert out["hands"]["dealer"]["label_ja"] == "とりとり"
    assert out["hands"]["cat"]["role"] == "last"
    assert out["dealer_may_choose"] is False


def test_share_value_and_percent_fee():
    r = round_of(["ann", "bob"], {"ann": [10, 4], "bob": [8, 5], "dealer": [10, 2, 1]}, share=2.5,
                 house={"fee_model": "percent", "fee_rate": 0.1})
    out = settle_round(r)
    assert out["shares"] == {"ann": 1, "bob": -1, "dealer": 0}
    assert out["net"] == {"ann": 2.25, "bob": -2.5, "dealer": 0.25}
    assert out["fee"] == 0.25
    out = settle_round({**r, "house": {"fee_model": "percent"}})  # default rate 10%
    assert out["fee"] == 0.25


def test_western_deck_a_to_10():
    r = {"game": "otoroku", "share": 1, "seats": ["ann", "bob"], "house": {"deck": "western"},
         "hands": {"ann": ["6S", "9H"], "bob": ["10D", "6C"], "dealer": ["AS", "4S"]}}
    out = settle_round(r)
    assert out["scores"] == {"ann": "makezu", "bob": "otoroku", "dealer": 5}  # no Toritori on western cards
    assert out["net"] == {"ann": 1, "bob": 1, "dealer": -2}
    assert sum(get_game("otoroku").deck({"deck": "western"}).values()) == 40
    with pytest.raises(RoundError, match="card 'JS' in ann's hand .card 1. is not in the deck of otoroku"):
        settle_round({**r, "hands": {**r["hands"], "ann": ["JS", "2H"]}})
    with pytest.raises(RoundError, match="unknown card 'pine-crane' in dealer's hand"):
        settle_round({**r, "hands": {**r["hands"], "dealer": ["pine-crane", "2H"]}})
    with pytest.raises(RoundError, match="unknown card '6S' in ann's hand"):  # a hanafuda deck by default
        settle_round({**r, "house": {}})


def test_kabufuda_deck_one_to_ten_with_the_aza_pin_and_tama_shi_as_toritori():
    # RULES.md §1.3 (four of each rank; one 1 is the Aza-pin, one 4 the Tama-shi), §4.1 ("On
    # kabufuda: Aza-pin + Tama-shi" make the dealer's Toritori)
    r = {"game": "otoroku", "share": 1, "seats": ["ann", "bob"], "house": {"deck": "kabufuda"},
         "hands": {"ann": ["kabu-6", "kabu-9"], "bob": ["kabu-3", "kabu-9"], "dealer": ["kabu-aza-pin", "kabu-tama-shi"]}}
    out = settle_round(r)
    assert out["scores"] == {"ann": "makezu", "bob": 12, "dealer": "toritori"}
    assert out["net"] == {"ann": 1, "bob": -1, "dealer": 0}
    plain = settle_round({**r, "hands": {**r["hands"], "dealer": ["kabu-1", "kabu-4"]}})  # a plain 1 and 4: 5
    assert plain["scores"]["dealer"] == 5 and plain["net"] == {"ann": 1, "bob": 1, "dealer": -2}
    assert hand(["kabu-aza-pin", "kabu-tama-shi"], "bettor", deck="kabufuda").rank == 5  # the dealer's only
    assert hand(["kabu-7", "kabu-9"], "last", deck="kabufuda").name == "otoroku"
    assert hand(["kabu-aza-pin", "kabu-9"], "bettor", deck="kabufuda").name == "14.5"  # the Aza-pin is a 1
    assert hand(["kabu-5", "kabu-5", "kabu-5", "kabu-tama-shi", "kabu-5"], "bettor", deck="kabufuda").name == "goshita-gomai"
    deck = get_game("otoroku").deck({"deck": "kabufuda"})
    assert sum(deck.values()) == 40 and deck["kabu-7"] == 4 and deck["kabu-1"] == 3 and deck["kabu-aza-pin"] == 1
    four_sevens = {**r["hands"], "ann": ["kabu-7", "kabu-7"], "bob": ["kabu-7", "kabu-7"]}
    assert settle_round({**r, "hands": four_sevens})["scores"]["ann"] == 14  # a rank's four copies
    for hands, said in [
        ({**four_sevens, "dealer": ["kabu-7", "kabu-2"]},
         "card 'kabu-7' is dealt more than 4 times (in ann's hand (card 1), in ann's hand (card 2), in bob's hand "
         "(card 1), in bob's hand (card 2), again in dealer's hand (card 1): one of them is another card)"),
        ({**r["hands"], "bob": ["kabu-aza-pin", "kabu-2"]}, "card 'kabu-aza-pin' is dealt more than once"),
        ({**r["hands"], "ann": ["kabu-11", "kabu-2"]},
         "unknown card 'kabu-11' in ann's hand (did you mean kabu-1, kabu-10, kabu-9?); kabufuda cards are named "
         "kabu-1 .. kabu-10, kabu-aza-pin, kabu-tama-shi"),
        ({**r["hands"], "ann": ["kabu7", "kabu-2"]}, "unknown card 'kabu7' in ann's hand (did you mean kabu-7?)"),
        ({**r["hands"], "ann": ["pine-crane", "kabu-2"]},
         "unknown card 'pine-crane' in ann's hand; it is a hanafuda card, and this round is played with kabufuda "
         "cards"),
    ]:
        with pytest.raises(RoundError) as exc:
            settle_round({**r, "hands": hands})
        assert said in str(exc.value)
    with pytest.raises(RoundError, match="it is a kabufuda card, and this round is played with hanafuda cards "
                                         r"\(Otoroku takes kabufuda ones with the house option deck 'kabufuda'\)"):
        settle_round({**r, "house": {}})


def test_game_definition():
    game = get_game("otoroku")
    deck = game.deck({})
    assert sum(deck.values()) == 40 and all(c.month <= 10 for c in all_cards() if deck[c.id])
    zones = game.layout({"seats": ["ann", "bob"]})
    assert [z.name for z in zones] == ["ann", "bob", "dealer"]
    assert zones[1].label_en == "bob's hand (last bettor)" and zones[1].label_ja == "bobの手札（尾）"


GOOD_SPEC = {"ann": [10, 4], "bob": [10, 5], "dealer": [8, 1, 4]}
GOOD = round_of(["ann", "bob"], GOOD_SPEC)


def changed(**kw):
    return edited(GOOD, **kw)


def hands_with(**hands):
    """GOOD with some hands replaced (months or card ids), every card dealt afresh."""
    return changed(hands=build({**GOOD_SPEC, **hands}))


BAD = [
    (changed(seats=None), "missing field 'seats'"),
    (changed(hands=None), "missing field 'hands'"),
    (changed(share=None), "missing field 'share'"),
    (changed(share=0), "'share' must be a positive number, not 0"),
    (changed(share=-1), "'share' must be a positive number"),
    (changed(seats=[]), "field 'seats' must name 1 to 6 bettors (2 to 7 players with the dealer), not 0"),
    (changed(seats=list("abcdefg")), "must name 1 to 6 bettors (2 to 7 players with the dealer), not 7"),
    (changed(seats=["ann", "ann"]), "seat 'ann' is listed twice"),
    (changed(seats=["ann", "dealer"]), "'dealer' is the bank, not a seat name"),
    # 'winner' maps a seat to the seat, 'dealer' or 'tie': a seat called tie would read as a push
    (changed(seats=["tie", "bob"], hands={**GOOD["hands"], "tie": GOOD["hands"]["ann"]}),
     "'tie' is what a result calls a draw, not a seat name"),
    (hands_with(ann=["maple-der", "pine-chaff-1"]), "unknown card 'maple-der' in ann's hand (did you mean maple-deer"),
    (hands_with(ann=["back", "pine-chaff-1"]), "a card in ann's hand is face down ('back'): every card must be"),
    # a hand the dealer did not choose, as it lies, still holds cards of the deck, each once
    (dict(GOOD, chosen=["bob"], hands={**GOOD["hands"], "ann": ["back", GOOD["hands"]["bob"][0]]}),
     "is dealt more than once"),
    (dict(GOOD, chosen=["bob"], hands={**GOOD["hands"], "ann": ["back", "willow-swallow"]}),
     "card 'willow-swallow' in ann's hand (card 2) is not in the deck of otoroku"),
    # ...its first card the one face down; and a hand buta whatever that card pays its share (settled
    # as not chosen, it paid nothing)
    (dict(GOOD, chosen=["bob"], hands={**GOOD["hands"], "ann": ["pine-chaff-1", "back"]}),
     "ann's hand, not chosen, is given as it lies: its first card face down"),
    (dict(GOOD, chosen=["bob"], hands={**GOOD["hands"], "ann": ["back", "maple-chaff-1", "susuki-chaff-1"]}),
     "ann's hand is buta whatever its face-down card (the cards face up come to 18)"),
    (dict(GOOD, chosen=["bob"], hands={**GOOD["hands"], "ann": ["back", "iris-chaff-1", "iris-chaff-2",
                                                                "iris-ribbon", "iris-bridge"]}),
     "ann's hand is buta whatever its face-down card (the cards face up come to 20)"),
    (hands_with(ann=["willow-swallow", "pine-chaff-1"]), "card 'willow-swallow' in ann's hand (card 1) is not in the deck of otoroku"),
    (hands_with(ann=["paulownia-phoenix", "pine-chaff-1"]), "is not in the deck of otoroku"),
    (hands_with(ann=["maple-blue", 3], dealer=["maple-blue", 2]), "card 'maple-blue' is dealt more than once"),
    (hands_with(ann=["maple-blue", "maple-blue"]),
     "card 'maple-blue' is dealt more than once (in ann's hand (card 1), again in ann's hand (card 2): "),
    (hands_with(ann=["pine-chaff-1"]), "ann's hand must be a list of 2 to 5 card ids"),
    (hands_with(ann=[1, 1, 1, 2, 2, 2]), "ann's hand must be a list of 2 to 5 card ids"),
    (hands_with(dealer=["pine-chaff-1"]), "dealer's hand must be a list of 2 to 5 card ids"),
    (hands_with(dealer=[1, 1, 1, 2, 2, 2]), "dealer's hand must be a list of 2 to 5"),
    (changed(hands={"ann": GOOD["hands"]["ann"], "dealer": GOOD["hands"]["dealer"]}), "missing hand for 'bob'"),
    (changed(chosen=["bob"], hands=build({"ann": [10, 4], "dealer": [10, 3]})), "missing hand for 'bob'"),
    (hands_with(eve=["pine-chaff-1", "plum-chaff-1"]), "'hands' has a hand for 'eve', who is not in 'seats'"),
    (changed(chosen=["eve"]), "'chosen' names 'eve', who is not in 'seats'"),
    (changed(chosen=["bob", "bob"]), "'chosen' names 'bob' twice"),
    (changed(chosen="ann"), "field 'chosen' must be a list of seats"),
    (changed(chosen=["ann"]), "the dealer may choose bettors only with exactly 2 cards totalling 10 or more"),
    (hands_with(dealer=[5, 3]) | {"chosen": ["ann"]}, "(dealer holds 2 cards, total 8)"),
    (hands_with(dealer=[10, 9]) | {"chosen": ["ann"]}, "and not buta"),
    # (buta after two cards in whatever order they were dealt: 17, 19 or 16)
    (hands_with(ann=[10, 7, 9]), "ann's hand goes on after going buta at 2 cards (total 17), in whatever order"),
    (hands_with(bob=[10, 9, 8]), "bob's hand goes on after going buta at 2 cards (total 19)"),  # (the last bettor's at 17)
    (hands_with(dealer=[8, 8, 9]), "dealer's hand goes on after going buta"),
    (changed(bets=[{"player": "ann", "on": "ann", "amount": 1}]), "otoroku settles in shares"),
    (changed(house={"teyaku_multipliers": "yes"}), "house option 'teyaku_multipliers' cannot be 'yes'"),
    (changed(house={"fee_model": "buta_han"}), "house option 'fee_model' cannot be 'buta_han'"),
    (changed(house={"fee_rate": 1.5}), "house option 'fee_rate' cannot be 1.5"),
    # the requirements: an option is never silently ignored; a rate without the percent model would charge nothing
    (changed(house={"fee_rate": 0.2}), "house option 'fee_rate' needs fee_model 'percent'"),
    (changed(house={"tie_rule": "push"}), "unknown house option 'tie_rule' for otoroku"),
    # §4.4 names the rule with its default alone: another way of settling a buta dealer is refused
    (changed(house={"dealer_bust_settlement": "pay_all"}), "house option 'dealer_bust_settlement' cannot be 'pay_all'"),
]


@pytest.mark.parametrize("round_, message", BAD, ids=[m for _, m in BAD])
def test_bad_input(round_, message):
    assert_refused(round_, message)


def test_a_bettor_may_draw_after_an_availed_two_card_teyaku_only_while_not_buta():
    # last bettor's 16 (Otoroku) is not buta, so a third card is legal (and voids the teyaku)
    r = changed(hands=build({"ann": [10, 4], "bob": [6, 10, 1], "dealer": [10, 3]}))
    out = settle_round(r)
    assert out["results"]["bob"] == "buta" and out["scores"]["bob"] == "buta"


def random_round(rng: random.Random, house: dict) -> dict:
    deck = [c.id for c in all_cards() if c.month <= 10]
    rng.shuffle(deck)
    seats = ["ann", "bob", "cat", "dan", "eve", "fay"][:rng.randint(1, 6)]
    hands = {}
    for i, who in enumerate(seats + ["dealer"]):
        role = "dealer" if who == "dealer" else "last" if i == len(seats) - 1 else "bettor"
        cards = [deck.pop(), deck.pop()]
        want = rng.randint(2, 5)
        while len(cards) < want and not evaluate(cards, role, {**DEFAULTS, **house}).buta:
            cards.append(deck.pop())
        hands[who] = cards
    return {"game": "otoroku", "seats": seats, "hands": hands, "share": rng.choice([1, 2.5, 100]),
            "house": house}


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False),
       st.fixed_dictionaries({"teyaku_multipliers": st.booleans(), "fee_model": st.sampled_from(["none", "percent"]),
                              "goshita_vs_16": st.sampled_from(["goshita_higher", "sixteen_higher"]),
                              "teyaku_tie": st.sampled_from(["push", "dealer_wins"])}))
def test_chips_conserved_and_card_order_irrelevant(rnd, house):
    r = random_round(rnd, house)
    out = settle_round(r)
    assert sum(out["net"].values()) == pytest.approx(0, abs=1e-9)
    assert sum(out["shares"].values()) == 0
    for who, cards in r["hands"].items():
        role = out["hands"][who]["role"]
        a = evaluate(cards, role, {**DEFAULTS, **house})
        b = evaluate(list(reversed(cards)), role, {**DEFAULTS, **house})
        assert (a.rank, a.name) == (b.rank, b.name)


@settings(max_examples=80, deadline=None)
@given(st.randoms(use_true_random=False))
def test_order_of_the_bettors_before_the_last_does_not_matter(rnd):
    """Each bettor settles with the dealer alone; only the last bettor's seat changes his rules."""
    r = random_round(rnd, {})
    out = settle_round(r)
    first = r["seats"][:-1]
    rnd.shuffle(first)
    again = settle_round({**r, "seats": first + r["seats"][-1:]})
    assert again["net"] == out["net"] and again["results"] == out["results"]


def rules_rank(months: list[int], cards: list[str], role: str) -> int:
    """RULES.md §4.1 "Comparison key", line by line (default house: Goshita Gomai above the 16)."""
    two = sorted(months) if len(months) == 2 else None
    if two == [6, 9] and role in ("bettor", "last") or role == "last" and two in ([6, 10], [7, 9]):
        return 90
    if role == "dealer" and len(cards) == 2 and set(cards) == {CRANE, CUCKOO}:
        return 80
    if len(months) == 5 and all(m <= 5 for m in months):
        return 70
    total = sum(months)
    if total >= (17 if role == "last" else 16):
        return -1
    if total == 16 and role == "last":
        return 60
    if total == 15:
        return 50
    if two == [1, 9]:
        return 45
    if two in ([1, 5], [1, 10]):
        return 14
    return total


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([c.id for c in all_cards() if c.month <= 10]), min_size=2, max_size=5, unique=True),
       st.sampled_from(["bettor", "last", "dealer"]))
# (the two top teyaku: random hands almost never hold both Toritori cards, or five cards of May or before)
@example(["pine-crane", "wisteria-cuckoo"], "dealer")
@example(["pine-crane", "wisteria-cuckoo"], "bettor")
@example(["pine-crane", "plum-warbler", "cherry-curtain", "wisteria-cuckoo", "iris-bridge"], "bettor")
@example(["pine-chaff-1", "plum-chaff-1", "cherry-chaff-1", "wisteria-chaff-1", "iris-chaff-1"], "dealer")
def test_ranks_follow_the_comparison_key_of_the_rules(cards, role):
    months = [next(c.month for c in all_cards() if c.id == card) for card in cards]
    assert evaluate(cards, role, DEFAULTS).rank == rules_rank(months, cards, role)


def test_a_buta_dealer_named_to_pay_the_bettors_still_in_settles_as_the_default():
    round_ = hands_with(dealer=[10, 7])  # the dealer goes buta at 17
    default = settle_round(round_)
    assert default["house"]["dealer_bust_settlement"] == "pay_survivors"
    named = settle_round(edited(round_, house={"dealer_bust_settlement": "pay_survivors"}))
    assert named["net"] == default["net"] and default["net"]["dealer"] < 0


@pytest.mark.parametrize("laid, net", [
    ([10, 9, 2], -100),  # dealt 2 and 10 (12), drew 9: buta, laid largest first
    ([5, 5, 5, 1, 2], 100),  # dealt 1 and 2, drew three fives: Goshita Gomai, laid the fives first
])
def test_a_hand_laid_in_another_order_than_dealt_is_the_hand_it_is(laid, net):
    # the table shows a hand as laid, not as dealt: a bust laid largest card first, or a Goshita Gomai
    # laid so, was refused as going on after buta, and the round could not be settled
    out = settle_round(hands_with(ann=laid))
    assert out["net"]["ann"] == net, out


def test_a_long_hand_drawn_on_buta_in_every_order_is_refused_without_trying_every_order():
    # every order of ten cards was tried (3.6 million of them): the page settles on each look at it
    r = edited(hands_with(dealer=[8, 8, 8, 8, 9, 9, 9, 9, 10, 10]), house={"dealer_max_cards": 10})
    with pytest.raises(RoundError, match="dealer's hand goes on after going buta at 2 cards"):
        settle_round(r)
