"""The quad net (vision.detector QuadStage, models/cardquad.onnx): a card's quad re-fitted from the
crop around it, and the cards in doubt read again from it (CardDetector._nudged)."""
import json
import shutil

import numpy as np
import pytest

from datasets.deck import render_card
from vision.detector import MODELS_DIR, CardDetector, ModelMissingError, QuadStage, VisionSettings, _session
from vision.evaluate import quad_iou
from vision.geometry import CONTEXT_GROW, CROP_HEIGHT, CROP_WIDTH, context_corners, context_warp, nudged_quads
from vision.quads import order_clockwise_portrait
from vision_frames import CARDS_WITH_QUADS_OFF, card_with_quad_off, place, read_on_quads, table

CARD = np.array([[300.0, 200.0], [354.0, 210.0], [340.0, 296.0], [286.0, 286.0]])  # a card turned a little


class _Corners:
    """A quad-net session that answers the same corners for every crop."""

    def __init__(self, corners):
        self.corners = np.asarray(corners, np.float32).reshape(1, 8)
        self.batches = []

    def run(self, _outputs, feeds):
        self.batches.append(feeds["crops"].shape)
        return [np.repeat(self.corners, len(feeds["crops"]), axis=0)]


def test_the_crop_around_a_quad_shows_it_grown_by_the_context_share():
    frame = table()
    crop, m = context_warp(frame, CARD)
    assert crop.shape == (CROP_HEIGHT, CROP_WIDTH, 3)
    import cv2
    inside = cv2.perspectiveTransform(np.float32(CARD).reshape(-1, 1, 2), m).reshape(4, 2)
    assert np.allclose(inside / [CROP_WIDTH, CROP_HEIGHT], context_corners(), atol=1e-4)


def test_a_quad_the_net_leaves_where_it_is_comes_back_as_it_was():
    session = _Corners(context_corners())
    back = QuadStage(session).run(table(), [CARD, CARD + [400, 100]])
    assert session.batches == [(2, 3, CROP_HEIGHT, CROP_WIDTH)]  # one batch for all
    assert np.allclose(back[0], order_clockwise_portrait(CARD), atol=1e-3)
    assert np.allclose(back[1], order_clockwise_portrait(CARD + [400, 100]), atol=1e-3)


def test_corners_the_net_moves_are_taken_back_to_frame_pixels():
    # the crop's own corners are the quad grown by CONTEXT_GROW about its centre
    whole_crop = np.array([[0, 0], [CROP_WIDTH - 1, 0], [CROP_WIDTH - 1, CROP_HEIGHT - 1], [0, CROP_HEIGHT - 1]],
                          np.float64) / [CROP_WIDTH, CROP_HEIGHT]
    [back] = QuadStage(_Corners(whole_crop)).run(table(), [CARD])
    centre = CARD.mean(axis=0)
    assert np.allclose(back, order_clockwise_portrait(centre + (CARD - centre) * CONTEXT_GROW), atol=1e-3)


def test_no_quads_no_run():
    session = _Corners(context_corners())
    assert QuadStage(session).run(table(), []) == [] and session.batches == []


OFF = [(0, 1.2, 0, 0), (0, 0.85, 0, 0), (0, 1, 0.1, 0), (10, 1, 0, 0)]  # (turn, scale, across, down)


@pytest.mark.parametrize("card", ["pine-crane", "susuki-chaff-1", "paulownia-chaff-1", "willow-lightning"])
@pytest.mark.parametrize("off", OFF)
def test_the_shipped_quad_net_brings_a_quad_that_is_off_onto_the_card(card, off):
    frame = table()
    quad = place(frame, render_card(card, 435), (640, 360), 230, 5)
    found_off = nudged_quads([quad], [off])[0, 0]
    [refitted] = QuadStage(_session(MODELS_DIR / "cardquad.onnx", 1)).run(frame, [found_off])
    assert quad_iou(refitted, quad) > max(0.9, quad_iou(found_off, quad))


