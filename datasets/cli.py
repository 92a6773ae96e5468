"""``hanadealer deck``, ``hanadealer synth`` and ``hanadealer bench-synth``."""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

from datasets.art import SHARED_ART_SETS
from hanadealer.args import SEED, named, whole, writable_dir
from hanadealer.text import shown_text

A4_MM = (210.0, 297.0)
MAX_SCENES = 1_000_000  # scenes one run renders at most (a billion filled the memory before a scene was drawn)


def register(subparsers) -> None:
    p = subparsers.add_parser("deck", help="write the project's own demo deck as PNG files and printable A4 sheets")
    p.add_argument("--out", type=named, required=True, help="folder to write into (created if missing)")
    p.add_argument("--height", type=int, default=870, help="card height in pixels of the PNG files (default 870)")
    p.add_argument("--dpi", type=int, default=300, help="resolution of the A4 sheets (default 300)")
    p.set_defaults(func=_deck)

    p = subparsers.add_parser("synth", help="render labelled synthetic table scenes")
    p.add_argument("--art", nargs="+", required=True, metavar="SET",
                   help="art set(s): demo, or one of the sets of ../shared/cardart: " + ", ".join(SHARED_ART_SETS))
    p.add_argument("--count", type=whole(1, MAX_SCENES), required=True,
                   help=f"number of scenes, 1 to {MAX_SCENES:,}")
    p.add_argument("--out", type=named, required=True, help="output folder")
    p.add_argument("--seed", type=SEED, default=0, help="the same seed gives the same scenes (default 0)")
    p.add_argument("--format", dest="fmt", default="native", choices=["native", "coco", "yolo"],
                   help="labels besides the native JSON: COCO annotations.json or YOLO pose .txt")
    p.add_argument("--crops", action="store_true", help="also write 64x96 card crops and hard negatives")
    p.add_argument("--layout", default="mixed", help="rows, otoroku, scatter, pile or mixed (default)")
    p.add_argument("--max-cards", type=int, default=9, help="most cards in a scene (default 9)")
    p.add_argument("--size", default="1280x720", help="image size WIDTHxHEIGHT (default 1280x720)")
    p.add_argument("--surfaces", default=None,
                   help="comma-separated table surfaces: felt,wood,cloth,paper,tatami,ukiyoe (ukiyoe needs ../shared)")
    p.add_argument("--clean", action="store_true", help="no webcam degradations (overhead, even light, sharp)")
    p.add_argument("--foreign-cards", action="store_true",
                   help="also lay western and kabufuda cards about (needs ../shared; labelled as distractors)")
    p.add_argument("--workers", type=int, default=1, help="processes to render with (default 1)")
    p.add_argument("--shared", type=named, default=None, help="the shared data folder (default: $HANADEALER_SHARED, else ../shared)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the scenes of an earlier run in --out (its images, labels, crops and "
                        "dataset files; nothing else there is touched)")
    p.set_defaults(func=_synth)

    p = subparsers.add_parser("bench-synth", help="measure scene rendering speed (prints JSON)")
    p.add_argument("--art", default="demo", help="art set (default demo)")
    p.add_argument("--count", type=whole(1, MAX_SCENES), default=200, help="scenes to render (default 200)")
    p.add_argument("--workers", type=whole(1, 64), default=2, help="processes, 1 to 64 (default 2)")
    p.add_argument("--size", default="1280x720")
    p.add_argument("--max-cards", type=int, default=9)
    p.add_argument("--shared", type=named, default=None)
    p.set_defaults(func=_bench)


def _fail(command: str, message: str) -> int:
    print(f"hanadealer {command}: error: {shown_text(message)}", file=sys.stderr)
    return 2


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"size must look like 1280x720, not {text!r}") from None
    return w, h


def _writable_dir(path: str) -> Path:
    # (an empty name, Path("") the working folder, is refused by --out's own type: hanadealer.args.named)
    return writable_dir(path, "--out")


