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
