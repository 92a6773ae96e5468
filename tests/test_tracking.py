"""The tracker: cards enter after N frames, leave after N misses, votes beat glitches."""
import pytest
from hypothesis import given, settings, strategies as st

from vision.tracking import CardTracker
from vision.types import Detection


def quad_at(x, y, w=60, h=97):
    return ((x, y), (x + w, y), (x + w, y + h), (x, y + h))


def det(face, x=100, y=100, conf=0.95, card=None, uncertain=False):
    if card is None and face != "back":
        card = face
    return Detection(card=card, face=face, quad=quad_at(x, y), confidence=conf, uncertain=uncertain)


def faces(cards):
    return sorted(c.face for c in cards)


def test_card_enters_only_after_enter_frames():
    tracker = CardTracker(enter_frames=3, leave_frames=3)
    assert tracker.update([det("pine-crane")]) == []
    assert tracker.update([det("pine-crane", x=103)]) == []
    cards = tracker.update([det("pine-crane", x=101)])
    assert faces(cards) == ["pine-crane"]
    assert cards[0].card == "pine-crane" and not cards[0].uncertain


def test_one_frame_glitch_never_appears():
    tracker = CardTracker(enter_frames=3, leave_frames=3)
    seen = []
    for frame in range(10):
        dets = [det("pine-crane")]
        if frame == 4:
            dets.append(det("plum-bush-warbler", x=400))  # a one-frame false detection
        seen.append(faces(tracker.update(dets)))
    assert all("plum-bush-warbler" not in s for s in seen)
    assert seen[-1] == ["pine-crane"]


def test_a_new_card_missed_once_needs_one_more_sighting():
    tracker = CardTracker(enter_frames=3, leave_frames=3)
    tracker.update([det("pine-crane")])                 # counter 1
    tracker.update([det("pine-crane")])                 # 2
    assert tracker.update([]) == []                     # 1: missed, not forgotten
    assert tracker.update([det("pine-crane")]) == []    # 2
    assert faces(tracker.update([det("pine-crane")])) == ["pine-crane"]   # 3: enters


def test_a_new_card_missed_as_often_as_seen_is_forgotten():
    tracker = CardTracker(enter_frames=3, leave_frames=3)
    tracker.update([det("pine-crane")])                 # 1
    tracker.update([])                                  # 0: forgotten
    assert tracker.update([det("pine-crane")]) == []    # a new count starts at 1
    assert tracker.update([det("pine-crane")]) == []    # 2
    assert faces(tracker.update([det("pine-crane")])) == ["pine-crane"]


def test_card_leaves_after_leave_frames_misses_and_survives_fewer():
    tracker = CardTracker(enter_frames=2, leave_frames=3)
    for _ in range(3):
        tracker.update([det("pine-crane")])
    track_id = tracker.update([det("pine-crane")])[0].track_id
    assert faces(tracker.update([])) == ["pine-crane"]      # 1 miss
    assert faces(tracker.update([])) == ["pine-crane"]      # 2 misses
    cards = tracker.update([det("pine-crane")])            # back: same track
    assert [c.track_id for c in cards] == [track_id]
    for _ in range(2):
        assert faces(tracker.update([])) == ["pine-crane"]
    assert tracker.update([]) == []                        # 3rd consecutive miss: gone


def test_vote_beats_a_minority_reading_and_marks_doubt():
    tracker = CardTracker(enter_frames=3, leave_frames=3, vote_window=5)
    readings = ["pine-crane", "pine-crane", "pine-crane", "pine-poetry", "pine-crane", "pine-crane",
                "pine-poetry", "pine-crane"]
    results = [tracker.update([det(r, conf=0.9)]) for r in readings]
    assert all(faces(r) in ([], ["pine-crane"]) for r in results)
    assert faces(results[-1]) == ["pine-crane"]
    # 2 of the last 5 frames read another face: shown, but honestly marked uncertain
    assert results[-1][0].uncertain
    for _ in range(5):
        cards = tracker.update([det("pine-crane", conf=0.9)])
    assert not cards[0].uncertain and cards[0].confidence == 0.9


def test_split_vote_is_uncertain_and_does_not_flicker():
    tracker = CardTracker(enter_frames=2, leave_frames=3, vote_window=6)
    shown = []
    for i in range(20):
        face = "pine-crane" if i % 2 == 0 else "pine-poetry"
        cards = tracker.update([det(face, conf=0.9)])
        if cards:
            shown.append((cards[0].face, cards[0].uncertain))
    assert {f for f, _ in shown} == {"pine-crane"}   # the first reading is kept: no alternation
    assert all(u for _, u in shown[3:])              # and it is marked uncertain


def test_a_card_misread_now_and_then_stays_uncertain_until_it_reads_one_way_again():
    # a misread one frame in four: the share of the shown face crossed 0.8 back and forth, and the
    # flag with it (the page flickered, and in its sure frames the round could be settled)
    tracker = CardTracker()
    flags = []
    for i in range(40):
        cards = tracker.update([det("maple-deer" if i % 4 == 3 else "pine-crane")])
        if cards:
            flags.append(cards[0].uncertain)
    first = flags.index(True)
    assert first <= 6 and all(flags[first:])
    for _ in range(6):  # one dissenting vote left in the window: still in doubt
        cards = tracker.update([det("pine-crane")])
    assert cards[0].uncertain
    cards = tracker.update([det("pine-crane")])  # every vote of the window agrees
    assert not cards[0].uncertain and cards[0].face == "pine-crane"


