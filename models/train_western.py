"""Train the western card classifier: ``python -m models.train_western`` (needs the ``train`` extra).

Steps (``--step``, default ``all``):
  data       render training scenes of western cards (datasets.western_scenes; seeds from
             TRAIN_SEED) and cut labelled crops: each card's quad a little off, and every quad the
             run-time quad finder proposes (labelled by overlap: a card, or ``none``); validation
             crops likewise from VALIDATION_SEED. Cached in var/western/.
  train      train a CropNet over the 52 ids + ``back`` + ``none`` with the orientation head for
             --minutes, export models/westernface.onnx (ONNX opset 20)
  calibrate  fit the temperature on the validation crops, then run the whole WesternCardDetector on
             validation scenes and choose the uncertainty threshold so that confident answers are
             almost never wrong; write models/western.json
Art: the project's own demo deck, plus ../shared/cardart-western when present (read at run time).
Evaluation scenes (``hanadealer bench-western``) use seeds from datasets.splits.EVAL_SEED_BASE up,
which training never uses.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from hanadealer.args import number, whole, writable_dir

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "var" / "western"
MODELS = ROOT / "models"
TRAIN_SEED = 101
VALIDATION_SEED = 777
MAX_PROPOSAL_NEGATIVES = 4  # per scene: the finder proposes many quads that are not cards


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def training_config(rng: np.random.Generator, shared=None):
    """A scene configuration drawn to cover the table: a few to many cards, every surface and condition."""
    from datasets.scenes import PROCEDURAL_SURFACES, SURFACES, SceneConfig
    return SceneConfig(min_cards=1, max_cards=int(rng.choice([3, 6, 8, 10, 14])),
                       surfaces=SURFACES if shared is not None else PROCEDURAL_SURFACES,
                       shared=None if shared is None else str(shared))


def scene_crops(rng: np.random.Generator, image: np.ndarray, labels: dict, finder) -> tuple[list, list, list]:
    """(crops, class indices, orientations 0/1) of one scene: each card (quad jittered), the finder's
    quads (labelled by overlap with the cards) and a few made-up negatives."""
    from datasets.crops import crops_from_scene
    from datasets.western_scenes import class_index
    from vision.evaluate import quad_iou
    from vision.geometry import warp_card
    crops, classes, orient = [], [], []
    for crop, label in crops_from_scene(rng, image, labels, jitter=0.03, negatives=2):
        crops.append(crop)
        classes.append(class_index(label["face"]))
        orient.append(int(label["orientation"] == 180))
    cards = labels["cards"]
    negatives = 0
    for q in finder.find(image):
        ious = [quad_iou(q, c["quad"]) for c in cards]
        best = int(np.argmax(ious)) if ious else -1
        if ious and ious[best] >= 0.75 and cards[best]["visible"] >= 0.7:
            truth = np.asarray(cards[best]["quad"], np.float64)
            turned = int(np.argmin(np.linalg.norm(truth - q[0], axis=1)) == 2)
            crops.append(warp_card(image, q))
            classes.append(class_index(cards[best]["face"]))
            orient.append(turned)
        elif (not ious or ious[best] < 0.3) and negatives < MAX_PROPOSAL_NEGATIVES:
            negatives += 1
            crops.append(warp_card(image, q))
            classes.append(class_index("none"))
            orient.append(0)
    return crops, classes, orient


def make_crops(seed: int, scenes: int, shared=None, start: int = 0) -> dict[str, np.ndarray]:
    from datasets.scenes import scene_rng
    from datasets.western_scenes import render_western_scene, training_art
    from vision.western import WesternQuadFinder
    art = training_art(shared)
    finder = WesternQuadFinder()
    xs, ys, os_ = [], [], []
    t0 = time.time()
    for i in range(start, start + scenes):
        rng = scene_rng(seed, i)
        image, labels = render_western_scene(rng, art, training_config(rng, shared))
        c, y, o = scene_crops(rng, image, labels, finder)
        xs += c
        ys += y
        os_ += o
        if (i - start + 1) % 200 == 0:
            log(f"seed {seed}: {i - start + 1} scenes, {len(xs)} crops, {time.time() - t0:.0f}s")
    return {"x": np.stack(xs), "y": np.array(ys, np.int64), "o": np.array(os_, np.int64)}


def load_or_make(path: Path, seed: int, scenes: int, shared=None) -> dict[str, np.ndarray]:
    if path.is_file():
        d = np.load(path)
        if int(d["scenes"]) == scenes and bool(d["shared"]) == (shared is not None):
            return {k: d[k] for k in ("x", "y", "o")}
    data = make_crops(seed, scenes, shared)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, scenes=scenes, shared=shared is not None, **data)
    log(f"{path.name}: {len(data['y'])} crops from {scenes} scenes")
    return data


def batches(rng: np.random.Generator, data: dict, batch: int):
    """Endless shuffled batches with a random 180-degree turn (the orientation label follows) and
    camera-like changes; orientation is -1 (not learnt) for backs and non-cards."""
    from datasets.western_scenes import class_index
    from models.data import photometric
    n_faces = class_index("back")
    while True:
        order = rng.permutation(len(data["y"]))
        for i in range(0, len(order) - batch + 1, batch):
            idx = order[i:i + batch]
            xs, os_ = [], []
            for j in idx:
                crop, turned = data["x"][j], int(data["o"][j])
                if rng.random() < 0.5:
                    crop, turned = crop[::-1, ::-1], 1 - turned
                xs.append(photometric(rng, np.ascontiguousarray(crop)).transpose(2, 0, 1))
                os_.append(turned if data["y"][j] < n_faces else -1)
            yield np.stack(xs), data["y"][idx], np.array(os_, np.int64)


def train(data: dict, minutes: float, out: Path, threads: int = 1, batch: int = 64, peak_lr: float = 3e-3,
          seed: int = 0):
    """A CropNet trained for ``minutes`` on the crops, exported to ``out``/westernface.onnx."""
    import torch
    from torch import nn
    from datasets.western_scenes import western_classes
    from models.nets import CropNet, count_parameters
    from models.train import crop_step
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    model = CropNet(n_classes=len(western_classes()))
    log(f"western crop net: {count_parameters(model)} parameters, {len(data['y'])} training crops")
    opt = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=3e-4)
    ce, ce_orient = nn.CrossEntropyLoss(), nn.CrossEntropyLoss(ignore_index=-1)
    rng = np.random.default_rng(seed + 1)
    start = time.time()
    deadline = start + minutes * 60
    step = correct = total = 0
    for xb, yb, ob in batches(rng, data, min(batch, len(data["y"]))):
        frac = min(1.0, (time.time() - start) / (minutes * 60))
        for g in opt.param_groups:  # a short warm-up, then cosine decay over the time budget
            g["lr"] = float(peak_lr * min(1.0, (step + 1) / 100) * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * frac))))
        loss, right = crop_step(model, opt, xb, yb, ob, ce, ce_orient)
        step += 1
        correct += right
        total += len(yb)
        if step % 100 == 0:
            log(f"step {step} loss {loss.item():.4f} train-acc {correct / total:.4f}")
            correct = total = 0
        if time.time() >= deadline:
            break
    export(model, out)
    log(f"trained {step} steps in {time.time() - start:.0f}s")
    return model


def export(model, out: Path) -> None:
    import torch
    model.eval()
    tmp = out / "westernface.onnx.tmp"
    with warnings.catch_warnings():  # the TorchScript exporter is the one asked for (no onnxscript needed)
        warnings.simplefilter("ignore")
        torch.onnx.export(model, torch.zeros(2, 3, 96, 64), str(tmp), dynamo=False, opset_version=20,
                          input_names=["crops"], output_names=["face_logits", "orientation_logits"],
                          dynamic_axes={"crops": {0: "n"}, "face_logits": {0: "n"}, "orientation_logits": {0: "n"}})
    tmp.replace(out / "westernface.onnx")
    model.train()


def calibrate(val: dict, out: Path, val_scenes: int, shared=None, max_wrong_rate: float = 1 / 2000) -> dict:
    """Temperature from the validation crops (both views averaged, as the run time reads them);
    threshold from the whole detector on validation scenes (vision.evaluate.pick_threshold)."""
    from datasets.scenes import scene_rng
    from datasets.western_scenes import render_western_scene, training_art, western_classes
    from models.train import crop_temperature
    from vision.evaluate import Tally, cards_from_scene_labels, pick_threshold, score_frame, threshold_outcomes
    from vision.western import WesternCardDetector
    temperature, crop_accuracy = crop_temperature(out / "westernface.onnx", val["x"], val["y"])
    log(f"temperature {temperature:.3f}; validation crop accuracy {crop_accuracy:.4f} ({len(val['y'])} crops)")
    settings = {"classes": list(western_classes()), "temperature": temperature, "threshold": 0.9,
                "trained_on": ["demo"] + (["cardart-western"] if shared is not None else []),
                "validation": {"crops": int(len(val["y"])), "crop_accuracy": round(crop_accuracy, 5)}}
    path = out / "western.json"
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    detector = WesternCardDetector(out, threads=1)
    art = training_art(shared)
    tally = Tally()
    for i in range(val_scenes):
        rng = scene_rng(VALIDATION_SEED + 1, i)
        image, labels = render_western_scene(rng, art, training_config(rng, shared))
        tally.add(score_frame(detector.detect(image), cards_from_scene_labels(labels)))
    threshold, stats = pick_threshold(threshold_outcomes(tally), max_wrong_rate)
    settings["threshold"] = threshold
    summary = tally.summary()
    settings["validation"].update(stats, scenes=val_scenes, detection_recall=summary["detection_recall"],
                                  face_accuracy=summary["face_accuracy"])
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    log(f"threshold {threshold:.5f}: {stats['threshold_wrong_confident']} confident wrong, "
        f"{stats['threshold_uncertain_share']:.3f} uncertain of {stats['threshold_from']} answers")
    return settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.train_western", description=__doc__.splitlines()[0])
    parser.add_argument("--step", choices=("all", "data", "train", "calibrate"), default="all")
    parser.add_argument("--scenes", type=whole(1), default=1500, help="training scenes (default 1500)")
    parser.add_argument("--val-scenes", type=whole(1), default=120, help="validation scenes (default 120)")
    parser.add_argument("--minutes", type=number(0, above=True), default=15.0, help="training time (default 15)")
    parser.add_argument("--threads", type=whole(1, 256), default=1)
    parser.add_argument("--shared", default=None, help="the shared data folder (default: $HANADEALER_SHARED, else ../shared)")
    parser.add_argument("--out", default=str(MODELS), help="where the model and settings go (default models/)")
    args = parser.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("training needs PyTorch: pip install -e '.[train]'", file=sys.stderr)
        return 2
    from datasets.shared import shared_dir
    try:
        shared = shared_dir(args.shared)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    try:  # (before the minutes of training: the net was lost, with a traceback, at its export)
        out = writable_dir(args.out, "--out")
    except ValueError as exc:
        parser.error(str(exc))
    log(f"art: demo{' + cardart-western from ' + str(shared) if shared else ' only (no shared folder)'}")
    if args.step in ("all", "data", "train"):
        data = load_or_make(WORK / "train.npz", TRAIN_SEED, args.scenes, shared)
    val = load_or_make(WORK / "val.npz", VALIDATION_SEED, max(20, args.val_scenes // 2), shared)
    if args.step in ("all", "train"):
        train(data, args.minutes, out, threads=args.threads)
    if args.step in ("all", "calibrate"):
        calibrate(val, out, args.val_scenes, shared)
    return 0


if __name__ == "__main__":
    sys.exit(main())
