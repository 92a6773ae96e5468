"""Hankan and Shoniban (RULES.md §3.5, §3.6, §10 A5-A8): Nagoya values on 45 cards, Arashi > Tsuke >
ones digit, the Hon-Bana card-points tie-break, then push; Hankan pays winners +50%, Shoniban splits
an equalised pot."""
import pytest

from dealer.cards import get_card
from dealer.games import RoundError, get_game, settle_round
from dealer.games.hankan import nagoya_value, score_set

SHI_E = ["pine-chaff-2", "cherry-chaff-2", "wisteria-chaff-2"]

# Nagoya values / named hands / Hon-Bana points, worked out by hand
ARASHI_PINE = ["pine-crane", "pine-poetry", "pine-chaff-1"]              # Arashi; 1+1+1 = 3; 30+5+0 = 35
ARASHI_CHERRY = ["cherry-curtain", "cherry-poetry", "cherry-chaff-1"]    # Arashi; 30+5+0 = 35
ARASHI_IRIS = ["iris-bridge", "iris-ribbon", "iris-chaff-1"]             # Arashi; 20+5+0 = 25
TSUKE_HIGH = ["willow-rainman", "willow-swallow", "pine-crane"]          # Tsuke 2,2,1; 10+10+30 = 50
TSUKE_LOW = ["willow-ribbon", "willow-lightning", "pine-poetry"]         # Tsuke; 5+0+5 = 10
NINE = ["chrysanthemum-sake", "maple-deer", "peony-blue"]                # 9+10+10 = 29 -> 9
SEVEN = ["maple-blue", "willow-ribbon", "iris-ribbon"]                   # 10+2+5 = 17 -> 7
# equal ones digit 8: 10+5+3 = 18, Hon-Bana 20+20+0 = 40 ; 8+10+10 = 28, Hon-Bana 30+10+20 = 60
EIGHT_A = ["maple-deer", "iris-bridge", "cherry-chaff-1"]
EIGHT_B = ["susuki-moon", "peony-butterflies", "plum-warbler"]
# equal ones digit 0: 2+3+5 = 10, points std 20+1+1 = 22, Hon-Bana 10+0+0 = 10
#                      10+10+10 = 30, points std 10+1+1 = 12, Hon-Bana 20+0+0 = 20
ZERO_RAINMAN = ["willow-rainman", "cherry-chaff-1", "iris-chaff-1"]
ZERO_WARBLER = ["plum-warbler", "maple-chaff-1", "maple-chaff-2"]
# same ones digit (4+1+7 = 12 -> 2), same Hon-Bana points (5+0+0, 0+5+0): a full tie
TWO_A = ["wisteria-ribbon", "pine-chaff-1", "clover-chaff-1"]
TWO_B = ["wisteria-chaff-1", "pine-poetry", "clover-chaff-2"]


def round_(game, naka, oto, bets, house=None, shi_e=SHI_E):
    rows = {"naka-e": naka, "oto-e": oto}
    if shi_e is not None:
        rows["shi-e"] = shi_e
    r = {"game": game, "rows": rows, "bets": [{"player": p, "on": on, "amount": a} for p, on, a in bets]}
    if house is not None:
        r["house"] = house
    return r


@pytest.mark.parametrize("card, value", [
    ("pine-crane", 1), ("willow-rainman", 2), ("willow-lightning", 2), ("cherry-curtain", 3),
    ("wisteria-cuckoo", 4), ("iris-bridge", 5), ("paulownia-phoenix", 6), ("clover-boar", 7),
    ("susuki-moon", 8), ("chrysanthemum-sake", 9), ("maple-deer", 10), ("peony-butterflies", 10),
    ("plum-warbler", 10),
])
def test_nagoya_values(card, value):
    assert nagoya_value(get_card(card)) == value


@pytest.mark.parametrize("cards, total, score, hand, points", [
    (ARASHI_PINE, 3, 3, "Arashi", 35),
    (TSUKE_HIGH, 5, 5, "Tsuke", 50),
    (TSUKE_LOW, 5, 5, "Tsuke", 10),
    (NINE, 29, 9, None, 35),
    (["paulownia-phoenix", "willow-ribbon", "peony-blue"], 18, 8, None, 40),   # standard months would give 9
    (["pine-crane", "willow-rainman", "pine-chaff-1"], 4, 4, None, 40),        # one Willow, two Pines: no Tsuke
    (["willow-rainman", "willow-swallow", "cherry-chaff-1"], 7, 7, None, 20),  # two Willows, no Pine: no Tsuke
])
def test_score_set(cards, total, score, hand, points):
    s = score_set(cards)
    assert (s.total, s.score, s.hand, s.card_points) == (total, score, hand, points)
    assert score_set(list(reversed(cards))).rank == s.rank


def test_deck_has_45_cards_without_paulownia_chaff():
    deck = get_game("hankan").deck({})
    assert sum(deck.values()) == 45
    assert "paulownia-phoenix" in deck and not any(c.startswith("paulownia-chaff") for c in deck)
    with pytest.raises(RoundError, match="'paulownia-chaff-2' in row 'oto-e' .* is not in the deck of shoniban"):
        settle_round(round_("shoniban", NINE, ["paulownia-chaff-2", "pine-crane", "plum-warbler"], []))


