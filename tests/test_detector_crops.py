"""The crop net's second kind of training data: the quads the detector itself finds, labelled by
matching them to the scene's cards (no torch needed)."""
import numpy as np

from datasets.art import load_art
from datasets.scenes import clean_config, render_scene
from models.data import crop_label, label_candidate
from models.labels import CLASS_INDEX, CLASSES, NONE
from vision.detector import CardDetector
from vision.evaluate import quad_iou
from vision.geometry import rotate_quad

CARD = [[100.0, 100.0], [154.0, 100.0], [154.0, 187.0], [100.0, 187.0]]  # 54 x 87, upright


def _labels(*cards):
    return {"cards": [dict(face=f, card=f"{f}-id", quad=q, visible=v) for f, q, v in cards]}


def _shifted(quad, dx):
    return (np.asarray(quad) + [dx, 0.0]).tolist()


def test_a_quad_on_a_card_is_taught_as_that_card_the_right_way_up():
    labels = _labels(("pine-crane", CARD, 1.0))
    label = label_candidate(CARD, labels)
    assert label["face"] == "pine-crane" and crop_label(label) == (CLASS_INDEX["pine-crane"], 0)


def test_a_quad_that_starts_at_the_cards_bottom_right_is_taught_upside_down():
    labels = _labels(("pine-crane", CARD, 1.0))
    assert crop_label(label_candidate(rotate_quad(np.array(CARD), 2), labels)) == (CLASS_INDEX["pine-crane"], 1)


def test_a_slightly_off_quad_still_counts_as_the_card():
    labels = _labels(("maple-deer", CARD, 1.0))
    off = _shifted(CARD, 12)  # a fifth of the card's width: IoU about 0.64
    assert 0.5 <= quad_iou(off, CARD) < 0.8
    assert label_candidate(off, labels)["face"] == "maple-deer"


def test_a_quad_far_from_every_card_is_not_a_card():
    labels = _labels(("maple-deer", CARD, 1.0))
    assert crop_label(label_candidate(_shifted(CARD, 300), labels)) == (CLASS_INDEX[NONE], 0)
    assert crop_label(label_candidate(CARD, {"cards": []})) == (CLASS_INDEX[NONE], 0)


def test_half_a_card_is_not_a_card_and_a_near_match_is_left_out():
    labels = _labels(("maple-deer", CARD, 1.0))
    half = _shifted(CARD, 34)  # IoU about 0.23
    near = _shifted(CARD, 22)  # IoU about 0.42: between the two answers, not taught either way
    assert quad_iou(half, CARD) < 0.4 <= quad_iou(near, CARD) < 0.5
    assert label_candidate(half, labels)["face"] == NONE
    assert label_candidate(near, labels) is None


def test_a_mostly_hidden_card_is_left_out():
    # the evaluation neither counts nor penalises what is found of a card hidden more than half
    labels = _labels(("maple-deer", CARD, 0.3))
    assert label_candidate(CARD, labels) is None


def test_the_top_card_of_a_pile_names_the_quad_though_a_hidden_card_fits_it_better():
    under = (np.asarray(CARD) + [2.0, 1.0]).tolist()
    labels = _labels(("maple-deer", CARD, 1.0), ("pine-crane", under, 0.05))
    assert label_candidate(under, labels)["face"] == "maple-deer"


def test_the_best_matching_card_names_the_quad():
    other = _shifted(CARD, 40)
    labels = _labels(("maple-deer", CARD, 1.0), ("pine-crane", other, 1.0))
    assert label_candidate(_shifted(CARD, 30), labels)["face"] == "pine-crane"


def test_candidate_quads_are_the_quads_the_detector_classifies():
    rng = np.random.default_rng(3)
    image, labels = render_scene(rng, load_art("demo", height=200), clean_config(min_cards=4, max_cards=4))
    detector = CardDetector()
    quads = detector.candidate_quads(image)
    detections = detector.detect(image)
    assert len(quads) >= len(detections) >= 3
    # every detection is one of the candidates (turned by two corners when upside down)
    for d in detections:
        assert max(quad_iou(d.quad, q) for q in quads) > 0.999
    # and each labelled card has a candidate that matches it and is taught as that card
    for c in labels["cards"]:
        taught = [label_candidate(q, labels) for q in quads if quad_iou(q, c["quad"]) >= 0.5]
        assert any(t is not None and t["face"] == c["face"] for t in taught), c["face"]


def test_detector_crop_shards_hold_labelled_crops_of_the_detectors_quads(tmp_path, shared):
    from models.train import write_detector_crops
    from vision.detector import MODELS_DIR
    write_detector_crops(tmp_path, seed=7, shards=1, per_shard=3, models=MODELS_DIR, shared=shared)
    d = np.load(tmp_path / "crops" / "crops-7-det0000.npz")
    assert d["x"].shape[1:] == (96, 64, 3) and d["x"].dtype == np.uint8
    assert len(d["x"]) == len(d["y"]) == len(d["o"]) > 0
    assert set(d["y"].tolist()) <= set(range(len(CLASSES))) and set(d["o"].tolist()) <= {0, 1}
    assert (d["y"] != CLASS_INDEX[NONE]).any()  # cards were found and taught as faces


def test_a_shard_with_no_candidate_quads_is_not_written(tmp_path, shared, monkeypatch):
    from models.train import write_detector_crops
    from vision.detector import MODELS_DIR
    monkeypatch.setattr(CardDetector, "candidate_quads", lambda self, frame: [])
    write_detector_crops(tmp_path, seed=7, shards=1, per_shard=1, models=MODELS_DIR, shared=shared)
    assert list((tmp_path / "crops").glob("*.npz")) == []