def test_one_stray_frame_in_seven_leaves_a_sure_card_sure():
    tracker = CardTracker()
    for i in range(20):
        cards = tracker.update([det("maple-deer" if i == 10 else "pine-crane")])
    assert all(not tracker.update([det("pine-crane")])[0].uncertain for _ in range(3))


def test_a_chaff_card_read_as_either_copy_keeps_the_id_shown():
    # pine-chaff-1 and -2 share a face: a tie of their votes went to the oldest of the window, so
    # the id shown flipped every frame (and every flip woke the page)
    tracker = CardTracker()
    shown = []
    for i in range(20):
        card = "pine-chaff-1" if i % 2 == 0 else "pine-chaff-2"
        cards = tracker.update([det("pine-chaff", card=card)])
        if cards:
            shown.append(cards[0].card)
    assert len(set(shown[1:])) == 1, shown
    assert not cards[0].uncertain


def test_low_confidence_is_uncertain():
    tracker = CardTracker(enter_frames=2, uncertain_below=0.6)
    for _ in range(4):
        cards = tracker.update([det("pine-crane", conf=0.4)])
    assert cards[0].uncertain


def test_detector_uncertain_flag_is_kept():
    tracker = CardTracker(enter_frames=2)
    for _ in range(4):
        cards = tracker.update([det("pine-crane", conf=0.9, uncertain=True)])
    assert cards[0].uncertain


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.5, 1.5])
def test_a_confidence_that_is_not_a_probability_makes_the_card_uncertain(bad):
    # NaN compares false with every threshold: a broken model's NaN passed as a sure card
    tracker = CardTracker(enter_frames=2)
    for _ in range(4):
        cards = tracker.update([det("pine-crane", conf=bad)])
    assert cards[0].uncertain and cards[0].confidence == 0.0


def test_one_broken_reading_among_sound_ones_keeps_the_card_in_doubt_while_it_is_recent():
    # outvoted by the sound frames, one or two NaN frames of seven left the card sure
    tracker = CardTracker(enter_frames=3, vote_window=7)
    for _ in range(6):
        cards = tracker.update([det("pine-crane", conf=0.95)])
    assert not cards[0].uncertain
    cards = tracker.update([det("pine-crane", conf=float("nan"))])
    assert cards[0].uncertain
    for _ in range(6):  # still in the window
        cards = tracker.update([det("pine-crane", conf=0.95)])
        assert cards[0].uncertain
    cards = tracker.update([det("pine-crane", conf=0.95)])  # gone from it
    assert not cards[0].uncertain


def test_reveal_switches_face_once_and_is_sure():
    tracker = CardTracker(enter_frames=3, leave_frames=3, vote_window=5)
    for _ in range(8):
        cards = tracker.update([det("back")])
    assert cards[0].face == "back" and cards[0].card is None
    history = []
    for _ in range(6):
        cards = tracker.update([det("iris-bridge")])
        history.append(cards[0].face)
    # back, back, then the new face once it has the majority, and it stays
    assert history == ["back", "back", "iris-bridge", "iris-bridge", "iris-bridge", "iris-bridge"]
    assert not cards[0].uncertain and cards[0].card == "iris-bridge"


def test_chaff_card_id_is_the_vote_within_the_face():
    tracker = CardTracker(enter_frames=2)
    for card in ["pine-chaff-1", "pine-chaff-2", "pine-chaff-2", "pine-chaff-2"]:
        cards = tracker.update([det("pine-chaff", card=card)])
    assert cards[0].card == "pine-chaff-2"  # once it leads by two votes (see the next test)


def test_two_cards_keep_their_tracks_when_they_move_a_little():
    tracker = CardTracker(enter_frames=2)
    for i in range(5):
        cards = tracker.update([det("pine-crane", x=100 + i), det("plum-ribbon", x=180 - i)])
    by_face = {c.face: c.track_id for c in cards}
    for i in range(3):
        cards = tracker.update([det("plum-ribbon", x=175 - i), det("pine-crane", x=105 + i)])
    assert {c.face: c.track_id for c in cards} == by_face


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40))
def test_shown_exactly_when_hysteresis_says_so(seen):
    """Shown iff: the hit counter (+1 seen, -1 missed, forgotten at 0) reached 3, and since then
    the card was never missed 3 times in a row."""
    tracker = CardTracker(enter_frames=3, leave_frames=3)
    counter = misses = 0
    on_table = False
    for present in seen:
        cards = tracker.update([det("pine-crane")] if present else [])
        if on_table:
            misses = 0 if present else misses + 1
            if misses >= 3:
                on_table, counter, misses = False, 0, 0
        else:
            counter = counter + 1 if present else max(0, counter - 1)
            if counter >= 3:
                on_table, misses = True, 0
        assert faces(cards) == (["pine-crane"] if on_table else []), (seen, cards)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([None, "pine-poetry", "pine-chaff", "back"]), min_size=10, max_size=40)
       .map(lambda glitches: glitches))
