"""``hanadealer recognise`` and ``hanadealer bench-vision``."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from hanadealer.args import PROBABILITY, named, whole
from hanadealer.text import shown_text


def register(subparsers) -> None:
    p = subparsers.add_parser("recognise", help="find and name the cards in images",
                              description="Find and name the cards in each image.")
    p.add_argument("images", type=named, nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="one JSON document per image, one per line "
                   "(an image that cannot be read: its \"error\")")
    p.add_argument("--models", type=named, default=None, help="folder with the ONNX models (default: the project's models/)")
    p.add_argument("--threshold", type=PROBABILITY, default=None,
                   help="confidence below which a card is uncertain (default: the calibrated one)")
    p.add_argument("--decks", type=whole(1), default=1,
                   help="48-card decks in play (default 1): a face read more often than they hold is uncertain")
    p.set_defaults(func=recognise)

    b = subparsers.add_parser("bench-vision", help="accuracy and speed of card recognition (JSON)",
                              description="Evaluate recognition on the evaluation splits of datasets/ and "
                                          "../shared/photos-dev, and time it per stage; prints JSON.")
    b.add_argument("--scenes", type=whole(1), default=None, help="scenes per split (default: the split's own count)")
    b.add_argument("--splits", nargs="+", default=None,
                   help="only these evaluation splits of datasets/ (the real photos of ../shared/photos-dev are "
                        "read whatever the splits)")
    b.add_argument("--frames", type=whole(1, 10000), default=None,
                   help="timed frames per card count, 1 to 10,000 (default 30; 10 with --quick)")
    # (a timed frame is a scene, of at most 48 cards: more failed only once the accuracy run was done)
    b.add_argument("--cards", type=whole(1, 48), nargs="+", default=[9, 45], help="card counts to time, 1 to 48 (default 9 45)")
    b.add_argument("--quick", action="store_true", help="20 scenes per split and 10 timed frames, unless --scenes or --frames say otherwise")
    only = b.add_mutually_exclusive_group()  # (both: nothing measured, and a 0 exit)
    only.add_argument("--no-accuracy", action="store_true", help="timing only")
    only.add_argument("--no-speed", action="store_true", help="accuracy only")
    b.add_argument("--markdown", action="store_true", help="print the headline figures as Markdown tables too (on stderr)")
    b.add_argument("--test", action="store_true",
                   help="the test renders of the splits (their seeds + 1000 and + 2000), measured only after what "
                        "shipped was chosen, instead of the development splits (where what shipped was judged)")
    b.add_argument("--models", type=named, default=None)
    b.add_argument("--shared", type=named, default=None, help="the shared data folder (default: $HANADEALER_SHARED, else ../shared)")
    b.add_argument("--threads", type=whole(1, 64), default=2, help="onnxruntime threads (default 2)")
    b.add_argument("--proposals", action=argparse.BooleanOptionalAction, default=None,
                   help="snap the mask net's quads to the frame's edges and add outlines near them "
                        "(default: as models/vision.json says; for comparison)")
    b.add_argument("--refit", action=argparse.BooleanOptionalAction, default=None,
                   help="re-fit every quad with the quad net before reading it "
                        "(default: as models/vision.json says; for comparison)")
    b.set_defaults(func=bench)


def _error(msg: str) -> None:
    print(f"hanadealer: {shown_text(msg)}", file=sys.stderr)


def _detector(args):
    from vision.detector import CardDetector, ModelMissingError
    try:
        return CardDetector(args.models, threads=getattr(args, "threads", 2), threshold=args.threshold
                            if hasattr(args, "threshold") else None,
                            proposals=getattr(args, "proposals", None), refit=getattr(args, "refit", None),
                            decks=getattr(args, "decks", 1))
    except ModelMissingError as exc:
        _error(str(exc))
        return None


def read_image(path: str) -> np.ndarray:
    """Decode an image file; ValueError with a clear reason when it cannot be."""
    from vision.camera import MAX_PICTURE_BYTES, decode_picture, picture_too_large, stderr_silenced
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{path}: no such file")
    if p.is_dir():
        raise ValueError(f"{path}: is a folder, not an image")
    if not p.is_file():  # a pipe would be waited on for ever, a device read as what it gives
        raise ValueError(f"{path}: not a regular file (a pipe or a device?), not an image")
    if p.stat().st_size > MAX_PICTURE_BYTES:  # (a 3 GB file was read whole before it was refused)
        raise ValueError(f"{path}: {p.stat().st_size // 2**20} MB, too large for a picture of the table "
                         f"(at most {MAX_PICTURE_BYTES // 2**20} MB)")
    data = np.fromfile(str(p), dtype=np.uint8)
    if data.size == 0:
        raise ValueError(f"{path}: the file is empty")
    raw = data.tobytes()
    too_large = picture_too_large(raw)
    if too_large:
        raise ValueError(f"{path}: {too_large}")
    with stderr_silenced():  # libpng says "libpng error: ..." itself, before our one line
        image = decode_picture(raw)
    if image is None:
        raise ValueError(f"{path}: not a readable image (corrupt or unsupported format)")
    return image


def recognise(args) -> int:
    detector = _detector(args)
    if detector is None:
        return 2
    status = 0
    for path in args.images:
        # a name that is not UTF-8 (an old camera's) is shown with its odd bytes escaped, not a crash
        # (nor, in JSON, a lone surrogate that strict parsers refuse)
        shown = shown_text(path)
        try:
            image = read_image(path)
            t0 = time.perf_counter()
            detections = detector.detect(image)  # (ValueError: an image it cannot read cards from)
        except (ValueError, OSError) as exc:
            said = str(exc) if str(exc).startswith(path) else f"{path}: {exc}"
            _error(f"recognise: {said}")
            if args.json:  # (one document per image: a script reading them is told of this one too)
                print(json.dumps({"image": shown, "error": shown_text(said)}), flush=True)
            status = 2
            continue
        ms = (time.perf_counter() - t0) * 1e3
        if args.json:
            print(json.dumps({"image": shown, "cards": [d.to_json() for d in detections], "ms": round(ms, 1)}),
                  flush=True)
        else:
            print(f"{shown}: {len(detections)} card{'s' if len(detections) != 1 else ''} ({ms:.0f} ms)")
            for d in detections:
                flag = "  UNCERTAIN" if d.uncertain else ""
                quad = " ".join(f"{x:.0f},{y:.0f}" for x, y in d.quad)
                print(f"  {d.card or 'back':<22} face {d.face:<20} {d.confidence:6.1%}{flag}  [{quad}]")
    return status


def bench(args) -> int:
    from vision.bench import run_benchmark
    detector = _detector(args)
    if detector is None:
        return 2
    try:
        report = run_benchmark(detector, scenes=20 if args.quick and args.scenes is None else args.scenes,
                               splits=args.splits, frames=args.frames or (10 if args.quick else 30),
                               card_counts=args.cards, accuracy=not args.no_accuracy, speed=not args.no_speed,
                               shared=args.shared, test=args.test)
    except (ValueError, FileNotFoundError) as exc:
        _error(f"bench-vision: {exc}")
        return 2
    print(json.dumps(report, indent=2))
    if args.markdown:  # (on stderr: the JSON on stdout stays one document a program can read)
        from vision.bench import to_markdown
        print(to_markdown(report), file=sys.stderr)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="vision.cli")
    register(parser.add_subparsers(dest="command", required=True))
    a = parser.parse_args()
    sys.exit(a.func(a))