@pytest.mark.parametrize("card, off", CARDS_WITH_QUADS_OFF)
def test_a_card_in_doubt_is_read_surely_from_its_refitted_quad(monkeypatch, card, off):
    # the shipped nets on a demo card whose quad came out turned by 12 degrees or 20% too large: in
    # doubt on that quad, sure on the quad the quad net re-fits, which lies on the card
    frame, quad, found_off = card_with_quad_off(card, off)
    [before] = read_on_quads(monkeypatch, frame, [found_off], nudge=False, refine=False)
    [after] = read_on_quads(monkeypatch, frame, [found_off], nudge=False, refine=True)
    assert before.face == after.face == card
    assert before.uncertain and not after.uncertain
    assert quad_iou(after.quad, quad) > 0.9 > quad_iou(found_off, quad)


def _models_without_the_quad_net(tmp_path, refine_unsure=True, refit_quads=True):
    for name in ("cardmask.onnx", "cardface.onnx"):
        shutil.copy(MODELS_DIR / name, tmp_path / name)
    raw = json.loads((MODELS_DIR / "vision.json").read_text(encoding="utf-8"))
    raw["refine_unsure"], raw["refit_quads"] = refine_unsure, refit_quads
    (tmp_path / "vision.json").write_text(json.dumps(raw), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("refine_unsure, refit_quads", [(True, True), (True, False), (False, True)])
def test_settings_that_ask_for_the_quad_net_need_its_file(tmp_path, refine_unsure, refit_quads):
    with pytest.raises(ModelMissingError, match="cardquad.onnx.*python -m models.train_quad"):
        CardDetector(_models_without_the_quad_net(tmp_path, refine_unsure, refit_quads))


def test_settings_that_do_not_ask_for_it_run_without_it(tmp_path):
    detector = CardDetector(_models_without_the_quad_net(tmp_path, refine_unsure=False, refit_quads=False))
    assert detector.refiner is None
    assert detector.detect(table()) == []


def test_settings_written_before_the_quad_net_do_not_refine_and_do_propose(tmp_path):
    raw = json.loads((MODELS_DIR / "vision.json").read_text(encoding="utf-8"))
    for key in ("refine_unsure", "refit_quads", "edge_proposals"):
        raw.pop(key, None)
    (tmp_path / "vision.json").write_text(json.dumps(raw), encoding="utf-8")
    settings = VisionSettings.load(tmp_path / "vision.json")
    assert not settings.refine_unsure and not settings.refit_quads and settings.edge_proposals


# ---------------------------------------------------------------- every quad re-fitted before it is read

class _Finds:
    """A quad finder that finds the given quads in any map."""

    def __init__(self, quads):
        self.quads = quads

    def find(self, *_maps):
        return [np.asarray(q, np.float64) for q in self.quads]


def test_a_refitted_quad_is_taken_where_it_stays_near_its_own_and_not_where_it_moved_away():
    detector = CardDetector()
    # the net's answer for both: the card's corners a little inside the crop's own quad
    near = context_corners()
    centre = near.mean(axis=0)
    detector.refiner = QuadStage(_Corners(centre + (near - centre) * 0.95))
    kept, moved = detector._refitted(table(), [CARD, CARD])
    assert quad_iou(kept, CARD) == pytest.approx(0.95 ** 2, abs=0.01) and not np.allclose(kept, CARD)
    # ...and an answer on half the quad: the quad is read as it was
    detector.refiner = QuadStage(_Corners(centre + (near - centre) * [1.0, 0.5]))
    [as_it_was] = detector._refitted(table(), [CARD])
    assert as_it_was is CARD


@pytest.mark.parametrize("card, off, in_doubt_as_found", [
    ("pine-crane", (12, 1, 0, 0), True), ("pine-crane", (0, 1, 0, 0.08), True),
    ("cherry-curtain", (0, 1.15, 0, 0), True), ("wisteria-cuckoo", (0, 1, 0, 0.08), True),
    ("iris-bridge", (0, 0.88, 0, 0), False)])
def test_a_card_found_in_a_quad_that_is_off_is_read_at_once_from_its_refitted_quad(card, off, in_doubt_as_found):
    # the mask net's quad (here given) turned by 12 degrees, 15% too large or small, or shifted: read
    # on the quad the quad net re-fits before the first reading, which lies on the card, and surely,
    # with no second look (four of them are in doubt on the quad as found)
    frame, quad, found_off = card_with_quad_off(card, off)
    readings = {}
    for refit in (False, True):
        detector = CardDetector(split_merged=False, zoom=False, extend_parts=False, nudge=False, refine=False,
                                refit=refit)
        detector.finder = _Finds([found_off])
        [readings[refit]] = detector.detect(frame)
    before, after = readings[False], readings[True]
    assert before.face == after.face == card
    assert before.uncertain == in_doubt_as_found and not after.uncertain
    assert after.confidence >= before.confidence
    assert quad_iou(after.quad, quad) > 0.9 > quad_iou(found_off, quad)


def test_the_shipped_settings_re_fit_every_quad_without_the_edge_proposals():
    settings = VisionSettings.load(MODELS_DIR / "vision.json")
    assert settings.refit_quads and not settings.edge_proposals
    detector = CardDetector()
    assert detector.refit and detector.proposer is None
    # either can be switched for a comparison
    assert CardDetector(proposals=True, refit=False).proposer is not None


# ---------------------------------------------------------------- its training samples (no torch)

def test_a_training_sample_on_the_cards_own_quad_asks_for_no_move():
    from models.train_quad import quad_sample
    frame = table()
    quad = place(frame, render_card("maple-deer", 435), (640, 360), 230, 20)
    for start in (0, 2):  # the detector's quad may start at the card's other end
        crop, target = quad_sample(frame, np.roll(quad, -start, axis=0), quad)
        assert crop.shape == (CROP_HEIGHT, CROP_WIDTH, 3)
        assert np.allclose(target, context_corners(), atol=1e-3)


def test_a_training_sample_on_a_quad_that_is_off_asks_for_the_cards_corners():
    import cv2
    from models.train_quad import quad_sample
    frame = table()
    quad = place(frame, render_card("maple-deer", 435), (640, 360), 230, 20)
    off = nudged_quads([quad], [(6, 1.15, 0.05, 0)])[0, 0]
    _, target = quad_sample(frame, off, quad)
    _, m = context_warp(frame, off)
    back = cv2.perspectiveTransform(np.float32(target * [CROP_WIDTH, CROP_HEIGHT]).reshape(-1, 1, 2),
                                    np.linalg.inv(m)).reshape(4, 2)
    assert np.allclose(back, quad, atol=1e-2)


def test_perturbed_quads_are_off_the_card_but_on_it():
    from models.train_quad import perturbed_quad
    rng = np.random.default_rng(3)
    ious = [quad_iou(perturbed_quad(rng, CARD), CARD) for _ in range(200)]
    assert 0.6 < float(np.median(ious)) < 0.95
    assert min(ious) > 0.2
    again = np.random.default_rng(3)
    assert np.allclose(perturbed_quad(again, CARD), perturbed_quad(np.random.default_rng(3), CARD))


class _SureCrops:
    """A crop stage that reads every crop as ``maple-deer`` with full confidence."""

    def run(self, crops, turned=True):
        from vision.detector import CropClassification
        return [CropClassification("maple-deer", 0.9999, False, 1.0) for _ in crops]


@pytest.mark.parametrize("moved_to, taken", [("onto the other card", False), ("a little", True)])
def test_a_second_quad_that_moved_onto_another_card_found_is_not_taken(monkeypatch, moved_to, taken):
    from vision.types import Detection, quad_from_array
    other = CARD + [60, 0]
    in_doubt = Detection("maple-deer", "maple-deer", quad_from_array(CARD), 0.9, True)
    sure = Detection("cherry-curtain", "cherry-curtain", quad_from_array(other), 0.9999, False)
    second = other + [3, 0] if moved_to == "onto the other card" else CARD + [3, 2]
    detector = CardDetector(nudge=False, refine=True)
    detector.crops = _SureCrops()
    monkeypatch.setattr(detector, "_second_quads", lambda frame, quads: np.array([[second]], np.float64))
    out = detector._nudged(table(), [in_doubt, sure], set())
    assert out[1] is sure
    assert (out[0] is in_doubt) != taken
    if taken:
        assert not out[0].uncertain and np.allclose(out[0].quad, order_clockwise_portrait(second))


def test_the_shipped_settings_read_cards_in_doubt_from_re_fitted_quads():
    assert VisionSettings.load(MODELS_DIR / "vision.json").refine_unsure
    assert CardDetector().refiner is not None
