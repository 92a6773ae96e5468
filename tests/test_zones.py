"""Table zones: automatic rows, drawn zones, saving and loading them."""
import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from dealer.games import ZoneSpec
from vision.types import TableCard
from vision.zones import TableZone, ZoneAssigner, ZoneError, load_zones, save_zones

BATTA = [ZoneSpec("saki", 3, "Saki", "先"), ZoneSpec("ato", 3, "Ato", "後")]


def card(tid, x, y, face="pine-crane", w=60, h=97):
    return TableCard(track_id=tid, card=None if face == "back" else face, face=face,
                     quad=((x, y), (x + w, y), (x + w, y + h), (x, y + h)), confidence=0.9, uncertain=False)


def ids(cards):
    return [c.track_id for c in cards]


def test_automatic_rows_top_to_bottom_in_layout_order_left_to_right():
    cards = [card(1, 300, 400), card(2, 100, 105), card(3, 200, 95), card(4, 100, 402),
             card(5, 300, 100), card(6, 200, 398)]
    state = ZoneAssigner(BATTA).assign(cards, frame_index=7)
    assert ids(state.zones["saki"]) == [2, 3, 5]
    assert ids(state.zones["ato"]) == [4, 6, 1]
    assert state.unassigned == () and state.frame_index == 7


def test_automatic_partial_deal_fills_first_zone():
    state = ZoneAssigner(BATTA).assign([card(1, 100, 100), card(2, 170, 102)])
    assert ids(state.zones["saki"]) == [1, 2] and state.zones["ato"] == ()


def test_automatic_extra_row_is_unassigned():
    cards = [card(1, 100, 100), card(2, 100, 300), card(3, 100, 500)]
    state = ZoneAssigner(BATTA).assign(cards)
    assert ids(state.zones["saki"]) == [1] and ids(state.zones["ato"]) == [2]
    assert ids(state.unassigned) == [3]


def test_automatic_slanted_row_stays_one_row():
    cards = [card(i + 1, 100 + 70 * i, 100 + 12 * i) for i in range(3)]
    state = ZoneAssigner(BATTA).assign(cards)
    assert ids(state.zones["saki"]) == [1, 2, 3]


def test_automatic_hands_side_by_side_read_left_to_right_then_down():
    layout = [ZoneSpec(n, None, n, n, group=n) for n in ("A", "B", "C", "dealer")]
    cards = [card(1, 100, 100), card(2, 170, 100),          # A: top left
             card(3, 500, 100), card(4, 570, 100),          # B: top right
             card(5, 100, 300), card(6, 500, 300), card(7, 570, 300)]  # C, dealer
    state = ZoneAssigner(layout).assign(cards)
    assert [ids(state.zones[n]) for n in ("A", "B", "C", "dealer")] == [[1, 2], [3, 4], [5], [6, 7]]


def test_a_widely_laid_row_stays_one_row_when_the_layout_has_no_side_by_side_zones():
    cards = [card(1, 100, 100), card(2, 300, 100), card(3, 420, 100)]  # irregular, wide gaps
    state = ZoneAssigner(BATTA).assign(cards)
    assert ids(state.zones["saki"]) == [1, 2, 3] and state.zones["ato"] == ()


def test_hands_split_where_the_gap_is_much_wider_than_the_spacing():
    layout = [ZoneSpec(n, None, n, n, group=n) for n in ("A", "B")]
    evenly = [card(1, 100, 100), card(2, 200, 100), card(3, 300, 100)]   # one hand, laid wide
    state = ZoneAssigner(layout).assign(evenly)
    assert ids(state.zones["A"]) == [1, 2, 3]
    two = [card(1, 100, 100), card(2, 170, 100), card(3, 400, 100)]
    state = ZoneAssigner(layout).assign(two)
    assert ids(state.zones["A"]) == [1, 2] and ids(state.zones["B"]) == [3]
    apart = [card(1, 100, 100), card(2, 400, 100)]                       # one card each
    state = ZoneAssigner(layout).assign(apart)
    assert ids(state.zones["A"]) == [1] and ids(state.zones["B"]) == [2]


def test_automatic_grouped_layout_goes_player_by_player():
    layout = [ZoneSpec(f"{p}-{r}", 3, "", "", group=p) for p in "AB" for r in (1, 2)]
    cards = [card(1, 100, 100), card(2, 100, 250), card(3, 500, 100), card(4, 500, 250)]
    state = ZoneAssigner(layout).assign(cards)
    assert [ids(state.zones[z.name]) for z in layout] == [[1], [2], [3], [4]]


def test_no_cards_gives_empty_zones():
    state = ZoneAssigner(BATTA).assign([])
    assert state.zones == {"saki": (), "ato": ()} and state.unassigned == ()


def test_drawn_zones_assign_by_centre_and_order_along_the_zone():
    zones = [TableZone("ato", [(0, 300), (800, 300), (800, 600), (0, 600)]),
             TableZone("saki", [(0, 0), (800, 0), (800, 250), (0, 250)])]
    cards = [card(1, 300, 350), card(2, 100, 50), card(3, 100, 350), card(4, 900, 50)]
    state = ZoneAssigner(BATTA, zones).assign(cards)
    assert ids(state.zones["saki"]) == [2]
    assert ids(state.zones["ato"]) == [3, 1]
    assert ids(state.unassigned) == [4]


