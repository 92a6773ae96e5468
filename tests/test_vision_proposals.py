"""Edge proposals: card-shaped quads found in the frame itself, and how they join the mask quads."""
import cv2
import numpy as np
import pytest

from datasets.deck import render_card
from vision.detector import CardDetector
from vision.evaluate import quad_iou
from vision.proposals import QuadProposer, combine_quads, snap_to_edges
from vision_frames import place, table

CARDS = ["pine-crane", "cherry-curtain", "susuki-moon", "maple-deer", "willow-rainman", "paulownia-chaff-1"]


def patterned_table(h=720, w=1280, seed=1, stripe=(90, 100, 170)):
    """A printed tablecloth: diagonal stripes and dots in several colours (edges everywhere)."""
    rng = np.random.default_rng(seed)
    frame = table(h, w, colour=(120, 60, 150), seed=seed)
    for x in range(-300, w, 46):
        cv2.line(frame, (x, 0), (x + 300, h), stripe, 5)
    for _ in range(40):
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        cv2.circle(frame, (int(rng.integers(0, w)), int(rng.integers(0, h))), int(rng.integers(8, 40)), c, -1)
    return frame


def scene(frame):
    """Six demo-deck cards in two rows, turned a little, some upside down; their quads."""
    quads = []
    for k, card_id in enumerate(CARDS):
        centre = (220 + (k % 3) * 380, 190 + (k // 3) * 340)
        angle = (-14, 6, 180 + 10, 25, -5, 180 - 20)[k]
        quads.append(place(frame, render_card(card_id, 435), centre, 250, angle))
    return frame, quads


def found(proposals, quad, iou=0.85):
    return any(quad_iou(p, quad) >= iou for p in proposals)


@pytest.mark.parametrize("frame", [table(), table(colour=(225, 228, 232))], ids=["green cloth", "white table"])
def test_proposals_find_every_card_of_a_demo_deck_scene_on_a_plain_table(frame):
    frame, quads = scene(frame)
    proposals = QuadProposer().propose(frame)
    assert [found(proposals, q) for q in quads] == [True] * len(quads)


@pytest.mark.parametrize("stripe", [(90, 100, 170), (30, 150, 200)], ids=["soft", "loud"])
def test_proposals_on_a_printed_cloth(stripe):
    # where the print's stripes run into a card's outline, the thin outline joins them and its shape
    # is lost: a known limit (measured: 2 of these 6 cards are proposed; the dilated edges found 4
    # but cost twice the time). The mask net's quad is then the one used: the detector test below
    # finds all six
    at_least = 2
    frame, quads = scene(patterned_table(stripe=stripe))
    proposals = QuadProposer().propose(frame)
    assert sum(found(proposals, q) for q in quads) >= at_least
    assert len(proposals) <= 3 * len(quads)  # the stripes and dots themselves are not proposed


def test_a_rectangle_of_the_wrong_shape_is_not_proposed():
    frame = table(colour=(40, 90, 30))
    # a white square and a long thin box: no card has those proportions, even seen at an angle
    cv2.rectangle(frame, (200, 200), (400, 400), (235, 235, 235), -1)
    cv2.rectangle(frame, (600, 300), (1100, 420), (200, 200, 210), -1)
    assert QuadProposer().propose(frame) == []
    # while a card-shaped one is
    cv2.rectangle(frame, (700, 500), (762, 600), (235, 235, 235), -1)
    assert len(QuadProposer().propose(frame)) == 1


def test_a_mask_quad_a_little_off_snaps_onto_the_card():
    frame, quads = scene(table())
    proposer = QuadProposer()
    edges = proposer.edge_map(frame)
    truth = quads[0]
    centre = truth.mean(axis=0)
    off = centre + (truth - centre) * 0.96 + [6, -5]  # too small and shifted, as a grown blob can be
    snapped = snap_to_edges(off, edges)
    assert quad_iou(snapped, truth) > quad_iou(off, truth) + 0.05
    assert quad_iou(snapped, truth) > 0.9


def test_combining_keeps_one_quad_per_card():
    frame, quads = scene(table())
    proposer = QuadProposer()
    edges = proposer.edge_map(frame)
    proposals = proposer.propose(frame, edges)
    centre = quads[1].mean(axis=0)
    mask = [quads[0] + 3.0, centre + (quads[1] - centre) * 0.9]  # two of the cards, a bit off
    combined = combine_quads(mask, proposals, edges, new_cards=True)
    assert len(combined) == len(quads)
    for q in quads:
        assert sum(quad_iou(c, q) >= 0.5 for c in combined) == 1
    # the mask quads put right on the cards' outlines
    assert max(quad_iou(c, quads[0]) for c in combined) > 0.93


def test_by_default_only_the_cards_the_mask_found_are_kept():
    frame, quads = scene(table())
    proposer = QuadProposer()
    edges = proposer.edge_map(frame)
    proposals = proposer.propose(frame, edges)
    centre = quads[1].mean(axis=0)
    mask = [quads[0] + 3.0, centre + (quads[1] - centre) * 0.9]
    combined = combine_quads(mask, proposals, edges)
    assert len(combined) == 2
    for c, q in zip(sorted(combined, key=lambda c: c[:, 0].min()), sorted(quads[:2], key=lambda q: q[:, 0].min())):
        assert quad_iou(c, q) > 0.93  # each replaced by the better-fitting quad on its outline


@pytest.fixture(scope="module")
def detector():
    return CardDetector()


# On the printed cloth the shipped models miss the crane (its red sky was redrawn after they were
# trained; measured: 5 of 6 found): that cloth asks for each card at most once and no wrong name
@pytest.mark.parametrize("frame,at_least", [(table(), 6), (patterned_table(), 5)],
                         ids=["green cloth", "printed cloth"])
def test_the_detector_reports_each_card_once(detector, frame, at_least):
    frame, quads = scene(frame)
    detections, ms = detector.detect_timed(frame)
    assert "proposals" in ms and ms["total"] >= ms["proposals"]
    for i, a in enumerate(detections):
        for b in detections[i + 1:]:
            assert quad_iou(a.quad, b.quad) < 0.3, (a.face, b.face)
    names = [d.face for d in detections]
    from dealer.cards import get_card
    true_faces = [get_card(c).face for c in CARDS]
    assert len(names) == len(set(names)) and set(names) <= set(true_faces)
    assert len(names) >= at_least


def test_boxes_touching_all_at_once_agrees_with_one_pair_at_a_time():
    from vision.proposals import _boxes_apart, _touching
    rng = np.random.default_rng(0)
    a = rng.integers(0, 60, (40, 4))
    b = rng.integers(0, 60, (15, 4))
    expected = np.array([[not _boxes_apart(x, y) for y in b] for x in a])
    assert (_touching(a, b) == expected).all()
    assert expected.any() and not expected.all()  # both kinds of pair are in the sample


def test_edges_found_only_around_the_given_quads_match_the_whole_frames_there():
    frame, quads = scene(patterned_table())
    proposer = QuadProposer()
    whole = proposer.edge_map(frame)
    near = proposer.edge_map(frame, near=quads[:2])
    s = proposer.scale
    inside = np.zeros(whole.thin.shape, bool)
    for q in quads[:2]:
        x0, y0 = np.floor(q.min(axis=0) / s).astype(int)
        x1, y1 = np.ceil(q.max(axis=0) / s).astype(int)
        inside[y0:y1, x0:x1] = True  # the cards themselves: well inside their regions
    assert near.thin[inside].any()
    # the same edges on and around the two cards (Canny's hysteresis may differ only at a region's border)
    same = (near.thin[inside] == whole.thin[inside]).mean()
    assert same > 0.995
    # and none far from them: the other four cards' edges are not looked for
    for q in quads[2:]:
        c = (q.mean(axis=0) / s).astype(int)
        assert whole.thin[c[1] - 20:c[1] + 20, c[0] - 20:c[0] + 20].any()
        assert not near.thin[c[1] - 20:c[1] + 20, c[0] - 20:c[0] + 20].any()
    # the snapping and the proposals work the same on it
    truth = quads[0]
    centre = truth.mean(axis=0)
    off = centre + (truth - centre) * 0.96 + [6, -5]
    assert quad_iou(snap_to_edges(off, near), truth) > 0.9
    assert found(proposer.propose(frame, near, near=quads[:2]), quads[1])


def test_the_edges_are_the_same_from_a_half_frame_made_once_and_a_wrong_size_one_is_not_used():
    from vision.detector import half_frame
    frame, quads = scene(patterned_table())
    proposer = QuadProposer()
    own = proposer.edge_map(frame, near=quads)
    shared = proposer.edge_map(frame, near=quads, half=half_frame(frame))
    assert own.thin.any() and np.array_equal(own.edges, shared.edges) and np.array_equal(own.thin, shared.thin)
    # a picture of another size is not the frame's half: the proposer halves the frame itself
    wrong = proposer.edge_map(frame, near=quads, half=np.zeros((100, 100, 3), np.uint8))
    assert np.array_equal(own.edges, wrong.edges)


def test_edges_near_no_quad_are_none():
    frame, _ = scene(table())
    assert not QuadProposer().edge_map(frame, near=[]).thin.any()


def test_overlapping_regions_are_merged_until_none_overlaps():
    from vision.proposals import _merged_boxes
    rng = np.random.default_rng(3)
    lo = rng.integers(0, 300, (30, 2))
    boxes = np.concatenate([lo, lo + rng.integers(5, 60, (30, 2))], axis=1)
    merged = _merged_boxes(boxes)
    for i, a in enumerate(merged):
        for b in merged[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    # every box lies whole in one merged box; boxes that only touch stay apart
    for x0, y0, x1, y1 in boxes:
        assert any(m[0] <= x0 and m[1] <= y0 and x1 <= m[2] and y1 <= m[3] for m in merged)
    assert len(merged) < len(boxes)
    assert _merged_boxes(np.array([[0, 0, 10, 10], [10, 0, 20, 10]])) == [(0, 0, 10, 10), (10, 0, 20, 10)]


def test_supports_score_each_quad_on_its_own():
    frame, quads = scene(table())
    edges = QuadProposer().edge_map(frame)
    off = [q + 40.0 for q in quads]  # beside the cards: few of their points on an edge
    together = edges.supports(quads + off)
    alone = np.concatenate([edges.supports([q]) for q in quads + off])
    assert np.array_equal(together, alone)
    assert (together[:len(quads)] > 0.8).all() and (together[len(quads):] < together[:len(quads)]).all()
    assert edges.supports([]).shape == (0,)


def test_snapping_quads_all_at_once_agrees_with_one_at_a_time():
    # quads of different sizes (different reaches and histogram widths), some a little off, one far
    # from any edge, one too small to snap: the batch must not let one quad's points or bins leak
    # into another's
    from vision.proposals import snap_all_to_edges
    frame, quads = scene(patterned_table())
    edges = QuadProposer().edge_map(frame)
    rng = np.random.default_rng(5)
    given = []
    for q in quads:
        centre = q.mean(axis=0)
        given.append(centre + (q - centre) * rng.uniform(0.9, 1.05) + rng.uniform(-8, 8, 2))
    given += [quads[0] * 0.5 + 20.0, quads[1] + 300.0, quads[2][:, ::-1] * 0 + [[5, 5], [9, 5], [9, 9], [5, 9]]]
    together = snap_all_to_edges(given, edges)
    alone = [snap_all_to_edges([q], edges)[0] for q in given]
    assert len(together) == len(given)
    for t, a in zip(together, alone):
        assert np.allclose(t, a, atol=1e-9)
    # and it did snap: the cards' quads moved onto their outlines
    assert sum(quad_iou(t, q) > quad_iou(g, q) for t, g, q in zip(together, given, quads)) >= 4
    assert snap_all_to_edges([], edges) == []


def test_the_boxes_of_all_outlines_at_once_are_opencvs():
    from vision.proposals import _contour_boxes
    rng = np.random.default_rng(3)
    speckles = cv2.dilate(((rng.random((120, 160)) > 0.97) * 255).astype(np.uint8), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(speckles, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    assert len(contours) > 50
    lengths = np.array([len(c) for c in contours])
    assert np.array_equal(_contour_boxes(contours, lengths), np.array([cv2.boundingRect(c) for c in contours]))
    assert _contour_boxes((), np.zeros(0, np.int64)).shape == (0, 4)