def test_layout():
    zones = get_game("hankan").layout({})
    assert [(z.name, z.cards, z.label_en, z.label_ja, z.scored) for z in zones] == [
        ("shi-e", 3, "Shi-e", "初絵", False), ("naka-e", 3, "Naka-e", "中絵", True), ("oto-e", 3, "Oto-e", "乙絵", True)]
    assert get_game("shoniban").layout({}) == zones
    assert get_game("hankan").bet_targets({}) == ["naka-e", "oto-e"]


BETS = [("a", "naka-e", 100), ("b", "oto-e", 60)]

HANKAN = [
    # id, naka, oto, house, winner, decided_by, scores, nets
    ("Arashi beats a 9", ARASHI_PINE, NINE, {}, "naka-e", "hand", {"naka-e": "Arashi", "oto-e": 9},
     {"a": 50, "b": -60, "dealer": 10}),
    ("Tsuke beats a 9", NINE, TSUKE_LOW, {}, "oto-e", "hand", {"naka-e": 9, "oto-e": "Tsuke"},
     {"a": -100, "b": 30, "dealer": 70}),
    ("Arashi beats Tsuke", TSUKE_HIGH, ARASHI_CHERRY, {}, "oto-e", "hand", {"naka-e": "Tsuke", "oto-e": "Arashi"},
     {"a": -100, "b": 30, "dealer": 70}),
    ("higher ones digit wins", SEVEN, NINE, {}, "oto-e", "score", {"naka-e": 7, "oto-e": 9},
     {"a": -100, "b": 30, "dealer": 70}),
    ("Arashi against Arashi goes to card points (A6)", ARASHI_PINE, ARASHI_IRIS, {}, "naka-e", "card_points",
     {"naka-e": "Arashi", "oto-e": "Arashi"}, {"a": 50, "b": -60, "dealer": 10}),
    ("Arashi against Arashi, equal card points: push (A7)", ARASHI_PINE, ARASHI_CHERRY, {}, "tie", None,
     {"naka-e": "Arashi", "oto-e": "Arashi"}, {"a": 0, "b": 0, "dealer": 0}),
    ("Tsuke against Tsuke goes to card points (A6)", TSUKE_LOW, TSUKE_HIGH, {}, "oto-e", "card_points",
     {"naka-e": "Tsuke", "oto-e": "Tsuke"}, {"a": -100, "b": 30, "dealer": 70}),
    ("equal digit: Hon-Bana card points 40 vs 60", EIGHT_A, EIGHT_B, {}, "oto-e", "card_points",
     {"naka-e": 8, "oto-e": 8}, {"a": -100, "b": 30, "dealer": 70}),
    ("equal digit: Hon-Bana points 10 vs 20", ZERO_RAINMAN, ZERO_WARBLER, {}, "oto-e", "card_points",
     {"naka-e": 0, "oto-e": 0}, {"a": -100, "b": 30, "dealer": 70}),
    ("equal digit: standard points 22 vs 12", ZERO_RAINMAN, ZERO_WARBLER, {"card_points_table": "standard"},
     "naka-e", "card_points", {"naka-e": 0, "oto-e": 0}, {"a": 50, "b": -60, "dealer": 10}),
    ("equal digit and card points: push", TWO_A, TWO_B, {}, "tie", None, {"naka-e": 2, "oto-e": 2},
     {"a": 0, "b": 0, "dealer": 0}),
]


@pytest.mark.parametrize("case", HANKAN, ids=[c[0] for c in HANKAN])
def test_hankan(case):
    _id, naka, oto, house, winner, decided_by, scores, nets = case
    r = settle_round(round_("hankan", naka, oto, BETS, house))
    assert (r["winner"], r["decided_by"], r["scores"], r["net"]) == (winner, decided_by, scores, nets)
    assert sum(r["net"].values()) == 0
    # the winners' other half is the dealer's terazen
    assert r["fee"] == {"naka-e": 50, "oto-e": 30, "tie": 0}[winner]
    assert "equalise" not in r and "carry" not in r


def test_hankan_unequal_bets_are_fine_and_several_winners_each_get_half():
    r = settle_round(round_("hankan", ARASHI_PINE, NINE, [("a", "naka-e", 10), ("c", "naka-e", 7), ("b", "oto-e", 1)]))
    assert r["net"] == {"a": 5, "c": 3.5, "b": -1, "dealer": -7.5}


SHONIBAN = [
    # id, naka, oto, bets, house, winner, nets, fee
    ("dealer tops up 40 on oto-e, naka-e wins", ARASHI_PINE, NINE, BETS, {}, "naka-e",
     {"a": 100, "b": -60, "dealer": -40}, 0),
    ("oto-e wins, the dealer's 40 wins with b", NINE, TSUKE_LOW, BETS, {}, "oto-e",
     {"a": -100, "b": 60, "dealer": 40}, 0),
    ("pro rata split between two winners", SEVEN, NINE, [("a", "naka-e", 90), ("b", "oto-e", 30), ("c", "oto-e", 60)],
     {}, "oto-e", {"a": -90, "b": 30, "c": 60, "dealer": 0}, 0),
    ("full tie pushes", TWO_A, TWO_B, BETS, {}, "tie", {"a": 0, "b": 0, "dealer": 0}, 0),
    ("a house fee on the winners' profit", ARASHI_PINE, NINE, BETS, {"fee_model": "percent", "fee_rate": 0.1},
     "naka-e", {"a": 90, "b": -60, "dealer": -30}, 10),
]