def test_drawn_vertical_zone_orders_top_to_bottom():
    zones = [TableZone("saki", [(0, 0), (200, 0), (200, 700), (0, 700)])]
    cards = [card(1, 50, 400), card(2, 50, 100)]
    state = ZoneAssigner(BATTA, zones).assign(cards)
    assert ids(state.zones["saki"]) == [2, 1]


@pytest.mark.parametrize("tilt", [-2.0, -0.5, 0.5, 2.0, 30.0, -30.0])
def test_an_upright_zone_drawn_a_little_askew_still_orders_top_to_bottom(tilt):
    # 2 degrees one way read the row top to bottom, 2 degrees the other way bottom to top: a run
    # of Kabu-Tsukuri rose or fell by the slant of the dealer's finger
    import math
    t = math.radians(tilt)
    corners = [(-100, -350), (100, -350), (100, 350), (-100, 350)]
    polygon = [(400 + x * math.cos(t) - y * math.sin(t), 400 + x * math.sin(t) + y * math.cos(t)) for x, y in corners]
    along = [(400 - y * math.sin(t), 400 + y * math.cos(t)) for y in (-250, 0, 250)]  # top, middle, bottom
    cards = [card(k, x, y) for k, (x, y) in zip((3, 1, 2), along)]
    state = ZoneAssigner(BATTA, [TableZone("saki", polygon)]).assign(cards)
    assert ids(state.zones["saki"]) == [3, 1, 2], tilt


def test_a_level_zone_drawn_a_little_askew_still_orders_left_to_right():
    for tilt in (-2.0, 2.0):
        import math
        t = math.radians(tilt)
        corners = [(-350, -100), (350, -100), (350, 100), (-350, 100)]
        polygon = [(400 + x * math.cos(t) - y * math.sin(t), 400 + x * math.sin(t) + y * math.cos(t))
                   for x, y in corners]
        along = [(400 + x * math.cos(t), 400 + x * math.sin(t)) for x in (-250, 0, 250)]
        state = ZoneAssigner(BATTA, [TableZone("saki", polygon)]).assign([card(k, x, y) for k, (x, y)
                                                                          in zip((3, 1, 2), along)])
        assert ids(state.zones["saki"]) == [3, 1, 2], tilt


def test_a_card_across_the_line_of_two_drawn_zones_keeps_its_zone_and_one_moved_changes_it():
    # its centre's jitter of a few pixels about the line moved it from Saki to Ato and back every frame
    zones = [TableZone("saki", [(0, 0), (800, 0), (800, 300), (0, 300)]),
             TableZone("ato", [(0, 300), (800, 300), (800, 600), (0, 600)])]
    assigner = ZoneAssigner(BATTA, zones)
    for dy in (-4, 4, -3, 3, 4, -4):  # the centre at 300 + dy
        state = assigner.assign([card(1, 100, 300 + dy - 48.5)])
        assert ids(state.zones["saki"]) == [1] and ids(state.zones["ato"]) == [], dy
    state = assigner.assign([card(1, 100, 400 - 48.5)])  # laid in Ato
    assert ids(state.zones["ato"]) == [1]
    # a card new to the table goes by where its centre is
    assert ids(assigner.assign([card(2, 100, 304 - 48.5)]).zones["ato"]) == [2]


def test_drawn_zone_not_in_layout_is_a_clear_error():
    with pytest.raises(ZoneError, match="naka-e"):
        ZoneAssigner(BATTA, [TableZone("naka-e", [(0, 0), (10, 0), (10, 10)])])


@pytest.mark.parametrize("name, polygon, message", [
    ("", [(0, 0), (1, 0), (1, 1)], "name"),
    ("saki", [(0, 0), (1, 1)], "at least 3"),
    ("saki", [(0, 0), (5, 5), (10, 10)], "no area"),
    # traced twice, or as a bow-tie: the area counted, but no point lay inside, and every card there
    # was outside every zone, unsaid
    ("saki", [(0, 0), (100, 0), (100, 50), (0, 50)] * 2, "sides cross or run over each other"),
    ("saki", [(0, 0), (100, 50), (100, 0), (0, 50)], "sides cross or run over each other"),
    ("saki", [(0, 0), (100, 0), (150, 0), (120, 0), (100, 50), (0, 50)], "sides cross or run over each other"),
    ("saki", [(0, 0), ("a", 1), (1, 1)], "list of"),
    ("saki", [(0, 0), (float("nan"), 1), (1, 1)], "finite"),
    # each taken as a coordinate: a true as 1, "100" as 100, and 1e300 overflowed to an infinite area
    ("saki", [(True, 0), (100, 0), (100, 100)], "each a number"),
    ("saki", [("0", "0"), ("100", "0"), ("100", "100")], "each a number"),
    ("saki", [(1e300, 0), (100, 0), (100, 100)], "far outside any camera picture"),
    # (a circle of 4,000 corners took 35 s to check, at each save and each start)
    ("saki", [(500 + 400 * math.cos(k * math.tau / 65), 500 + 400 * math.sin(k * math.tau / 65)) for k in range(65)],
     "at most 64 corners, not 65"),
])
def test_bad_zone_is_a_clear_error(name, polygon, message):
    with pytest.raises(ZoneError, match=message):
        TableZone(name, polygon)


def test_a_zone_of_64_corners_is_a_zone():
    circle = [(500 + 400 * math.cos(k * math.tau / 64), 500 + 400 * math.sin(k * math.tau / 64)) for k in range(64)]
    assert TableZone("saki", circle).contains((500, 500))


