"""Train the quad net: ``python -m models.train_quad`` (needs the ``train`` extra).

The quad net (models.nets.QuadNet, exported to models/cardquad.onnx) re-fits a card's quad: given
the crop around a quad (vision.geometry.context_warp: the quad grown by CONTEXT_GROW, warped
upright), it says where the card's four corners lie. The detector re-fits every quad of the mask
net with it before the first reading (vision.detector, stage ``refit``), and the cards still in doubt
once the other stages have read them once more (stage 3c): most cards in doubt in full view had a
quad a little off the card, and read their true quad with confidence.

Steps (``--step``, default ``all``):
  data   for each seed of ``--seeds``, render ``--scenes`` training scenes (models.train's scene mix,
         every art set training uses) and cut samples: every quad the detector reports without
         re-fitting (``--quads proposals``: with the edge proposals, as when the quad net was first
         trained; ``--quads mask``: the mask net's own, the quads the refit stage is given now) that
         lies on a card (IoU >= 0.4 with a card at least half in view), and two copies of each card
         at least 0.6 in view with its quad moved off the way the detector's are (scaled along either
         side, one side far off in three of ten, shifted, turned, corners jittered). The target is
         the card's labelled corners in the crop. Cached in var/quad/.
  train  train a QuadNet for ``--minutes`` (smooth L1 on the corners as shares of the crop; crops
         mirrored and turned round at random, with the corners to match; brightness and colour
         changed), print the corner error on held-back samples, export models/cardquad.onnx.
         ``--init`` trains on from an exported quad net (its batch norms kept frozen: models.weights).
Seeds stay below datasets.splits.EVAL_SEED_BASE and off the validation seeds.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from hanadealer.args import SEED, number, whole, writable_dir

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "var" / "quad"
MODELS = ROOT / "models"
SEEDS = (201, 202)
# the share of a quad's own width and height a card's quad is moved by, and so on (perturbed_quad)
SCALE_SPREAD = 0.12
FAR_OFF_SHARE = 0.3
SHIFT_SPREAD = 0.06
TURN_SPREAD_DEGREES = 5.0
CORNER_SPREAD = 0.025


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def perturbed_quad(rng: np.random.Generator, truth) -> np.ndarray:
    """The card's quad moved off as the detector's are: scaled along each side (log-normal, or one side
    0.6 to 1.6 times in FAR_OFF_SHARE of cases: a quad on a neighbour, or on part of the card),
    shifted, turned about its centre and each corner jittered."""
    from vision.quads import order_clockwise_portrait
    q = order_clockwise_portrait(np.asarray(truth, np.float64).reshape(4, 2))
    centre = q.mean(axis=0)
    u, v = q[1] - q[0], q[3] - q[0]
    eu, ev = u / np.linalg.norm(u), v / np.linalg.norm(v)
    rel = q - centre
    across, down = rel @ eu, rel @ ev
    far_off = rng.random() < FAR_OFF_SHARE
    scale_across, scale_down = np.exp(rng.normal(0, SCALE_SPREAD)), np.exp(rng.normal(0, SCALE_SPREAD))
    if far_off:
        if rng.random() < 0.5:
            scale_across = rng.uniform(0.6, 1.6)
        else:
            scale_down = rng.uniform(0.6, 1.6)
    shift = rng.normal(0, SHIFT_SPREAD, 2) * np.array([np.linalg.norm(u), np.linalg.norm(v)])
    p = centre + np.outer(across * scale_across, eu) + np.outer(down * scale_down, ev) + shift[0] * eu + shift[1] * ev
    turn = np.deg2rad(np.clip(rng.normal(0, TURN_SPREAD_DEGREES), -15, 15))
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    middle = p.mean(axis=0)
    p = middle + (p - middle) @ rotation.T
    p = p + rng.normal(0, CORNER_SPREAD, (4, 2)) * np.linalg.norm(u)
    return order_clockwise_portrait(p)


def quad_sample(image: np.ndarray, quad, truth) -> tuple[np.ndarray, np.ndarray]:
    """The crop around ``quad`` and the labelled corners ``truth`` in it, as shares of its width and
    height, in the order of the quad's own corners (of the card's four turns, the one nearest them)."""
    import cv2
    from vision.geometry import CROP_HEIGHT, CROP_WIDTH, context_warp
    crop, m = context_warp(image, quad)
    t = cv2.perspectiveTransform(np.float32(truth).reshape(-1, 1, 2), m).reshape(4, 2)
    q = cv2.perspectiveTransform(np.float32(quad).reshape(-1, 1, 2), m).reshape(4, 2)
    turn = min(range(4), key=lambda r: float(np.linalg.norm(np.roll(t, -r, axis=0) - q, axis=1).sum()))
    return crop, (np.roll(t, -turn, axis=0) / np.array([CROP_WIDTH, CROP_HEIGHT], np.float32)).astype(np.float32)


# which detector's quads the data step cuts: ``proposals`` the mask net's with the edge proposals, not
# re-fitted (as the detector was when the first quad net was trained); ``mask`` the mask net's own,
# the quads the refit stage is given now (vision.json edge_proposals false)
QUAD_SOURCES = ("proposals", "mask")


def make_samples(seed: int, scenes: int, shared=None, quads: str = "proposals") -> dict[str, np.ndarray]:
    from datasets.scenes import render_scene
    from datasets.splits import check_training_seed
    from models.train import load_training_art, random_scene_config
    from vision.detector import CardDetector
    from vision.evaluate import quad_iou
    rng = np.random.default_rng(check_training_seed(seed))
    art = load_training_art(shared)
    if quads not in QUAD_SOURCES:
        raise ValueError(f"unknown quad source {quads!r}: one of {', '.join(QUAD_SOURCES)}")
    detector = CardDetector(threads=1, refine=False, refit=False, proposals=quads == "proposals")
    crops, targets, kinds = [], [], []
    for s in range(scenes):
        image, labels = render_scene(rng, art, random_scene_config(rng, shared))
        cards = [c for c in labels["cards"] if c["visible"] >= 0.5]
        for d in detector.detect(image):
            best = max(cards, key=lambda c: quad_iou(d.quad, c["quad"]), default=None)
            if best is None or quad_iou(d.quad, best["quad"]) < 0.4:
                continue
            crop, target = quad_sample(image, np.asarray(d.quad, np.float64), best["quad"])
            crops.append(crop), targets.append(target.ravel()), kinds.append(1)
        for c in cards:
            if c["visible"] < 0.6:
                continue
            for _ in range(2):
                crop, target = quad_sample(image, perturbed_quad(rng, c["quad"]), c["quad"])
                crops.append(crop), targets.append(target.ravel()), kinds.append(0)
        if s % 500 == 0:
            log(f"seed {seed}: {s} of {scenes} scenes, {len(crops)} samples")
    return {"crops": np.stack(crops), "targets": np.array(targets, np.float32),
            "from_detector": np.array(kinds, np.uint8)}


def load_or_make(seed: int, scenes: int, shared=None, quads: str = "proposals") -> dict[str, np.ndarray]:
    path = WORK / (f"samples_{seed}_{scenes}.npz" if quads == "proposals" else f"samples_{quads}_{seed}_{scenes}.npz")
    if path.is_file():
        with np.load(path) as data:
            return {k: data[k] for k in data.files}
    data = make_samples(seed, scenes, shared, quads)
    WORK.mkdir(parents=True, exist_ok=True)
    np.savez(path, **data)
    return data


def train(data: dict, minutes: float, out: Path, threads: int = 2, batch: int = 128, peak_lr: float = 2e-3,
          init: Path | None = None):
    import torch
    from torch import nn
    from models.nets import QuadNet, count_parameters
    from vision.geometry import CONTEXT_GROW, CROP_HEIGHT, CROP_WIDTH
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    x_all, y_all = data["crops"], data["targets"]
    n = len(x_all)
    rng = np.random.default_rng(0)
    order = rng.permutation(n)
    held = min(max(500, n // 30), n // 5)
    held_back, taught = order[:held], order[held:]
    model = QuadNet(CONTEXT_GROW)
    if init is not None:
        from models.weights import load_exported
        load_exported(model, init)
        log(f"training on from {init}")
    log(f"quad net: {count_parameters(model)} parameters, {n - held} samples ({held} held back)")

    def training_mode():
        model.train()
        if init is not None:
            # the exported net's batch norms are folded into identities: batch statistics would
            # compute another function at the first step (models.weights)
            from models.weights import freeze_norms
            freeze_norms(model)
    opt = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=1e-4)
    loss_fn = nn.SmoothL1Loss(beta=0.01)
    size = np.array([CROP_WIDTH, CROP_HEIGHT], np.float32)

    def batch_of(idx, changed: bool):
        x = x_all[idx].astype(np.float32)
        y = y_all[idx].reshape(-1, 4, 2).copy()
        if changed:
            gain = rng.uniform(0.7, 1.3, (len(idx), 1, 1, 1)).astype(np.float32)
            shift = rng.uniform(-30, 30, (len(idx), 1, 1, 3)).astype(np.float32)
            x = np.clip(x * gain + shift, 0, 255)
            # mirrored: the corners' order runs the other way round, so it starts at the mirrored 1
            mirror = rng.random(len(idx)) < 0.5
            x[mirror] = x[mirror][:, :, ::-1]
            ym = y[mirror]
            ym[..., 0] = 1 - ym[..., 0]
            y[mirror] = ym[:, [1, 0, 3, 2]]
            # turned round: each corner becomes the one two along
            turn = rng.random(len(idx)) < 0.5
            x[turn] = x[turn][:, ::-1, ::-1]
            y[turn] = (1 - y[turn])[:, [2, 3, 0, 1]]
        return (torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))),
                torch.from_numpy(y.reshape(-1, 8).astype(np.float32)))

    def corner_error() -> float:
        """The median distance (crop pixels) of the predicted corners from the labelled ones."""
        model.eval()
        errors = []
        with torch.no_grad():
            for k in range(0, held, 512):
                xb, yb = batch_of(held_back[k:k + 512], False)
                p = model(xb).numpy().reshape(-1, 4, 2) * size
                errors.append(np.linalg.norm(p - yb.numpy().reshape(-1, 4, 2) * size, axis=2).mean(axis=1))
        training_mode()
        return float(np.median(np.concatenate(errors)))

    log(f"corner error before: {corner_error():.2f} px ({'the net trained on from' if init else 'the quads as they are'})")
    start, step, total = time.time(), 0, minutes * 60
    training_mode()
    while time.time() - start < total:
        done = (time.time() - start) / total
        for group in opt.param_groups:  # warm-up, then a cosine down to zero
            group["lr"] = peak_lr * min(1.0, done * 20) * 0.5 * (1 + math.cos(math.pi * done))
        xb, yb = batch_of(taught[rng.integers(0, len(taught), batch)], True)
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 1000 == 0:
            log(f"step {step}: loss {float(loss.detach()):.4f}, corner error {corner_error():.2f} px")
    log(f"{step} steps of {batch}; corner error {corner_error():.2f} px")
    export(model, out)


def export(model, out: Path) -> None:
    import torch
    from vision.geometry import CROP_HEIGHT, CROP_WIDTH
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "cardquad.onnx.tmp"
    with warnings.catch_warnings():  # the TorchScript exporter is the one asked for (no onnxscript needed)
        warnings.simplefilter("ignore")
        torch.onnx.export(model, torch.zeros(2, 3, CROP_HEIGHT, CROP_WIDTH), str(tmp), dynamo=False,
                          opset_version=20, input_names=["crops"], output_names=["corners"],
                          dynamic_axes={"crops": {0: "n"}, "corners": {0: "n"}})
    tmp.replace(out / "cardquad.onnx")
    log(f"wrote {out / 'cardquad.onnx'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.train_quad", description=__doc__.splitlines()[0])
    parser.add_argument("--step", choices=("all", "data", "train"), default="all")
    parser.add_argument("--seeds", type=SEED, nargs="+", default=list(SEEDS),
                        help="training seeds, one shard of samples each (default 201 202)")
    parser.add_argument("--scenes", type=whole(1), default=4000, help="scenes a seed (default 4000)")
    parser.add_argument("--minutes", type=number(0, above=True), default=30.0, help="training time (default 30)")
    parser.add_argument("--quads", choices=QUAD_SOURCES, default="proposals",
                        help="whose quads the data step cuts: the detector's with the edge proposals "
                             "(proposals, the default) or the mask net's own, as the refit stage gets them (mask)")
    parser.add_argument("--init", default=None,
                        help="an exported quad net to train on from (e.g. models/cardquad.onnx; default: a new net)")
    parser.add_argument("--peak-lr", type=number(0, above=True), default=2e-3, help="the peak learning rate (default 2e-3)")
    parser.add_argument("--threads", type=whole(1, 256), default=2)
    parser.add_argument("--shared", default=None, help="the shared data folder (default: $HANADEALER_SHARED, else ../shared)")
    parser.add_argument("--out", default=str(MODELS), help="where cardquad.onnx goes (default models/)")
    args = parser.parse_args(argv)
    init = Path(args.init) if args.init else None
    if init is not None and not init.is_file():  # before the samples, which take minutes
        parser.error(f"--init: no exported quad net at {init}")
    from datasets.shared import shared_dir
    from datasets.splits import check_training_seed
    for seed in args.seeds:  # every seed before the first one's samples (minutes each)
        try:
            check_training_seed(seed)
        except ValueError as exc:
            parser.error(f"--seeds {seed}: {exc}")
    try:
        shared = shared_dir(args.shared)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    # (made only once every other value is known good, and before the samples and the training: the
    # net was lost, with a traceback, at its export)
    try:
        out = writable_dir(args.out, "--out")
    except ValueError as exc:
        parser.error(str(exc))
    shards = [load_or_make(seed, args.scenes, shared, args.quads) for seed in args.seeds]
    if args.step == "data":
        return 0
    data = {k: np.concatenate([s[k] for s in shards]) for k in shards[0]}
    train(data, args.minutes, out, threads=args.threads, peak_lr=args.peak_lr, init=init)
    return 0


if __name__ == "__main__":
    sys.exit(main())
