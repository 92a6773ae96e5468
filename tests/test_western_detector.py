"""WesternCardDetector on frames of the demo western deck (models/westernface.onnx as committed)."""
import json

import cv2
import numpy as np
import pytest

from datasets.scenes import SceneConfig, _surface_texture
from datasets.western_scenes import WesternPlacement, load_western_art, render_western_layout
from vision.detector import ModelMissingError
from vision.evaluate import cards_from_scene_labels, score_frame
from vision.western import WesternCardDetector

EIGHT = ["AS", "7H", "QD", "10C", "KH", "2S", "JC", "9D"]


@pytest.fixture(scope="module")
def detector():
    return WesternCardDetector(threads=1)


def kakeya_table(seed: int, angles=(0, 180, 0, 0, 180, 0, 0, 180)):
    """Eight cards in two rows of four, as Kakeya deals them, seen by a tilted webcam."""
    placements = [WesternPlacement(card, (i % 4 - 1.5) * 75.0, (0.5 - i // 4) * 105.0, angle + 4.0 * (i % 3 - 1))
                  for i, (card, angle) in enumerate(zip(EIGHT, angles))]
    config = SceneConfig(size=(1280, 720), conditions=frozenset({"perspective", "light", "shadow", "noise", "jpeg"}),
                         always=frozenset({"perspective", "noise", "jpeg"}), tilt_max_deg=30.0, jpeg_quality=(70, 90))
    return render_western_layout(np.random.default_rng(seed), load_western_art("demo"), placements, config)


@pytest.mark.parametrize("seed", [1, 2])
def test_eight_demo_cards_are_all_found_and_named(detector, seed):
    image, labels = kakeya_table(seed)
    detections = detector.detect(image)
    tally = score_frame(detections, cards_from_scene_labels(labels))
    said = {c.truth: c.said for c in tally.cards}
    assert said == {card: card for card in EIGHT}, said
    assert not tally.false_alarms
    assert all(c.orientation_right for c in tally.cards if c.truth in ("AS", "7H"))  # their two ends differ
    for d in detections:
        assert d.card == d.face and 0.0 <= d.confidence <= 1.0


def test_a_face_down_card_is_a_back(detector):
    placements = [WesternPlacement("AS", -40, 0), WesternPlacement("KD", 40, 0, face_up=False)]
    image, _ = render_western_layout(np.random.default_rng(4), load_western_art("demo"), placements,
                                     SceneConfig(size=(960, 540), conditions=frozenset({"perspective"})))
    found = sorted((d.face, d.card) for d in detector.detect(image))
    assert found == [("AS", "AS"), ("back", None)]


@pytest.mark.parametrize("kind", ["felt", "wood", "cloth"])
def test_a_blank_table_gives_no_cards(detector, kind):
    table = cv2.resize(np.ascontiguousarray(_surface_texture(kind, 1)), (1280, 720))
    assert detector.detect(table) == []
    assert detector.detect(np.full((720, 1280, 3), 128, np.uint8)) == []


def test_bad_frames_get_a_clear_error(detector):
    with pytest.raises(ValueError, match="empty"):
        detector.detect(np.zeros((0, 0, 3), np.uint8))
    with pytest.raises(ValueError, match="empty"):
        detector.detect(None)
    with pytest.raises(ValueError, match="8-bit"):
        detector.detect(np.zeros((10, 10, 3), np.float32))
    with pytest.raises(ValueError, match="BGR"):
        detector.detect(np.zeros((10, 10, 5), np.uint8))
    assert detector.detect(np.zeros((48, 64), np.uint8)) == []  # grey is fine


def test_missing_or_broken_model_files_are_named(tmp_path):
    with pytest.raises(ModelMissingError, match="western.json"):
        WesternCardDetector(tmp_path)
    (tmp_path / "western.json").write_text("{not json")
    with pytest.raises(ModelMissingError, match="unreadable"):
        WesternCardDetector(tmp_path)
    (tmp_path / "western.json").write_text(json.dumps({"classes": ["AS", "back", "none"], "temperature": 1.0,
                                                        "threshold": 0.9}))
    with pytest.raises(ModelMissingError, match="westernface.onnx"):
        WesternCardDetector(tmp_path)


def test_bench_western_prints_json(capsys):
    from hanadealer.cli import main
    assert main(["bench-western", "--splits", "western-demo-clean", "--scenes", "2", "--frames", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    split = report["splits"]["western-demo-clean"]
    assert split["scenes"] == 2 and split["cards"] > 0 and 0 <= split["face_accuracy"] <= 1
    speed = report["speed"]["8_cards"]
    assert speed["frames"] == 2 and speed["total"]["median_ms"] > 0 and speed["total"]["p95_ms"] >= speed["total"]["median_ms"]
    from vision.bench import cpu_model
    assert report["machine"]["cpu_model"] == cpu_model()  # what the times were taken on


def test_bench_western_refuses_bad_arguments(capsys, tmp_path):
    from hanadealer.cli import main
    with pytest.raises(SystemExit) as stop:
        main(["bench-western", "--frames", "0"])
    assert stop.value.code == 2 and "argument --frames: 0 is out of range" in capsys.readouterr().err
    assert main(["bench-western", "--models", str(tmp_path)]) == 2
    assert "western.json" in capsys.readouterr().err


def test_bench_western_names_a_missing_shared_folder_and_skips_the_shared_split_without_one(capsys, monkeypatch,
                                                                                          detector, tmp_path):
    from hanadealer.cli import main
    from vision.bench_western import run_benchmark
    assert main(["bench-western", "--shared", str(tmp_path / "nowhere")]) == 2
    assert "no shared data folder" in capsys.readouterr().err
    monkeypatch.setattr("datasets.shared.shared_dir", lambda override=None: None)
    report = run_benchmark(detector, scenes=1, splits=["western-shared"], speed=False)
    assert "not present" in report["splits"]["western-shared"]["skipped"]


def test_bench_western_says_how_many_cards_its_timed_frames_really_hold(capsys):
    # with many cards asked for, the rows run off the picture: the cards asked were reported as held
    from hanadealer.cli import main
    from vision.bench_western import timing_frames
    _, held = timing_frames(48, 2)
    assert held < 48
    assert main(["bench-western", "--no-accuracy", "--cards", "48", "--frames", "2"]) == 0
    speed = json.loads(capsys.readouterr().out)["speed"]["48_cards"]
    assert speed["cards_per_frame"] == round(held, 2)