def test_zones_may_touch_but_not_overlap():
    from vision.zones import zones_from_json
    touching = [{"name": "saki", "polygon": [[0, 0], [400, 0], [400, 205], [0, 205]]},   # 5 px over
                {"name": "ato", "polygon": [[0, 200], [400, 200], [400, 400], [0, 400]]}]
    assert [z.name for z in zones_from_json(touching)] == ["saki", "ato"]
    # long thin rows that only touch: their shared edge is no overlap
    rows = [{"name": "saki", "polygon": [[0, 0], [1200, 0], [1200, 40], [0, 40]]},
            {"name": "ato", "polygon": [[0, 40], [1200, 40], [1200, 80], [0, 80]]}]
    assert len(zones_from_json(rows)) == 2
    overlapping = [touching[0], {"name": "ato", "polygon": [[0, 150], [400, 150], [400, 400], [0, 400]]}]
    with pytest.raises(ZoneError, match="zones 'saki' and 'ato' overlap"):
        zones_from_json(overlapping)
    # an L-shaped zone around another one's corner is apart from it, though their boxes overlap
    ell = {"name": "saki", "polygon": [[0, 0], [300, 0], [300, 100], [100, 100], [100, 300], [0, 300]]}
    inner = {"name": "ato", "polygon": [[110, 110], [300, 110], [300, 300], [110, 300]]}
    assert len(zones_from_json([ell, inner])) == 2


def test_zones_save_and_load_round_trip(tmp_path):
    zones = [TableZone("saki", [(0, 0), (800, 0), (800, 250), (0, 250)]),
             TableZone("ato", [(0, 300), (800, 300), (800, 600.5), (0, 600)])]
    path = tmp_path / "table.json"
    save_zones(path, zones)
    assert load_zones(path) == zones
    assert not (tmp_path / "table.json.tmp").exists()


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ('{"zones": 3}', "list"),
    ('[{"name": "saki"}]', "'name' and 'polygon'"),
    ('[{"name": "saki", "polygon": [[0,0],[9,0],[9,9]]}, {"name": "saki", "polygon": [[0,0],[9,0],[9,9]]}]',
     "drawn twice"),
])
def test_bad_zone_file_names_the_file_and_problem(tmp_path, text, message):
    path = tmp_path / "zones.json"
    path.write_text(text)
    with pytest.raises(ZoneError, match=message) as info:
        load_zones(path)
    assert "zones.json" in str(info.value)


def test_missing_zone_file_is_a_clear_error(tmp_path):
    with pytest.raises(ZoneError, match="does not exist"):
        load_zones(tmp_path / "nope.json")


def test_saved_file_is_plain_json(tmp_path):
    save_zones(tmp_path / "z.json", [TableZone("saki", [(0, 0), (10, 0), (10, 10)])])
    data = json.loads((tmp_path / "z.json").read_text())
    assert data == {"zones": [{"name": "saki", "polygon": [[0, 0], [10, 0], [10, 10]]}]}


def test_automatic_row_keeps_its_zone_when_the_row_above_is_picked_up():
    assigner = ZoneAssigner(BATTA)
    saki = [card(1, 100, 100), card(2, 170, 100), card(3, 240, 100)]
    ato = [card(4, 100, 300), card(5, 170, 300), card(6, 240, 300)]
    state = assigner.assign(saki + ato)
    assert ids(state.zones["saki"]) == [1, 2, 3] and ids(state.zones["ato"]) == [4, 5, 6]
    state = assigner.assign(ato)
    assert state.zones["saki"] == () and ids(state.zones["ato"]) == [4, 5, 6]
    # a new row dealt above takes the free zone
    state = assigner.assign([card(7, 100, 100)] + ato)
    assert ids(state.zones["saki"]) == [7] and ids(state.zones["ato"]) == [4, 5, 6]


def test_a_row_seen_alone_first_takes_its_own_zone_once_every_row_is_there():
    # Ato's first card became stable while the dealer's hand still hid Saki: it took the first zone,
    # and kept it, Saki's bets would have been settled on the bottom row's cards
    assigner = ZoneAssigner(BATTA)
    first = card(1, 100, 300)
    state = assigner.assign([first])
    assert ids(state.zones["saki"]) == [1]  # alone, it is the first row there is
    saki = [card(2, 100, 50), card(3, 170, 50), card(4, 240, 50)]
    state = assigner.assign(saki + [first, card(5, 170, 300), card(6, 240, 300)])
    assert ids(state.zones["saki"]) == [2, 3, 4] and ids(state.zones["ato"]) == [1, 5, 6]


def test_hands_one_zone_per_player_read_like_text():
    layout = [ZoneSpec(n, None, n, n, group=n) for n in ("A", "B", "C", "dealer")]
    cards = [card(1, 100, 100), card(2, 500, 100), card(3, 100, 300), card(4, 500, 300)]
    state = ZoneAssigner(layout).assign(cards)
    assert [ids(state.zones[n]) for n in ("A", "B", "C", "dealer")] == [[1], [2], [3], [4]]


@pytest.mark.parametrize("game", ["batta-maki", "koikoi-atosaki", "hankan", "otoroku", "kabu-tsukuri",
                                  "echobo"])
