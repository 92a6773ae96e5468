"""Render the README's contact sheet from the demo deck only: ``python -m datasets.contact_sheet OUT.jpg``.

Three rows of scenes as the models see them, one row with their labels drawn (quad, own top-left corner
as a dot, face-down cards in magenta), and a strip of classifier crops with hard negatives."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from datasets.art import load_art
from datasets.crops import iter_crops
from datasets.scenes import SceneConfig, render_scene, scene_rng

SEED = 2026


def draw_labels(image: np.ndarray, labels: dict) -> np.ndarray:
    out = image.copy()
    for c in labels["cards"]:
        q = np.round(np.asarray(c["quad"]) * 4).astype(np.int32)
        colour = (60, 230, 60) if c["face_up"] else (230, 60, 230)
        cv2.polylines(out, [q], True, colour, 3, cv2.LINE_AA, 2)
        tl = tuple(int(v) for v in np.asarray(c["quad"][0]).round())
        cv2.circle(out, tl, 7, (40, 40, 240), -1, cv2.LINE_AA)
        cv2.putText(out, f"{c['face']} {c['visible']:.2f}", (tl[0] + 8, tl[1] - 6), cv2.FONT_HERSHEY_SIMPLEX,
                    0.7, (255, 255, 255), 3, cv2.LINE_AA)
        cv2.putText(out, f"{c['face']} {c['visible']:.2f}", (tl[0] + 8, tl[1] - 6), cv2.FONT_HERSHEY_SIMPLEX,
                    0.7, (20, 20, 20), 1, cv2.LINE_AA)
    return out


def contact_sheet(cols: int = 4, rows: int = 4, tile=(480, 270)) -> np.ndarray:
    art = load_art("demo")
    config = SceneConfig()
    tiles = []
    for i in range(cols * rows):
        image, labels = render_scene(scene_rng(SEED, i), art, config)
        if i >= cols * (rows - 1):
            image = draw_labels(image, labels)
        tiles.append(cv2.resize(image, tile, interpolation=cv2.INTER_AREA))
    sheet = np.vstack([np.hstack(tiles[r * cols:(r + 1) * cols]) for r in range(rows)])
    n = sheet.shape[1] // 64
    crops, crop_labels = iter_crops(np.random.default_rng(SEED), art, n, config)
    strip = np.hstack(list(crops))
    for k, lab in enumerate(crop_labels):
        if lab["face"] == "none":
            cv2.rectangle(strip, (k * 64, 0), (k * 64 + 63, 95), (40, 40, 240), 2)
    strip = cv2.copyMakeBorder(strip, 0, 0, 0, sheet.shape[1] - strip.shape[1], cv2.BORDER_CONSTANT, value=0)
    return np.vstack([sheet, strip])


def deck_sheet(height: int = 174) -> np.ndarray:
    """All 50 demo cards, a month to a row (the paulownia row also holds the two backs)."""
    from datasets import deck
    from dealer.cards import all_cards
    gap = 6
    w = deck.card_width(height)
    rows = []
    for month in range(1, 13):
        keys = [c.id for c in all_cards() if c.month == month] + (list(deck.BACKS) if month == 12 else [])
        slots = 4 if month <= 6 else 6
        row = np.full((height + 2 * gap, slots * (w + gap) + gap, 3), 245, np.uint8)
        for k, key in enumerate(keys):
            row[gap:gap + height, gap + k * (w + gap):gap + k * (w + gap) + w] = deck.render_card(key, height)
        rows.append(row)
    return np.vstack([np.hstack([rows[i], rows[i + 6]]) for i in range(6)])   # months 1-6 | 7-12


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m datasets.contact_sheet",
                                     description="A contact sheet of the scene kinds, or of the demo deck (--deck).")
    parser.add_argument("out", help="the picture to write (.jpg or .png)")
    parser.add_argument("--deck", action="store_true", help="the demo deck's 48 cards and backs instead")
    args = parser.parse_args(argv)
    if Path(args.out).suffix.lower() not in (".jpg", ".jpeg", ".png"):
        # (checked first: the sheet takes a while to render, and OpenCV then refused the name)
        parser.error(f"the picture to write is a .jpg or .png file, not {args.out!r}")
    folder = Path(args.out).parent
    if not folder.is_dir():  # (found after the seconds of rendering, with no reason given)
        parser.error(f"the folder of {args.out!r} " + ("is a file" if folder.exists() else "does not exist"))
    sheet, quality = (deck_sheet(), 88) if args.deck else (contact_sheet(), 85)
    if not cv2.imwrite(args.out, sheet, [cv2.IMWRITE_JPEG_QUALITY, quality]):
        print(f"could not write {args.out}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
