"""Synthetic webcam views of a table of western playing cards (Kakeya Toranpu), exactly labelled.

The hanafuda scene generator (datasets.scenes) is built around the 48 hanafuda ids and their 54 x 87 mm
size; this one lays 63 x 88 mm western cards and borrows everything else from it: the virtual camera,
the table surfaces, the distractors (chips, coins, paper, boxes, hands), the light and the camera's
flaws. Hanafuda cards of the project's demo deck lie about too, as things that are *not* western cards.

Labels: ``{"width", "height", "layout", "conditions", "cards": [{"card", "face", "quad", "visible"}],
"distractors": [{"kind", "quad"}]}``: ``quad`` from the card's own top-left corner, clockwise, in
image pixels; ``face`` is the western id or ``"back"`` (then ``card`` is None).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from dealer.western import get_western_card, western_ids
from datasets import scenes
from datasets.scenes import SceneConfig, SceneError
from datasets.western_deck import BACK, CARD_MM, card_width, western_demo_deck

CARD_W, CARD_H = CARD_MM
WESTERN_ART_SETS = ("demo", "shared")      # the project's own deck; ../shared/cardart-western
LAYOUTS = ("rows", "scatter")


def western_classes() -> tuple[str, ...]:
    """The western classifier's classes: the 52 ids, ``back`` and ``none`` (not a western card)."""
    return (*western_ids(), "back", "none")


def class_index(face: str) -> int:
    return _CLASS_INDEX[face]


_CLASS_INDEX = {c: i for i, c in enumerate(western_classes())}


def training_art(shared=None) -> list[dict[str, np.ndarray]]:
    """The art training uses: the demo deck, and ../shared/cardart-western where ``shared`` is given."""
    return [load_western_art("demo")] + ([load_western_art("shared", shared)] if shared is not None else [])


def load_western_art(name: str, shared: str | os.PathLike | None = None, height: int = 300) -> dict[str, np.ndarray]:
    """Card id (and ``"back-western"``) -> BGR card image ``height`` tall, 63:88. ``"demo"``: the
    project's own deck; ``"shared"``: the 52 cards of ``<shared>/cardart-western`` (read at run time,
    never stored), with the demo deck's back (the folder has no back)."""
    if name not in WESTERN_ART_SETS:
        raise SceneError(f"unknown western art set {name!r}: choose one of {', '.join(WESTERN_ART_SETS)}")
    if name == "demo":
        return dict(_demo(int(height)))
    from datasets.art import _shared_root
    return dict(_shared(str(_shared_root(shared)), int(height)))


@lru_cache(maxsize=4)
def _demo(height: int):
    return tuple(western_demo_deck(height).items())


@lru_cache(maxsize=4)
def _shared(root: str, height: int):
    folder = Path(root) / "cardart-western"
    missing = [cid for cid in western_ids() if not (folder / f"{cid}.png").is_file()]
    if missing:
        raise SceneError(f"{folder} lacks {len(missing)} western card(s): {', '.join(missing[:5])}")
    out = []
    for cid in western_ids():
        img = cv2.imread(str(folder / f"{cid}.png"), cv2.IMREAD_COLOR)
        if img is None:
            raise SceneError(f"cannot read {folder / f'{cid}.png'} as an image")
        img = cv2.resize(img, (card_width(height), height), interpolation=cv2.INTER_AREA)
        img.setflags(write=False)
        out.append((cid, img))
    out.append((BACK, dict(_demo(height))[BACK]))
    return tuple(out)


@dataclass(frozen=True)
class WesternPlacement:
    """One card for ``render_western_layout``: centre in table mm (x right, y away from the camera),
    ``angle`` in degrees counter-clockwise (0: upright for the camera; 180: upside down)."""
    card: str
    x: float
    y: float
    angle: float = 0.0
    face_up: bool = True


def render_western_scene(rng: np.random.Generator, art, config: SceneConfig | None = None,
                         hanafuda_distractors: float = 0.5) -> tuple[np.ndarray, dict]:
    """A random table: the cards in rows (the dealer's and the players' hands) or scattered."""
    cfg = config or SceneConfig()
    layout = cfg.layout if cfg.layout in LAYOUTS else LAYOUTS[int(rng.random() < 0.35)]
    placed = _layout(rng, layout, cfg, touching="touching" in cfg.conditions and rng.random() < 0.3)
    return _render(rng, art, cfg, placed, layout, hanafuda_distractors)