def _deck(args) -> int:
    import cv2
    from datasets import deck
    from dealer.cards import all_cards
    try:
        if args.height < 16 or args.height > 4000:
            raise ValueError(f"--height must be from 16 to 4000 pixels, not {args.height}")
        if args.dpi < 72 or args.dpi > 1200:
            raise ValueError(f"--dpi must be from 72 to 1200, not {args.dpi}")
        out = _writable_dir(args.out)
    except ValueError as exc:
        return _fail("deck", str(exc))
    keys = [c.id for c in all_cards()] + list(deck.BACKS)
    try:
        for key in keys:
            write_png(out / f"{key}.png", deck.render_card(key, args.height))
        sheets = write_print_sheets(keys, out, args.dpi)
    except OSError as exc:
        return _fail("deck", str(exc))
    print(json.dumps({"out": str(out), "cards": len(keys), "sheets": [p.name for p in sheets], "dpi": args.dpi}))
    return 0


def write_print_sheets(keys, out: Path, dpi: int) -> list[Path]:
    """A4 pages at ``dpi`` with the cards at a real hanafuda card's size (54 mm tall, about 33.5 mm
    wide; they were printed at 54 x 87 mm, the drawing's units, half again as large as a real card),
    20 to a page, with cut marks; each PNG says its resolution, so it prints at that size at 100%.
    The backs are printed once each at the end, for gluing behind faces."""
    import cv2
    import numpy as np
    from datasets import deck
    px = dpi / 25.4
    page_w, page_h = int(round(A4_MM[0] * px)), int(round(A4_MM[1] * px))
    card_h = int(round(deck.PRINT_HEIGHT_MM * px))
    card_w = deck.card_width(card_h)
    gap = int(round(4 * px))
    cols, rows = 5, 4
    x0 = (page_w - cols * card_w - (cols - 1) * gap) // 2
    y0 = (page_h - rows * card_h - (rows - 1) * gap) // 2
    paths = []
    for page, start in enumerate(range(0, len(keys), cols * rows), 1):
        sheet = np.full((page_h, page_w, 3), 255, np.uint8)
        for k, key in enumerate(keys[start:start + cols * rows]):
            r, c = divmod(k, cols)
            x, y = x0 + c * (card_w + gap), y0 + r * (card_h + gap)
            sheet[y:y + card_h, x:x + card_w] = deck.render_card(key, card_h)
            for (cx, cy) in [(x, y), (x + card_w, y), (x, y + card_h), (x + card_w, y + card_h)]:
                m = int(round(2 * px))
                cv2.line(sheet, (cx - m, cy), (cx + m, cy), (160, 160, 160), 1)
                cv2.line(sheet, (cx, cy - m), (cx, cy + m), (160, 160, 160), 1)
        cv2.putText(sheet, f"hanadealer demo deck  page {page}  print at 100% on A4", (x0, page_h - int(8 * px)),
                    cv2.FONT_HERSHEY_SIMPLEX, dpi / 300, (120, 120, 120), max(1, dpi // 150), cv2.LINE_AA)
        path = out / f"print-a4-{page}.png"
        write_png(path, sheet, dpi=dpi)
        paths.append(path)
    return paths


def write_png(path: Path, image, dpi: int | None = None) -> None:
    """Write ``image`` as a PNG (saying its resolution, ``dpi``, where given); OSError naming the file
    when it was not written (a full disk, a folder of that name, no permission)."""
    import cv2
    try:
        ok, buf = cv2.imencode(".png", image)
    except cv2.error as exc:
        raise OSError(f"{path}: could not be written ({str(exc).strip().splitlines()[-1]})") from None
    if not ok:
        raise OSError(f"{path}: could not be written (the picture cannot be a PNG)")
    data = buf.tobytes() if dpi is None else png_with_dpi(buf.tobytes(), dpi)
    # written whole under another name, then named: a full disk left a cut PNG named as a card
    part = Path(path).with_name(Path(path).name + ".part")
    try:
        part.write_bytes(data)
        os.replace(part, path)
    except OSError as exc:
        try:
            part.unlink(missing_ok=True)
        except OSError:  # (a folder of that name: the error said is the write's)
            pass
        raise OSError(f"{path}: could not be written ({exc.strerror or exc})") from None


def png_with_dpi(png: bytes, dpi: int) -> bytes:
    """The PNG with a pHYs chunk saying ``dpi`` (in pixels a metre), just after its header: printed at
    100%, a page is then its real size (without it a program guesses, often 72 or 96 dpi)."""
    import struct
    import zlib
    per_metre = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_header = 8 + 8 + 13 + 4  # signature, IHDR's length and type, its 13 bytes, its CRC
    return png[:end_of_header] + chunk + png[end_of_header:]


def _config_from(args):
    from datasets.scenes import SceneConfig, clean_config
    kwargs = {"size": _size(args.size), "layout": args.layout, "max_cards": args.max_cards,
              "min_cards": 1}
    if args.surfaces:
        kwargs["surfaces"] = tuple(s.strip() for s in args.surfaces.split(",") if s.strip())
    if args.shared:
        kwargs["shared"] = args.shared
    if args.foreign_cards:
        kwargs["foreign_cards"] = True
    return clean_config(**kwargs) if args.clean else SceneConfig(**kwargs)


def check_named_shared(shared) -> None:
    """A shared folder named (by option or HANADEALER_SHARED) is the one meant, whether the run uses it
    or not: FileNotFoundError where it is not there (a typo was passed over for the demo art)."""
    from datasets.shared import shared_dir
    if shared is not None or os.environ.get("HANADEALER_SHARED"):
        shared_dir(shared)


def _check_shared_for(args) -> None:
    """Refuse, before any scene, the options whose art is in ../shared where it is absent: found only
    when a scene first asked for it, the run failed part way or not at all, by the seed and count."""
    from datasets.art import FOREIGN_DECKS
    from datasets.shared import shared_dir
    check_named_shared(args.shared)
    surfaces = {s.strip() for s in (args.surfaces or "").split(",")}
    needs = [what for what, asked in (("--foreign-cards (western and kabufuda card art)", args.foreign_cards),
                                      ("the ukiyoe surface (the prints of ../shared/backgrounds)", "ukiyoe" in surfaces))
             if asked]
    if needs and shared_dir(args.shared) is None:
        raise FileNotFoundError(f"{' and '.join(needs)} need{'s' if len(needs) == 1 else ''} the shared data "
                                f"folder (../shared, HANADEALER_SHARED or --shared), which is not present")
    # (a shared folder without that art failed once a scene asked for it: a partial run, unsaid)
    root = shared_dir(args.shared)
    if args.foreign_cards and not any(any((root / folder).glob("*.png")) for folder, _ in FOREIGN_DECKS.values()):
        raise FileNotFoundError(f"--foreign-cards needs the card images of {root / 'cardart-western'} or "
                                f"{root / 'cardart-kabufuda'}, and there are none")
    if "ukiyoe" in surfaces and not any((root / "backgrounds").glob("*.jpg")):
        raise FileNotFoundError(f"the ukiyoe surface needs the prints of {root / 'backgrounds'} (*.jpg), and there "
                                f"are none")


RUN_FOLDERS = ("images", "labels", "crops")
RUN_FILES = ("dataset.json", "annotations.json", "data.yaml")
# the files a run writes in its folders (scene NNNNNN's picture, labels and crops, the crops' table):
# only these are removed by --overwrite (a whole folder went, with a user's own files in it)
RUN_FILE_NAMES = {"images": re.compile(r"[0-9]{6}\.jpg"), "labels": re.compile(r"[0-9]{6}\.(json|txt)"),
                  "crops": re.compile(r"[0-9]{6}_[0-9]{2,}\.png|labels\.csv")}


def _clear_earlier_run(out: Path, overwrite: bool) -> None:
    """Scenes of an earlier run in ``out`` are refused, or with ``overwrite`` removed first: written
    over, a smaller run left the earlier run's other images, its crops and its annotations.json,
    which no longer matched the images (a training job read them together)."""
    # a part of the run that is there as the wrong kind (a file named images, a folder named
    # dataset.json) is said now, before anything is cleared: found at the first write, it stopped the
    # run after the earlier one was removed
    # (a link that leads nowhere is there too: os.path.lexists)
    wrong = [f"{name} is not a folder" for name in RUN_FOLDERS if os.path.lexists(out / name) and not (out / name).is_dir()]
    wrong += [f"{name} is not a file" for name in RUN_FILES if os.path.lexists(out / name) and not (out / name).is_file()]
    if wrong:
        raise ValueError(f"--out {out}: {', '.join(wrong)}, where the run writes one: move it, or choose "
                         f"another folder")
    written = {name: [f for f in (out / name).iterdir() if RUN_FILE_NAMES[name].fullmatch(f.name) and f.is_file()]
               for name in RUN_FOLDERS if (out / name).is_dir()}
    # something else in a folder a run writes to is refused, --overwrite or not: the scenes would be
    # mixed with it (a training job reads the folder whole), and it was removed with them
    foreign = sorted(f"{name}/{f.name}" for name in written for f in (out / name).iterdir()
                     if f not in written[name] and not f.name.startswith("."))  # (.DS_Store: a file manager's)
    if foreign:
        raise ValueError(f"--out {out}: {foreign[0]}{f' (and {len(foreign) - 1} more)' if len(foreign) > 1 else ''} "
                         f"is not of a synth run: choose a folder whose images/, labels/ and crops/ hold only scenes")
    found = [name for name in RUN_FOLDERS if written.get(name)]
    found += [name for name in RUN_FILES if (out / name).is_file()]
    if not found:
        return
    if not overwrite:
        raise ValueError(f"--out {out} holds the scenes of an earlier run ({', '.join(found)}): choose an "
                         f"empty folder, or give --overwrite to replace them")
    for name in found:
        if name in RUN_FOLDERS:
            for f in written[name]:
                f.unlink()
            if not any((out / name).iterdir()):  # (a hidden file of a file manager's stays, and its folder)
                (out / name).rmdir()
        else:
            (out / name).unlink()


def _synth(args) -> int:
    from datasets.art import ArtError, load_art
    from datasets.export import generate
    from datasets.scenes import SceneError
    stage = "check"  # (then "clear" the earlier run, then "write" this one: an error said as of its stage)
    try:
        if args.workers < 1 or args.workers > 64:
            raise ValueError(f"--workers must be from 1 to 64, not {args.workers}")
        if args.clean and args.foreign_cards:
            # (the foreign cards are distractors, which --clean leaves out: the run drew none, unsaid)
            raise ValueError("--foreign-cards lays other decks' cards as distractors, which --clean leaves out: "
                             "give one of them")
        config = _config_from(args)
        _check_shared_for(args)
        # (an export meant for training that holds the benchmark's own scenes, or the art it holds out,
        # makes every figure measured after it a figure of the training data: said, not refused, as a
        # look at those scenes is fair)
        from datasets.splits import EVAL_SEED_BASE, HELD_OUT_ART
        held = [f"seeds from {EVAL_SEED_BASE} render the evaluation splits"] if args.seed >= EVAL_SEED_BASE else []
        held += [f"{HELD_OUT_ART} is the art training never sees"] if HELD_OUT_ART in args.art else []
        for name in dict.fromkeys(args.art):  # (each read, or refused, before --out is made or cleared:
            load_art(name, shared=args.shared)  # --overwrite with a misspelt set deleted the run before)
        out = _writable_dir(args.out)
        stage = "clear"
        _clear_earlier_run(out, args.overwrite)
        stage = "write"
        if held:  # (once every check has passed: said before a refusal, it read as the run's outcome)
            print(f"hanadealer synth: warning: {' and '.join(held)}: do not train on these scenes", file=sys.stderr)
        t0 = time.perf_counter()
        summary = generate(args.art, args.count, args.seed, out, fmt=args.fmt, crops=args.crops, config=config,
                           shared=args.shared, workers=args.workers)
    except (ArtError, SceneError, ValueError, FileNotFoundError) as exc:
        return _fail("synth", str(exc))
    except OSError as exc:  # a write inside --out (a full disk, a folder where a file goes)
        if stage == "check":
            return _fail("synth", f"--out {args.out} cannot be used: {exc}")
        if stage == "clear":  # (nothing of this run was written)
            return _fail("synth", f"cannot clear the earlier run in {args.out}: {exc}")
        return _fail("synth", f"cannot write the scenes: {exc} (the scenes written so far are left in "
                              f"{args.out}, without dataset.json: give --overwrite to write the run again)")
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    print(json.dumps(summary))
    return 0


def _bench_chunk(job):
    from datasets.export import _WORKER_STATE, render_encoded
    from datasets.scenes import scene_rng
    start, stop = job
    arts, config = _WORKER_STATE["arts"], _WORKER_STATE["config"]
    n_bytes = n_cards = 0
    cpu0 = time.process_time()
    for i in range(start, stop):
        data, _img, labels = render_encoded(scene_rng(12345, i), arts, config, decode=False)
        n_bytes += len(data)
        n_cards += len(labels["cards"])
    return stop - start, n_bytes, n_cards, time.process_time() - cpu0


def _bench(args) -> int:
    from datasets.art import ArtError, load_art
    from datasets.export import _WORKER_STATE
    from datasets.scenes import SceneConfig, SceneError
    try:
        config = SceneConfig(size=_size(args.size), max_cards=args.max_cards)
        check_named_shared(args.shared)
        arts = [load_art(args.art, shared=args.shared)]
    except (ArtError, SceneError, ValueError, FileNotFoundError) as exc:
        return _fail("bench-synth", str(exc))
    from datasets.scenes import warm_caches
    if args.workers == 1:
        _WORKER_STATE.update(arts=arts, config=config)
        warm_caches(config)
        _bench_chunk((10 ** 6, 10 ** 6 + 4))
    chunk = 10
    jobs = [(i, min(i + chunk, args.count)) for i in range(0, args.count, chunk)]
    t0 = time.perf_counter()
    if args.workers > 1:
        from datasets.export import worker_pool
        with worker_pool(args.workers, [args.art], args.shared, 300, config) as pool:
            t0 = time.perf_counter()
            results = pool.map(_bench_chunk, jobs, chunksize=1)
            dt = time.perf_counter() - t0
    else:
        results = [_bench_chunk(j) for j in jobs]
        dt = time.perf_counter() - t0
    n = sum(r[0] for r in results)
    cpu_ms = 1000 * sum(r[3] for r in results) / n
    print(json.dumps({"scenes": n, "seconds": round(dt, 3), "scenes_per_s": round(n / dt, 1),
                      "ms_per_scene_per_worker": round(1000 * dt * args.workers / n, 1),
                      # CPU time is what the scenes cost whatever else the machine runs: the rate that
                      # two otherwise idle cores reach is 2000 / cpu_ms_per_scene.
                      "cpu_ms_per_scene": round(cpu_ms, 1),
                      "scenes_per_s_on_2_idle_cores": round(2000 / cpu_ms, 1),
                      "load_average": [round(v, 2) for v in os.getloadavg()],
                      "workers": args.workers, "cpu_count": os.cpu_count(), "size": list(config.size),
                      "max_cards": args.max_cards, "cards_per_scene": round(sum(r[2] for r in results) / n, 2),
                      "jpeg_kb_per_scene": round(sum(r[1] for r in results) / n / 1024, 1),
                      "art": args.art, "includes": "render + JPEG encode, no disk"}))
    return 0
