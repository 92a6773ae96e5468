"""Training batches made by worker processes (models.train, ``--crop-workers``, ``--mask-workers``): a
GPU steps through a batch far faster than one process cuts and changes it. Needs torch."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch


class ShardBatches(torch.utils.data.IterableDataset):
    """Batches from the shards ``<prefix>-*.npz`` of the training seeds in ``folder`` (the validation
    seed 999's left out; shards a renderer writes later are picked up), until ``deadline`` (a
    time.time()), ``shards_at_once`` read together so that a batch mixes scenes. Each worker draws
    its own shards and order; ``make`` turns the arrays ``keys`` and a batch's indices into tensors."""

    prefix = ""
    keys: tuple[str, ...] = ()
    shards_at_once = 4

    def __init__(self, folder: Path, batch: int, deadline: float, seed: int):
        self.folder, self.batch, self.deadline, self.seed = Path(folder), batch, deadline, seed

    def _training_shards(self) -> list[Path]:
        return sorted(p for p in self.folder.glob(f"{self.prefix}-*.npz")
                      if not p.name.endswith(".tmp.npz") and "-999-" not in p.name)

    def make(self, rng: np.random.Generator, arrays: list[np.ndarray], idx: np.ndarray):
        raise NotImplementedError

    def __iter__(self):
        import cv2
        cv2.setNumThreads(1)
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info is not None else 0])
        while time.time() < self.deadline:
            shards = self._training_shards()
            if not shards:
                time.sleep(1)
                continue
            picked = rng.choice(len(shards), size=min(self.shards_at_once, len(shards)), replace=False)
            loaded = [np.load(shards[i]) for i in picked]
            arrays = [np.concatenate([d[k] for d in loaded]) for k in self.keys]
            order = rng.permutation(len(arrays[0]))
            for i in range(0, len(order) - self.batch + 1, self.batch):
                if time.time() >= self.deadline:
                    return
                yield self.make(rng, arrays, order[i:i + self.batch])
            if len(order) < self.batch:  # too few samples yet for one batch: wait for more shards
                time.sleep(1)


class ShardCropBatches(ShardBatches):
    """models.data.crop_batch (crops, faces, orientations) from the crop shards."""

    prefix, keys = "crops", ("x", "y", "o")
    shards_at_once = 6  # (the detector's crops mixed with the others)

    def __init__(self, folder: Path, batch: int, style_shift: float, deadline: float, seed: int):
        super().__init__(folder, batch, deadline, seed)
        self.style_shift = style_shift

    def make(self, rng, arrays, idx):
        from models.data import crop_batch
        from models.train import _stored_label
        x, y, o = arrays
        return crop_batch(rng, x[idx], [_stored_label(y[j], o[j]) for j in idx], self.style_shift)


class ShardMaskBatches(ShardBatches):
    """models.data.mask_window_batch (patches as uint8, targets, weights) from the scene shards."""

    prefix, keys = "scenes", ("x", "t", "w")

    def __init__(self, folder: Path, batch: int, patch: tuple[int, int], centres: bool, deadline: float,
                 seed: int):
        super().__init__(folder, batch, deadline, seed)
        self.patch, self.centres = patch, centres

    def make(self, rng, arrays, idx):
        from models.data import mask_window_batch
        x, t, w = arrays
        return tuple(torch.from_numpy(a) for a in mask_window_batch(rng, x, t, w, idx, self.patch, self.centres))


def batches_from_workers(dataset: ShardBatches, workers: int, start: float, minutes: float, pin: bool = False):
    """``dataset``'s batches made by ``workers`` processes, each with the fraction of the time budget
    spent, until the budget is spent."""
    deadline = start + minutes * 60
    # spawned, not forked: OpenCV's threads in a forked copy of a process that has used them can hang
    loader = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=workers, pin_memory=pin,
                                         prefetch_factor=4, multiprocessing_context="spawn")
    for batch in loader:
        now = time.time()
        # past the budget the batches still in flight are let through unused: the workers stop on
        # their own at the deadline, and a loader dropped while they run aborts them noisily
        if now < deadline:
            yield (*batch, min(1.0, (now - start) / (minutes * 60)))
