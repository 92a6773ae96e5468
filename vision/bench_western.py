"""``hanadealer bench-western``: how well and how fast WesternCardDetector reads western cards (JSON).

Accuracy on seeded evaluation scenes (datasets.western_scenes; seeds from datasets.splits.EVAL_SEED_BASE
up, which training never uses) of the demo western deck and, where ../shared is present, of
cardart-western; time per 1280x720 frame of 8 cards of the demo deck.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hanadealer.args import named, whole
from vision.bench import cpu_model


@dataclass(frozen=True)
class WesternSplit:
    name: str
    art: str            # "demo" or "shared" (datasets.western_scenes.load_western_art)
    count: int
    seed_offset: int    # from datasets.splits.EVAL_SEED_BASE
    clean: bool = False
    about: str = ""


SPLITS = {s.name: s for s in [
    WesternSplit("western-demo", "demo", 100, 101,
                 about="the demo western deck under every webcam condition, hanafuda cards lying about"),
    WesternSplit("western-demo-clean", "demo", 50, 102, clean=True,
                 about="the demo western deck, straight overhead, no degradation: the upper bound"),
    WesternSplit("western-shared", "shared", 100, 103,
                 about="../shared/cardart-western under every webcam condition (needs ../shared)"),
]}


def split_scenes(split: WesternSplit, count: int | None, shared=None):
    from datasets.scenes import SceneConfig, clean_config, scene_rng
    from datasets.splits import EVAL_SEED_BASE
    from datasets.western_scenes import load_western_art, render_western_scene
    if split.art == "shared" and shared is None:
        raise FileNotFoundError("needs ../shared (cardart-western), which is not present")
    art = load_western_art(split.art, shared)
    for i in range(split.count if count is None else count):
        rng = scene_rng(EVAL_SEED_BASE + split.seed_offset, i)
        config = clean_config(min_cards=1, max_cards=10) if split.clean else SceneConfig(min_cards=1, max_cards=10)
        yield render_western_scene(rng, art, config)


def evaluate_split(detector, split: WesternSplit, count: int | None, shared=None) -> dict:
    from vision.evaluate import Tally, cards_from_scene_labels, score_frame
    tally = Tally()
    scenes = 0
    for image, labels in split_scenes(split, count, shared):
        tally.add(score_frame(detector.detect(image), cards_from_scene_labels(labels)))
        scenes += 1
    out = tally.summary()
    out["scenes"] = scenes
    return out


def timing_frames(cards: int, frames: int, seed: int = 5) -> tuple[list[np.ndarray], float]:
    """1280x720 frames of the demo western deck, ``cards`` asked for each, in rows as Kakeya deals
    them, and the mean number of cards they really hold (with many cards, rows run off the picture)."""
    from datasets.scenes import SceneConfig, scene_rng
    from datasets.western_scenes import load_western_art, render_western_scene
    art = load_western_art("demo")
    config = SceneConfig(size=(1280, 720), min_cards=cards, max_cards=cards, layout="rows")
    scenes = [render_western_scene(scene_rng(seed, i), art, config, hanafuda_distractors=0.0) for i in range(frames)]
    return [image for image, _ in scenes], float(np.mean([len(labels["cards"]) for _, labels in scenes]))


def time_detector(detector, cards: int, frames: int) -> dict:
    from vision.bench import time_frames
    images, cards_per_frame = timing_frames(cards, frames)
    return time_frames(detector, images, cards_per_frame)


def run_benchmark(detector, scenes: int | None = None, splits=None, frames: int = 30, cards: int = 8,
                  accuracy: bool = True, speed: bool = True, shared=None) -> dict:
    from datasets.shared import shared_dir
    root = shared_dir(shared)
    report: dict = {"machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
                                "cpu_model": cpu_model(),
                                "threshold": detector.threshold, "temperature": detector.settings.temperature}}
    if accuracy:
        names = list(splits) if splits else list(SPLITS)
        unknown = [s for s in names if s not in SPLITS]
        if unknown:
            raise ValueError(f"unknown split(s) {', '.join(unknown)}; the splits are: {', '.join(SPLITS)}")
        report["splits"] = {}
        for name in names:
            try:
                report["splits"][name] = evaluate_split(detector, SPLITS[name], scenes, root)
            except FileNotFoundError as exc:
                report["splits"][name] = {"skipped": str(exc)}
    if speed:
        t0 = time.perf_counter()
        load_before = os.getloadavg()[0]
        report["speed"] = {f"{cards}_cards": time_detector(detector, cards, frames),
                           "seconds": round(time.perf_counter() - t0, 1),
                           # other processes on the machine slow every stage: say how busy it was
                           "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
                           "cpu_count": os.cpu_count()}
    return report


def register(subparsers) -> None:
    b = subparsers.add_parser("bench-western", help="accuracy and speed of western card recognition (JSON)",
                              description="Evaluate WesternCardDetector on seeded scenes of the demo western deck "
                                          "and ../shared/cardart-western, and time it on 1280x720 frames; "
                                          "prints JSON.")
    b.add_argument("--scenes", type=whole(1), default=None, help="scenes per split (default: the split's own count)")
    b.add_argument("--splits", nargs="+", default=None, choices=list(SPLITS), help="only these splits")
    b.add_argument("--frames", type=whole(1, 10000), default=None, help="timed frames, 1 to 10,000 (default 30; 10 with --quick)")
    b.add_argument("--cards", type=whole(1, 48), default=8, help="cards per timed frame, 1 to 48 (default 8)")
    b.add_argument("--quick", action="store_true", help="20 scenes per split and 10 timed frames, unless --scenes or --frames say otherwise")
    only = b.add_mutually_exclusive_group()  # (both: nothing measured, and a 0 exit)
    only.add_argument("--no-accuracy", action="store_true", help="timing only")
    only.add_argument("--no-speed", action="store_true", help="accuracy only")
    b.add_argument("--models", type=named, default=None, help="folder with westernface.onnx and western.json")
    b.add_argument("--shared", type=named, default=None, help="the shared data folder (default: $HANADEALER_SHARED, else ../shared)")
    b.add_argument("--threads", type=whole(1, 64), default=2, help="onnxruntime threads (default 2)")
    b.set_defaults(func=bench)


def bench(args) -> int:
    from vision.detector import ModelMissingError
    from vision.western import WesternCardDetector
    if args.shared is not None and not (Path(args.shared) / "cards.csv").is_file():
        # an explicit folder must be the one used: never fall back to ../shared silently
        print(f"hanadealer: bench-western: no shared data folder at {args.shared} (it must hold cards.csv)",
              file=sys.stderr)
        return 2
    try:
        detector = WesternCardDetector(args.models, threads=args.threads)
        report = run_benchmark(detector, scenes=20 if args.quick and args.scenes is None else args.scenes,
                               splits=args.splits, frames=args.frames or (10 if args.quick else 30), cards=args.cards,
                               accuracy=not args.no_accuracy, speed=not args.no_speed, shared=args.shared)
    except (ModelMissingError, ValueError, FileNotFoundError) as exc:
        print(f"hanadealer: bench-western: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2))
    return 0