def test_automatic_zones_agree_with_the_demo_table_at_every_frame(game):
    from vision.demo_table import DemoTable
    table = DemoTable(game=game, size=(480, 270), realtime=False, seed=2)
    assigner = ZoneAssigner(table.layout)
    track_of = {}
    while table.rounds_completed == 0:
        table.read()
        truth = table.ground_truth()
        cards = []
        for t in truth:
            tid = track_of.setdefault((table.round_index, t["zone"], t["position"]), len(track_of) + 1)
            cards.append(TableCard(tid, t["card"], t["face"], tuple(map(tuple, t["quad"])), 1.0, False))
        state = assigner.assign(cards)
        want = {z.name: [track_of[(table.round_index, t["zone"], t["position"])]
                         for t in sorted(truth, key=lambda t: t["position"]) if t["zone"] == z.name]
                for z in table.layout}
        got = {name: ids(cs) for name, cs in state.zones.items()}
        assert got == want, (table.frame_index, got, want)
        assert state.unassigned == ()


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 3), per_row=st.integers(1, 5), spacing=st.floats(1.1, 2.5),
       slant=st.floats(-8, 8), seed=st.integers(0, 10_000))
def test_automatic_rows_are_found_whatever_the_spacing_and_small_slant(rows, per_row, spacing, slant, seed):
    import random
    rnd = random.Random(seed)
    layout = [ZoneSpec(n, None, n, n) for n in ("shi-e", "naka-e", "oto-e")]
    cards, want, tid = [], {}, 0
    for r in range(rows):
        for k in range(per_row):
            tid += 1
            x = 50 + k * spacing * 60 + rnd.uniform(-6, 6)
            y = 40 + r * 130 + k * slant + rnd.uniform(-6, 6)
            cards.append(card(tid, x, y))
            want.setdefault(layout[r].name, []).append(tid)
    rnd.shuffle(cards)
    state = ZoneAssigner(layout).assign(cards)
    assert {n: ids(c) for n, c in state.zones.items() if c} == want


def test_a_zones_file_nested_too_deep_is_a_zone_error(tmp_path):
    from vision.zones import load_zones
    path = tmp_path / "zones.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(ZoneError, match="nested too deep"):
        load_zones(path)


def test_two_rows_laid_close_overlapping_a_little_stay_two_rows():
    """Rows are told apart at half a card's height between their centres: Saki and Ato laid with
    their centres three quarters of a card apart are two rows, not one band."""
    saki = [card(1, 100, 100), card(2, 170, 100), card(3, 240, 100)]
    ato = [card(4, 100, 173), card(5, 170, 173), card(6, 240, 173)]  # 0.75 of a card (97) lower
    state = ZoneAssigner(BATTA).assign(saki + ato)
    assert ids(state.zones["saki"]) == [1, 2, 3] and ids(state.zones["ato"]) == [4, 5, 6]


def test_a_two_card_hand_laid_apart_stays_one_hand_until_the_gap_is_wide():
    """A band of two cards is one hand up to three card widths between centres (an Otoroku hand is
    two cards, often laid apart); wider, they are two hands."""
    layout = [ZoneSpec(n, None, n, n, group=n) for n in ("A", "B")]
    state = ZoneAssigner(layout).assign([card(1, 100, 100), card(2, 220, 100)])   # 2 widths
    assert ids(state.zones["A"]) == [1, 2] and state.zones["B"] == ()
    state = ZoneAssigner(layout).assign([card(1, 100, 100), card(2, 310, 100)])   # 3.5 widths
    assert ids(state.zones["A"]) == [1] and ids(state.zones["B"]) == [2]


def test_a_row_takes_an_earlier_zone_only_when_most_of_its_cards_were_there():
    """A band made of one card of one row and one of another (and a new card) is no row that was
    there: it takes a free zone in table order, not the zone of whichever card came first."""
    layout = [ZoneSpec(n, 3, n, n) for n in ("shi-e", "naka-e", "oto-e")]
    assigner = ZoneAssigner(layout)
    rows = [[card(3 * r + i + 1, 100 + 70 * i, 100 + 200 * r) for i in range(3)] for r in range(3)]
    state = assigner.assign([c for row in rows for c in row])
    assert [ids(state.zones[z.name]) for z in layout] == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    mixed = [card(4, 100, 300), card(7, 170, 300), card(10, 240, 300)]   # one of naka-e, one of oto-e
    oto = [card(8, 170, 500), card(9, 240, 500)]                          # oto-e's, still there
    state = assigner.assign(mixed + oto)
    assert ids(state.zones["oto-e"]) == [8, 9]
    assert ids(state.zones["shi-e"]) == [4, 7, 10] and state.zones["naka-e"] == ()


def turned_card(tid, x, y, degrees, centre=(640, 360), w=60, h=97, askew=0.0):
    """A card laid at (x, y) (its centre), ``askew`` degrees off square, on a table the camera sees
    turned by ``degrees``."""
    import math
    t = math.radians(degrees)
    c, s = math.cos(t), math.sin(t)
    turn = lambda px, py: (centre[0] + (px - centre[0]) * c - (py - centre[1]) * s,
                           centre[1] + (px - centre[0]) * s + (py - centre[1]) * c)
    a = math.radians(askew)
    ca, sa = math.cos(a), math.sin(a)
    quad = tuple(turn(x + dx * ca - dy * sa, y + dx * sa + dy * ca)
                 for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)))
    return TableCard(track_id=tid, card="pine-crane", face="pine-crane", quad=quad, confidence=0.9, uncertain=False)