def test_isolated_misreadings_never_change_the_face_shown(noise):
    """A card read rightly except for isolated frames (never two wrong in a row) is always shown
    with its right face once it has entered: isolated glitches never flicker the page."""
    tracker = CardTracker(enter_frames=3, leave_frames=3, vote_window=5)
    readings = ["pine-crane"] * 3
    for i, wrong in enumerate(noise):
        readings.append(wrong if wrong and i % 2 == 1 else "pine-crane")
    for reading in readings:
        cards = tracker.update([det(reading)] if reading != "back" else [det("back")])
        assert [c.face for c in cards] in ([], ["pine-crane"])
    assert faces(cards) == ["pine-crane"]


def test_a_card_swapped_in_place_changes_face_after_a_clear_lead():
    tracker = CardTracker(enter_frames=3, leave_frames=3, vote_window=5, switch_margin=2)
    for _ in range(6):
        tracker.update([det("pine-crane")])
    shown = [tracker.update([det("plum-ribbon")])[0].face for _ in range(5)]
    assert shown == ["pine-crane"] * 3 + ["plum-ribbon"] * 2


def test_a_card_reported_twice_is_on_the_table_once():
    tracker = CardTracker(enter_frames=2)
    for i in range(5):
        cards = tracker.update([det("pine-crane", x=100), det("pine-poetry", x=103, y=102)])
    assert faces(cards) == ["pine-crane"]
    # two different cards side by side are both there
    tracker = CardTracker(enter_frames=2)
    for i in range(5):
        cards = tracker.update([det("pine-crane", x=100), det("pine-poetry", x=170)])
    assert faces(cards) == ["pine-crane", "pine-poetry"]


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        CardTracker(enter_frames=0)
    with pytest.raises(ValueError, match="vote_window"):
        CardTracker(enter_frames=3, vote_window=2)


def test_a_card_read_two_ways_after_its_reveal_stays_uncertain():
    tracker = CardTracker()
    for _ in range(8):
        tracker.update([det("back")])
    for face in ["willow-rainman", "clover-ribbon", "clover-ribbon", "willow-rainman", "clover-ribbon",
                 "clover-ribbon", "willow-rainman"]:
        cards = tracker.update([det(face, conf=0.96)])
    assert cards[0].face == "clover-ribbon" and cards[0].uncertain


def _after(frames):
    tracker = CardTracker(enter_frames=3, leave_frames=3, vote_window=7)
    cards = []
    for d in frames:
        cards = tracker.update([d])
    return cards


@pytest.mark.parametrize("conf,uncertain", [(0.55, True), (0.59, True), (0.61, False), (0.65, False)])
def test_a_card_read_just_below_the_doubt_threshold_is_uncertain(conf, uncertain):
    """The threshold itself (0.6) is what holds a card read at 0.55 back from being settled unseen."""
    (card,) = _after([det("pine-crane", conf=conf)] * 7)
    assert card.uncertain is uncertain and card.confidence == pytest.approx(conf)


def test_one_glitch_lowers_the_smoothed_confidence_a_little():
    """The shown face's confidence is averaged over the whole window: a frame read otherwise counts 0."""
    frames = [det("pine-crane", conf=0.9)] * 6 + [det("plum-warbler", conf=0.9)]
    (card,) = _after(frames)
    assert card.face == "pine-crane" and card.confidence == pytest.approx(6 * 0.9 / 7, abs=1e-4)


@pytest.mark.parametrize("flagged,uncertain", [(4, True), (3, True), (0, False)])
def test_a_card_the_detector_doubts_in_most_frames_is_uncertain(flagged, uncertain):
    frames = [det("pine-crane", uncertain=i < flagged) for i in range(7)]
    (card,) = _after(frames)
    assert card.uncertain is uncertain


def test_doubt_in_three_frames_of_seven_shows_and_one_doubtful_frame_among_sure_ones_does_not():
    # counted by a majority, doubt in 3 frames of 7 was never shown
    spread = [det("pine-crane", uncertain=i in (1, 3, 5)) for i in range(7)]
    assert [c.uncertain for c in _after(spread)] == [True]
    late = [det("pine-crane")] * 6 + [det("pine-crane", uncertain=True)]
    assert [c.uncertain for c in _after(late)] == [False]
    # doubt in the first reading, before there are others to weigh it, holds while that reading is
    # in the window
    first = [det("pine-crane", uncertain=True)] + [det("pine-crane")] * 6
    assert [c.uncertain for c in _after(first)] == [True]


def test_a_card_doubted_every_other_frame_stays_in_doubt_and_clears_once_its_window_is_sure():
    # the flag followed the window: amber, green, amber on the page, settleable in the green frames
    tracker = CardTracker()
    shown = []
    for i in range(12):
        (card,) = tracker.update([det("pine-crane", conf=0.99, uncertain=i % 2 == 1)]) or (None,)
        shown.append(None if card is None else card.uncertain)
    assert shown[:2] == [None, None] and set(shown[2:]) == {True}
    for _ in range(6):  # sure frames: the doubt holds while a doubtful reading is in the window
        (card,) = tracker.update([det("pine-crane", conf=0.99)])
        assert card.uncertain
    (card,) = tracker.update([det("pine-crane", conf=0.99)])
    assert not card.uncertain


def test_four_readings_in_five_are_no_split_vote():
    """split_share 0.8: a window of 5 with one other reading is not split (4/5 is the share asked)."""
    tracker = CardTracker(enter_frames=3, leave_frames=3, vote_window=5)
    cards = []
    for i in range(6):  # the window: 4 pine, then plum once
        cards = tracker.update([det("plum-warbler" if i == 5 else "pine-crane")])
    (card,) = cards
    assert card.face == "pine-crane" and not card.uncertain
    assert card.confidence == pytest.approx(4 * 0.95 / 5)
    cards = tracker.update([det("plum-warbler")])  # 3 in 5: split, in doubt
    assert cards[0].uncertain


