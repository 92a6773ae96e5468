"""The recognition benchmark behind ``hanadealer bench-vision``: accuracy per evaluation split of
datasets/ and on the labelled real photos, and time per stage for 1280x720 frames."""
from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import numpy as np

from vision.evaluate import MISS_CAUSES, Tally, cards_from_scene_labels, load_photo_labels, miss_causes, score_frame


def split_scenes(name: str, count: int | None, shared=None, offset: int = 0):
    """(image, labels) of the evaluation split ``name`` (its own seeded scenes; the first ``count``;
    with ``offset``, its test render)."""
    from datasets import splits
    split = splits.get_split(name, offset)
    if split.needs_shared and shared is None:
        raise FileNotFoundError("needs ../shared (card art), which is not present")
    for _, image, labels in splits.split_scenes(split, shared=shared, limit=count):
        yield image, labels


def split_names() -> list[str]:
    from datasets import splits
    return list(splits.SPLITS)


def timing_frames(cards: int, frames: int, seed: int = 5) -> tuple[list[np.ndarray], float]:
    """1280x720 scenes of the demo deck with ``cards`` cards each (needs nothing outside the project),
    and the mean number of cards they really hold (the scattered layout is the one that takes 45)."""
    from datasets.art import load_art
    from datasets.scenes import SceneConfig, render_scene
    rng = np.random.default_rng(seed + cards)
    art = load_art("demo")
    config = SceneConfig(size=(1280, 720), min_cards=cards, max_cards=cards, layout="scatter")
    scenes = [render_scene(rng, art, config) for _ in range(frames)]
    return [image for image, _ in scenes], float(np.mean([len(labels["cards"]) for _, labels in scenes]))


def evaluate_split(detector, name: str, count: int | None, shared=None, offset: int = 0) -> dict:
    """The split's figures; with a detector that can list its candidate quads and their readings
    (``candidate_readings``), also why the missed cards were missed (vision.evaluate.miss_causes)."""
    tally = Tally()
    ms = []
    for image, labels in split_scenes(name, count, shared, offset):
        detections, t = detector.detect_timed(image)
        ms.append(t["total"])
        frame_tally = score_frame(detections, cards_from_scene_labels(labels))
        tally.add(_with_miss_causes(detector, image, frame_tally))
    out = tally.summary()
    out["scenes"] = len(ms)
    out["ms_median"] = round(float(np.median(ms)), 2) if ms else None
    return out


def _with_miss_causes(detector, image: np.ndarray, tally: Tally) -> Tally:
    # asked only of frames with a missed card (the quads are found again and every one read)
    if tally.missed_labels and hasattr(detector, "candidate_readings"):
        quads, named = detector.candidate_readings(image)
        causes = miss_causes(tally.missed_labels, quads, named)
        tally.missed_causes = [(cause, card.visible) for cause, card in zip(causes, tally.missed_labels)]
    return tally


def evaluate_photos(detector, folder: Path) -> dict:
    from vision.cli import read_image
    labels = load_photo_labels(folder)
    tally = Tally()
    per_photo = {}
    unread = {}
    for photo, cards in sorted(labels.items()):
        try:
            image = read_image(str(folder / photo))
        except ValueError as exc:  # (one photo missing threw away the whole run, every split done)
            unread[photo] = str(exc)
            continue
        t = _with_miss_causes(detector, image, score_frame(detector.detect(image), cards))
        tally.add(t)
        per_photo[photo] = {"cards": len(t.cards), "right": sum(c.face_right for c in t.cards),
                            "said": [f"{c.truth}->{c.said}{' (uncertain)' if c.uncertain else ''}"
                                     for c in t.cards],
                            "false_alarms": len(t.false_alarms)}
    out = tally.summary()
    out["photos"] = per_photo
    if unread:
        out["unread"] = unread
    return out


def time_stages(detector, cards: int, frames: int) -> dict:
    images, labelled = timing_frames(cards, frames)
    return time_frames(detector, images, labelled)