@pytest.mark.parametrize("degrees", [-35, -20, -8, 0, 8, 15, 20, 35])
@pytest.mark.parametrize("per_row", [4, 6])
def test_rows_seen_by_a_camera_turned_a_little_stay_apart_and_in_order(degrees, per_row):
    # at 20 degrees two rows of 4 (15 for rows of 6) came out as one interleaved row
    layout = [ZoneSpec("saki", per_row, "Saki", "先"), ZoneSpec("ato", per_row, "Ato", "後")]
    cards = [turned_card(10 * r + k, 640 + 75 * (k - (per_row - 1) / 2), 295 + 130 * r, degrees)
             for r in range(2) for k in range(per_row)]
    state = ZoneAssigner(layout).assign(cards[::-1])
    assert {n: ids(c) for n, c in state.zones.items()} == {"saki": list(range(per_row)),
                                                          "ato": [10 + k for k in range(per_row)]}


@pytest.mark.parametrize("degrees", [-25, 25])
def test_player_columns_seen_by_a_camera_turned_a_little_go_player_by_player(degrees):
    layout = [ZoneSpec(f"{p}-{r}", 3, "", "", group=p) for p in "AB" for r in (1, 2, 3)]
    cards = [turned_card(10 * p + 3 * r + k, 380 + 480 * p + 70 * (k - 1), 200 + 130 * r, degrees)
             for p in range(2) for r in range(3) for k in range(3)]
    state = ZoneAssigner(layout).assign(cards)
    assert [ids(state.zones[z.name]) for z in layout] == [[10 * p + 3 * r + k for k in range(3)]
                                                           for p in range(2) for r in range(3)]


def test_one_card_laid_crooked_among_a_few_does_not_turn_the_table():
    # two hands of one card, the second laid 25 degrees crooked: the table was taken as turned by 12.5
    # degrees, and the two players' hands changed places for the round
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B", "C"]}))
    crooked = turned_card(2, 650, 400, 25, centre=(650, 400))
    frames = [[card(1, 220, 352), crooked],
              [card(1, 220, 352), card(2, 620, 352), card(5, 290, 352), card(6, 690, 352)],
              [card(1, 220, 352), card(2, 620, 352), card(5, 290, 352), card(6, 690, 352),
               card(3, 1020, 352), turned_card(7, 1120, 400, 25, centre=(1120, 400))]]
    assigner = ZoneAssigner(layout)
    got = [{n: ids(c) for n, c in assigner.assign(f).zones.items() if c} for f in frames]
    assert got == [{"A": [1], "B": [2]}, {"A": [1, 5], "B": [2, 6]}, {"A": [1, 5], "B": [2, 6], "C": [3, 7]}]


@pytest.mark.parametrize("degrees", [-20, 20])
def test_rows_of_cards_laid_a_few_degrees_askew_by_hand_on_a_turned_table_stay_apart(degrees):
    # three in four cards within 6 degrees of one was asked: cards laid by hand a few degrees askew
    # often gave no turn at all, and Saki and Ato ran together
    import random
    rnd = random.Random(7)
    layout = [ZoneSpec("saki", 4, "Saki", "先"), ZoneSpec("ato", 4, "Ato", "後")]
    for _ in range(40):
        cards = [turned_card(10 * r + k, 640 + 75 * (k - 1.5), 295 + 130 * r, degrees, askew=rnd.gauss(0, 4))
                 for r in range(2) for k in range(4)]
        state = ZoneAssigner(layout).assign(cards[::-1])
        assert {n: ids(c) for n, c in state.zones.items()} == {"saki": [0, 1, 2, 3], "ato": [10, 11, 12, 13]}


def test_hands_laid_crooked_on_a_straight_table_keep_their_players():
    # their sides gave a turn of 10 degrees, and read so, A's and C's hands changed places
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B", "C"]}))
    hands = [("dealer", 640, 200, -5, 3), ("A", 250, 520, 10, 2), ("B", 640, 520, 3, 2), ("C", 1030, 520, 15, 3)]
    cards, want, tid = [], {}, 0
    for name, cx, cy, skew, n in hands:
        for k in range(n):
            cards.append(turned_card(tid, cx + 70 * (k - (n - 1) / 2), cy, 0, askew=skew))
            want.setdefault(name, []).append(tid)
            tid += 1
    state = ZoneAssigner(layout).assign(cards)
    assert {n: ids(c) for n, c in state.zones.items()} == want


@pytest.mark.parametrize("degrees", [-15, -10, 10, 15])
def test_hands_side_by_side_seen_by_a_turned_camera_keep_their_players(degrees):
    # compared by how far cards lay off a level line, the hands read one by one won over the long
    # row they make read level, and A's and C's hands changed places
    import random
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B", "C"]}))
    rnd = random.Random(3)
    for _ in range(25):
        cards, want, tid = [], {}, 0
        for name, cx, cy in (("dealer", 640, 200), ("A", 250, 520), ("B", 640, 520), ("C", 1030, 520)):
            for k in range(2):
                cards.append(turned_card(tid, cx + 70 * (k - 0.5), cy, degrees, askew=rnd.uniform(-3, 3)))
                want.setdefault(name, []).append(tid)
                tid += 1
        assert {n: ids(c) for n, c in ZoneAssigner(layout).assign(cards).zones.items()} == want