@pytest.mark.parametrize("face, knock", [("back", 45), ("pine-chaff", 45), ("back", 50), ("back", 55)])
def test_a_camera_knock_keeps_each_card_on_its_own_track(face, knock):
    # a row of look-alike cards 65 px apart, the picture moved 45 px: matched nearest-first, each
    # track took the card beside it, silently (no card was ever uncertain), with its correction; moved
    # nearly a card's gap (50, 55 px), staying put seemed to keep all cards but one on a track
    tracker = CardTracker()
    row = lambda shift: [det(face, x=100 + 65 * k - shift) for k in range(3)]
    for _ in range(5):
        before = tracker.update(row(0))
    ids = {c.quad[0][0] - 0: c.track_id for c in before}
    for _ in range(6):
        after = tracker.update(row(knock))
    assert {c.quad[0][0] + knock: c.track_id for c in after} == ids


@pytest.mark.parametrize("knock", [60, 75, 150, 200])
def test_a_camera_knock_of_more_than_half_a_card_keeps_each_card_its_track_and_face(knock):
    # moved more than half a diagonal (57 px), the true move was no move within the gate: each track
    # took its neighbour, backs silently, and for a frame each card showed its neighbour's face, sure
    faces = ["pine-crane", "plum-warbler", "cherry-curtain", "back", "maple-deer"]
    tracker = CardTracker()
    row = lambda shift: [det(f, x=100 + 70 * k + shift, y=300) for k, f in enumerate(faces)]
    for _ in range(5):
        before = {c.quad[0][0]: (c.track_id, c.face) for c in tracker.update(row(0))}
    for _ in range(6):
        after = {c.quad[0][0] - knock: (c.track_id, c.face, c.uncertain) for c in tracker.update(row(knock))}
        assert after == {x: (t, f, False) for x, (t, f) in before.items()}


@pytest.mark.parametrize("jitter", [0, 2])
def test_a_card_moved_from_one_end_of_a_row_to_the_other_is_no_camera_knock(jitter):
    # the move of one card along the row fitted every track, staying put all but one: each card took
    # its neighbour's track and face, sure, a face-down one too
    faces = ["pine-crane", "plum-warbler", "cherry-curtain", "back", "maple-deer"]
    tracker = CardTracker()
    for _ in range(5):
        before = {c.quad[0][0]: (c.track_id, c.face) for c in tracker.update(
            [det(f, x=100 + 70 * k, y=300) for k, f in enumerate(faces)])}
    moved = faces[1:] + ["wisteria-cuckoo"]
    for i in range(4):
        wobble = jitter if i % 2 else -jitter
        after = tracker.update([det(f, x=170 + 70 * k + wobble * (k % 2), y=300) for k, f in enumerate(moved)])
        # each card by its place before the wobble: the four that stayed keep track and face
        stayed = {x: (c.track_id, c.face) for c in after
                  for x in [round((c.quad[0][0] - 170) / 70) * 70 + 170] if x in (170, 240, 310, 380)}
        assert stayed == {x: before[x] for x in (170, 240, 310, 380)}, i


def test_a_camera_knock_as_cards_leave_the_table_keeps_the_others_on_their_tracks():
    # two Kabu-Tsukuri rows of three; the picture moves 52 px as two cards are picked up
    tracker = CardTracker()
    grid = [(100 + 65 * k, 100 + 120 * r) for r in range(2) for k in range(3)]
    for _ in range(5):
        before = {c.quad[0]: c.track_id for c in tracker.update([det("back", x=x, y=y) for x, y in grid])}
    kept = grid[:2] + grid[3:5]
    for _ in range(6):
        after = {c.quad[0]: c.track_id for c in tracker.update([det("back", x=x - 52, y=y) for x, y in kept])}
    assert {(x + 52, y): t for (x, y), t in after.items()} == {p: before[p] for p in kept}


def test_one_card_slid_away_along_a_row_is_not_taken_for_a_camera_knock():
    # slid further than a track reaches (half a diagonal, 57 px here): a track and a card are left
    # unmatched, as in a knock, but the other cards did not move
    tracker = CardTracker()
    cards = lambda x2: [det("back", x=100), det("back", x=165), det("back", x=x2)]
    for _ in range(5):
        before = {c.quad[0][0]: c.track_id for c in tracker.update(cards(230))}
    for _ in range(6):
        after = {c.quad[0][0]: c.track_id for c in tracker.update(cards(310))}
    assert after[100] == before[100] and after[165] == before[165] and after[310] not in before.values()


def test_a_card_hidden_and_another_laid_beside_a_row_in_one_frame_is_no_camera_knock():
    # the move from the last card to the new one brought every other track onto its neighbour, and
    # the whole row slid one card along
    tracker = CardTracker()
    row = [100, 165, 230, 295]
    for _ in range(5):
        before = {c.quad[0][0]: c.track_id for c in tracker.update([det("back", x=x) for x in row])}
    tracker.update([det("back", x=x) for x in row[1:] + [350]])  # a hand over the first; one laid
    for _ in range(4):
        after = {c.quad[0][0]: c.track_id for c in tracker.update([det("back", x=x) for x in row + [350]])}
    assert {x: after[x] for x in row} == before


