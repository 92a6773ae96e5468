"""The training loops' batches: shuffled, whole batches from the training shards only, none after the
time budget (no torch needed)."""
import time

import numpy as np

from models.train import _training_batches


def test_batches_come_from_training_shards_and_stop_at_the_budget(tmp_path):
    for seed, n in ((1, 10), (2, 7), (999, 10)):  # seed 999 is the validation shard
        np.savez(tmp_path / f"crops-{seed:03d}-0.npz", x=np.full(n, seed), y=np.arange(n))
    rng = np.random.default_rng(0)
    start = time.time()
    batches = []
    for (x, y), idx, frac in _training_batches(rng, tmp_path, "crops", ("x", "y"), 3, start, 0.02):
        assert len(idx) == 3 and 0.0 <= frac <= 1.0
        batches.append(set(x[idx].tolist()))
        time.sleep(0.01)
    assert batches and all(b <= {1, 2} for b in batches)   # never the validation shard
    assert time.time() - start < 0.02 * 60 + 1.0           # stops at the budget


def test_no_batches_when_the_budget_is_spent(tmp_path):
    np.savez(tmp_path / "crops-001-0.npz", x=np.zeros(8), y=np.zeros(8))
    assert list(_training_batches(np.random.default_rng(0), tmp_path, "crops", ("x", "y"), 4,
                                  time.time() - 120, 1.0)) == []


def _hue(bgr) -> int:
    import cv2
    return int(cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0, 0])


def test_art_style_shift_changes_the_colours_a_little_and_keeps_a_red_red():
    import cv2
    from models.data import STYLE_HUE_SHIFT, art_style_shift
    crop = np.zeros((96, 64, 3), np.uint8)
    crop[:, :32] = (40, 30, 200)   # a red ribbon
    crop[:, 32:] = (190, 80, 20)   # a blue one
    rng = np.random.default_rng(4)
    shifted = [art_style_shift(rng, crop) for _ in range(40)]
    assert all(s.shape == crop.shape and s.dtype == np.uint8 for s in shifted)
    assert sum(not np.array_equal(s, crop) for s in shifted) >= 38
    red, blue = _hue(crop[0, 0]), _hue(crop[0, 40])
    for s in shifted:
        # OpenCV hue is 0..179 around the circle; a few units of rounding on top of the turn
        assert min(abs(_hue(s[0, 0]) - red), 180 - abs(_hue(s[0, 0]) - red)) <= STYLE_HUE_SHIFT + 3
        assert abs(_hue(s[0, 40]) - blue) <= STYLE_HUE_SHIFT + 3
    turned = {_hue(s[0, 40]) for s in shifted}
    assert len(turned) > 5  # the hue really turns


def test_crop_batches_without_the_style_shift_are_as_before():
    from models.data import crop_batch
    crops = np.random.default_rng(0).integers(0, 255, (6, 96, 64, 3), dtype=np.uint8)
    labels = ["pine-crane", "none", "back", "maple-deer", "iris-chaff", "none"]
    a = crop_batch(np.random.default_rng(1), crops, labels)
    b = crop_batch(np.random.default_rng(1), crops, labels, style_shift=0.0)
    c = crop_batch(np.random.default_rng(1), crops, labels, style_shift=1.0)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert a[0].shape == c[0].shape == (6, 3, 96, 64)
    assert not np.array_equal(a[0], c[0])
