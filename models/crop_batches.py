"""The crop net's training batches made by worker processes (models.train, ``--crop-workers``): a GPU
steps through a batch far faster than one process cuts and changes it. Needs torch."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

# shards read together, so that one batch mixes scenes (and the detector's crops with the others)
SHARDS_AT_ONCE = 6


class ShardCropBatches(torch.utils.data.IterableDataset):
    """Batches of models.data.crop_batch (crops, faces, orientations) from the crop shards of the
    training seeds in ``folder`` (the validation seed 999's left out; shards a renderer writes later
    are picked up), until ``deadline`` (a time.time()). Each worker draws its own shards and order."""

    def __init__(self, folder: Path, batch: int, style_shift: float, deadline: float, seed: int):
        self.folder, self.batch, self.style_shift = Path(folder), batch, style_shift
        self.deadline, self.seed = deadline, seed

    def _training_shards(self) -> list[Path]:
        return sorted(p for p in self.folder.glob("crops-*.npz")
                      if not p.name.endswith(".tmp.npz") and "-999-" not in p.name)

    def __iter__(self):
        import cv2

        from models.data import crop_batch
        from models.train import _stored_label
        cv2.setNumThreads(1)
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info is not None else 0])
        while time.time() < self.deadline:
            shards = self._training_shards()
            if not shards:
                time.sleep(1)
                continue
            picked = rng.choice(len(shards), size=min(SHARDS_AT_ONCE, len(shards)), replace=False)
            loaded = [np.load(shards[i]) for i in picked]
            x, y, o = (np.concatenate([d[k] for d in loaded]) for k in ("x", "y", "o"))
            order = rng.permutation(len(x))
            for i in range(0, len(order) - self.batch + 1, self.batch):
                if time.time() >= self.deadline:
                    return
                idx = order[i:i + self.batch]
                yield crop_batch(rng, x[idx], [_stored_label(y[j], o[j]) for j in idx], self.style_shift)
            if len(order) < self.batch:  # too few crops yet for one batch: wait for more shards
                time.sleep(1)