def test_a_card_hidden_long_enough_to_leave_comes_back_as_itself():
    """The dealer's hand passing over a card hid it for leave_frames: it came back under a new id,
    and the dealer's correction of it (kept by id) no longer applied, so the round settled on the
    misreading. Back in its place with the same face, it is the same card."""
    tracker = CardTracker(enter_frames=3, leave_frames=3, return_frames=50)
    for _ in range(3):
        cards = tracker.update([det("pine-crane"), det("maple-deer", x=300)])
    first = {c.face: c.track_id for c in cards}
    for _ in range(5):  # the hand over pine-crane
        cards = tracker.update([det("maple-deer", x=300)])
    assert [c.face for c in cards] == ["maple-deer"]
    for _ in range(3):
        cards = tracker.update([det("pine-crane", x=102), det("maple-deer", x=300)])
    assert {c.face: c.track_id for c in cards} == first


def seen_for(tracker, detections, frames=3):
    """The table after ``frames`` frames that each see ``detections``."""
    for _ in range(frames):
        cards = tracker.update(list(detections))
    return cards


def test_another_face_in_a_place_a_card_left_or_a_card_back_too_late_is_a_new_card():
    tracker = CardTracker(enter_frames=3, leave_frames=3, return_frames=20)
    old = seen_for(tracker, [det("pine-crane")])[0].track_id
    seen_for(tracker, [])
    other = seen_for(tracker, [det("plum-chaff-1")])[0].track_id  # another card laid where it lay
    assert other != old
    seen_for(tracker, [])
    assert seen_for(tracker, [det("pine-crane", x=104)])[0].track_id == old  # the first card back: itself
    seen_for(tracker, [], frames=24)
    late = seen_for(tracker, [det("pine-crane")])[0].track_id  # back after return_frames: a new card
    assert late not in (old, other)
    moved = CardTracker(enter_frames=3, leave_frames=3)
    old = seen_for(moved, [det("pine-crane")])[0].track_id
    seen_for(moved, [])
    assert seen_for(moved, [det("pine-crane", x=200)])[0].track_id != old  # laid elsewhere: another


@pytest.mark.parametrize("shift, turn", [(8, 0), (0, 8)])
def test_a_card_of_the_same_face_laid_a_little_off_where_one_left_is_another_card(shift, turn):
    # with a whole card's gate, the correction of a card picked up went to the card of its misread
    # face laid in its place (a trick's spot): laid by hand, a card lies a few pixels or degrees off
    import math
    tracker = CardTracker(enter_frames=3, leave_frames=3)
    for _ in range(3):
        cards = tracker.update([det("maple-deer")])
    old = cards[0].track_id
    for _ in range(4):
        tracker.update([])
    cx, cy, a = 130 + shift, 148.5, math.radians(turn)
    corners = [(-30, -48.5), (30, -48.5), (30, 48.5), (-30, 48.5)]
    quad = tuple((cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a)) for x, y in corners)
    laid = Detection(card="maple-deer", face="maple-deer", quad=quad, confidence=0.95, uncertain=False)
    for _ in range(3):
        cards = tracker.update([laid])
    assert cards[0].track_id != old


def test_a_card_hidden_at_one_end_as_one_is_laid_at_the_other_keeps_every_face():
    # the row moved one card along fitted the move of a knocked camera: each card took its
    # neighbour's id (and the dealer's correction) and showed its neighbour's face
    tracker = CardTracker(enter_frames=3, leave_frames=3)
    before = seen_for(tracker, [det("pine-crane", x=100), det("maple-deer", x=172)])
    ids = {c.face: c.track_id for c in before}
    for _ in range(3):
        cards = tracker.update([det("maple-deer", x=174), det("iris-chaff", x=246)])  # (2 px of jitter)
        assert all(c.face == {100: "pine-crane", 174: "maple-deer", 172: "maple-deer"}.get(c.quad[0][0], c.face)
                   for c in cards)
        assert all(ids.get(c.face, c.track_id) == c.track_id for c in cards)
    assert sorted(c.face for c in cards) == ["iris-chaff", "maple-deer"]


def test_a_card_that_comes_back_is_told_by_its_corners_smoothed_not_one_reading():
    # one reading's corners jitter by about the gate: 6% of the returns of cards that never moved
    # were refused, and a card's id went 1, 5, 1
    import random
    rnd = random.Random(4)
    jittered = lambda: Detection(card="maple-deer", face="maple-deer", confidence=0.95, uncertain=False,
                                 quad=tuple((x + rnd.uniform(-3, 3), y + rnd.uniform(-3, 3))
                                            for x, y in quad_at(100, 100)))
    refused = 0
    for _ in range(60):
        tracker = CardTracker(enter_frames=3, leave_frames=3)
        old = seen_for(tracker, [jittered()], frames=5)[0].track_id
        seen_for(tracker, [])
        for _ in range(3):
            back = tracker.update([jittered()])
        refused += back[0].track_id != old
    assert refused == 0


