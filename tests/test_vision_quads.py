"""The mask geometry: training targets drawn from labels decode back to the labelled quads."""
import warnings

import cv2
import numpy as np
import pytest

from models.data import mask_targets
from models.labels import MASK_STRIDE, SHRINK
from vision.evaluate import quad_iou
from vision.geometry import quad_area
from vision.quads import (CARD_SHAPED, MapGeometry, QuadFinder, corners_of_lines, fit_quad, fit_quads, is_squat,
                          order_clockwise_portrait, pieces_by_quad, refit_sides, side_ratio, split_candidates)


def card_quad(cx, cy, angle_deg, h=200.0):
    w = h * 54 / 87
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = np.deg2rad(angle_deg)
    r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return pts @ r.T + [cx, cy]


def test_order_is_clockwise_and_starts_on_a_short_side():
    q = card_quad(300, 200, 100)
    for k in range(4):
        o = order_clockwise_portrait(np.roll(q, k, axis=0)[::-1])
        assert cv2.contourArea(o.astype(np.float32), oriented=True) > 0  # clockwise on screen (y down)
        assert np.linalg.norm(o[1] - o[0]) < np.linalg.norm(o[2] - o[1])


@pytest.mark.parametrize("angles", [(0, 0, 0), (15, -30, 90), (180, 45, 7)])
def test_targets_decode_to_the_labelled_quads_even_when_cards_touch(angles):
    # three cards side by side, the first two touching
    quads = [card_quad(200, 300, angles[0]), card_quad(200 + 124, 300, angles[1] * 0.1),
             card_quad(800, 350, angles[2])]
    labels = {"cards": [{"quad": q.tolist(), "visible": 1.0} for q in quads]}
    scale = 0.25  # a 1280x720 frame seen by the net at 320x180
    targets, _ = mask_targets(labels, scale, scale, 720 // 4 // MASK_STRIDE, 1280 // 4 // MASK_STRIDE)
    step = MASK_STRIDE / scale
    found = QuadFinder(shrink=SHRINK).find(targets[0], MapGeometry(step, step))
    assert len(found) == 3
    for q in quads:
        best = max(quad_iou(q, f) for f in found)
        assert best > 0.9


def test_hidden_cards_are_not_targets():
    labels = {"cards": [{"quad": card_quad(300, 300, 0).tolist(), "visible": 0.2}]}
    targets, weight = mask_targets(labels, 0.25, 0.25, 90, 160)
    assert targets[0].sum() == 0 and targets[1].sum() > 0
    assert weight.min() == 0  # neither rewarded nor penalised there


def _row_of_cards(n, angle_deg, h=120.0, landscape=False):
    """The quads of n cards touching side by side (portrait, or lying on their long sides), turned
    together, and the one quad around all of them (what a merged blob gives)."""
    w = h * 54 / 87
    if landscape:
        w, h = h, w
    a = np.deg2rad(angle_deg)
    r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    centre = np.array([600.0, 360.0])
    cards = [np.array([[x, 0], [x + w, 0], [x + w, h], [x, h]]) for x in np.arange(n) * w]
    row = np.array([[0, 0], [n * w, 0], [n * w, h], [0, h]])
    turn = lambda q: (q - [n * w / 2, h / 2]) @ r.T + centre  # noqa: E731
    return [turn(c) for c in cards], turn(row)


@pytest.mark.parametrize("n, angle, landscape", [(2, 0, False), (3, 30, False), (4, -70, False),
                                                 (2, 15, True), (3, 90, True)])
def test_a_row_of_touching_cards_seen_as_one_quad_is_cut_into_card_pieces(n, angle, landscape):
    cards, row = _row_of_cards(n, angle, landscape=landscape)
    pieces = split_candidates([row])
    for card in cards:
        best = max(quad_iou(p, card) for p in pieces)
        assert best > 0.98
    for p in pieces:  # clockwise, from a short side, as every quad
        assert cv2.contourArea(p.astype(np.float32), oriented=True) > 0
        assert np.linalg.norm(p[1] - p[0]) < np.linalg.norm(p[2] - p[1])


def test_a_card_shaped_quad_is_not_cut():
    assert split_candidates([card_quad(300, 200, 20), card_quad(600, 200, -75, h=180)]) == []
    assert split_candidates([card_quad(300, 200, 20)]) == []
    assert side_ratio(card_quad(300, 200, 33)) == pytest.approx(87 / 54)


def test_pieces_far_from_the_frames_card_size_are_left_out():
    cards, row = _row_of_cards(3, 10, h=120.0)
    # with two card-shaped quads of the same size in the frame, only the thirds are the right size
    others = [card_quad(100, 100, 0, h=120.0), card_quad(1000, 600, 45, h=120.0)]
    pieces = split_candidates([row] + others)
    assert pieces and all(0.75 <= np.sqrt(quad_area(p)) / np.sqrt(quad_area(cards[0])) <= 1.3 for p in pieces)
    assert len(pieces) == 3
    # where the frame's cards are much larger, the thirds are not cards; with no card-shaped quad to
    # compare with, every card-shaped piece is offered
    assert split_candidates([row] + [card_quad(100, 100, 0, h=200.0), card_quad(1000, 600, 45, h=200.0)]) == []
    assert len(split_candidates([row])) == 3


def test_a_card_shaped_quad_far_larger_than_the_frames_cards_is_cut():
    # two cards lying on their long sides, one above the other: the blob's quad came out 82 x 124,
    # about card-shaped, but 1.47 times the side of the frame's other cards
    cards = [card_quad(200, 200, 0, h=87.0), card_quad(900, 500, 30, h=87.0)]
    pair = np.array([[600.0, 300.0], [682.0, 300.0], [682.0, 424.0], [600.0, 424.0]])
    assert CARD_SHAPED[0] <= side_ratio(pair) <= CARD_SHAPED[1]
    halves = [np.array([[600.0, 300.0], [682.0, 300.0], [682.0, 362.0], [600.0, 362.0]]),
              np.array([[600.0, 362.0], [682.0, 362.0], [682.0, 424.0], [600.0, 424.0]])]
    pieces = split_candidates(cards + [pair])
    assert all(max(quad_iou(p, h) for p in pieces) > 0.99 for h in halves)
    # on its own (no other card to compare with) it is taken for one card
    assert split_candidates([pair]) == []


def test_a_quad_is_cut_into_at_most_six_pieces():
    cards, row = _row_of_cards(6, 0)
    sixths = pieces_by_quad([row], most=6)[0]
    assert all(max(quad_iou(p, c) for p in sixths) > 0.98 for c in cards)
    assert all(max(quad_iou(p, c) for p in pieces_by_quad([row])[0]) < 0.9 for c in cards)  # up to 4 by default
    with pytest.raises(ValueError, match="2 to 6 pieces, not 7"):
        pieces_by_quad([row], most=7)
    assert pieces_by_quad([card_quad(300, 200, 20), row])[0] == []  # one list per quad, in order


def _touching_pair_maps(angle, scale=0.35):
    """Two cards side by side, touching, turned together: their quads, the interior targets, the
    centre map, and the map step."""
    from models.data import centre_targets
    a = np.deg2rad(angle)
    quads = [card_quad(400, 300, angle), card_quad(*(np.array([400, 300]) + 124 * np.array([np.cos(a), np.sin(a)])), angle)]
    labels = {"cards": [{"quad": q.tolist(), "visible": 1.0} for q in quads]}
    targets, _ = mask_targets(labels, scale, scale, int(720 * scale) // MASK_STRIDE, int(1280 * scale) // MASK_STRIDE)
    centre = centre_targets(np.round(targets[0] * 255).astype(np.uint8))
    return quads, targets[0], centre, MASK_STRIDE / scale


@pytest.mark.parametrize("angle", [0, 90])
def test_a_centre_map_splits_touching_cards_whose_interiors_ran_together(angle):
    quads, interior, centre, step = _touching_pair_maps(angle)
    # what a net that cannot draw the thin gap gives: the two interiors as one blob, the gap between
    # them filled, no dip
    merged = cv2.morphologyEx(interior, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    finder = QuadFinder(shrink=SHRINK)
    assert len(finder.find(merged, MapGeometry(step, step))) == 1
    found = finder.find(merged, MapGeometry(step, step), centre)
    assert len(found) == 2
    # one on each card, split halfway between their middles; each holds half of the filled gap,
    # grown with it by 1/shrink, so a little wide (stage 2b snaps quads onto the card's outline)
    for q in quads:
        assert max(quad_iou(q, f) for f in found) > 0.75


def test_parts_that_are_not_card_shaped_are_not_taken():
    # one card whose centre map has two cores (its halves): halves of a card are not card-shaped,
    # so the blob is traced as it would be without the centre map
    from models.data import centre_targets
    card = card_quad(400, 300, 0)
    scale = 0.35
    targets, _ = mask_targets({"cards": [{"quad": card.tolist(), "visible": 1.0}]}, scale, scale, 126, 224)
    interior = targets[0]
    ys, _ = np.nonzero(interior > 0.5)
    middle = (ys.min() + ys.max()) // 2
    halves = np.zeros_like(interior)
    for rows in (slice(0, middle), slice(middle + 1, None)):
        part = np.zeros(interior.shape, np.uint8)
        part[rows] = interior[rows] > 0.5
        halves = np.maximum(halves, centre_targets(part * 255))
    finder = QuadFinder(shrink=SHRINK)
    assert len(finder._split(interior, interior > 0.5, halves)) == 2  # two cores: a split is offered
    step = MASK_STRIDE / scale
    without = finder.find(interior, MapGeometry(step, step))
    found = finder.find(interior, MapGeometry(step, step), halves)
    assert len(found) == 1 and np.allclose(found[0], without[0])
    assert quad_iou(found[0], card) > 0.9


def test_a_centre_map_of_another_shape_is_refused():
    finder = QuadFinder(shrink=SHRINK)
    with pytest.raises(ValueError, match=r"the centre map is \(10, 12\), the interior map \(10, 10\)"):
        finder.find(np.zeros((10, 10), np.float32), MapGeometry(2, 2), np.zeros((10, 12), np.float32))


@pytest.mark.parametrize("width, height, squat", [
    (100, 100, True), (150, 136, True), (100, 135, True),  # square, or nearly: a card at a steep slant
    (100, 145, False), (54, 87, False), (87, 54, False), (50, 150, False),  # a card's shape, or longer
])
def test_a_quad_is_squat_when_its_short_sides_are_in_doubt(width, height, squat):
    quad = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    assert is_squat(quad) is squat and is_squat(quad[::-1] + 200) is squat  # either winding, anywhere


def _refit_with_fitline(contour, quad):
    """The sides re-fitted one at a time with cv2.fitLine: what refit_sides must agree with."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    d = np.roll(quad, -1, axis=0) - quad
    length = np.hypot(d[:, 0], d[:, 1])
    u = d / length[:, None]
    n = np.stack([-u[:, 1], u[:, 0]], axis=1)
    along = (pts @ u.T - (quad * u).sum(axis=1)) / length
    across = np.abs(pts @ n.T - (quad * n).sum(axis=1))
    near = (along > 0.15) & (along < 0.85) & (across < np.maximum(1.5, 0.12 * length))
    if (near.sum(axis=0) < 3).any():
        return None
    lines = []
    for i in range(4):
        vx, vy, x0, y0 = cv2.fitLine(pts[near[:, i]].astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines.append(((x0, y0), (vx, vy)))
    return corners_of_lines(lines)


def _blob_outline(quad, shape=(400, 500), step=0.25):
    """The outline of a filled quad with rounded corners, on a grid of ``step`` pixels (as traced)."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(mask, np.int32(np.round(quad * 4)), 1, shift=2)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=cv2.contourArea).reshape(-1, 2) * step + 3.0


def test_sides_refitted_all_at_once_agree_with_fitline_one_at_a_time():
    rng = np.random.default_rng(2)
    outlines, guesses = [], []
    for k in range(12):
        truth = card_quad(250, 200, rng.uniform(0, 180), h=rng.uniform(60, 300))
        outline = _blob_outline(truth)
        outlines.append(outline)
        guesses.append(cv2.boxPoints(cv2.minAreaRect(outline.astype(np.float32))).astype(np.float64))
    # and one whose guess has a side too short to re-fit, one with too few points near a side, and
    # one with no sides at all (given back as it is, without a division by zero)
    outlines += [outlines[0], outlines[1][:40], outlines[2]]
    guesses += [np.array([[0, 0], [1, 0], [1, 5], [0, 5]], float), guesses[1], np.zeros((4, 2))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        refitted, ok = refit_sides(outlines, guesses)
    assert ok.tolist() == [True] * 12 + [False, False, False]
    for outline, guess, quad, fitted in zip(outlines, guesses, refitted, ok):
        expected = _refit_with_fitline(outline, guess) if fitted else guess
        assert np.allclose(quad, expected, atol=1e-6)
    # fit_quads of several outlines is fit_quad of each
    together = fit_quads(outlines[:12])
    assert all(np.array_equal(t, fit_quad(o)) for t, o in zip(together, outlines[:12]))
    assert refit_sides([], [])[1].size == 0


def test_blobs_with_several_cores_are_told_apart_for_the_whole_map_at_once():
    # blobs of the interior map with zero, one, two and three cores, touching diagonally or not:
    # _several_cores must flag exactly the blobs whose own _split finds several parts
    rng = np.random.default_rng(4)
    interior = np.zeros((60, 90), np.float32)
    centre = np.zeros_like(interior)
    for k, (cores, x) in enumerate([(0, 3), (1, 18), (2, 33), (3, 52), (2, 72)]):
        interior[5:50, x:x + 12] = 0.8
        for c in range(cores):
            y = 8 + c * 14
            interior[y:y + 3, x + 3:x + 6] = 0.95
            centre[y:y + 3, x + 3:x + 6] = 0.7
    interior[50, 15] = 0.8  # a diagonal neighbour of the first blob: 4-connected, a blob of its own
    interior[52:56, 60:62] = 0.6 + 0.1 * rng.random((4, 2))
    finder = QuadFinder(shrink=SHRINK)
    binary = (interior > finder.threshold).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=4)
    by_centre = finder._several_cores(centre > finder.centre_core, binary, labels, n)
    by_interior = finder._several_cores(interior > finder.core_threshold, binary, labels, n)
    for i in range(1, n):
        blob = labels == i
        assert by_centre[i] == (len(finder._split(interior, blob, centre)) > 1)
        assert by_interior[i] == (len(finder._split(interior, blob)) > 1)
    assert by_centre.sum() == 3 and not by_centre[0]


@pytest.mark.parametrize("angle", [0, 35, 90])
@pytest.mark.parametrize("overlap", [0.3, 0.6])
def test_cards_overlapping_in_a_row_get_a_piece_laid_from_each_end(angle, overlap):
    # two cards end to end, the second lying over the first by ``overlap`` of its length: one blob
    # 2 - overlap cards long, whose even cuts fit neither card
    h = 87.0
    step = (1 - overlap) * h
    a = np.deg2rad(angle)
    along = np.array([-np.sin(a), np.cos(a)])  # a card's long axis at this angle (card_quad's)
    first = card_quad(500, 300, angle, h=h)
    second = first + step * along
    blob = np.array([first[0], first[1], second[2], second[3]])
    others = [card_quad(150, 150, 10, h=h), card_quad(1000, 550, -20, h=h)]
    even = pieces_by_quad(others + [blob])[2]
    assert max((quad_iou(p, c) for p in even for c in (first, second)), default=0) < 0.9
    from_ends = pieces_by_quad(others + [blob], from_ends=True)[2]
    assert len(from_ends) > len(even) and all(np.array_equal(p, q) for p, q in zip(from_ends, even))
    for card in (first, second):
        best = max(from_ends, key=lambda p: quad_iou(p, card))
        assert quad_iou(best, card) > 0.98
        assert np.allclose(best, order_clockwise_portrait(card))  # corners as every quad's


def test_pieces_from_the_ends_only_of_the_frames_card_size_and_only_where_something_is_left():
    h = 87.0
    others = [card_quad(150, 150, 0, h=h), card_quad(1000, 550, 0, h=h)]
    w = h * 54 / 87
    # two cards side by side, the second over the first by a quarter of its width: the kept sides
    # are the cards' long ones, cut to a card's width from either end
    pair = np.array([[500.0, 300.0], [500 + 1.75 * w, 300.0], [500 + 1.75 * w, 300 + h], [500.0, 300 + h]])
    pieces = pieces_by_quad(others + [pair], from_ends=True)[2]
    left = np.array([[500.0, 300.0], [500 + w, 300.0], [500 + w, 300 + h], [500.0, 300 + h]])
    right = left + [0.75 * w, 0]
    assert max(quad_iou(p, left) for p in pieces) > 0.98 and max(quad_iou(p, right) for p in pieces) > 0.98
    # laid from the ends, every piece is of the frame's card size (0.75 to 1.3 of the median side)
    sides = [np.sqrt(cv2.contourArea(p.astype(np.float32))) for p in pieces]
    median = np.sqrt(w * h)
    assert all(0.75 * median <= s <= 1.3 * median for s in sides)
    # with no other card to give the size, nothing is laid from the ends
    alone, alone_even = pieces_by_quad([pair], from_ends=True)[0], pieces_by_quad([pair])[0]
    assert len(alone) == len(alone_even) and all(np.array_equal(p, q) for p, q in zip(alone, alone_even))
    # a quad taken for one card gets no pieces at all
    assert pieces_by_quad(others + [card_quad(600, 300, 0, h=h)], from_ends=True)[2] == []


def test_only_the_quads_asked_for_are_cut_but_all_count_for_the_median():
    # the pair is cut only because the other cards are smaller; asked not to cut those cards (or
    # anything), the median still comes from all of them
    cards = [card_quad(200, 200, 0, h=87.0), card_quad(900, 500, 30, h=87.0)]
    pair = np.array([[600.0, 300.0], [682.0, 300.0], [682.0, 424.0], [600.0, 424.0]])
    everything = pieces_by_quad(cards + [pair])
    assert [len(p) for p in everything[:2]] == [0, 0] and len(everything[2]) >= 2
    asked = pieces_by_quad(cards + [pair], cut=[False, False, True])
    assert all(np.array_equal(a, b) for a, b in zip(asked[2], everything[2])) and len(asked[2]) == len(everything[2])
    assert pieces_by_quad(cards + [pair], cut=[True, True, False]) == [[], [], []]
    with pytest.raises(ValueError, match="of the 3 quads to cut, but has 2"):
        pieces_by_quad(cards + [pair], cut=[True, False])


def _top_half(quad):
    """The half of a card quad (corners from its top-left, clockwise) above its middle."""
    q = np.asarray(quad, np.float64)
    return np.array([q[0], q[1], (q[1] + q[2]) / 2, (q[0] + q[3]) / 2])


def test_a_part_of_a_card_is_extended_to_the_whole_card():
    from vision.quads import extensions_by_quad
    cards = [card_quad(200, 200, 10), card_quad(900, 450, -30)]
    hidden = card_quad(550, 300, 25)
    half = _top_half(hidden)
    extensions = extensions_by_quad(cards + [half])
    assert extensions[:2] == [[], []]  # whole cards of the frame's size are not extended
    assert 2 <= len(extensions[2]) <= 4
    assert max(quad_iou(e, hidden) for e in extensions[2]) > 0.97
    # the other way along the same sides: onto the table, for the crop net to call no card
    assert min(quad_iou(e, hidden) for e in extensions[2]) < 0.4
    assert extensions_by_quad(cards + [half], extend=[True, True, False]) == [[], [], []]
    with pytest.raises(ValueError, match="of the 3 quads to extend, but has 1"):
        extensions_by_quad(cards + [half], extend=[True])


def test_nothing_is_extended_without_a_card_size_to_go_by():
    from vision.quads import extensions_by_quad
    hidden = card_quad(550, 300, 25)
    assert extensions_by_quad([card_quad(200, 200, 10), _top_half(hidden)]) == [[], []]
    # nor a speck far smaller than the cards
    cards = [card_quad(200, 200, 10), card_quad(900, 450, -30)]
    speck = _top_half(card_quad(550, 300, 25, h=40.0))
    assert extensions_by_quad(cards + [speck])[2] == []
