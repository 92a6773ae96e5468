"""The western training code runs end to end on a tiny shard (seconds; skipped without torch)."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")

from datasets.western_scenes import western_classes  # noqa: E402
from models.train_western import calibrate, make_crops, train  # noqa: E402
from vision.western import WesternCardDetector  # noqa: E402


def test_the_training_loop_runs_on_a_tiny_shard_exports_and_calibrates(tmp_path):
    data = make_crops(seed=11, scenes=2)
    assert data["x"].shape[1:] == (96, 64, 3) and len(data["y"]) == len(data["x"]) == len(data["o"])
    assert set(np.unique(data["y"])) <= set(range(len(western_classes())))
    assert (data["y"] == western_classes().index("none")).any()  # made-up and proposed non-cards
    train(data, minutes=0.03, out=tmp_path, threads=1, batch=8)
    faces, turns = ort.InferenceSession(str(tmp_path / "westernface.onnx")).run(
        None, {"crops": data["x"][:3].transpose(0, 3, 1, 2).astype(np.float32)})
    assert faces.shape == (3, 54) and turns.shape == (3, 2)
    settings = calibrate(data, tmp_path, val_scenes=1)
    assert settings["classes"] == list(western_classes()) and 0.3 <= settings["threshold"] <= 0.99999
    assert json.loads((tmp_path / "western.json").read_text())["temperature"] == settings["temperature"]
    WesternCardDetector(tmp_path, threads=1).detect(np.full((120, 160, 3), 90, np.uint8))