@pytest.mark.parametrize("misread", [1, 3, 4])
def test_a_knock_whose_blurred_frame_misreads_faces_still_keeps_every_card_its_id(misread):
    # told by faces alone, a knock whose frame misread a card was refused: each track took its
    # neighbour's card, and kept it once the picture was sharp again
    faces = ["pine-crane", "maple-deer", "iris-chaff", "cherry-curtain"]
    tracker = CardTracker()
    ids = {c.face: c.track_id for c in seen_for(tracker, [det(f, x=100 + 72 * k) for k, f in enumerate(faces)], 5)}
    blurred = [det("plum-chaff-1" if k < misread else f, x=160 + 72 * k) for k, f in enumerate(faces)]
    tracker.update(blurred)
    cards = seen_for(tracker, [det(f, x=160 + 72 * k) for k, f in enumerate(faces)], 6)
    assert {c.quad[0][0]: c.track_id for c in cards} == {160 + 72 * k: ids[f] for k, f in enumerate(faces)}


def test_a_face_down_card_hidden_and_its_neighbour_misread_as_two_cards_are_laid_is_no_knock():
    # staying put read no card right, and a move of one card along fitted the face-down card, which
    # fits any face: taken for a knock, the pine crane was shown sure where a cherry curtain lay
    tracker = CardTracker()
    ids = {c.face: c.track_id for c in seen_for(tracker, [det("pine-crane", x=170), det("back", x=310)], 5)}
    cards = tracker.update([det("cherry-curtain", x=100), det("cherry-curtain", x=170),
                            det("wisteria-cuckoo", x=240)])
    assert {(c.track_id, c.face, c.quad[0][0]) for c in cards} == \
        {(ids["pine-crane"], "pine-crane", 170), (ids["back"], "back", 310)}


def test_a_card_missed_and_its_neighbour_misread_as_one_is_laid_beside_them_is_no_knock():
    # no card read right anywhere, so the places alone were weighed: a move of one card along placed
    # both tracks, and each card was shown sure with its neighbour's face
    # (a pixel or two of jitter, as a camera gives: the move fitted several times tighter than staying
    # put did)
    tracker = CardTracker()
    first = [det("susuki-chaff", x=98.9, y=99.4), det("willow-ribbon", x=169.2, y=100.3)]
    ids = {c.face: c.track_id for c in seen_for(tracker, first, 5)}
    cards = tracker.update([det("willow-rainman", x=168.1, y=98.5), det("plum-poetry", x=238.9, y=99.4)])
    assert {(c.track_id, c.face, c.quad[0][0]) for c in cards} == \
        {(ids["susuki-chaff"], "susuki-chaff", 98.9), (ids["willow-ribbon"], "willow-ribbon", 168.1)}


def test_a_face_down_card_hidden_at_one_end_as_one_is_laid_at_the_other_keeps_the_ids():
    tracker = CardTracker()
    before = seen_for(tracker, [det("back", x=100 + 72 * k) for k in range(3)], 5)
    ids = {c.quad[0][0]: c.track_id for c in before}
    cards = seen_for(tracker, [det("back", x=174), det("back", x=244), det("back", x=316)], 4)  # (2 px of jitter)
    assert {round(c.quad[0][0] / 72): c.track_id for c in cards if c.quad[0][0] < 300} == \
        {round(x / 72): ids[x] for x in (172, 244)}


def test_a_card_slid_then_hidden_comes_back_as_itself():
    # its readings of before the slide were averaged with those after: the card coming back where it
    # lay after the slide was taken for another
    tracker = CardTracker()
    old = seen_for(tracker, [det("maple-deer", x=100)], 5)[0].track_id
    assert seen_for(tracker, [det("maple-deer", x=120)], 2)[0].track_id == old  # slid 20 px
    seen_for(tracker, [], 3)
    assert seen_for(tracker, [det("maple-deer", x=120)], 3)[0].track_id == old


def test_a_knock_of_about_a_cards_pitch_keeps_every_id():
    # each card then lies near its neighbour's place: counted as staying put whatever those cards
    # read, the places refused the knock, and every card took its neighbour's id
    import random
    faces = ["pine-crane", "maple-deer", "iris-chaff", "cherry-curtain", "plum-warbler", "susuki-moon"]
    rnd = random.Random(7)
    jitter = lambda: rnd.uniform(-2, 2)
    for _ in range(20):
        tracker = CardTracker()
        ids = {c.face: c.track_id for c in seen_for(tracker, [det(f, x=100 + 72 * k + jitter())
                                                              for k, f in enumerate(faces)], 5)}
        for _ in range(5):
            cards = tracker.update([det(f, x=170 + 72 * k + jitter()) for k, f in enumerate(faces)])
        assert {c.face: c.track_id for c in cards} == ids


@pytest.mark.parametrize("pitch", [72, 80])
def test_a_knock_of_about_a_cards_pitch_keeps_every_id_with_a_face_down_card_in_the_row(pitch):
    # a back fits any face: staying put left the back's track on a card and a card on the back's
    # place, two cards fitted by no face, as tightly as the knock fitted them all; the knock was
    # refused, and each card took its neighbour's place, then its id
    import random
    rnd = random.Random(11)
    row = ["pine-crane", "plum-warbler", "back", "cherry-curtain", "iris-bridge"]
    at = lambda k, shift: dict(x=100 + pitch * k + shift + rnd.uniform(-1.5, 1.5), y=300)
    for _ in range(20):
        tracker = CardTracker()
        ids = {c.face: c.track_id for c in seen_for(tracker, [det(f, **at(k, 0)) for k, f in enumerate(row)], 8)}
        for _ in range(8):
            cards = tracker.update([det(f, **at(k, pitch)) for k, f in enumerate(row)])
            assert {c.face: c.track_id for c in cards} == ids
            assert all(abs(c.quad[0][0] - 100 - pitch * row.index(c.face) - pitch) < 6 for c in cards)