def render_western_layout(rng: np.random.Generator, art, placements, config: SceneConfig | None = None,
                          hanafuda_distractors: float = 0.0) -> tuple[np.ndarray, dict]:
    """The given cards where the caller puts them; camera, light and surface from ``config`` and ``rng``."""
    placements = list(placements)
    if not placements:
        raise SceneError("render_western_layout needs at least one placement")
    if len({p.card for p in placements}) != len(placements):
        raise SceneError("a card is placed twice: a deck has one of each")
    for p in placements:
        get_western_card(p.card)
    placed = [scenes._Placed(p.card, p.face_up, (float(p.x), float(p.y)), float(p.angle)) for p in placements]
    return _render(rng, art, config or SceneConfig(), placed, "given", hanafuda_distractors)


def _layout(rng, kind: str, cfg: SceneConfig, touching: bool) -> list:
    ids = [str(x) for x in rng.permutation(list(western_ids()))]
    n = int(rng.integers(cfg.min_cards, cfg.max_cards + 1))
    upside = lambda: 180.0 if rng.random() < 0.5 else 0.0  # noqa: E731 (a card is dealt either way up)
    placed = []
    if kind == "rows":
        per_row = int(rng.integers(2, 6))
        gap_x = rng.uniform(0.2, 2.0) if touching else rng.uniform(4, 30)
        gap_y = rng.uniform(1, 4) if touching else rng.uniform(10, 45)
        rows = (n + per_row - 1) // per_row
        for i in range(n):
            r, c = divmod(i, per_row)
            x = (c - (per_row - 1) / 2) * (CARD_W + gap_x) + rng.normal(0, 1.0)
            y = ((rows - 1) / 2 - r) * (CARD_H + gap_y) + rng.normal(0, 1.0)
            placed.append(scenes._Placed(ids.pop(), rng.random() >= cfg.face_down, (x, y),
                                         upside() + rng.normal(0, 3.0)))
    else:
        spread = math.sqrt(n) * 80 + 60
        centres: list[np.ndarray] = []
        for _ in range(n):
            for _try in range(30):  # apart from the others, or just touching when asked
                c = rng.uniform(-spread / 2, spread / 2, 2)
                if all(np.linalg.norm(c - o) > (70 if touching else 105) for o in centres):
                    break
            centres.append(c)
            placed.append(scenes._Placed(ids.pop(), rng.random() >= cfg.face_down, (float(c[0]), float(c[1])),
                                         float(rng.uniform(0, 360))))
    return placed


def _corners(p, z: float) -> np.ndarray:
    """Table mm of the card's own TL, TR, BR, BL corners at height ``z``."""
    a = np.deg2rad(p.angle)
    ca, sa = math.cos(a), math.sin(a)
    local = np.array([[-CARD_W / 2, CARD_H / 2], [CARD_W / 2, CARD_H / 2], [CARD_W / 2, -CARD_H / 2],
                      [-CARD_W / 2, -CARD_H / 2]])
    return np.hstack([local @ np.array([[ca, sa], [-sa, ca]]) + np.array(p.centre), np.full((4, 1), z)])


@lru_cache(maxsize=16)
def _hanafuda(height: int):
    from datasets.deck import demo_deck
    return tuple(demo_deck(height).values())


