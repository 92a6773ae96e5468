"""Scene sets on disk: ``generate`` renders N scenes (in worker processes if asked) and writes the
images, the native labels, COCO or YOLO labels, and crops; ``render_encoded`` gives one scene as JPEG."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from datasets.scenes import SceneConfig, SceneError, _render, scene_rng, warm_caches
# a card less visible than this (buried in a pile, mostly outside the frame) is not one a detector
# must find: the exports mark it so, as the evaluation counts it (and the trainers, models.data)
from vision.evaluate import MIN_VISIBLE

FORMATS = ("native", "coco", "yolo")
LABEL_FORMAT_VERSION = 1
KEYPOINT_NAMES = ("top_left", "top_right", "bottom_right", "bottom_left")


def label_classes() -> list[str]:
    """The classes of the COCO and YOLO labels: the 36 faces, then ``back``."""
    from dealer.cards import faces
    return list(faces()) + ["back"]


def render_encoded(rng: np.random.Generator, art, config: SceneConfig, decode: bool = True,
                   ) -> tuple[bytes, np.ndarray | None, dict]:
    """A scene as JPEG bytes (encoded once, at the scene's own quality), the image as
    ``render_scene`` returns it (None unless ``decode``), and labels."""
    img, labels, quality = _render(rng, art, config)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality or 95])
    if not ok:  # pragma: no cover
        raise SceneError("JPEG encoding failed")
    if not decode:
        return buf.tobytes(), None, labels
    if quality:
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return buf.tobytes(), img, labels


def _scene_job(job):
    index, seed, out_dir, want_crops = job
    arts, config = _WORKER_STATE["arts"], _WORKER_STATE["config"]
    data, img, labels = render_encoded(scene_rng(seed, index), arts, config, decode=want_crops)
    if _WORKER_STATE.get("names"):
        labels["art_name"] = _WORKER_STATE["names"][labels["art"]]
    name = f"{index:06d}"
    out = Path(out_dir)
    (out / "images" / f"{name}.jpg").write_bytes(data)
    (out / "labels" / f"{name}.json").write_text(json.dumps(labels, separators=(",", ":")))
    crop_rows = []
    if want_crops:
        from datasets.crops import crops_from_scene
        crng = np.random.default_rng([int(seed), int(index), 1])
        for k, (crop, lab) in enumerate(crops_from_scene(crng, img, labels)):
            fname = f"{name}_{k:02d}.png"
            cv2.imwrite(str(out / "crops" / fname), crop)
            crop_rows.append({"file": f"crops/{fname}", **lab})
    return index, labels, crop_rows


_WORKER_STATE: dict = {}


def generate(art_names, count: int, seed: int, out_dir, fmt: str = "native", crops: bool = False,
             config: SceneConfig | None = None, shared=None, workers: int = 1, art_height: int = 300,
             progress=None) -> dict:
    """Render ``count`` scenes into ``out_dir``: images/NNNNNN.jpg, labels/NNNNNN.json (the native
    format), plus annotations.json (``fmt="coco"``) or YOLO pose labels (``fmt="yolo"``), and with
    ``crops`` card crops and hard negatives in crops/ with crops/labels.csv. Returns a summary."""
    from datasets.art import load_art
    if fmt not in FORMATS:
        raise SceneError(f"unknown label format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if not isinstance(count, int) or count < 1:
        raise SceneError(f"count must be a positive integer, not {count!r}")
    if not isinstance(workers, int) or workers < 1:
        raise SceneError(f"workers must be a positive integer, not {workers!r}")
    names = [art_names] if isinstance(art_names, str) else list(art_names)
    if not names:
        raise SceneError("no art set given")
    config = config or SceneConfig()
    if shared is not None and config.shared is None:
        config = replace(config, shared=str(shared))
    arts = [load_art(n, shared=shared, height=art_height) for n in names]
    out = Path(out_dir)
    for sub in ("images", "labels") + (("crops",) if crops else ()):
        (out / sub).mkdir(parents=True, exist_ok=True)
    _WORKER_STATE.update(arts=arts, config=config, names=names)
    jobs = [(i, int(seed), str(out), crops) for i in range(count)]
    all_labels: list[dict] = [None] * count  # type: ignore[list-item]
    crop_rows: list[dict] = []
    if workers > 1:
        with worker_pool(workers, names, shared, art_height, config) as pool:
            for done, (i, labels, rows) in enumerate(pool.imap(_scene_job, jobs, chunksize=4), 1):
                all_labels[i] = labels
                crop_rows += rows
                if progress:
                    progress(done, count)
    else:
        for done, job in enumerate(jobs, 1):
            i, labels, rows = _scene_job(job)
            all_labels[i] = labels
            crop_rows += rows
            if progress:
                progress(done, count)
    meta = {"format_version": LABEL_FORMAT_VERSION, "art": names, "count": count, "seed": int(seed),
            "size": list(config.size), "layout": config.layout,
            "conditions": sorted(config.conditions), "surfaces": list(config.surfaces),
            "classes": label_classes(), "keypoints": list(KEYPOINT_NAMES)}
    (out / "dataset.json").write_text(json.dumps(meta, indent=1))
    if fmt == "coco":
        (out / "annotations.json").write_text(json.dumps(to_coco(all_labels, names)))
    elif fmt == "yolo":
        write_yolo(all_labels, out)
    if crops:
        import csv
        with (out / "crops" / "labels.csv").open("w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=["file", "face", "card", "orientation"])
            wr.writeheader()
            for row in crop_rows:
                wr.writerow({**row, "card": row["card"] or ""})
    return {"out": str(out), "scenes": count, "cards": sum(len(l["cards"]) for l in all_labels),
            "crops": len(crop_rows), "format": fmt}


def _bbox(quad, w, h):
    q = np.asarray(quad)
    x0, y0 = np.clip(q.min(0), 0, [w, h])
    x1, y1 = np.clip(q.max(0), 0, [w, h])
    return [round(float(x0), 2), round(float(y0), 2), round(float(x1 - x0), 2), round(float(y1 - y0), 2)]


def _inside_frame(quad, w, h) -> np.ndarray:
    """The part of a card's quad inside the frame, as a polygon (no points when none is)."""
    frame = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    area, part = cv2.intersectConvexConvex(np.float32(quad), frame)
    return part.reshape(-1, 2) if part is not None and area > 0 else np.zeros((0, 2), np.float32)


def to_coco(all_labels: list[dict], art_names=()) -> dict:
    """COCO detection + keypoints: one category per face (and ``back``), the quad's part inside the
    frame as the polygon ``segmentation`` (its ``area`` that part's), the whole quad as four keypoints
    (visibility 2 inside the frame, 0 outside). A card less than MIN_VISIBLE visible (buried in a pile,
    mostly out of the frame) is marked ``iscrowd: 1``, which COCO's evaluation and most trainers take
    as a region to ignore: neither to be found nor a false alarm where it is."""
    classes = label_classes()
    cat = {c: i + 1 for i, c in enumerate(classes)}
    images, anns = [], []
    for i, lab in enumerate(all_labels):
        w, h = lab["width"], lab["height"]
        images.append({"id": i + 1, "file_name": f"images/{i:06d}.jpg", "width": w, "height": h})
        for c in lab["cards"]:
            q = c["quad"]
            kps = []
            for x, y in q:
                kps += [x, y, 2 if 0 <= x < w and 0 <= y < h else 0]
            inside = _inside_frame(q, w, h)
            if len(inside) < 3:
                continue  # (a card wholly outside the frame: nothing of it to box)
            anns.append({"id": len(anns) + 1, "image_id": i + 1, "category_id": cat[c["face"]],
                         "bbox": _bbox(q, w, h), "area": round(abs(float(cv2.contourArea(inside))), 1),
                         "segmentation": [[round(float(v), 2) for xy in inside for v in xy]],
                         "iscrowd": int(c["visible"] < MIN_VISIBLE),
                         "keypoints": kps, "num_keypoints": sum(1 for v in kps[2::3] if v),
                         "card": c["card"], "face_up": c["face_up"], "visible": c["visible"]})
    cats = [{"id": cat[c], "name": c, "supercategory": "card", "keypoints": list(KEYPOINT_NAMES),
             "skeleton": [[1, 2], [2, 3], [3, 4], [4, 1]]} for c in classes]
    return {"info": {"description": f"hanadealer synthetic scenes ({', '.join(art_names)})",
                     "version": str(LABEL_FORMAT_VERSION)},
            "images": images, "annotations": anns, "categories": cats}


def write_yolo(all_labels: list[dict], out: Path) -> None:
    """YOLO pose labels beside the native ones: labels/NNNNNN.txt with ``class cx cy w h`` and the four
    corners ``x y v`` (normalised), and data.yaml naming the classes. YOLO has no region to ignore,
    so a card less than MIN_VISIBLE visible (buried in a pile) is left out."""
    classes = label_classes()
    for i, lab in enumerate(all_labels):
        w, h = lab["width"], lab["height"]
        lines = []
        for c in lab["cards"]:
            bx, by, bw, bh = _bbox(c["quad"], w, h)
            if bw <= 0 or bh <= 0 or c["visible"] < MIN_VISIBLE:
                continue
            parts = [classes.index(c["face"]), (bx + bw / 2) / w, (by + bh / 2) / h, bw / w, bh / h]
            for x, y in c["quad"]:
                inside = 0 <= x < w and 0 <= y < h
                parts += [min(max(x / w, 0.0), 1.0), min(max(y / h, 0.0), 1.0), 2 if inside else 0]
            lines.append(" ".join(str(p) if isinstance(p, int) else f"{p:.6f}" for p in parts))
        (out / "labels" / f"{i:06d}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(classes))
    (out / "data.yaml").write_text(f"path: {out.resolve()}\ntrain: images\nval: images\n"
                                   f"kpt_shape: [4, 3]\nnames:\n{names}\n")


def _init_worker(art_names, shared, art_height, config):
    import signal
    # Ctrl-C reaches every process of the terminal: the parent says it stopped, in one line, and ends
    # the pool (each worker printed its own KeyboardInterrupt traceback before)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # One OpenCV thread per process: the processes already use every core.
    cv2.setNumThreads(1)
    from datasets.art import load_art
    _WORKER_STATE.update(arts=[load_art(n, shared=shared, height=art_height) for n in art_names], config=config,
                         names=list(art_names))
    warm_caches(config)


def _ready(_):
    import time
    time.sleep(0.2)   # long enough that every worker takes one: all have finished starting

def worker_pool(workers: int, art_names, shared, art_height: int, config: SceneConfig):
    """A process pool whose workers hold the art and warm caches. Processes are spawned, not forked:
    a forked child of a process that has used OpenCV's thread pool can hang in its first parallel call."""
    import multiprocessing as mp
    import signal
    import threading
    # the workers start with Ctrl-C ignored (their initializer is too late for one pressed as they
    # start: each printed a traceback); the command itself hears it again once they are started
    main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        pool = mp.get_context("spawn").Pool(workers, initializer=_init_worker,
                                            initargs=(list(art_names), None if shared is None else str(shared),
                                                      art_height, config))
    finally:
        if main:
            signal.signal(signal.SIGINT, before)
    try:
        pool.map(_ready, range(workers), chunksize=1)
    except BaseException:
        # (Ctrl-C while the workers warm up, before any `with` owns the pool: left to the interpreter's
        # exit, its teardown printed a traceback under the one-line message)
        pool.terminate()
        pool.join()
        raise
    return pool