@pytest.mark.parametrize("knock, missed", [((70, 40), "cherry-curtain"), ((80, 0), "plum-warbler"),
                                            ((80, 0), "back"), ((-150, 30), "pine-crane")])
def test_a_card_not_read_in_the_frame_the_camera_is_knocked_moves_with_the_table(knock, missed):
    # its track stayed where the card had been: the card came back as a new one (its correction
    # lost), was missing from its row a frame, and a knock of a card's pitch put its ghost on its
    # neighbour's place, whose card then took the missed card's id
    import random
    rnd = random.Random(3)
    row = ["pine-crane", "plum-warbler", "back", "cherry-curtain", "iris-bridge"]
    at = lambda k, shift: dict(x=100 + 80 * k + shift[0] + rnd.uniform(-1.5, 1.5), y=300 + shift[1])
    for _ in range(20):
        tracker = CardTracker()
        ids = {c.face: c.track_id for c in seen_for(tracker, [det(f, **at(k, (0, 0))) for k, f in enumerate(row)], 8)}
        seen = [tracker.update([det(f, **at(k, knock)) for k, f in enumerate(row) if f != missed])]
        seen += [tracker.update([det(f, **at(k, knock)) for k, f in enumerate(row)]) for _ in range(6)]
        for cards in seen:
            assert {c.face: c.track_id for c in cards} == ids
            # each card shown where it now lies (the one not read: where the knock put it)
            assert all(abs(c.quad[0][0] - 100 - 80 * row.index(c.face) - knock[0]) < 6 for c in cards)


def test_a_card_hidden_long_enough_to_leave_comes_back_as_itself_after_a_camera_knock():
    # its place was kept where it lay before the knock: back where the knock put it, it was a new
    # card, and the dealer's correction of it was lost
    row = ["pine-crane", "plum-warbler", "cherry-curtain", "iris-bridge"]
    tracker = CardTracker()
    ids = {c.face: c.track_id for c in seen_for(tracker, [det(f, x=100 + 80 * k) for k, f in enumerate(row)], 8)}
    hidden = [det(f, x=100 + 80 * k) for k, f in enumerate(row) if f != "cherry-curtain"]
    assert "cherry-curtain" not in faces(seen_for(tracker, hidden, 4))
    seen_for(tracker, [det(f, x=170 + 80 * k, y=140) for k, f in enumerate(row) if f != "cherry-curtain"], 2)
    back = seen_for(tracker, [det(f, x=170 + 80 * k, y=140) for k, f in enumerate(row)], 4)
    assert {c.face: c.track_id for c in back} == ids


def test_a_hand_sweeping_over_overlapping_look_alike_chaff_leaves_each_its_own_id():
    # B's track, hidden two frames, took A's reading 0.44 of a diagonal off (the same face): A was
    # shown sure under B's id, and B came back as a new card; each id (and correction) moved along
    tracker = CardTracker()
    a = lambda: det("pine-chaff", x=100, card="pine-chaff-1")
    b = lambda: det("pine-chaff", x=150, card="pine-chaff-2")
    ids = {c.quad[0][0]: c.track_id for c in seen_for(tracker, [a(), b()], 8)}
    for frame in [[b()], [], [], [a()], [a()], [a(), b()], [a(), b()], [a(), b()], [a(), b()]]:
        cards = tracker.update(frame)
        assert all(c.track_id == ids[c.quad[0][0]] for c in cards), [(c.track_id, c.quad[0][0]) for c in cards]
    assert {c.quad[0][0]: c.track_id for c in cards} == ids


def test_a_look_alike_picked_up_beside_a_card_read_twice_leaves_the_table():
    # the detector read A twice, 6 px apart: the double fed B's track (the same face, 0.3 to 0.5 of a
    # diagonal off), and B stayed on the table, sure, with its id and correction, after it was picked up
    tracker = CardTracker()
    a = lambda dx=0: det("pine-chaff", x=100 + dx, y=100 + (2 if dx else 0), card="pine-chaff-1")
    seen_for(tracker, [a(), det("pine-chaff", x=155, card="pine-chaff-2")], 6)
    for i in range(20):
        cards = tracker.update([a()] + ([a(6)] if i % 2 == 0 else []))
    assert [(c.track_id, c.quad[0][0]) for c in cards] == [(1, 100)]


def test_a_reading_with_no_place_is_no_card_and_hides_no_camera_knock():
    # a quad of NaN (a model gone wrong) compared false with every distance: in a knock's frame it
    # hid the knock, and each card of the row took its neighbour's id; with enter_frames 1 it was a card
    nan = float("nan")
    tracker = CardTracker()
    row = lambda shift: [det("pine-chaff", x=100 + 65 * k - shift, card="pine-chaff-1") for k in range(3)]
    ids = {c.quad[0][0]: c.track_id for c in seen_for(tracker, row(0), 5)}
    broken = Detection(card="maple-deer", face="maple-deer", quad=((nan, nan),) * 4, confidence=0.9)
    tracker.update(row(45) + [broken])
    assert {c.quad[0][0] + 45: c.track_id for c in seen_for(tracker, row(45), 5)} == ids
    assert CardTracker(enter_frames=1).update([broken]) == []
    # nor one absurdly far off the picture (drawn, every picture of the video failed while it lay)
    far = Detection(card="maple-deer", face="maple-deer", quad=((3e9, 10), (3e9 + 60, 10), (3e9 + 60, 100), (3e9, 100)),
                    confidence=0.9)
    assert CardTracker(enter_frames=1).update([far]) == []


