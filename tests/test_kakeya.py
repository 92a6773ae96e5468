"""Kakeya Toranpu (RULES.md §8, §10 KT1-KT5): trumps and the Rensho, follow-suit legality, trick
winners, the picture-card count, the 8-8 tie-break, the stone table, and bad input."""
import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.games import RoundError, get_game, settle_round
from round_edit import assert_refused
from dealer.games.kakeya import may_play, rensho_of, stones_for, trick_winner
from dealer.cards import UnknownCardError
from dealer.western import RANKS, all_western_cards, get_western_card, nearest_western_ids
from kakeya_play import deal, play

P4 = ["ann", "bob", "cat", "dan"]
DOWN = list(RANKS)          # A K Q ... 2
UP = DOWN[::-1]             # 2 3 ... A


def suit(s, ranks=DOWN):
    return [r + s for r in ranks]


def kakeya(hands, tricks, trump="S", players=P4, **extra):
    return {"game": "kakeya-toranpu", "players": players, "trump": trump, "hands": hands, "tricks": tricks,
            **extra}


# --- trick winners and legality --------------------------------------------------------------

# (cards in the order played, trump, rensho rule, index of the winner)
TRICKS = [
    (["2S", "AH", "KH", "3S"], "S", "standard", 3),     # highest trump
    (["KH", "AH", "QH", "JH"], "S", "standard", 1),     # highest of the suit led
    (["KH", "AD", "QH", "2H"], "S", "standard", 0),     # an off-suit ace does not win
    (["KH", "2S", "AC", "AS"], "S", "standard", 2),     # the Rensho (AC) beats the trump ace
    (["AC", "KC", "2S", "3C"], "S", "standard", 0),     # the Rensho led
    (["KC", "QC", "JC", "10C"], "S", "standard", 0),
    (["2C", "AC", "3C", "4C"], "S", "standard", 1),
    (["KS", "AS", "2H", "AH"], "H", "standard", 1),     # trumps H: the Rensho is AS
    (["KS", "QS", "2H", "3H"], "H", "standard", 3),     # else highest heart
    (["KC", "AC", "2D", "AS"], "C", "standard", 3),     # trumps C: AS still beats the clubs ace
    (["KD", "AC", "2D", "3C"], "C", "standard", 1),     # AC is the trump ace
    (["KD", "2S", "AD", "QD"], "D", "standard", 2),
    (["KH", "AC", "2S", "QH"], "S", "spade_ace", 2),    # kakeya-js reading: AC is just a club
    (["KH", "AC", "AS", "QH"], "S", "spade_ace", 2),
    (["KH", "AS", "2D", "QD"], "D", "spade_ace", 1),
]


@pytest.mark.parametrize("cards, trump, rule, winner", TRICKS)
def test_trick_winner(cards, trump, rule, winner):
    assert trick_winner([get_western_card(c) for c in cards], trump, rensho_of(trump, rule)) == winner


@pytest.mark.parametrize("trump, rule, rensho", [("S", "standard", "AC"), ("H", "standard", "AS"),
                                                  ("D", "standard", "AS"), ("C", "standard", "AS"),
                                                  ("S", "spade_ace", "AS"), ("H", "spade_ace", "AS")])
def test_rensho_card(trump, rule, rensho):
    assert rensho_of(trump, rule) == rensho


# (card, suit led, hand held when playing (card included), rensho, legal?)
LEGAL = [
    ("5H", None, ["5H", "2S"], "AC", True),              # any lead
    ("5H", "H", ["5H", "2S"], "AC", True),               # following
    ("2S", "H", ["5H", "2S"], "AC", False),              # must follow hearts
    ("2S", "H", ["2S", "3D"], "AC", True),               # no hearts: any card
    ("AC", "H", ["AC", "5H"], "AC", True),               # the Rensho at any time
    ("AS", "H", ["AS", "5H"], "AC", False),              # the trump ace is no Rensho
    ("AS", "H", ["AS", "5H"], "AS", True),               # ... unless trumps are not spades
    ("3S", "C", ["AC", "3S"], "AC", False),              # KT4: the Rensho is a club: must follow with it
    ("AC", "C", ["AC", "3S"], "AC", True),
    ("5D", "S", ["AS", "5D"], "AS", False),              # holder's only spade is the Rensho
]


