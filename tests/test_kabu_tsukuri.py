"""Kabu-Tsukuri (RULES.md §6) through settle_round: row strength, pots, carry-over, bad input."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.cards import all_cards
from dealer.games import RoundError, get_game, settle_round
from pool_by_month import CardPool
from round_edit import assert_refused, edited


def round_of(rows_by_month: dict[str, list[tuple[int, int, int]]], bet=10, carry=None, house=None) -> dict:
    pool = CardPool()
    r = {"game": "kabu-tsukuri", "bet": bet,
         "rows": {p: [pool.cards(row) for row in rows] for p, rows in rows_by_month.items()}}
    if carry is not None:
        r["carry"] = carry
    if house is not None:
        r["house"] = house
    return r


# (rows by month per player, expected winner per row, expected net, expected carry)
CASES = [
    pytest.param({"ann": [(3, 3, 3), (1, 2, 4), (5, 5, 5)], "bob": [(10, 10, 1), (2, 2, 1), (6, 6, 6)]},
                 ["bob", "ann", "tie"], {"ann": -10, "bob": -10}, 20,
                 id="doshippin>arashi-kabu; 7>5; two arashi draw and carry out"),
    pytest.param({"ann": [(1, 1, 1), (7, 5, 3), (4, 7, 9)], "bob": [(3, 3, 3), (1, 2, 4), (8, 8, 2)]},
                 ["bob", "ann", "ann"], {"ann": 10, "bob": -10}, 0, id="arashi-kabu>arashi; 753>7; raijin>8"),
    pytest.param({"ann": [(4, 7, 9), (5, 6, 7), (10, 9, 8)], "bob": [(3, 7, 10), (6, 5, 4), (2, 8, 9)]},
                 ["ann", "ann", "ann"], {"ann": 30, "bob": -30}, 0, id="raijin>fujin; nobori>kudari; kudari>9"),
    pytest.param({"ann": [(1, 2, 3), (5, 5, 8), (10, 3, 7)], "bob": [(2, 3, 4), (4, 7, 9), (4, 5, 3)]},
                 ["ann", "bob", "ann"], {"ann": 10, "bob": -10}, 0, id="123>nobori; raijin>8; fujin>nobori"),
    pytest.param({"ann": [(4, 5, 6), (1, 1, 7), (6, 6, 7)], "bob": [(7, 8, 9), (2, 2, 5), (8, 8, 3)]},
                 ["ann", "tie", "tie"], {"ann": -10, "bob": -30}, 40,
                 id="nobori by ones digit; draws carry to row 3 and out"),
    pytest.param({"ann": [(1, 1, 7), (2, 3, 5), (6, 6, 7)], "bob": [(2, 2, 5), (2, 3, 4), (8, 8, 4)]},
                 ["tie", "bob", "ann"], {"ann": -10, "bob": 10}, 0, id="draw on row 1 carries into row 2"),
    pytest.param({"ann": [(12, 12, 5), (11, 11, 12), (11, 6, 3)], "bob": [(10, 10, 8), (4, 4, 5), (12, 5, 3)]},
                 ["ann", "ann", "tie"], {"ann": 10, "bob": -30}, 20, id="11 and 12 count 1 and 2 in the sum"),
    pytest.param({"ann": [(1, 1, 2), (3, 3, 1), (7, 7, 10)], "bob": [(5, 5, 10), (8, 8, 6), (9, 9, 8)],
                  "cat": [(4, 4, 1), (2, 2, 5), (6, 6, 7)]},
                 ["cat", "cat", "cat"], {"ann": -30, "bob": -30, "cat": 60}, 0, id="three players"),
    pytest.param({"ann": [(1, 2, 6), (10, 10, 2), (9, 9, 4)], "bob": [(8, 8, 3), (6, 6, 6), (4, 4, 10)],
                  "cat": [(1, 1, 5), (7, 7, 7), (12, 12, 11)]},
                 ["tie", "tie", "bob"], {"ann": -30, "bob": 60, "cat": -30}, 0,
                 id="two share the best row: a draw although a third is beaten"),
    pytest.param({"ann": [(1, 1, 1), (7, 7, 7), (3, 3, 1)], "bob": [(2, 2, 2), (8, 8, 8), (3, 3, 2)],
                  "cat": [(4, 4, 4), (9, 9, 9), (4, 5, 6)], "dan": [(5, 5, 5), (10, 10, 10), (7, 8, 9)],
                  "eve": [(6, 6, 6), (11, 11, 11), (12, 12, 12)]},
                 ["tie", "tie", "eve"], {"ann": -30, "bob": -30, "cat": -30, "dan": -30, "eve": 120}, 0,
                 id="five players: arashi of 11 and 12"),
]


@pytest.mark.parametrize("rows, winners, net, carry", CASES)
def test_settle(rows, winners, net, carry):
    out = settle_round(round_of(rows))
    assert out["winner"] == winners
    assert out["net"] == net
    assert out["carry"] == carry
    assert sum(out["net"].values()) + out["carry"] == 0


def test_scores_name_the_hands():
    out = settle_round(round_of({"ann": [(3, 3, 3), (1, 2, 4), (9, 8, 7)], "bob": [(10, 10, 1), (2, 2, 3), (6, 6, 6)]}))
    assert out["scores"] == {"ann": ["arashi-kabu", 7, "kudari"], "bob": ["doshippin", 7, "arashi"]}
    assert out["rounds"][0]["hands"]["bob"]["label_ja"] == "ドシッピン"
    assert [r["pot"] for r in out["rounds"]] == [20, 20, 40]  # 7 v 7 on row 2 carries


GOOD = round_of({"ann": [(1, 1, 7), (2, 2, 4), (3, 3, 4)], "bob": [(4, 4, 1), (6, 6, 5), (8, 8, 5)]})


def test_carry_in_joins_the_first_pot():
    out = settle_round({**GOOD, "carry": 20})
    # row 1 draws (9 v 9): 20 carried in + 20 antes carry on; row 2 ann 8 > 7 takes 60; row 3 bob
    assert out["winner"] == ["tie", "ann", "bob"]
    assert [r["pot"] for r in out["rounds"]] == [40, 60, 20]
    assert out["net"] == {"ann": 30, "bob": -10}
    assert out["carry_in"] == 20 and out["carry"] == 0
    assert sum(out["net"].values()) + out["carry"] == out["carry_in"]


def test_an_ante_whose_three_tied_rows_could_not_carry_on_is_refused():
    # an ante of 3e11 with two players carried 1.8e12 out of a hand of three ties: refused as the
    # next hand's 'carry', the pot was stranded
    with pytest.raises(RoundError, match="three tied rows would carry a pot of 1800000000000"):
        settle_round({**GOOD, "bet": 3 * 10**11})
    with pytest.raises(RoundError, match="three tied rows would carry a pot of 1000000000001"):
        settle_round({**GOOD, "bet": 10**11, "carry": 4 * 10**11 + 1})
    assert settle_round({**GOOD, "bet": 10**11, "carry": 4 * 10**11})["carry_in"] == 4 * 10**11


def test_fractional_ante():
    out = settle_round({**GOOD, "bet": 2.5})
    assert out["net"] == {"ann": 2.5, "bob": -2.5}


def test_ones_digit_ranking_option():
    rows = {"ann": [(3, 3, 3), (2, 3, 4), (1, 1, 1)], "bob": [(1, 4, 4), (5, 5, 8), (2, 2, 7)]}
    assert settle_round(round_of(rows))["winner"] == ["ann", "ann", "ann"]
    out = settle_round(round_of(rows, house={"ranking": "ones_digit"}))
    assert out["winner"] == ["tie", "ann", "ann"]


def test_western_deck_without_kings():
    r = {"game": "kabu-tsukuri", "bet": 5, "house": {"deck": "western"},
         "rows": {"ann": [["QS", "QH", "QD"], ["AS", "2S", "3S"], ["10S", "10H", "AH"]],
                  "bob": [["JS", "QC", "10D"], ["5D", "6D", "8D"], ["3H", "3D", "3C"]]}}
    out = settle_round(r)
    # queens are 12 (an Arashi); J Q 10 is 11, 12, 10 in dealt order: no run, 33 counts 3
    assert out["scores"] == {"ann": ["arashi", "ichi-ni-san", "doshippin"], "bob": [3, 9, "arashi-kabu"]}
    assert out["winner"] == ["ann", "ann", "ann"]
    assert get_game("kabu-tsukuri").deck({"deck": "western"})["KS"] == 0
    assert sum(get_game("kabu-tsukuri").deck({"deck": "western"}).values()) == 48
    with pytest.raises(RoundError, match="card 'KS' in ann's row 1 .card 1. is not in the deck of kabu-tsukuri"):
        settle_round({**r, "rows": {**r["rows"], "ann": [["KS", "QH", "QD"]] + r["rows"]["ann"][1:]}})
    with pytest.raises(RoundError, match=r"unknown card 'TS' in ann's row 1 \(did you mean 10S\?\)"):
        settle_round({**r, "rows": {**r["rows"], "ann": [["TS", "QH", "QD"]] + r["rows"]["ann"][1:]}})
    # a hanafuda card in a western round is said to be one (it read as a western name merely unknown)
    with pytest.raises(RoundError, match="unknown card 'pine-crane' in ann's row 1; it is a hanafuda card, and this "
                                         r"round is played with western cards \(named like AS, 10H, QD\)"):
        settle_round({**r, "rows": {**r["rows"], "ann": [["pine-crane", "QH", "QD"]] + r["rows"]["ann"][1:]}})
    # western cards with the house's deck left at hanafuda: said, with the option that takes them
    with pytest.raises(RoundError, match="unknown card 'QS' in ann's row 1; it is a western card, and this round "
                                         "is played with hanafuda cards .*house option deck 'western'"):
        settle_round({**r, "house": {}})


def test_game_definition():
    game = get_game("kabu-tsukuri")
    assert sum(game.deck({}).values()) == 48
    zones = game.layout({"rows": {"ann": [], "bob": []}})
    assert [z.name for z in zones] == ["ann/1", "ann/2", "ann/3", "bob/1", "bob/2", "bob/3"]
    assert all(z.cards == 3 for z in zones)
    assert [z.group for z in zones] == ["ann"] * 3 + ["bob"] * 3
    assert zones[0].label_ja == "annの1列目"
    assert game.layout({"players": ["ann", "bob"]}) == zones
    with pytest.raises(RoundError, match="missing field 'rows'"):
        game.layout({})




def with_(**changes):
    return edited(GOOD, **changes)


def rows_with(player, i, j, card):
    r = json.loads(json.dumps(GOOD))
    r["rows"][player][i][j] = card
    return r


BAD = [
    (rows_with("ann", 0, 0, "pine-crain"), "unknown card 'pine-crain' in ann's row 1 (did you mean pine-crane"),
    # (each place with its card: two cards of one row were named as the same place twice)
    (rows_with("ann", 0, 0, GOOD["rows"]["bob"][2][2]), "is dealt more than once (in ann's row 1 (card 1), again in "
                                                          "bob's row 3 (card 3): one of them is another card)"),
    (rows_with("ann", 0, 0, "AS"), "unknown card 'AS'"),
    (rows_with("ann", 2, 1, "back"), "a card in ann's row 3 is face down ('back')"),
    (with_(rows={"ann": GOOD["rows"]["ann"]}), "needs 2 to 5 players, not 1"),
    (with_(rows={"ann": GOOD["rows"]["ann"][:2], "bob": GOOD["rows"]["bob"]}), "ann must have 3 rows"),
    (with_(rows={"ann": [r[:2] for r in GOOD["rows"]["ann"]], "bob": GOOD["rows"]["bob"]}),
     "ann's row 1 must have 3 cards"),
    (with_(rows=None), "missing field 'rows'"),
    # 'winner' lists each row's winner or 'tie': a player called tie would read as a draw
    (with_(rows={"tie": GOOD["rows"]["ann"], "bob": GOOD["rows"]["bob"]}),
     "'tie' is what a result calls a draw, not a player name"),
    (with_(rows={"dealer": GOOD["rows"]["ann"], "bob": GOOD["rows"]["bob"]}), "'dealer' is the bank, not a player name"),
    (with_(bet=None), "missing field 'bet'"),
    (with_(bet=0), "'bet' (the ante) must be a positive number, not 0"),
    (with_(bet=-5), "must be a positive number"),
    (with_(bet="10"), "field 'bet' must be a positive number"),
    (with_(carry=-1), "'carry' (the pot carried in) must be a positive number"),
    (with_(carry=False), "'carry' (the pot carried in) must be a positive number, not False"),
    (with_(bets=[{"player": "ann", "on": "ann", "amount": 5}]), "takes the ante as 'bet'"),
    (with_(house={"ranking": "plain"}), "house option 'ranking' cannot be 'plain'"),
    (with_(house={"carry_over": True}), "unknown house option 'carry_over' for kabu-tsukuri"),
    # 'players' is read only to be checked against the rows
    (with_(players=["ann", "bob", "zed"]), "player 'zed' has no rows: 'players' and the keys of 'rows' must name"),
    (with_(players=["ann"]), "player 'bob' is not in 'players'"),
    (with_(players=["ann", "bob", "bob"]), "player 'bob' is listed twice in 'players'"),
    (with_(players="ann"), "field 'players' must be a list of player names"),
    (with_(dealer="zed"), "'dealer' must name one of the players (ann, bob), not 'zed'"),
    (with_(dealer=["ann"]), "'dealer' must name one of the players (ann, bob), not ['ann']"),
    (with_(house={"next_dealer": "winner"}), "house option 'next_dealer' cannot be 'winner'"),
]


@pytest.mark.parametrize("round_, message", BAD, ids=[m for _, m in BAD])
def test_bad_input(round_, message):
    assert_refused(round_, message)


def test_the_next_dealer_sits_after_the_dealer_counter_clockwise_unless_the_house_says_clockwise():
    # RULES.md §6: later dealers are a house rule; §10 K3: rotate counter-clockwise. 'rows' lists
    # the players in the order they sit, counter-clockwise
    round_ = round_of({"ann": [(1, 1, 7), (2, 2, 4), (3, 3, 4)], "bob": [(4, 4, 1), (6, 6, 5), (8, 8, 5)],
                       "cat": [(9, 9, 1), (10, 10, 2), (11, 11, 3)]})
    for dealer, ccw, cw in (("ann", "bob", "cat"), ("bob", "cat", "ann"), ("cat", "ann", "bob")):
        assert settle_round(edited(round_, dealer=dealer))["next_dealer"] == ccw
        assert settle_round(edited(round_, dealer=dealer, house={"next_dealer": "rotate_cw"}))["next_dealer"] == cw
    assert settle_round(round_)["next_dealer"] is None  # no dealer named: none to rotate from
    assert settle_round(edited(round_, dealer="bob"))["net"] == settle_round(round_)["net"]  # no money moves


def test_players_naming_the_rows_players_is_accepted():
    assert settle_round(with_(players=["bob", "ann"]))["net"] == settle_round(GOOD)["net"]


@st.composite
def hands(draw):
    n = draw(st.integers(2, 5))
    deck = [c.id for c in all_cards()]
    cards = draw(st.permutations(deck))[:9 * n]
    names = ["ann", "bob", "cat", "dan", "eve"][:n]
    rows = {p: [cards[9 * i + 3 * k: 9 * i + 3 * k + 3] for k in range(3)] for i, p in enumerate(names)}
    carry = draw(st.sampled_from([None, 5, 12.5]))
    bet = draw(st.sampled_from([1, 3, 2.5, 10]))
    return {"game": "kabu-tsukuri", "bet": bet, "rows": rows, **({"carry": carry} if carry else {})}


@settings(max_examples=60, deadline=None)
@given(hands(), st.randoms(use_true_random=False))
def test_chips_conserved_and_player_order_irrelevant(round_, rnd):
    out = settle_round(round_)
    assert sum(out["net"].values()) + out["carry"] == out["carry_in"]
    players = list(round_["rows"])
    rnd.shuffle(players)
    again = settle_round({**round_, "rows": {p: round_["rows"][p] for p in players}})
    assert again["net"] == out["net"] and again["winner"] == out["winner"] and again["carry"] == out["carry"]


@settings(max_examples=60, deadline=None)
@given(hands(), st.randoms(use_true_random=False))
def test_order_within_a_row_matters_only_for_runs(round_, rnd):
    out = settle_round(round_)
    shuffled = json.loads(json.dumps(round_))
    for rows in shuffled["rows"].values():
        for row in rows:
            rnd.shuffle(row)
    again = settle_round(shuffled)
    runs = any(h["hand"] in ("nobori", "kudari") for r in out["rounds"] + again["rounds"]
               for h in r["hands"].values())
    if not runs:
        assert again["net"] == out["net"]