def test_two_touching_cards_read_as_one_for_a_while_keep_their_ids_and_faces():
    # the crane's track took the merged quad; the two readings back, the warbler's listed first and
    # about as near, the crane's track took it: the warbler shown sure as the crane, the crane twice
    tracker = CardTracker()
    crane, warbler = lambda: det("pine-crane", x=100), lambda: det("plum-warbler", x=155)
    ids = {c.face: c.track_id for c in seen_for(tracker, [crane(), warbler()], 6)}
    merged = Detection(card="pine-crane", face="pine-crane", quad=quad_at(100, 100, 115, 97), confidence=0.95)
    seen_for(tracker, [merged], 3)
    for _ in range(5):
        cards = tracker.update([warbler(), crane()])
        assert all(c.track_id == ids[c.face] and c.quad[0][0] == {"pine-crane": 100, "plum-warbler": 155}[c.face]
                   for c in cards), [(c.track_id, c.face, c.quad[0][0]) for c in cards]
    assert {c.face: c.track_id for c in cards} == ids


def test_a_card_back_in_its_place_takes_back_its_id_though_first_misread():
    # a new track shows its first reading until another leads by two: the crane back where it lay,
    # read once as a deer, was compared as a deer, took a new id, and its correction was lost
    tracker = CardTracker()
    old = {c.face: c.track_id for c in seen_for(tracker, [det("pine-crane"), det("plum-warbler", x=200)], 8)}
    seen_for(tracker, [det("plum-warbler", x=200)], 4)  # the dealer's hand over the crane: it leaves
    tracker.update([det("maple-deer", x=101), det("plum-warbler", x=200)])
    back = seen_for(tracker, [det("pine-crane", x=101), det("plum-warbler", x=200)], 8)
    assert {c.face: c.track_id for c in back} == old


def test_a_card_laid_at_the_edge_of_one_hidden_a_moment_is_a_card_of_its_own():
    # B laid overlapping A's edge while the dealer's hand hid A for a frame took A's track: shown a
    # frame with A's face and sure, and A's correction, kept by its track id, went with it
    tracker = CardTracker()
    for _ in range(7):
        tracker.update([det("pine-crane", 100)])
    seen = [tracker.update([det("plum-warbler", 150)])]
    seen += [tracker.update([det("pine-crane", 100), det("plum-warbler", 150)]) for _ in range(8)]
    for cards in seen:
        assert [(c.track_id, c.face) for c in cards if c.quad[0][0] == 100] in ([(1, "pine-crane")], [])
        assert all(c.track_id != 1 for c in cards if c.quad[0][0] == 150)
    assert sorted(faces(seen[-1])) == ["pine-crane", "plum-warbler"]
    # a card read as another face where it lies (a misreading, a card turned over) is still that card
    tracker.update([det("pine-crane", 103), det("plum-bush", 150)])
    assert {c.track_id for c in tracker.update([det("pine-crane", 103), det("plum-warbler", 150)])} == {1, 2}


def test_a_back_laid_at_the_edge_of_one_hidden_a_moment_is_a_card_of_its_own():
    # two face-down cards look alike: B laid at A's edge while a hand hid A took A's track, and the
    # dealer's word on A (a correction kept by its track id) went to B
    tracker = CardTracker()
    for _ in range(7):
        tracker.update([det("back", 100)])
    seen = [tracker.update([det("back", 150)])]
    seen += [tracker.update([det("back", 100), det("back", 150)]) for _ in range(8)]
    for cards in seen:
        assert all(c.track_id != 1 for c in cards if c.quad[0][0] == 150)
    assert [c.track_id for c in seen[-1] if c.quad[0][0] == 100] == [1]


def test_a_face_down_card_slid_by_hand_keeps_its_track():
    # (moving, it may go further in a frame than a card laid at the edge of another lies off it)
    tracker = CardTracker()
    for _ in range(7):
        tracker.update([det("back", 100)])
    x = 100
    for step in (20, 40, 40, 40, 40):  # (0.18, then 0.35 of a diagonal a frame, then laid still)
        x += step
        assert [c.track_id for c in tracker.update([det("back", x)])] == [1]
    for _ in range(3):
        assert [c.track_id for c in tracker.update([det("back", x)])] == [1]


def test_a_card_slid_by_hand_and_misread_a_moment_keeps_its_track():
    # (a reading of another face counts as another card only further off than a hand slides a card
    # in a frame: it lost its track, and its correction, while slid and blurred)
    tracker = CardTracker()
    for _ in range(7):
        tracker.update([det("pine-poetry", 100)])
    for n in range(1, 7):
        face, card = ("pine-chaff", "pine-chaff-1") if n in (2, 3) else ("pine-poetry", None)
        cards = tracker.update([det(face, 100 + 25 * n, card=card)])
        assert [c.track_id for c in cards] == [1]
    assert cards[0].face == "pine-poetry"