@pytest.mark.parametrize("card, led, hand, rensho, legal", LEGAL)
def test_may_play(card, led, hand, rensho, legal):
    assert may_play(card, led, hand, rensho) is legal


# --- the stone table (RULES.md §8, every cell) --------------------------------------------------

# aces held by the winners (trump S: Rensho AC, trump ace AS) -> row of the table
ACE_ROWS = {"no aces": set(), "1-2 plain aces": {"AH"}, "2 plain aces": {"AH", "AD"},
            "rensho": {"AC"}, "trump ace": {"AS"}, "3 plain+": {"AH", "AD", "AS"}, "all": {"AS", "AH", "AD", "AC"}}
TABLE = {  # row -> stones for (8-11, 12-15, 16); None: impossible
    "no aces": (4, 4, None), "1-2 plain aces": (2, 2, None), "2 plain aces": (2, 2, None),
    "rensho": (1, 2, 4), "trump ace": (1, 2, 4), "3 plain+": (1, 2, 4), "all": (1, 2, 4),
}


@pytest.mark.parametrize("row", TABLE)
@pytest.mark.parametrize("pictures", range(8, 17))
def test_stone_table(row, pictures):
    column = 0 if pictures <= 11 else 1 if pictures <= 15 else 2
    expected = TABLE[row][column]
    if expected is None:
        return  # the cell cannot occur: the pair with the Rensho always takes its trick
    assert stones_for(pictures, ACE_ROWS[row], "AC", "AS")[0] == expected


# --- whole hands --------------------------------------------------------------------------------

def one_suit_each(**who_suit):
    return {p: suit(s) for p, s in who_suit.items()}


def scenario_15():
    """ann all spades (trumps), bob hearts, cat diamonds, dan clubs with the Rensho AC. ann leads
    spades from the top and wins 12 tricks; dan plays the Rensho last and takes trick 13."""
    hands = one_suit_each(ann="S", bob="H", cat="D", dan="C")
    clubs = suit("C", UP[:-1])  # 2C .. KC, the Rensho kept back
    tricks = [[DOWN[i] + "S", DOWN[i] + "H", DOWN[i] + "D", clubs[i]] for i in range(12)]
    tricks.append(["2S", "2H", "2D", "AC"])
    return kakeya(hands, tricks, dealers=["bob", "dan"])


def scenario_16():
    """ann spades (trumps), cat clubs with the Rensho: ann and cat take every trick."""
    hands = one_suit_each(ann="S", bob="H", cat="C", dan="D")
    clubs = suit("C", UP[:-1])
    tricks = [[DOWN[i] + "S", DOWN[i] + "H", clubs[i], DOWN[i] + "D"] for i in range(12)]
    tricks.append(["2S", "2H", "AC", "2D"])
    return kakeya(hands, tricks)


def scenario_rensho_any_time():
    """dan holds 2S but plays the Rensho on a spade lead (legal), then takes 5 picture cards in all."""
    hands = {"ann": suit("S", DOWN[:-1]) + ["2C"], "bob": suit("H"), "cat": suit("D"),
             "dan": ["2S"] + suit("C", DOWN[:-1])}
    tricks = [["AS", "AH", "AD", "AC"], ["2S", "KS", "KH", "KD"]]
    clubs = suit("C", UP[1:-2])  # 3C .. QC
    for i in range(10):
        tricks.append([DOWN[i + 2] + "S", DOWN[i + 2] + "H", DOWN[i + 2] + "D", clubs[i]])
    tricks.append(["2C", "2H", "2D", "KC"])
    return kakeya(hands, tricks)


def test_fifteen_picture_cards():
    out = settle_round(scenario_15())
    assert out["winner"] == ["ann", "cat"]
    assert out["scores"] == {"ann+cat": 15, "bob+dan": 1}
    assert [t["winner"] for t in out["tricks"]] == ["ann"] * 12 + ["dan"]
    assert out["winner_aces"] == ["AD", "AS"]          # dealt: AS is the trump ace
    assert (out["ace_bonus"], out["count_bonus"], out["stones"]) == (1, 2, 2)
    assert out["net"] == {"ann+cat": 2, "bob+dan": -2}
    assert out["rensho"] == "AC" and out["rensho_dealt_to"] == "dan"
    assert out["next_dealers"] == ["bob", "dan"]  # the losing pair deals next


