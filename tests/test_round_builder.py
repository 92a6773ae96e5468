"""From a table snapshot to the round document, for each game's shape, refusing what is not sure."""
from collections import Counter

import pytest

from dealer.cards import all_cards
from dealer.games import Game, ZoneSpec
from webfakes import card_json
from webui.round_builder import RoundBuilder, bet_targets, table_zones


def _game(name, layout):
    return Game(name=name, title_en=name, title_ja="", options=(),
                deck=lambda house: Counter({c.id: 1 for c in all_cards()}),
                layout=lambda setup: layout, settle=lambda r, h: {})


ROWS = _game("batta-maki", [ZoneSpec("saki", 3, "Saki", "先"), ZoneSpec("ato", 3, "Ato", "後")])
SETUP = {"game": "batta-maki", "players": [{"name": "A"}, {"name": "B"}]}


def snap(**zones):
    return {"version": 1, "zones": [{"name": n, "cards": [card_json(*c) for c in cs]} for n, cs in zones.items()]}


def test_rows_in_table_order_with_bets():
    s = snap(saki=[(1, "pine-crane"), (2, "plum-warbler"), (3, "cherry-curtain")],
             ato=[(4, "iris-bridge"), (5, "maple-deer"), (6, "willow-swallow")])
    bets = [{"id": "x", "player": "A", "on": "saki", "amount": 5}]
    built = RoundBuilder().build(s, ROWS, SETUP, bets, {})
    assert built.ready and built.problems == ()
    assert built.round == {"game": "batta-maki", "house": {}, "bets": [{"player": "A", "on": "saki", "amount": 5}],
                           "rows": {"saki": ["pine-crane", "plum-warbler", "cherry-curtain"],
                                    "ato": ["iris-bridge", "maple-deer", "willow-swallow"]}}


def test_chaff_sharing_a_face_become_distinct_cards():
    s = snap(saki=[(1, "pine-chaff-1"), (2, "pine-chaff-1"), (3, "cherry-curtain")],
             ato=[(4, "iris-bridge"), (5, "maple-deer"), (6, "willow-swallow")])
    built = RoundBuilder().build(s, ROWS, SETUP, [], {})
    assert built.round["rows"]["saki"][:2] == ["pine-chaff-1", "pine-chaff-2"]


@pytest.mark.parametrize("zones, message", [
    ({"saki": [(1, "pine-crane"), (2, "plum-warbler")], "ato": [(4, "iris-bridge"), (5, "maple-deer"), (6, "willow-swallow")]},
     "Saki 先 has 2 of 3 cards"),
    ({"saki": [(1, "pine-crane"), (2, "plum-warbler"), (3, "back")], "ato": [(4, "iris-bridge"), (5, "maple-deer"), (6, "willow-swallow")]},
     "Saki 先: 1 card(s) still face down"),
    ({"saki": [(1, "pine-crane"), (2, "plum-warbler"), (3, "cherry-curtain", True)], "ato": [(4, "iris-bridge"), (5, "maple-deer"), (6, "willow-swallow")]},
     "card 3 of Saki 先 is uncertain"),
])
def test_refuses_incomplete_face_down_or_uncertain(zones, message):
    built = RoundBuilder().build(snap(**zones), ROWS, SETUP, [], {})
    assert not built.ready
    assert any(message in p for p in built.problems), built.problems


def test_a_correction_resolves_doubt_and_is_kept_for_the_ledger():
    s = snap(saki=[(1, "pine-crane"), (2, "plum-warbler"), (3, "cherry-curtain", True)],
             ato=[(4, "iris-bridge"), (5, "maple-deer"), (6, "willow-swallow")])
    built = RoundBuilder().build(s, ROWS, SETUP, [], {"3": "cherry-poetry"})
    assert built.ready and built.round["rows"]["saki"][2] == "cherry-poetry"
    fixed = [c for c in built.cards if c["corrected"]]
    assert fixed == [dict(fixed[0], zone="saki", position=3, recognised="cherry-curtain", card="cherry-poetry")]


def test_a_chaff_card_confirmed_as_read_is_recorded_as_read():
    # the dealer's pick took the copy the camera had named, and the ledger said it was read as the other
    s = snap(saki=[(1, "pine-crane"), (2, "plum-warbler"), (3, "maple-chaff-1", True)],
             ato=[(4, "iris-bridge"), (5, "maple-deer"), (6, "willow-swallow")])
    built = RoundBuilder().build(s, ROWS, SETUP, [], {"3": "maple-chaff-1"})
    fixed = [c for c in built.cards if c["corrected"]]
    assert [(c["recognised"], c["card"]) for c in fixed] == [("maple-chaff-1", "maple-chaff-1")]