def _render(rng, art, cfg: SceneConfig, placed: list, layout: str, hanafuda_distractors: float):
    if not isinstance(rng, np.random.Generator):
        raise SceneError("rng must be a numpy Generator (numpy.random.default_rng(seed))")
    arts = [art] if isinstance(art, dict) else list(art)
    needed = list(western_ids()) + [BACK]
    for a in arts:
        if not isinstance(a, dict) or any(k not in a for k in needed):
            raise SceneError("art must be a dict of western id (and 'back-western') -> image, or a list of them")
    cards = arts[int(rng.integers(len(arts)))]
    w, h = cfg.size
    flags = {c: (c in cfg.conditions and (rng.random() < scenes.PROBABILITY[c] or c in cfg.always))
             for c in scenes.CONDITIONS}

    def on(c):
        return flags[c]

    cam = scenes._camera(rng, placed, (w, h), cfg, on)
    # the table, as datasets.scenes draws it: a surface texture on the table plane through the camera
    surface_kind, tex, mm_per_px = scenes._surface(rng, cfg)
    tex_to_table = np.array([[mm_per_px, 0, -rng.uniform(0, 300)], [0, -mm_per_px, rng.uniform(0, 300)], [0, 0, 1]])
    a = rng.uniform(0, 2 * np.pi)
    rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    H = cam.plane @ rot @ tex_to_table
    level = scenes._texture_level(H, w, h, tex)
    img = cv2.warpPerspective(scenes._texture_pyramid(tex)[level], H @ np.diag([2.0 ** level, 2.0 ** level, 1.0]),
                              (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    img = cv2.multiply(img, (*rng.uniform(0.8, 1.2, 3), 0.0))
    lens_k = float(rng.choice(scenes._LENS_KS)) if on("lens") else 0.0
    raster = scenes._Raster((w, h), lens_k=lens_k)
    shadow_on = on("shadow")
    light_dir = rng.normal(0, 1, 2)
    shadow_off = light_dir / (np.linalg.norm(light_dir) + 1e-9) * rng.uniform(1.0, 3.0)
    objs = scenes._Objects(rng, cam, img, raster, shadow_on, shadow_off)
    if on("distractors"):
        for _ in range(int(rng.integers(1, 4))):
            objs.random_under()
    if rng.random() < hanafuda_distractors:
        # hanafuda cards lying about: card-shaped, and not western cards
        deck = _hanafuda(200)
        for _ in range(int(rng.integers(1, 4))):
            objs.flat_card("hanafuda-card", deck[int(rng.integers(len(deck)))], (54.0, 87.0))

    quads = []
    for i, p in enumerate(placed):
        tex_card = cards[p.card if p.face_up else BACK]
        corners = _corners(p, scenes.CARD_THICKNESS_MM * 0.4)   # a plastic-coated card is thin
        quad = cam.project(corners)
        if shadow_on:
            sh = corners.copy()
            sh[:, :2] += shadow_off
            sh[:, 2] = 0
            scenes._shadow(img, cam.project(sh), rng.uniform(0.25, 0.5), max(1.0, scenes._px_per_mm(quad)))
        card_px = float(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])))
        mip = scenes._mip(tex_card, card_px, CARD_W)
        mh, mw = mip.shape[:2]
        tone = float(rng.uniform(0.88, 1.06)) if on("light") else 1.0
        scenes._paste(img, mip, np.array([[0, 0], [mw, 0], [mw, mh], [0, mh]], np.float32), quad, shade=tone)
        if on("glare") and rng.random() < 0.4:
            scenes._glare(img, quad, rng)
        raster.paint(quad, i)
        quads.append(quad)
    if on("distractors"):
        for _ in range(int(rng.integers(0, 3))):
            objs.random_over()
    if on("hands"):
        objs.hand()

    img = scenes._light(img, rng, on)
    if on("motion_blur"):
        img = scenes._motion_blur(img, rng)
    if on("focus_blur"):
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.6, 1.8))
    if lens_k:
        img = cv2.remap(img, *scenes._lens_maps(w, h, lens_k), interpolation=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REFLECT)
    if on("noise"):
        sigma = rng.uniform(0.03, 0.15) * (1.8 if on("low_light") else 1.0)
        img = cv2.addWeighted(img, 1.0, scenes._noise_patch(rng, w, h), sigma, -128 * sigma)
    quality = int(rng.integers(cfg.jpeg_quality[0], cfg.jpeg_quality[1] + 1)) if on("jpeg") else 0

    counts = raster.visible(len(placed))
    out_cards = []
    for i, (p, quad) in enumerate(zip(placed, quads)):
        if lens_k:
            quad = scenes._lens_forward(quad, w, h, lens_k)
        if scenes._inside_fraction(quad, w, h) <= 0:
            continue
        area = scenes._painted_area(raster, quad)
        out_cards.append({"card": p.card if p.face_up else None, "face": p.card if p.face_up else "back",
                          "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in quad],
                          "visible": round(float(np.clip(counts[i] / area, 0, 1)) if area > 0 else 0.0, 3)})
    distractors = []
    for kind, quad in objs.flat:
        if lens_k:
            quad = scenes._lens_forward(quad, w, h, lens_k)
        if scenes._inside_fraction(quad, w, h) > 0:
            distractors.append({"kind": kind, "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in quad]})
    labels = {"width": w, "height": h, "layout": layout, "surface": surface_kind,
              "conditions": sorted(c for c, v in flags.items() if v), "cards": out_cards,
              "distractors": distractors}
    return scenes._jpeg_round_trip(img, quality), labels