@pytest.mark.parametrize("held, left, over", [({"ann+cat": 5, "bob+dan": 5}, {"ann+cat": 7, "bob+dan": 3}, False),
                                              ({"ann+cat": 1, "bob+dan": 2}, {"ann+cat": 3, "bob+dan": 0}, True),
                                              # the losers pay the one stone they have of the 2 due (they
                                              # were left with -1, and the winners paid 2)
                                              ({"ann+cat": 1, "bob+dan": 1}, {"ann+cat": 2, "bob+dan": 0}, True)])
def test_stones_held_and_game_end(held, left, over):
    out = settle_round({**scenario_15(), "stones_held": held})
    assert out["stones_left"] == left and out["game_over"] is over
    paid = left["ann+cat"] - held["ann+cat"]
    assert out["stones_paid"] == paid and out["net"] == {"ann+cat": paid, "bob+dan": -paid} and out["stones"] == 2
    assert "stones_left" not in settle_round(scenario_15())


@pytest.mark.parametrize("held", [{"ann+cat": 5}, {"ann+cat": 5, "bob+dan": 0}, {"ann+cat": 5, "bob+dan": 2.5},
                                  {"ann+cat": 5, "bob+dan": 5, "x+y": 5}, [5, 5], 10])
def test_stones_held_must_name_each_pair(held):
    with pytest.raises(RoundError, match="field 'stones_held' must give each playing pair"):
        settle_round({**scenario_15(), "stones_held": held})


def test_spade_ace_rensho_rule():
    """kakeya-js reading: the Rensho is always AS, so dan's AC is a plain club and ann's 2S takes trick 13."""
    out = settle_round({**scenario_15(), "house": {"rensho_rule": "spade_ace"}})
    assert out["rensho"] == "AS" and out["tricks"][12]["winner"] == "ann"
    assert out["scores"] == {"ann+cat": 16, "bob+dan": 0}
    assert (out["ace_bonus"], out["count_bonus"], out["stones"]) == (1, 4, 4)


def test_all_sixteen_picture_cards():
    out = settle_round(scenario_16())
    assert out["scores"] == {"ann+cat": 16, "bob+dan": 0}
    assert (out["ace_bonus"], out["count_bonus"], out["stones"]) == (1, 4, 4)
    assert out["net"] == {"ann+cat": 4, "bob+dan": -4}


def test_rensho_played_at_any_time_and_ace_basis():
    out = settle_round(scenario_rensho_any_time())
    assert [t["winner"] for t in out["tricks"]][:2] == ["dan", "ann"]
    assert out["scores"] == {"ann+cat": 11, "bob+dan": 5}
    # dealt to ann and cat: AS (the trump ace) and AD -> 1 stone; 11 picture cards -> 1
    assert out["stones"] == 1
    # captured by ann and cat: no ace at all -> 4 stones
    captured = settle_round({**scenario_rensho_any_time(), "house": {"ace_basis": "captured"}})
    assert captured["winner_aces"] == [] and captured["stones"] == 4


def test_following_with_a_plain_club_instead_of_the_spade_is_illegal():
    r = scenario_rensho_any_time()
    r["tricks"][0][3], r["tricks"][2][3] = "3C", "AC"
    with pytest.raises(RoundError, match=r"trick 1: dan plays 3C but must follow spades \(holds 2S\)"):
        settle_round(r)


def kt4_round(dan_plays: str):
    """ann leads KC; dan's only club is the Rensho AC (trumps S)."""
    hands = {"ann": suit("C", DOWN[1:]) + ["2S"], "bob": suit("H"), "cat": suit("D"),
             "dan": ["AC"] + suit("S", DOWN[:-1])}
    first = ["KC", "AH", "AD", dan_plays]
    rest = {p: [c for c in h if c not in first] for p, h in hands.items()}
    winner = P4[trick_winner([get_western_card(c) for c in first], "S", "AC")]
    return kakeya(hands, [first] + play(P4, rest, "S", leader=winner, seed=3, n_tricks=12))