def time_frames(detector, images: list[np.ndarray], cards_per_frame: float) -> dict:
    """Median and 95th percentile ms of each stage of ``detector.detect_timed`` over ``images``
    (after one warm-up frame), and how many cards it found on average."""
    detector.detect(images[0])  # warm up
    per_stage: dict[str, list[float]] = {}
    found = []
    for image in images:
        detections, t = detector.detect_timed(image)
        found.append(len(detections))
        for k, v in t.items():
            per_stage.setdefault(k, []).append(v)
    return {"frames": len(images), "cards_per_frame": round(cards_per_frame, 2),
            "cards_found_mean": round(float(np.mean(found)), 2),
            **{k: {"median_ms": round(float(np.median(v)), 2), "p95_ms": round(float(np.percentile(v, 95)), 2)}
               for k, v in per_stage.items()}}


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """What the processor is, as the system names it (with its clock where Linux says it), so that
    timings taken on different machines are not compared as if on one (a slow phase of one shared
    machine shows in the load average beside it, or not at all: the same code ran 18 ms a 9-card
    frame on this project's machine and, an hour before, 22 ms)."""
    try:
        lines = cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    fields = dict(line.split(":", 1) for line in lines if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    name = fields.get("model name") or platform.processor() or platform.machine() or "unknown"
    try:
        return f"{name} @ {float(fields['cpu MHz']):.0f} MHz"
    except (KeyError, ValueError):
        return name


TOTALLED = ("cards", "found", "uncertain", "false_alarms", "confident_false_alarms", "confident_wrong",
            "confident_errors", "confident_errors_naming_a_card")


def _totals(rows: dict) -> dict:
    """The splits' counts added up (the rates of the README: of all cards, or of all found)."""
    out = dict.fromkeys(TOTALLED, 0)
    for r in rows.values():
        if "cards" not in r:
            continue
        out["found"] += r["cards"] - r["missed"]
        for k in TOTALLED:
            if k != "found":
                out[k] += r.get(k, 0)
    return out


def run_benchmark(detector, scenes=None, splits=None, frames=30, card_counts=(9, 45), accuracy=True,
                  speed=True, shared=None, test=False) -> dict:
    """``test``: the test renders of the splits (datasets.splits.TEST_SEED_OFFSETS), measured only after
    what shipped was chosen, instead of the development splits."""
    from datasets.shared import shared_dir
    report: dict = {"machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
                                "cpu_model": cpu_model(),
                                "threshold": detector.threshold, "temperature": detector.settings.temperature,
                                "edge_proposals": getattr(detector, "proposer", None) is not None,
                                "refit_quads": bool(getattr(detector, "refit", False))}}
    root = shared_dir(shared)
    if accuracy:
        names = split_names()
        if splits:
            unknown = [s for s in splits if s not in names]
            if unknown:
                raise ValueError(f"unknown split(s) {', '.join(unknown)}; the splits are: {', '.join(names)}")
            names = list(splits)
        from datasets.splits import TEST_SEED_OFFSETS
        report["splits"] = {}
        for offset in TEST_SEED_OFFSETS if test else (0,):
            for name in names:
                key = f"{name}+{offset}" if offset else name
                try:
                    report["splits"][key] = evaluate_split(detector, name, scenes, root, offset)
                except FileNotFoundError as exc:  # a split that needs ../shared where it is absent
                    report["splits"][key] = {"skipped": str(exc)}
        report["totals"] = _totals(report["splits"])
        report["renders"] = "test" if test else "development"
        if root is not None and (root / "photos-dev" / "labels.csv").is_file():
            report["photos_dev"] = evaluate_photos(detector, root / "photos-dev")
        else:
            # (the folder looked in: --shared may name another than ../shared)
            where = root / "photos-dev" / "labels.csv" if root is not None else "../shared/photos-dev"
            report["photos_dev"] = {"skipped": f"{where} is not present"}
    if speed:
        t0 = time.perf_counter()
        load_before = os.getloadavg()[0]
        report["speed"] = {f"{n}_cards": time_stages(detector, n, frames) for n in card_counts}
        report["speed"]["seconds"] = round(time.perf_counter() - t0, 1)
        # other processes on the machine slow every stage: say how busy it was
        report["speed"]["load_average_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
        report["speed"]["cpu_count"] = os.cpu_count()
    return report


def to_markdown(report: dict) -> str:
    """The report's headline figures as Markdown tables (for the README and MODEL.md)."""
    def pct(v):
        return "n/a" if v is None else f"{100 * v:.2f}%"
    lines = []
    rows = dict(report.get("splits", {}))
    if "photos_dev" in report:
        rows["photos-dev (real)"] = report["photos_dev"]
    if rows:
        lines += ["| split | cards | face accuracy (face-up cards) | detection recall | detection precision | "
                  "uncertain | confident-wrong | false alarms (confident; of them naming a face) | "
                  "confident errors, false alarms included (naming a card) |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for name, r in rows.items():
            if "skipped" in r:
                lines.append(f"| {name} | skipped: {r['skipped']} | | | | | | | |")
                continue
            lines.append(f"| {name} | {r['cards']} | {pct(r['face_accuracy'])} "
                         f"({pct(r.get('face_accuracy_face_up'))}) | {pct(r['detection_recall'])} | "
                         f"{pct(r['detection_precision'])} | {pct(r['uncertain_share'])} | "
                         f"{r['confident_wrong']} ({pct(r['confident_wrong_rate'])}) | "
                         f"{r['false_alarms']} ({r['confident_false_alarms']}; "
                         f"{r.get('confident_false_alarms_naming_a_face', 'n/a')}) | "
                         f"{r.get('confident_errors', 'n/a')} ({r.get('confident_errors_naming_a_card', 'n/a')}) |")
    causes = {name: r for name, r in rows.items() if "missed_by_cause" in r}
    if causes:
        lines += ["", "| split: cards missed (of them in the open) | all | " +
                  " | ".join(k.replace("_", " ") for k in MISS_CAUSES) + " |", "|---" * (len(MISS_CAUSES) + 2) + "|"]
        for name, r in causes.items():
            by, open_by = r["missed_by_cause"], r["missed_in_the_open_by_cause"]
            cells = " | ".join(f"{by[k]} ({open_by[k]})" for k in MISS_CAUSES)
            lines.append(f"| {name} | {r['missed']} ({sum(open_by.values())}) | {cells} |")
    speed = report.get("speed")
    if speed:
        stages = ("mask", "quads", "proposals", "refit", "classify", "total")
        lines += ["", "| frame (1280x720) | " + " | ".join(stages) + " |", "|---" * (len(stages) + 1) + "|"]
        for key, r in speed.items():
            if not isinstance(r, dict):
                continue
            cells = " | ".join(f"{r[k]['median_ms']:.1f} / {r[k]['p95_ms']:.1f}" if k in r else "n/a" for k in stages)
            lines.append(f"| {key.replace('_', ' ')} (median / p95 ms) | {cells} |")
    return "\n".join(lines) + "\n"
