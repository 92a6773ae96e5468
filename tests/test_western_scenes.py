"""Synthetic scenes of western cards: the labels say where each card is and which way up it lies."""
import numpy as np
import pytest

from datasets.scenes import SceneConfig, SceneError, clean_config, scene_rng
from datasets.western_deck import render_western_card
from datasets.western_scenes import (WesternPlacement, class_index, load_western_art, render_western_layout,
                                     render_western_scene, western_classes)
from vision.geometry import warp_card


def _similarity(a, b):
    a = a.astype(np.float32).ravel() - a.mean()
    b = b.astype(np.float32).ravel() - b.mean()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))


@pytest.mark.parametrize("angle", [0.0, 180.0, 90.0])
def test_the_labelled_quad_starts_at_the_cards_own_top_left(angle):
    art = load_western_art("demo", height=200)
    image, labels = render_western_layout(np.random.default_rng(3), art, [WesternPlacement("7H", 0, 0, angle)],
                                          clean_config(size=(640, 480)))
    (card,) = labels["cards"]
    assert card["card"] == "7H" and card["face"] == "7H" and card["visible"] > 0.95
    crop = warp_card(image, card["quad"])
    upright = warp_card(render_western_card("7H", 200), [[0, 0], [143, 0], [143, 199], [0, 199]])
    assert _similarity(crop, upright) > 0.8
    assert _similarity(crop, upright) > _similarity(crop[::-1, ::-1], upright) + 0.1


def test_random_scenes_are_seeded_and_label_backs_and_distractors():
    art = load_western_art("demo", height=200)
    config = SceneConfig(size=(640, 360), min_cards=6, max_cards=6, face_down=0.5)
    a = render_western_scene(scene_rng(1, 0), art, config, hanafuda_distractors=1.0)
    b = render_western_scene(scene_rng(1, 0), art, config, hanafuda_distractors=1.0)
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]
    faces = [c["face"] for c in a[1]["cards"]]
    assert len(faces) == 6 and len(set(faces) - {"back"}) == sum(f != "back" for f in faces)
    assert all(c["card"] is None for c in a[1]["cards"] if c["face"] == "back")
    assert all(d["kind"] == "hanafuda-card" for d in a[1]["distractors"] if "card" in d["kind"])


def test_classes_and_bad_input():
    assert len(western_classes()) == 54 and class_index("AS") == 0 and western_classes()[-2:] == ("back", "none")
    art = load_western_art("demo", height=120)
    with pytest.raises(SceneError, match="twice"):
        render_western_layout(np.random.default_rng(0), art, [WesternPlacement("AS", 0, 0), WesternPlacement("AS", 90, 0)])
    with pytest.raises(SceneError, match="at least one"):
        render_western_layout(np.random.default_rng(0), art, [])
    with pytest.raises(SceneError, match="western art set"):
        load_western_art("kabufuda")
    with pytest.raises(SceneError, match="art must be"):
        render_western_scene(np.random.default_rng(0), {"AS": None})


def test_the_shared_western_art_loads_with_the_demo_back(shared):
    art = load_western_art("shared", shared, height=176)
    assert len(art) == 53 and art["QH"].shape == (176, 126, 3)