def test_rensho_must_follow_its_own_suit():
    out = settle_round(kt4_round("AC"))
    assert out["tricks"][0]["winner"] == "dan"
    with pytest.raises(RoundError, match=r"trick 1: dan plays 3S but must follow clubs \(holds AC\)"):
        settle_round(kt4_round("3S"))


def rensho_holder_pair(hands, rensho):
    holder = next(p for p, h in hands.items() if rensho in h)
    return next(pair for pair in (("ann", "cat"), ("bob", "dan")) if holder in pair)


def test_eight_eight_goes_to_the_pair_not_dealt_the_rensho():
    hands = deal(P4, 5)
    out = settle_round(kakeya(hands, play(P4, hands, "S", seed=5)))
    assert out["scores"] == {"ann+cat": 8, "bob+dan": 8}
    assert tuple(out["winner"]) != rensho_holder_pair(hands, "AC")
    assert out["decided_by"].startswith("8-8")
    assert out["count_bonus"] == 1


@pytest.mark.parametrize("seed, trump, basis, row", [(32, "H", "dealt", "no aces"),
                                                     (1, "H", "dealt", "1-2 plain aces"),
                                                     (5, "H", "dealt", "special"),
                                                     (5, "H", "captured", "1-2 plain aces")])
def test_stones_from_dealt_or_captured_aces(seed, trump, basis, row):
    hands = deal(P4, seed)
    out = settle_round(kakeya(hands, play(P4, hands, trump, seed=seed), trump=trump, house={"ace_basis": basis}))
    winners = out["winner"]
    if basis == "dealt":
        aces = {c for p in winners for c in hands[p] if c.startswith("A")}
    else:
        aces = {c for t in out["tricks"] if t["winner"] in winners for c in t["cards"] if c.startswith("A")}
    assert out["winner_aces"] == sorted(aces)
    rensho, trump_ace = rensho_of(trump), "A" + trump
    actual_row = ("no aces" if not aces else "1-2 plain aces"
                  if len(aces) <= 2 and not aces & {rensho, trump_ace} else "special")
    assert actual_row == row
    n = out["scores"]["+".join(winners)]
    column = 0 if n <= 11 else 1 if n <= 15 else 2
    expected = {"no aces": (4, 4), "1-2 plain aces": (2, 2), "special": (1, 2, 4)}[row][column]
    assert out["stones"] == expected


def test_six_players_the_dealing_pair_sits_out():
    players = ["a", "b", "c", "d", "e", "f"]  # pairs a-d, b-e, c-f
    hands = deal(players, 1, active=["a", "b", "d", "e"])
    tricks = play(players, hands, "H", seed=1)
    out = settle_round(kakeya(hands, tricks, trump="H", players=players))
    assert out["resting"] == [["c", "f"]]
    assert out["net"]["c+f"] == 0
    assert set(out["scores"]) == {"a+d", "b+e"}
    assert sum(out["scores"].values()) == 16
    for t in out["tricks"]:
        assert set(t["players"]) == {"a", "b", "d", "e"}
    assert settle_round(kakeya(hands, tricks, trump="H", players=players, dealers=["f", "c"]))["net"] == out["net"]


def test_trump_defaults_to_spades():
    r = scenario_15()
    del r["trump"]
    assert settle_round(r)["trump"] == "S"
    r["house"] = {"default_trump": "H"}
    # with hearts trumps bob's KH takes trick 2, so ann may not lead trick 3
    with pytest.raises(RoundError, match="trick 3 is led by ann .*, but bob won trick 2"):
        settle_round(r)


def test_game_definition():
    game = get_game("kakeya-toranpu")
    assert game.card_kind == "western"
    assert sum(game.deck({}).values()) == 52
    zones = game.layout({"players": P4})
    assert [z.name for z in zones] == ["trick", "ann", "bob", "cat", "dan", "ann+cat/pictures", "bob+dan/pictures"]
    assert zones[0].label_ja == "場の札"