@pytest.mark.parametrize("degrees", [-30, 25, 30])
def test_two_short_rows_seen_by_a_well_turned_camera_stay_two(degrees):
    # judged by how level the rows ran alone, the two rows run together fitted a level line, and
    # every card went to Saki
    import random
    rnd = random.Random(11)
    for _ in range(40):
        cards = [turned_card(10 * r + k, 640 + 75 * (k - 1) + rnd.gauss(0, 3), 295 + 130 * r + rnd.gauss(0, 3),
                             degrees, askew=rnd.uniform(-3, 3)) for r in range(2) for k in range(3)]
        state = ZoneAssigner(BATTA).assign(cards)
        assert {n: ids(c) for n, c in state.zones.items()} == {"saki": [0, 1, 2], "ato": [10, 11, 12]}


def test_otoroku_the_dealers_hand_at_the_top_is_his_and_the_bettors_read_in_turn_order():
    """Camera as documented, the dealer's side at the top: his hand lies in front of him, the bettors
    sit across the table, the first at the dealer's right (the picture's left). Read like text, his
    hand was the first bettor's, every hand moved one seat and the last bettor's was settled as his."""
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B", "C"]}))
    cards = [card(1, 600, 100), card(2, 670, 100),                       # the dealer's hand
             card(3, 200, 500), card(4, 270, 500), card(5, 600, 500),    # A and B
             card(6, 670, 500), card(7, 1000, 500), card(8, 1070, 500)]  # B's second card, C
    state = ZoneAssigner(layout).assign(cards)
    assert {n: ids(c) for n, c in state.zones.items()} == {"A": [3, 4], "B": [5, 6], "C": [7, 8],
                                                           "dealer": [1, 2]}


def test_otoroku_a_hand_numbered_afresh_beside_a_seat_thrown_in_takes_back_its_own_seat():
    """B's bust hand thrown in, then C's hand covered long enough to be numbered afresh by the
    tracker: taking the free seats in order, it took B's, and B's bust went unpaid."""
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B", "C"]}))
    dealer = [card(1, 600, 100), card(2, 670, 100)]
    a, b, c = [card(3, 200, 500), card(4, 270, 500)], [card(5, 600, 500), card(6, 670, 500)], \
        [card(7, 1000, 500), card(8, 1070, 500)]
    assigner = ZoneAssigner(layout)
    assigner.assign(dealer + a + b + c)
    assigner.assign(dealer + a + c)                                     # B's hand thrown in
    assigner.assign(dealer + a)                                         # C's covered
    again = [card(17, 1003, 502), card(18, 1072, 499)]                  # C's, numbered afresh
    state = assigner.assign(dealer + a + again)
    assert {n: ids(z) for n, z in state.zones.items()} == {"A": [3, 4], "B": [], "C": [17, 18], "dealer": [1, 2]}
    # a hand laid where no hand lay yet still takes the free seats in the table's order
    fresh = ZoneAssigner(layout)
    state = fresh.assign(dealer + [card(9, 1000, 500), card(10, 1070, 500)])
    assert {n: ids(z) for n, z in state.zones.items()} == {"A": [9, 10], "B": [], "C": [], "dealer": [1, 2]}


@pytest.mark.parametrize("dip", [0, 60, 110, 200, -110])
def test_otoroku_bettors_hands_side_by_side_at_different_heights_are_read_in_seat_order(dip):
    """Bettors round a table: the middle one's hand lies further off. Read as lines of text split by
    height, a hand more than a card's length lower was read after the hand to its right: B and C
    traded seats and results."""
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B", "C"]}))
    cards = [card(1, 600, 100), card(2, 670, 100),
             card(3, 200, 500), card(4, 270, 500), card(5, 600, 500 + dip), card(6, 670, 500 + dip),
             card(7, 1000, 500), card(8, 1070, 500)]
    state = ZoneAssigner(layout).assign(cards)
    assert {n: ids(z) for n, z in state.zones.items()} == {"A": [3, 4], "B": [5, 6], "C": [7, 8], "dealer": [1, 2]}


def test_otoroku_a_second_line_of_hands_under_the_first_is_read_after_it():
    """Six bettors in two lines, the second under the first: still read like text."""
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": list("ABCDEF")}))
    dealer = [card(1, 600, 50), card(2, 670, 50)]
    first = [card(10 + k, 100 + 400 * k, 350) for k in range(3)]
    second = [card(20 + k, 120 + 400 * k, 600) for k in range(3)]
    state = ZoneAssigner(layout).assign(dealer + second + first)
    assert [ids(state.zones[n]) for n in "ABCDEF"] == [[10], [11], [12], [20], [21], [22]]


def test_echobo_a_bet_laid_before_the_dealers_card_never_takes_the_dealers_place():
    """The bettors lay their cards before the dealer's comes out: the first card seen took the
    dealer's place and kept it when a player sat the round out, so a losing bet was paid 5 times."""
    from dealer.games import get_game
    layout = list(get_game("echobo").layout({"players": ["A", "B"],
                                             "bets": [{"player": p, "on": 1, "amount": 1} for p in "AB"]}))
    assigner = ZoneAssigner(layout)
    state = assigner.assign([card(1, 200, 500)])                          # A's bet, alone
    assert {n: ids(c) for n, c in state.zones.items()} == {"dealer": [], "A": [1], "B": []}
    state = assigner.assign([card(1, 200, 500), card(2, 600, 100)])      # the dealer's card shown
    assert {n: ids(c) for n, c in state.zones.items()} == {"dealer": [2], "A": [1], "B": []}


