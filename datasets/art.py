"""Card art sets: the six styles in ``../shared/cardart`` and the project's own ``demo`` deck.

``load_art`` returns every card as a physical card looks: the framed sets as they are (resized to the
card's 54 x 87 proportions), the unframed sets on cream card stock inside a black frame, and the two
plain backs, so the scene generator can treat every set alike.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from dealer.cards import card_ids
from datasets import deck
from datasets.shared import shared_dir

SHARED_ART_SETS = ("mantia-traditional", "mantia-modern", "nintendo-scan", "grey-ink", "pastel-unframed",
                   "dark-unframed")
ART_SETS = SHARED_ART_SETS + ("demo",)
UNFRAMED_SETS = ("pastel-unframed", "dark-unframed")
DEFAULT_HEIGHT = 300


class ArtError(ValueError):
    """An art set that is unknown, missing or incomplete."""


def load_art(name: str, shared: str | os.PathLike | None = None, height: int = DEFAULT_HEIGHT,
             ) -> dict[str, np.ndarray]:
    """Card id (and ``back-black``/``back-red``) -> BGR uint8 card image ``height`` pixels tall.

    ``name`` is one of ART_SETS. The shared sets are read from ``<shared>/cardart/<name>/`` (``shared``
    defaults to ``../shared``, see datasets.shared). Images are read-only and cached per process.
    """
    if name not in ART_SETS:
        raise ArtError(f"unknown art set {name!r}: choose one of {', '.join(ART_SETS)}")
    if not isinstance(height, (int, np.integer)) or height < 16:
        raise ArtError(f"art height must be an integer of at least 16 pixels, not {height!r}")
    if name == "demo":
        return dict(_demo(int(height)))
    root = _shared_root(shared)
    return dict(_load_shared(name, str(root), int(height)))


def _shared_root(shared) -> Path:
    if shared is not None:
        # An explicit folder must be the one used: never fall back to another silently.
        if not (Path(shared) / "cards.csv").is_file():
            raise ArtError(f"no shared data folder at {shared} (it must hold cards.csv)")
        return Path(shared).resolve()
    try:
        root = shared_dir(shared)
    except FileNotFoundError as exc:
        raise ArtError(str(exc)) from None
    if root is None:
        raise ArtError("the shared data folder (../shared, or $HANADEALER_SHARED) is not present; "
                       "the demo art set needs none: use --art demo")
    return root


def background_paths(shared: str | os.PathLike | None = None) -> list[Path]:
    """The ukiyo-e prints of ``<shared>/backgrounds`` (hard, card-like table surfaces)."""
    return sorted((_shared_root(shared) / "backgrounds").glob("*.jpg"))


@lru_cache(maxsize=8)
def _demo(height: int) -> tuple[tuple[str, np.ndarray], ...]:
    return tuple((k, _frozen(v)) for k, v in deck.demo_deck(height).items())


@lru_cache(maxsize=16)
def _load_shared(name: str, root: str, height: int) -> tuple[tuple[str, np.ndarray], ...]:
    folder = Path(root) / "cardart" / name
    if not folder.is_dir():
        raise ArtError(f"art set {name!r} is missing: no folder {folder}")
    missing = [cid for cid in card_ids() if not (folder / f"{cid}.png").is_file()]
    if missing:
        raise ArtError(f"art set {name!r} in {folder} lacks {len(missing)} card(s): {', '.join(missing[:5])}")
    width = deck.card_width(height)
    out = []
    for cid in card_ids():
        img = cv2.imread(str(folder / f"{cid}.png"), cv2.IMREAD_COLOR)
        if img is None:
            raise ArtError(f"cannot read {folder / f'{cid}.png'} as an image")
        if name in UNFRAMED_SETS:
            img = _frame_unframed(img, height)
        else:
            img = cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)
        out.append((cid, _frozen(img)))
    for back in deck.BACKS:
        out.append((back, _frozen(deck.render_card(back, height))))
    return tuple(out)


def _frame_unframed(art: np.ndarray, height: int) -> np.ndarray:
    """Art alone -> a card: black frame, a thin margin of card stock, the art fitted inside."""
    width = deck.card_width(height)
    card = np.empty((height, width, 3), np.uint8)
    card[:] = deck.INK
    frame = max(2, int(round(height * deck.FRAME_MM / deck.CARD_MM[1])))
    margin = max(1, int(round(height * 0.8 / deck.CARD_MM[1])))
    inner_w, inner_h = width - 2 * frame, height - 2 * frame
    card[frame:frame + inner_h, frame:frame + inner_w] = deck.STOCK
    aw, ah = inner_w - 2 * margin, inner_h - 2 * margin
    card[frame + margin:frame + margin + ah, frame + margin:frame + margin + aw] = cv2.resize(
        art, (aw, ah), interpolation=cv2.INTER_AREA)
    return card


def _frozen(img: np.ndarray) -> np.ndarray:
    img = np.ascontiguousarray(img)
    img.setflags(write=False)
    return img