def test_western_cards():
    assert get_western_card("10H").strength == 10 and get_western_card("AS").is_picture
    assert not get_western_card("10H").is_picture and get_western_card("JD").is_picture
    assert nearest_western_ids("as") == ["AS"]
    assert nearest_western_ids("TH") == ["10H"]
    assert nearest_western_ids("S10") == ["10S"]
    assert nearest_western_ids("♣A") == ["AC"]
    assert nearest_western_ids("1D") == ["AD"]
    assert len(all_western_cards()) == 52 and sum(c.is_picture for c in all_western_cards()) == 16
    with pytest.raises(UnknownCardError, match=r"unknown card 'QX' \(did you mean"):
        get_western_card("QX")


def bad(mutate):
    r = copy.deepcopy(scenario_15())
    mutate(r)
    return r


BAD = [
    (bad(lambda r: r["hands"]["ann"].__setitem__(0, "1S")), "unknown card '1S' in ann's hand (did you mean AS?)"),
    (bad(lambda r: r["hands"]["ann"].__setitem__(0, "pine-crane")), "unknown card 'pine-crane' in ann's hand"),
    (bad(lambda r: r["hands"]["ann"].__setitem__(0, "Joker1")), "unknown card 'Joker1'"),
    (bad(lambda r: r["tricks"][0].__setitem__(1, "back")), "a card in trick 1 is face down ('back')"),
    (bad(lambda r: r["hands"]["ann"].__setitem__(0, "AH")), "card 'AH' is dealt more than once (ann and bob)"),
    (bad(lambda r: r["hands"]["ann"].pop()), "ann's hand must be 13 card ids"),
    (bad(lambda r: r["tricks"].pop()), "a hand is 13 tricks; 'tricks' has 12"),
    (bad(lambda r: r["tricks"][3].pop()), "trick 4 must be 4 cards in the order played"),
    (bad(lambda r: r["tricks"][0].__setitem__(0, "AX")), "unknown card 'AX' in trick 1"),
    (bad(lambda r: r["tricks"].__setitem__(1, r["tricks"][1][1:] + r["tricks"][1][:1])),
     "trick 2 is led by bob (KH), but ann won trick 1 and leads"),
    (bad(lambda r: r["tricks"].__setitem__(1, [r["tricks"][1][i] for i in (0, 2, 1, 3)])),
     "trick 2: KD is cat's card, but it is bob's turn"),
    (bad(lambda r: r["tricks"][12].__setitem__(0, "AS")), "trick 13: AS was already played by ann"),
    (bad(lambda r: r.__setitem__("dealers", ["ann", "cat"])), "trick 1 is led by ann, of the dealing pair"),
    (bad(lambda r: r.__setitem__("dealers", ["ann", "bob"])), "'dealers' must be one of the pairs"),
    (bad(lambda r: r.__setitem__("trump", "X")), "field 'trump' must be one of S, H, D, C, not 'X'"),
    (bad(lambda r: r.__setitem__("players", P4[:3])), "played by 4 or 6 players, not 3"),
    (bad(lambda r: r.__setitem__("players", ["ann", "bob", "ann", "dan"])), "player 'ann' is listed twice"),
    # pairs are named "ann+cat" in scores and net: names a and b+c would make pair a+b+c twice
    (bad(lambda r: r.__setitem__("players", ["a", "a+b", "b+c", "c"])),
     "player 'a+b' may not have '+' in the name (it joins the names of a pair)"),
    (bad(lambda r: r["hands"].pop("dan")), "'hands' must give every player"),
    (bad(lambda r: r["hands"].__setitem__("eve", [])), "'hands' has a hand for 'eve', who is not in 'players'"),
    (bad(lambda r: r.pop("tricks")), "missing field 'tricks'"),
    (bad(lambda r: r.__setitem__("bets", [{"player": "ann", "on": "x", "amount": 1}])), "it takes no 'bets'"),
    (bad(lambda r: r.pop("hands")), "missing field 'hands'"),
    (bad(lambda r: r.pop("players")), "missing field 'players'"),
    (bad(lambda r: r.__setitem__("house", {"trump": "H"})), "unknown house option 'trump' for kakeya-toranpu"),
    (bad(lambda r: r.__setitem__("house", {"ace_basis": "held"})), "house option 'ace_basis' cannot be 'held'"),
]


