"""Card crops as the classifier sees them: the detector's quad (a little off, as a detector's is)
warped upright to 64 x 96 with ``vision.geometry.warp_card``, labelled with face, card and orientation,
plus hard negatives labelled ``"none"`` (table, chips, hands, prints, a crop straddling two cards).

``orientation`` is how far the crop is turned from the card standing upright: 0 or 180 degrees (a
detector can tell a card's long side from its short side, but not which end is its top).
"""
from __future__ import annotations

import numpy as np

from dealer.cards import faces
from vision.geometry import CROP_HEIGHT, CROP_WIDTH, rotate_quad, warp_card
from datasets.scenes import SceneConfig, render_scene

NONE = "none"


def crop_classes() -> list[str]:
    """The classifier's classes: the 36 faces, ``back``, and ``none`` (not a card)."""
    return list(faces()) + ["back", NONE]


def _jitter(rng, quad: np.ndarray, amount: float) -> np.ndarray:
    size = np.linalg.norm(quad[0] - quad[2])
    return quad + rng.normal(0, amount * size / 2.0, quad.shape)


def _overlap_with_cards(quad: np.ndarray, card_quads: list[np.ndarray]) -> float:
    import cv2
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if area <= 0:
        return 1.0
    best = 0.0
    for q in card_quads:
        inter, _ = cv2.intersectConvexConvex(quad.astype(np.float32), q.astype(np.float32))
        best = max(best, inter / area)
    return best


def crops_from_scene(rng: np.random.Generator, image: np.ndarray, labels: dict, jitter: float = 0.03,
                     min_visible: float = 0.7, negatives: int = 2, flip: float = 0.5,
                     ) -> list[tuple[np.ndarray, dict]]:
    """Crops of one rendered scene: each card that is mostly visible and whole in the frame, then
    ``negatives`` not-a-card crops."""
    h, w = image.shape[:2]
    out = []
    quads = [np.asarray(c["quad"], np.float64) for c in labels["cards"]]
    for c, q in zip(labels["cards"], quads):
        if c["visible"] < min_visible or not _inside(q, w, h):
            continue
        turn = 2 if rng.random() < flip else 0
        crop = warp_card(image, rotate_quad(_jitter(rng, q, jitter), turn), CROP_WIDTH, CROP_HEIGHT)
        out.append((crop, {"face": c["face"], "card": c["card"], "orientation": 90 * turn}))
    heights = [np.linalg.norm(q[0] - q[3]) for q in quads] or [h * 0.25]
    things = [np.asarray(d["quad"], np.float64) for d in labels.get("distractors", [])]
    made, tries = 0, 0
    while made < negatives and tries < 30:
        tries += 1
        pick = rng.random()
        if things and pick < 0.3:
            # A card of another deck, a card box, a sheet of paper: card-shaped, not a hanafuda card.
            cand = _jitter(rng, things[int(rng.integers(len(things)))], jitter)
            if not _inside(cand, w, h) or _overlap_with_cards(cand, quads) > 0.2:
                continue
        elif quads and pick < 0.55:
            # Half a card and what lies beside it: the detector's typical false quad.
            k = int(rng.integers(len(quads)))
            q = quads[k]
            along = (q[1] - q[0]) if rng.random() < 0.5 else (q[3] - q[0])
            cand = q + along * rng.uniform(0.4, 0.65) * rng.choice([-1, 1])
            if not _inside(cand, w, h):
                continue
            # (moved by a card's width onto its neighbour, in a hand dealt close, it was a whole card
            # labelled as none)
            others = [p for j, (c, p) in enumerate(zip(labels["cards"], quads)) if j != k and c["visible"] >= 0.5]
            if _overlap_with_cards(cand, others) > 0.6:
                continue
        else:
            ch = float(rng.choice(heights)) * rng.uniform(0.7, 1.3)
            # a card as large as the frame would leave no room to place the negative
            ch = min(ch, h, w * CROP_HEIGHT / CROP_WIDTH)
            cw = ch * CROP_WIDTH / CROP_HEIGHT
            a = rng.uniform(0, 2 * np.pi)
            centre = np.array([rng.uniform(cw / 2, w - cw / 2), rng.uniform(ch / 2, h - ch / 2)])
            rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            local = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]])
            cand = local @ rot.T + centre
            if _overlap_with_cards(cand, quads) > 0.2:
                continue
        out.append((warp_card(image, cand, CROP_WIDTH, CROP_HEIGHT), {"face": NONE, "card": None, "orientation": 0}))
        made += 1
    return out


def _inside(q: np.ndarray, w: int, h: int, margin: float = 1.0) -> bool:
    return bool((q[:, 0] >= -margin).all() and (q[:, 0] <= w + margin).all()
                and (q[:, 1] >= -margin).all() and (q[:, 1] <= h + margin).all())


def iter_crops(rng: np.random.Generator, art, n: int, config: SceneConfig | None = None,
               negative_fraction: float = 0.2, **crop_kwargs) -> tuple[np.ndarray, list[dict]]:
    """``n`` crops (uint8 [n, 96, 64, 3], BGR) and their labels (dicts: face, card, orientation),
    rendered from fresh scenes; about ``negative_fraction`` of them are ``"none"``."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, not {n!r}")
    if not 0.0 <= negative_fraction < 1.0:
        raise ValueError(f"negative_fraction must be within [0, 1), not {negative_fraction}")
    config = config or SceneConfig()
    crops = np.empty((n, CROP_HEIGHT, CROP_WIDTH, 3), np.uint8)
    labels: list[dict] = []
    want_neg = int(round(n * negative_fraction))
    n_neg = 0
    while len(labels) < n:
        image, scene = render_scene(rng, art, config)
        for crop, lab in crops_from_scene(rng, image, scene, negatives=3 if want_neg else 0, **crop_kwargs):
            if lab["face"] == NONE:
                if n_neg >= want_neg:
                    continue
                n_neg += 1
            elif len(labels) - n_neg >= n - want_neg:
                continue
            crops[len(labels)] = crop
            labels.append(lab)
            if len(labels) == n:
                break
    order = rng.permutation(n)
    return crops[order], [labels[i] for i in order]