def test_the_dealers_hand_stays_his_when_the_players_pick_theirs_up_first():
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B"]}))
    assigner = ZoneAssigner(layout)
    dealer = [card(1, 600, 100), card(2, 670, 100)]
    state = assigner.assign(dealer + [card(3, 200, 500), card(4, 900, 500)])
    assert {n: ids(c) for n, c in state.zones.items()} == {"A": [3], "B": [4], "dealer": [1, 2]}
    state = assigner.assign(dealer)
    assert {n: ids(c) for n, c in state.zones.items()} == {"A": [], "B": [], "dealer": [1, 2]}
    # a hand seen alone that was never below the players' is no one's but the first player's
    state = ZoneAssigner(layout).assign(dealer)
    assert {n: ids(c) for n, c in state.zones.items()} == {"A": [1, 2], "B": [], "dealer": []}


def test_kabu_tsukuri_rows_keep_their_zones_while_the_dealers_arm_hides_part_of_a_column():
    """B's first two rows with only their right card in sight and the third with its right card
    hidden: told apart by their middles they were two players' columns, and B's rows changed
    places (row 3's cards shown as row 1's), face up and sure."""
    from dealer.games import get_game
    layout = list(get_game("kabu-tsukuri").layout({"players": ["A", "B", "C"], "rows": {p: [[], [], []] for p in "ABC"}}))
    assert len(layout) == 9
    cards, row_of = [], {}
    for p, x0 in (("A", 100), ("B", 500), ("C", 900)):
        for r, y in enumerate((100, 200, 300), 1):
            for k in range(3):
                tid = len(cards) + 1
                cards.append(card(tid, x0 + 70 * k, y))
                row_of[tid] = f"{p}/{r}"
    assigner = ZoneAssigner(layout)
    want = {z.name: [t for t in sorted(row_of) if row_of[t] == z.name] for z in layout}
    assert {n: ids(c) for n, c in assigner.assign(cards).zones.items()} == want
    hidden = {10, 11, 13, 14, 18}  # B/1's and B/2's first two cards, B/3's last
    state = assigner.assign([c for c in cards if c.track_id not in hidden])
    assert {n: ids(c) for n, c in state.zones.items()} == {n: [t for t in v if t not in hidden] for n, v in want.items()}


def test_a_hand_laid_a_little_lower_is_no_dealers_place():
    # during the deal (the dealer deals himself last) a bettor's hand 0.6 of a card lower made two rows,
    # and the top one, A's hand, was taken for the dealer's and kept the name once straightened
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B", "C"]}))
    assigner = ZoneAssigner(layout)
    hands = [card(1, 200, 500), card(2, 270, 500), card(3, 600, 560), card(4, 670, 560),
             card(5, 1000, 560), card(6, 1070, 560)]
    state = assigner.assign(hands)
    assert {n: ids(c) for n, c in state.zones.items()} == {"A": [1, 2], "B": [3, 4], "C": [5, 6], "dealer": []}
    straight = [card(c.track_id, c.quad[0][0], 500) for c in hands]
    state = assigner.assign(straight + [card(7, 600, 100), card(8, 670, 100)])  # and the dealer's own
    assert {n: ids(c) for n, c in state.zones.items()} == {"A": [1, 2], "B": [3, 4], "C": [5, 6], "dealer": [7, 8]}


@pytest.mark.parametrize("raised", ["A", "B", "C"])
def test_a_hand_laid_half_a_card_higher_than_those_beside_it_keeps_its_seat(raised):
    # a hand 0.6 of a card higher was a line of its own, read before the hands beside it: each hand
    # moved a seat (an Otoroku Makezu booked to the bust beside it, and the bust's loss to the winner)
    from dealer.games import get_game
    layout = list(get_game("otoroku").layout({"seats": ["A", "B", "C"]}))
    ys = {"A": 500, "B": 500, "C": 500}
    ys[raised] = 442  # (0.6 of a 97-pixel card higher)
    cards = [card(1, 600, 100), card(2, 670, 100),
             card(3, 200, ys["A"]), card(4, 270, ys["A"]), card(5, 600, ys["B"]), card(6, 670, ys["B"]),
             card(7, 1000, ys["C"]), card(8, 1070, ys["C"])]
    zones = {n: [c.track_id for c in cs] for n, cs in ZoneAssigner(layout).assign(cards).zones.items()}
    assert zones == {"A": [3, 4], "B": [5, 6], "C": [7, 8], "dealer": [1, 2]}


@pytest.mark.parametrize("jitter", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (-1, 1, 0)])
def test_a_near_square_zone_orders_its_cards_the_way_they_run(jitter):
    # a hand's zone drawn a little generously (210 wide, 215 tall) took its order from its long side,
    # top to bottom, and a pixel of jitter shuffled the three cards laid left to right
    layout = [ZoneSpec("p1-a", 3, "A", "A", group="p1"), ZoneSpec("p1-b", 3, "B", "B", group="p1")]
    assigner = ZoneAssigner(layout, [TableZone("p1-a", [(90, 40), (300, 40), (300, 255), (90, 255)])])
    faces = ["pine-crane", "plum-warbler", "cherry-curtain"]
    state = assigner.assign([card(k + 1, 100 + 65 * k, 100 + dy, face=f) for k, (f, dy) in enumerate(zip(faces, jitter))])
    assert [c.face for c in state.zones["p1-a"]] == faces
    # and a column laid top to bottom in the same zone reads top to bottom
    state = assigner.assign([card(k + 1, 150 + dx, 45 + 70 * k, face=f, h=60) for k, (f, dx) in enumerate(zip(faces, jitter))])
    assert [c.face for c in state.zones["p1-a"]] == faces