def test_face_down_counted_once_whether_listed_or_counted():
    raw = {"zones": [{"name": "saki", "cards": [card_json(1, "back")], "face_down": 1}]}
    _, down, _ = table_zones(raw)
    assert down == {"saki": 1}
    assert table_zones({"zones": {"saki": [card_json(1, "back")]}})[1] == {"saki": 1}


def test_otoroku_hands_and_seats():
    g = _game("otoroku", [ZoneSpec("A", None, "A", ""), ZoneSpec("B", None, "B", ""), ZoneSpec("dealer", None, "Dealer", "親")])
    s = snap(A=[(1, "pine-crane"), (2, "plum-warbler")], B=[(3, "iris-bridge")], dealer=[(4, "maple-deer"), (5, "peony-blue")])
    setup = dict(SETUP, game="otoroku", seats=["A", "B"], share=10)
    built = RoundBuilder().build(s, g, setup, [], {})
    assert built.round["seats"] == ["A", "B"] and built.round["share"] == 10
    assert "bets" not in built.round  # Otoroku is played in shares
    assert bet_targets(g, setup) == []
    assert built.round["hands"] == {"A": ["pine-crane", "plum-warbler"], "B": ["iris-bridge"],
                                    "dealer": ["maple-deer", "peony-blue"]}


def test_kabu_tsukuri_rows_per_player():
    layout = [ZoneSpec(f"{p}-{r}", 3, f"{p} row {r}", "", group=p) for p in ("A", "B") for r in (1, 2, 3)]
    g = _game("kabu-tsukuri", layout)
    ids = [c.id for c in all_cards()]
    zones = {z.name: [(i * 3 + k, ids[i * 3 + k]) for k in range(3)] for i, z in enumerate(layout)}
    built = RoundBuilder().build(snap(**zones), g, dict(SETUP, game="kabu-tsukuri", ante=2), [], {})
    assert built.ready
    assert built.round["bet"] == 2 and "bets" not in built.round
    assert built.round["rows"]["A"] == [ids[0:3], ids[3:6], ids[6:9]]
    assert list(built.round["rows"]) == ["A", "B"]


def test_echobo_dealer_card_and_bet_targets():
    g = _game("echobo", [ZoneSpec("dealer", 1, "Dealer's card", "親札"),
                         ZoneSpec("A", None, "A: cards bet on", "", group="A")])
    # the bettors' own cards are shown but do not decide: an unsure one there does not block
    s = snap(dealer=[(1, "iris-bridge")], A=[(2, "pine-crane", True)])
    bets = [{"player": "A", "on": 5, "amount": 10}]
    built = RoundBuilder().build(s, g, dict(SETUP, game="echobo"), bets, {})
    assert built.ready, built.problems
    assert built.round == {"game": "echobo", "house": {}, "dealer_card": "iris-bridge",
                           "bets": [{"player": "A", "on": 5, "amount": 10}]}
    missing = RoundBuilder().build(snap(A=[(2, "pine-crane")]), g, dict(SETUP, game="echobo"), bets, {})
    assert any("Dealer's card" in p and "0 of 1" in p for p in missing.problems)
    targets = bet_targets(g, dict(SETUP, game="echobo"))
    assert "pine-crane" in targets and 6 in targets


def test_otoroku_a_bettor_not_chosen_may_keep_his_hand_unseen():
    g = _game("otoroku", [ZoneSpec("A", None, "A", ""), ZoneSpec("B", None, "B", ""), ZoneSpec("dealer", None, "Dealer", "親")])
    s = snap(A=[(1, "pine-crane"), (2, "plum-warbler")], B=[(3, "back"), (4, "back")],
             dealer=[(5, "maple-deer"), (6, "peony-blue")])
    setup = dict(SETUP, game="otoroku", seats=["A", "B"], share=1)
    assert not RoundBuilder().build(s, g, setup, [], {}).ready
    built = RoundBuilder().build(s, g, dict(setup, chosen=["A"]), [], {})
    assert built.ready, built.problems
    assert built.round["chosen"] == ["A"] and set(built.round["hands"]) == {"A", "dealer"}