@pytest.mark.parametrize("case", SHONIBAN, ids=[c[0] for c in SHONIBAN])
def test_shoniban(case):
    _id, naka, oto, bets, house, winner, nets, fee = case
    r = settle_round(round_("shoniban", naka, oto, bets, house))
    assert (r["winner"], r["net"], r["fee"]) == (winner, nets, fee)
    assert sum(r["net"].values()) == 0


def test_shoniban_equalise_and_required_equal_bets():
    r = settle_round(round_("shoniban", ARASHI_PINE, NINE, BETS))
    assert r["equalise"]["dealer_adds"] == 40 and r["equalise"]["dealer_side"] == "oto-e"
    with pytest.raises(RoundError, match=r"bets are not equal \(naka-e 100, oto-e 60\)"):
        settle_round(round_("shoniban", ARASHI_PINE, NINE, BETS, {"equalise": "required"}))
    ok = settle_round(round_("shoniban", ARASHI_PINE, NINE, [("a", "naka-e", 5), ("b", "oto-e", 5)],
                             {"equalise": "required"}))
    assert ok["net"] == {"a": 5, "b": -5, "dealer": 0}


def test_defaults():
    assert get_game("hankan").resolve_house({}) == {"card_points_table": "honbana", "min_bet": None, "max_bet": None}
    assert get_game("shoniban").resolve_house({}) == {
        "card_points_table": "honbana", "equalise": "dealer_tops_up", "fee_model": "none", "fee_rate": 0.1,
        "min_bet": None, "max_bet": None}


@pytest.mark.parametrize("game", ["hankan", "shoniban"])
def test_shi_e_is_shown_not_scored(game):
    r = settle_round(round_(game, ARASHI_PINE, NINE, BETS))
    assert r["rows"]["shi-e"] == {"cards": SHI_E, "scored": False}
    assert "shi-e" not in r["scores"]
    # it may be left out, but when present it is checked like any row
    assert settle_round(round_(game, ARASHI_PINE, NINE, BETS, shi_e=None))["net"] == r["net"]
    with pytest.raises(RoundError, match="row 'shi-e' must have 3 cards, not 2"):
        settle_round(round_(game, ARASHI_PINE, NINE, BETS, shi_e=SHI_E[:2]))
    with pytest.raises(RoundError, match="'pine-crane' is dealt more than once"):
        settle_round(round_(game, ARASHI_PINE, NINE, BETS, shi_e=["pine-crane"] + SHI_E[1:]))
    with pytest.raises(RoundError, match="bet 1 is on 'shi-e', which is shown for reference only"):
        settle_round(round_(game, ARASHI_PINE, NINE, [("a", "shi-e", 5)]))


def test_hankan_has_no_fee_option():
    with pytest.raises(RoundError, match="unknown house option 'fee_model' for hankan"):
        settle_round(round_("hankan", ARASHI_PINE, NINE, BETS, {"fee_model": "percent"}))


NAGOYA = {"pine": 1, "willow": 2, "cherry": 3, "wisteria": 4, "iris": 5, "paulownia": 6, "clover": 7, "susuki": 8,
          "chrysanthemum": 9, "maple": 10, "peony": 10, "plum": 10}                       # RULES.md §3.5
HONBANA = {"bright": 30, "ribbon": 5, "chaff": 0}                                          # §1.1 Hon-Bana points
HONBANA_ANIMALS = {"plum-warbler": 20, "iris-bridge": 20, "maple-deer": 20}                # the other animals 10


def rules_strength(cards):
    """§3.5 set strength then the Hon-Bana tie-break, written out independently: a tuple, higher wins."""
    suits = sorted(get_card(c).suit for c in cards)
    points = sum(HONBANA_ANIMALS.get(c, 10) if get_card(c).type == "animal" else
                 10 if c == "willow-rainman" else HONBANA[get_card(c).type] for c in cards)
    if len(set(suits)) == 1:
        return (2, 0, points)
    if suits == ["pine", "willow", "willow"]:
        return (1, 0, points)
    return (0, sum(NAGOYA[s] for s in suits) % 10, points)


def test_every_set_is_ranked_as_the_rules_say():
    import itertools
    deck = sorted(get_game("hankan").deck({}))
    order = {}
    for cards in itertools.combinations(deck, 3):
        s = score_set(cards)
        order.setdefault((s.rank, s.card_points), set()).add(rules_strength(cards))
    assert all(len(v) == 1 for v in order.values())
    ranked = [next(iter(order[k])) for k in sorted(order)]
    assert ranked == sorted(ranked) and len(set(ranked)) == len(ranked)