@pytest.mark.parametrize("round_, message", BAD, ids=[m for _, m in BAD])
def test_bad_input(round_, message):
    assert_refused(round_, message)


def test_six_player_hands_must_be_two_whole_pairs():
    players = ["a", "b", "c", "d", "e", "f"]
    hands = deal(players, 2, active=["a", "b", "c", "d"])  # c's partner f has no hand, b's partner e neither
    with pytest.raises(RoundError, match="the four players of two pairs"):
        settle_round(kakeya(hands, play(players, hands, seed=2), players=players))
    hands = deal(players, 2, active=["a", "b", "d", "e"])
    with pytest.raises(RoundError, match="must be the pair sitting out"):
        settle_round(kakeya(hands, play(players, hands, seed=2), players=players, dealers=["a", "d"]))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from("SHDC"), st.sampled_from(["standard", "spade_ace"]))
def test_random_legal_hands_settle_and_conserve_stones(seed, trump, rule):
    hands = deal(P4, seed)
    out = settle_round(kakeya(hands, play(P4, hands, trump, seed=seed, rensho_rule=rule), trump=trump,
                              house={"rensho_rule": rule}))
    assert sum(out["net"].values()) == 0
    assert sum(out["scores"].values()) == 16
    n = out["scores"]["+".join(out["winner"])]
    assert n >= 9 or (n == 8 and tuple(out["winner"]) != rensho_holder_pair(hands, out["rensho"]))
    assert out["stones"] in (1, 2, 4)


ORDER = "23456789TJQKA"


def referee(round_: dict) -> dict:
    """RULES.md §8 applied independently of the engine to a played hand: who wins each trick, the
    picture cards each pair takes, the winning pair and the stones (§10 KT1 dealt aces, KT3 Rensho)."""
    players, trump = round_["players"], round_["trump"]
    rensho = "AC" if trump == "S" else "AS"
    half = len(players) // 2
    pair = {p: frozenset((players[i % half], players[i % half + half])) for i, p in enumerate(players)}
    owner = {c: p for p, hand in round_["hands"].items() for c in hand}
    rank = {c: ORDER.index("T" if c[:-1] == "10" else c[0]) for c in owner}
    pictures = {pair[p]: 0 for p in round_["hands"]}
    left = {p: set(hand) for p, hand in round_["hands"].items()}
    for trick in round_["tricks"]:
        led = trick[0][-1]
        for c in trick:  # follow suit if able; the Rensho may be played at any time
            assert c == rensho or c[-1] == led or not any(x[-1] == led for x in left[owner[c]]), trick
            left[owner[c]].remove(c)
        if rensho in trick:
            best = rensho
        else:
            trumps = [c for c in trick if c[-1] == trump]
            best = max(trumps or [c for c in trick if c[-1] == led], key=rank.get)
        pictures[pair[owner[best]]] += sum(c[:-1] in ("A", "K", "Q", "J") for c in trick)
    (p1, n1), (p2, n2) = pictures.items()
    if n1 != n2:
        winners = p1 if n1 > n2 else p2
    else:
        winners = p2 if owner[rensho] in p1 else p1
    n = pictures[winners]
    aces = {c for p in winners for c in round_["hands"][p] if c[0] == "A"}
    ace_bonus = 4 if not aces else 2 if len(aces) <= 2 and not aces & {rensho, "A" + trump} else 1
    count_bonus = 1 if n <= 11 else 2 if n <= 15 else 4
    return {"winners": winners, "pictures": n, "stones": max(ace_bonus, count_bonus)}


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from("SHDC"))
def test_settlement_agrees_with_an_independent_referee(seed, trump):
    hands = deal(P4, seed)
    r = kakeya(hands, play(P4, hands, trump, seed=seed), trump=trump)
    out, ref = settle_round(r), referee(r)
    assert frozenset(out["winner"]) == ref["winners"]
    assert out["scores"]["+".join(out["winner"])] == ref["pictures"]
    assert out["stones"] == ref["stones"]
    assert out["net"]["+".join(out["winner"])] == ref["stones"]
