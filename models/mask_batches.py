"""The mask net's training batches made by worker processes (models.train, ``--mask-workers``): on a
GPU one process reading the scene shards and drawing the centre maps keeps it waiting. Needs torch."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

# shards read together, so that one batch mixes scenes of several renderers
SHARDS_AT_ONCE = 4


class ShardMaskBatches(torch.utils.data.IterableDataset):
    """Batches of models.data.mask_window_batch (patches as uint8, targets, weights) from the scene
    shards of the training seeds in ``folder`` (the validation seed 999's left out; shards a renderer
    writes later are picked up), until ``deadline`` (a time.time()). Each worker draws its own shards
    and order."""

    def __init__(self, folder: Path, batch: int, patch: tuple[int, int], centres: bool, deadline: float,
                 seed: int):
        self.folder, self.batch, self.patch, self.centres = Path(folder), batch, patch, centres
        self.deadline, self.seed = deadline, seed

    def _training_shards(self) -> list[Path]:
        return sorted(p for p in self.folder.glob("scenes-*.npz")
                      if not p.name.endswith(".tmp.npz") and "-999-" not in p.name)

    def __iter__(self):
        import cv2

        from models.data import mask_window_batch
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
            x, t, w = (np.concatenate([d[k] for d in loaded]) for k in ("x", "t", "w"))
            order = rng.permutation(len(x))
            for i in range(0, len(order) - self.batch + 1, self.batch):
                if time.time() >= self.deadline:
                    return
                xb, tb, wb = mask_window_batch(rng, x, t, w, order[i:i + self.batch], self.patch, self.centres)
                yield torch.from_numpy(xb), torch.from_numpy(tb), torch.from_numpy(wb)
            if len(order) < self.batch:  # too few patches yet for one batch: wait for more shards
                time.sleep(1)
