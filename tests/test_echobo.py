"""Echobo (RULES.md §7.1) through settle_round: payouts, terazen, betting limits, bad input."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.games import RoundError, get_game, settle_round
from round_edit import assert_refused


def bet(player, on, amount=10):
    return {"player": player, "on": on, "amount": amount}


def round_of(dealer_card, bets, **house):
    return {"game": "echobo", "dealer_card": dealer_card, "bets": bets, **({"house": house} if house else {})}


# (dealer card, bets, house, expected net, expected fee)
CASES = [
    pytest.param("cherry-curtain", [bet("ann", 3)], {}, {"ann": 50, "dealer": -50}, 0, id="correct month wins 5x"),
    pytest.param("cherry-curtain", [bet("ann", 4)], {}, {"ann": -10, "dealer": 10}, 0, id="wrong month loses stake"),
    pytest.param("cherry-chaff-2", [bet("ann", "cherry-poetry")], {}, {"ann": 50, "dealer": -50}, 0,
                 id="card type is irrelevant"),
    pytest.param("cherry-curtain", [bet("ann", 3)], {"profit": 4.5}, {"ann": 45, "dealer": -45}, 5,
                 id="4.5x: dealer keeps 0.5 as terazen"),
    pytest.param("cherry-curtain", [bet("ann", 3)], {"profit": 4.6}, {"ann": 46, "dealer": -46}, 4,
                 id="4.6x: dealer keeps 0.4"),
    pytest.param("pine-crane", [bet("ann", 1, 3)], {"profit": 4.6}, {"ann": 13.8, "dealer": -13.8}, 1.2,
                 id="exact decimals"),
    # k equal bets of b, one correct: +5b - (k-1)b
    pytest.param("iris-bridge", [bet("ann", 5), bet("ann", 1), bet("ann", 2), bet("ann", 6)], {},
                 {"ann": 20, "dealer": -20}, 0, id="four cards, one correct"),
    pytest.param("iris-bridge", [bet("ann", 1), bet("ann", 2), bet("ann", 3), bet("ann", 4)], {},
                 {"ann": -40, "dealer": 40}, 0, id="four cards, none correct"),
    pytest.param("peony-blue", [bet("ann", 6), bet("bob", "peony-butterflies"), bet("cat", 2)], {},
                 {"ann": 50, "bob": 50, "cat": -10, "dealer": -90}, 0, id="several bettors"),
    pytest.param("plum-warbler", [bet("ann", 2, 10), bet("ann", 3, 30), bet("bob", 2, 5)],
                 {"bet_mode": "limit_per_player", "bet_limit": 40},
                 {"ann": 20, "bob": 25, "dealer": -45}, 0, id="limit mode: any stake per card"),
    pytest.param("wisteria-cuckoo", [bet("ann", 4, 2), bet("ann", 1, 2)], {"bet_size": 2},
                 {"ann": 8, "dealer": -8}, 0, id="fixed bet size"),
    # a stake and the house's bet size are read alike (to 6 decimals)
    pytest.param("wisteria-cuckoo", [bet("ann", 4, 0.123457)], {"bet_size": 0.123457},
                 {"ann": 0.617285, "dealer": -0.617285}, 0, id="fixed bet size in decimals"),
    pytest.param("wisteria-cuckoo", [bet("ann", 1), bet("ann", 2), bet("ann", 3), bet("ann", 5),
                                     bet("ann", 6)], {"max_cards": 5},
                 {"ann": -50, "dealer": 50}, 0, id="max_cards raised to 5"),
    pytest.param("pine-chaff-1", [bet("ann", "pine-crane"), bet("bob", "pine-poetry"), bet("cat", "pine-chaff-2"),
                                  bet("dan", "pine-chaff-1")], {"deck_count": 2},
                 {"ann": 50, "bob": 50, "cat": 50, "dan": 50, "dealer": -200}, 0, id="two decks: more bettors"),
    pytest.param("pine-chaff-1", [], {}, {"dealer": 0}, 0, id="no bets"),
]


@pytest.mark.parametrize("dealer_card, bets, house, net, fee", CASES)
def test_settle(dealer_card, bets, house, net, fee):
    out = settle_round(round_of(dealer_card, bets, **house))
    assert out["net"] == net
    assert out["fee"] == fee
    assert sum(out["net"].values()) == pytest.approx(0)


def test_result_names_the_winning_month_and_each_bet():
    out = settle_round(round_of("cherry-curtain", [bet("ann", 3), bet("ann", "pine-crane")]))
    assert out["winner"] == 3 and out["scores"] == {"dealer": 3}
    assert [(b["on"], b["month"], b["result"], b["net"]) for b in out["bets"]] == [
        (3, 3, "win", 50), ("pine-crane", 1, "lose", -10)]


def test_exact_fractions_when_six_decimals_cannot_show_the_net():
    out = settle_round(round_of("pine-crane", [bet("ann", 1, 0.333333)], profit=4.6))
    assert out["net_exact"] == {"ann": "7666659/5000000", "dealer": "-7666659/5000000"}
    assert "net_exact" not in settle_round(round_of("pine-crane", [bet("ann", 1, 2.5)], profit=4.6))
    assert out["house"]["profit"] == 4.6 and out["house"]["max_cards"] == 4


def test_game_definition():
    game = get_game("echobo")
    assert sum(game.deck({"deck_count": 1}).values()) == 24
    assert sum(game.deck({"deck_count": 2}).values()) == 48
    assert sum(game.deck({"deck_count": 3}).values()) == 72  # (RULES.md §7.1: more decks, more bettors)
    zones = game.layout(round_of("pine-crane", [bet("ann", 1), bet("bob", 2), bet("ann", 3)]))
    assert [z.name for z in zones] == ["dealer", "ann", "bob"]
    assert zones[0].cards == 1 and zones[0].label_ja == "親の札"
    assert [z.name for z in game.layout({"players": ["cat"]})] == ["dealer", "cat"]
    assert [z.name for z in game.layout({})] == ["dealer"]


BAD = [
    (round_of("maple-deer", [bet("ann", 1)]), "card 'maple-deer' in dealer_card is not in the deck of echobo"),
    (round_of("back", [bet("ann", 1)]), "a card in dealer_card is face down ('back'): every card must be revealed"),
    (round_of("cherry-curtan", [bet("ann", 1)]), "unknown card 'cherry-curtan' in dealer_card (did you mean cherry-curtain"),
    (round_of("pine-crane", [bet("ann", 7)]), "bet 1 is on month 7; echobo uses months 1-6"),
    (round_of("pine-crane", [bet("ann", 0)]), "bet 1 is on month 0"),
    (round_of("pine-crane", [bet("ann", "willow-swallow")]), "card 'willow-swallow' in bet 1 is not in the deck"),
    (round_of("pine-crane", [bet("ann", "plum-warblr")]), "unknown card 'plum-warblr' in bet 1"),
    (round_of("pine-crane", [bet("ann", "3")]), "bet 1 is on '3', text: a month is written as a number (3)"),
    # a digit that is not a decimal one (a superscript) is no month: it is refused, not a crash
    (round_of("pine-crane", [bet("ann", "\u00b2")]), "unknown card '\u00b2' in bet 1"),
    (round_of("pine-crane", [bet("ann", True)]), "bet 1 must be on a card id or a month number"),
    (round_of("pine-crane", [bet("ann", "pine-crane")]), "card 'pine-crane' is dealt more than once"),
    (round_of("pine-crane", [bet("ann", "plum-warbler"), bet("bob", "plum-warbler")]),
     "card 'plum-warbler' is dealt more than once (in bet 1 (ann), again in bet 2 (bob): one of them is another card)"),
    (round_of("pine-crane", [bet("ann", 2), bet("ann", "plum-poetry")]), "bet 2: ann already bets on month 2"),
    (round_of("pine-crane", [bet("ann", 1, 0)]), "bet 1 amount must be a positive number, not 0"),
    (round_of("pine-crane", [bet("ann", 1, -10)]), "bet 1 amount must be a positive number"),
    (round_of("pine-crane", [bet("ann", 1, "ten")]), "bet 1 amount must be a positive number, not 'ten'"),
    (round_of("pine-crane", [{"player": "ann", "on": 1}]), "bet 1 is missing field 'amount'"),
    (round_of("pine-crane", [dict(bet("ann", 1), amout=99)]),
     "bet 1 has a field 'amout' that a bet does not have (did you mean 'amount'?)"),
    (round_of("pine-crane", [bet("ann", 1), bet("ann", 2), bet("ann", 3), bet("ann", 4), bet("ann", 5)]),
     "ann bets on 5 cards; at most 4 (max_cards)"),
    (round_of("pine-crane", [bet("ann", 1, 10), bet("bob", 2, 20)]),
     "bet 2 stakes 20, but every card carries the same fixed stake 10"),
    (round_of("pine-crane", [bet("ann", 1, 10)], bet_size=5), "bet 1 stakes 10, but every card carries"),
    # (no bet could be taken: 10 is over the limit, and 5 is not the stake on every card)
    (round_of("pine-crane", [bet("ann", 1, 10)], bet_size=10, bet_limit=5),
     "house option 'bet_size' 10 (the stake on every card) is above 'bet_limit' 5 (the most a bettor stakes): "
     "no bet could be taken"),
    (round_of("pine-crane", [bet("ann", 1, 30), bet("ann", 2, 20)], bet_mode="limit_per_player", bet_limit=40),
     "ann stakes 50 in all, over the bet_limit 40"),
    (round_of("pine-crane", [bet("ann", 1)], bet_mode="limit_per_player", bet_size=10),
     "'bet_size' applies only to bet_mode fixed_per_card"),
    (round_of("pine-crane", [bet(p, 1) for p in ("a", "b", "c", "d")]),
     "4 bettors, but 1 deck(s) serve the dealer and at most 3 bettors"),
    (round_of("pine-crane", [bet(p, 1) for p in "abcdefgh"], deck_count=2),
     "8 bettors, but 2 deck(s) serve the dealer and at most 7 bettors"),
    (round_of("pine-crane", [bet("ann", 1)], profit=4), "house option 'profit' cannot be 4"),
    (round_of("pine-crane", [bet("ann", 1)], bet_size=10**13), "house option 'bet_size' cannot be 10000000000000"),
    (round_of("pine-crane", [bet("ann", 1)], bet_limit=-1), "house option 'bet_limit' cannot be -1"),
    (round_of("pine-crane", [bet("ann", 1)], max_cards=0), "house option 'max_cards' cannot be 0"),
    (round_of("pine-crane", [bet("ann", 1)], fee_model="percent"), "unknown house option 'fee_model' for echobo"),
    ({"game": "echobo", "bets": []}, "missing field 'dealer_card'"),
    ({"game": "echobo", "dealer_card": "pine-crane"}, "missing field 'bets'"),
    (round_of("pine-crane", [bet("dealer", 1)]), "'dealer' is the bank, not a player name"),
    # 'players' is read only to be checked: a bet by someone it does not list is a mistake
    (round_of("pine-crane", [bet("ann", 1), bet("zed", 2)]) | {"players": ["ann", "bob"]},
     "bet 2 is by 'zed', who is not in 'players'"),
    (round_of("pine-crane", [bet("ann", 1)]) | {"players": ["ann", "ann"]}, "player 'ann' is listed twice in 'players'"),
    (round_of("pine-crane", [bet("ann", 1)]) | {"players": "ann"}, "field 'players' must be a list of player names"),
]


@pytest.mark.parametrize("round_, message", BAD, ids=[m for _, m in BAD])
def test_bad_input(round_, message):
    assert_refused(round_, message)


def test_players_listed_need_not_all_bet():
    r = round_of("pine-crane", [bet("ann", 1)])
    assert settle_round(r | {"players": ["ann", "bob"]})["net"] == settle_round(r)["net"]


targets = st.sampled_from([1, 2, 3, 4, 5, 6])


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6), st.lists(st.tuples(st.sampled_from(["ann", "bob", "cat"]), targets,
                                             st.sampled_from([1, 2.5, 7, 10])), max_size=12),
       st.sampled_from([5, 4.5, 4.6]), st.randoms(use_true_random=False))
def test_chips_conserved_and_bet_order_irrelevant(month, raw, profit, rnd):
    seen, bets = set(), []
    for player, on, amount in raw:
        if (player, on) not in seen and sum(1 for p, _ in seen if p == player) < 4:
            seen.add((player, on))
            bets.append(bet(player, on, amount))
    dealer = ["pine-crane", "plum-warbler", "cherry-curtain", "wisteria-cuckoo", "iris-bridge", "peony-blue"][month - 1]
    house = {"profit": profit, "bet_mode": "limit_per_player"}
    out = settle_round(round_of(dealer, bets, **house))
    assert sum(out["net"].values()) == pytest.approx(0, abs=1e-9)
    # the fee is what a 5x payout would have paid beyond this one
    full = settle_round(round_of(dealer, bets, bet_mode="limit_per_player"))
    assert full["net"]["dealer"] - out["net"]["dealer"] == pytest.approx(-out["fee"])
    shuffled = list(bets)
    rnd.shuffle(shuffled)
    again = settle_round(round_of(dealer, shuffled, **house))
    assert again["net"] == out["net"]
    json.dumps(out)  # the result is plain JSON


def test_two_decks_serve_the_dealer_and_seven_bettors():
    out = settle_round(round_of("pine-crane", [bet(p, 1) for p in "abcdefg"], deck_count=2))
    assert out["net"]["dealer"] == -7 * 50


def test_three_decks_serve_the_dealer_and_eleven_bettors():
    # RULES.md §7.1: "more decks allow more bettors"; two were the most taken
    out = settle_round(round_of("pine-crane", [bet(p, 1) for p in "abcdefghijk"], deck_count=3))
    assert out["net"]["dealer"] == -11 * 50
    with pytest.raises(RoundError, match="12 bettors, but 3 deck"):
        settle_round(round_of("pine-crane", [bet(p, 1) for p in "abcdefghijkl"], deck_count=3))