@pytest.mark.parametrize("dx", [-2, 0, 2])
def test_rows_across_the_table_laid_close_read_top_to_bottom_whatever_their_jitter(dx):
    # two rows less than a card's length apart were taken for one line and read by their middles,
    # left to right: Ato two pixels to the left of Saki was Saki (a bet settled on the other row)
    saki = [card(1, 100, 100), card(2, 170, 100), card(3, 240, 100)]
    ato = [card(4, 100 + dx, 173), card(5, 170 + dx, 173), card(6, 240 + dx, 173)]
    state = ZoneAssigner(BATTA).assign(ato + saki)
    assert ids(state.zones["saki"]) == [1, 2, 3] and ids(state.zones["ato"]) == [4, 5, 6]
    hankan = [ZoneSpec(n, 3, n, n) for n in ("shi-e", "naka-e", "oto-e")]
    rows = [card(3 * r + i + 1, 100 + 70 * i - 3 * r, 100 + 90 * r) for r in range(3) for i in range(3)]
    state = ZoneAssigner(hankan).assign(rows)
    assert [ids(state.zones[n]) for n in ("shi-e", "naka-e", "oto-e")] == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]


@pytest.mark.parametrize("per_hand, apart", [(1, 0), (2, 130)])
def test_hands_of_one_card_or_laid_loosely_are_each_players_own(per_hand, apart):
    # all spaced alike, the gaps between hands were no wider than the tightest: every card was the
    # first player's (Otoroku's first card each, Echobo's bettors of one card)
    layout = [ZoneSpec(n, None, n, n, group=n) for n in ("A", "B", "C")] + [
        ZoneSpec("dealer", None, "dealer", "dealer", dealer_side=True)]
    hands = [card(10 * p + k, 100 + 400 * p + apart * k, 400) for p in range(3) for k in range(per_hand)]
    dealer = [card(50, 400, 60), card(51, 470, 60)]
    state = ZoneAssigner(layout).assign(hands + dealer)
    assert [ids(state.zones[n]) for n in ("A", "B", "C")] == [[10 * p + k for k in range(per_hand)] for p in range(3)]
    assert ids(state.zones["dealer"]) == [50, 51]


@pytest.mark.parametrize("order", [[3, 1, 2], [2, 3, 1], [3, 2, 1]])
def test_kabu_tsukuri_a_players_rows_laid_out_of_order_are_read_top_to_bottom(order):
    # each row kept the zone it took when laid: with a spare on the table the rows never numbered the
    # zones, and Q's rows laid bottom first were settled as his rows 1 and 3 swapped, unsaid
    from dealer.games import get_game
    layout = list(get_game("kabu-tsukuri").layout({"players": ["P", "Q"]}))

    def row(p, r):
        return [card(100 * p + 10 * r + k, 200 + 480 * p + 70 * k, 100 + 130 * (r - 1)) for k in range(3)]
    assigner = ZoneAssigner(layout)
    laid = row(0, 1) + row(0, 2) + row(0, 3) + [card(9, 270, 490)]  # P's rows, and his spare
    for r in order:
        laid += row(1, r)
        state = assigner.assign(laid)
    assert all(ids(state.zones[f"{'PQ'[q]}/{r}"]) == ids(row(q, r)) for q in (0, 1) for r in (1, 2, 3))
    # a hand over P's second row and two cards of his third a moment: his third row's card left in
    # sight took row 2, and kept it when the hand lifted
    hidden = [c for c in laid if c.track_id not in (20, 21, 22, 31, 32)]
    assigner.assign(hidden)
    state = assigner.assign(laid)
    assert all(ids(state.zones[f"{'PQ'[q]}/{r}"]) == ids(row(q, r)) for q in (0, 1) for r in (1, 2, 3))


def test_kabu_tsukuri_rows_go_to_the_player_whose_column_they_lie_in():
    # taken in the layout's order: Q's first row laid while P had laid one was P's second row; after
    # a restart, each player's spare card below his rows took the next player's first zone
    from dealer.games import get_game
    layout = list(get_game("kabu-tsukuri").layout({"players": ["P", "Q"]}))

    def row(p, r):  # player p's row r: columns 480 px apart, rows 130 px apart
        return [card(100 * p + 10 * r + k, 200 + 480 * p + 70 * k, 100 + 130 * (r - 1)) for k in range(3)]
    assigner = ZoneAssigner(layout)
    laid = []
    for p, r in [(0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3)]:
        laid += row(p, r)
        state = assigner.assign(laid)
        for q, s in [(q, s) for q in (0, 1) for s in (1, 2, 3) if row(q, s)[0] in laid]:
            assert ids(state.zones[f"{'PQ'[q]}/{s}"]) == ids(row(q, s)), (p, r, q, s)
    spares = [card(109, 270, 490), card(209, 750, 490)]
    state = ZoneAssigner(layout).assign(laid + spares)
    assert all(ids(state.zones[f"{'PQ'[q]}/{s}"]) == ids(row(q, s)) for q in (0, 1) for s in (1, 2, 3))
    assert sorted(ids(state.unassigned)) == [109, 209]
    # a player's rows picked up first: the others keep their zones
    state = assigner.assign([c for c in laid if c.track_id >= 100])
    assert all(ids(state.zones[f"Q/{s}"]) == ids(row(1, s)) for s in (1, 2, 3))
