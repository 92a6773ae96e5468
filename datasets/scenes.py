"""Synthetic webcam views of a hanafuda table, exactly labelled.

A scene is built on the table plane in millimetres (cards are 54 x 87 mm), seen through a virtual
pinhole camera above and to the side of the table (tilted up to ``SceneConfig.tilt_max_deg`` from
vertical), then degraded the way a webcam degrades it. Everything costly is done on small regions
(each card's bounding box) or with per-process caches (textures, noise, lens maps), so a scene costs a
few tens of milliseconds.

Label format (one JSON object per image, see README "Synthetic scenes"):
``{"width", "height", "art", "layout", "cards": [{"card", "face", "quad", "face_up", "visible", ...}]}``
``quad`` is the card's four corners in image pixels from the card's OWN top-left (as its artwork
stands), clockwise; ``face`` is one of the 36 faces or ``"back"`` (then ``card`` is None and ``back``
names the back); ``visible`` is the fraction of the card's area that is inside the image and not
covered by another card or an object.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from dealer.cards import all_cards, get_card
from datasets import deck

CARD_W, CARD_H = deck.CARD_MM
LAYOUTS = ("rows", "otoroku", "scatter", "pile")
CONDITIONS = ("perspective", "rotation", "lens", "light", "white_balance", "low_light", "glare", "shadow",
              "motion_blur", "focus_blur", "noise", "jpeg", "bend", "touching", "overlap", "outside",
              "distractors", "hands")
SURFACES = ("felt", "wood", "cloth", "paper", "tatami", "ukiyoe")
PROCEDURAL_SURFACES = SURFACES[:-1]
TEXTURE_PX = 768
SURFACE_VARIANTS = 5


CARD_THICKNESS_MM = 0.9
EDGE_COLOUR = (28, 26, 30)


class SceneError(ValueError):
    """A scene configuration or argument that cannot be rendered."""


@dataclass(frozen=True)
class SceneConfig:
    """What scenes to render. Each condition in ``conditions`` is applied to a scene with its own
    probability (``PROBABILITY``); a condition left out never is. ``surfaces`` may include ``"ukiyoe"``
    (the prints of ``../shared/backgrounds``, found through ``shared``)."""
    size: tuple[int, int] = (1280, 720)
    layout: str = "mixed"                     # one of LAYOUTS, or "mixed" (a random one per scene)
    min_cards: int = 1
    max_cards: int = 9
    face_down: float = 0.15                    # chance that a card is face down (besides the layout's own)
    tilt_max_deg: float = 45.0
    conditions: frozenset = frozenset(CONDITIONS)
    surfaces: tuple[str, ...] = PROCEDURAL_SURFACES
    shared: str | None = None
    jpeg_quality: tuple[int, int] = (35, 92)
    always: frozenset = frozenset()            # conditions applied to every scene, not by chance
    foreign_cards: bool = False                # western and kabufuda cards lying about (needs ../shared)

    def __post_init__(self):
        w, h = self.size
        if not (isinstance(w, int) and isinstance(h, int) and 64 <= w <= 8192 and 64 <= h <= 8192):
            raise SceneError(f"scene size must be two integers from 64 to 8192, not {self.size!r}")
        if self.layout not in LAYOUTS + ("mixed",):
            raise SceneError(f"unknown layout {self.layout!r}: choose one of {', '.join(LAYOUTS)} or mixed")
        if not (1 <= self.min_cards <= self.max_cards <= 48):
            raise SceneError(f"card count must satisfy 1 <= min_cards <= max_cards <= 48, "
                             f"not {self.min_cards}..{self.max_cards}")
        unknown = set(self.conditions) - set(CONDITIONS)
        if unknown:
            raise SceneError(f"unknown condition(s) {', '.join(sorted(unknown))}: known are {', '.join(CONDITIONS)}")
        object.__setattr__(self, "conditions", frozenset(self.conditions) | frozenset(self.always))
        object.__setattr__(self, "always", frozenset(self.always))
        unknown = set(self.always) - set(CONDITIONS)
        if unknown:
            raise SceneError(f"unknown condition(s) {', '.join(sorted(unknown))}: known are {', '.join(CONDITIONS)}")
        bad = [s for s in self.surfaces if s not in SURFACES]
        if bad or not self.surfaces:
            raise SceneError(f"unknown or no surface(s) {bad}: choose from {', '.join(SURFACES)}")
        if not 0.0 <= self.tilt_max_deg <= 60.0:
            raise SceneError(f"tilt_max_deg must be within 0..60, not {self.tilt_max_deg}")
        if not 0.0 <= self.face_down <= 1.0:
            raise SceneError(f"face_down is a probability, not {self.face_down}")

    def without(self, *conditions: str) -> "SceneConfig":
        return replace(self, conditions=self.conditions - set(conditions), always=self.always - set(conditions))


# How often a condition that is on shows up in a scene.
PROBABILITY = {"perspective": 0.9, "rotation": 0.7, "lens": 0.6, "light": 0.9, "white_balance": 0.7,
               "low_light": 0.2, "glare": 0.35, "shadow": 0.8, "motion_blur": 0.15, "focus_blur": 0.25,
               "noise": 0.85, "jpeg": 0.8, "bend": 0.3, "touching": 0.3, "overlap": 0.3, "outside": 0.2,
               "distractors": 0.7, "hands": 0.25}


def clean_config(**kwargs) -> SceneConfig:
    """A config with no degradation at all: a straight, sharp, evenly lit view (for tests and checks)."""
    return SceneConfig(conditions=frozenset(), **kwargs)


# --------------------------------------------------------------------------------------- placement

@dataclass
class _Placed:
    card: str            # card id
    face_up: bool
    centre: tuple[float, float]   # table mm
    angle: float         # degrees, counter-clockwise as seen from above; 0 = card upright for the camera
    bend: float = 0.0    # mm the middle of the card rises (negative: it curls at the ends)


def _layout(rng: np.random.Generator, kind: str, n_max: int, n_min: int, cfg: SceneConfig, on) -> list[_Placed]:
    ids = [c.id for c in all_cards()]
    order = [str(x) for x in rng.permutation(ids)]
    placed: list[_Placed] = []
    touching = on("touching")
    overlap = on("overlap")
    if kind == "rows":
        rows = int(rng.choice([2, 3]))
        cols = int(rng.choice([3, 4]))
        gap_x = rng.uniform(-4, 0.5) if overlap else rng.uniform(0, 2) if touching else rng.uniform(4, 25)
        gap_y = rng.uniform(8, 40)
        slots = [(r, c) for r in range(rows) for c in range(cols)]
        n = int(np.clip(rng.integers(n_min, n_max + 1), 1, len(slots)))
        keep = sorted(rng.choice(len(slots), size=n, replace=False))
        for i in keep:
            r, c = slots[i]
            x = (c - (cols - 1) / 2) * (CARD_W + gap_x) + rng.normal(0, 1.5)
            y = ((rows - 1) / 2 - r) * (CARD_H + gap_y) + rng.normal(0, 1.5)
            placed.append(_Placed(order.pop(), True, (x, y), rng.normal(0, 2.5)))
    elif kind == "otoroku":
        n_total = int(rng.integers(max(2, n_min), max(2, n_max) + 1))
        hands = []
        while n_total >= 2:
            k = int(min(n_total, rng.integers(2, 6)))
            hands.append(k)
            n_total -= k
        step = rng.uniform(14, 30) if not touching else CARD_W
        per_row = int(rng.integers(2, 5))          # the bettors' hands in rows, at most four to a row
        n_rows = (len(hands) + per_row - 1) // per_row
        for h, k in enumerate(hands):
            row, col = divmod(h, per_row)
            in_row = min(per_row, len(hands) - row * per_row)
            hx = (col - (in_row - 1) / 2) * (CARD_W + step * 4 + rng.uniform(10, 40))
            hy = ((n_rows - 1) / 2 - row) * (CARD_H + rng.uniform(20, 50)) + rng.normal(0, 8)
            base_angle = rng.normal(0, 6)
            for j in range(k):
                # The first card of each hand is dealt hidden; the rest face up, overlapping.
                placed.append(_Placed(order.pop(), j != 0,
                                      (hx + j * step + rng.normal(0, 1.0), hy + rng.normal(0, 1.5)),
                                      base_angle + rng.normal(0, 2)))
    elif kind == "scatter":
        n = int(rng.integers(n_min, n_max + 1))
        spread = np.sqrt(n) * 75 + 60
        for _ in range(n):
            for _try in range(12):
                x, y = rng.uniform(-spread, spread) * 0.75, rng.uniform(-spread, spread) * 0.5
                if overlap or all(math.hypot(x - p.centre[0], y - p.centre[1]) > 95 for p in placed):
                    break
            placed.append(_Placed(order.pop(), True, (x, y), rng.uniform(0, 360)))
    elif kind == "pile":
        # A draw pile: stacked, face down, a little askew; beside it a row of dealt cards.
        depth = int(rng.integers(2, 6))
        for j in range(depth):
            placed.append(_Placed(order.pop(), False, (-130 + rng.normal(0, 1.5), rng.normal(0, 1.5)),
                                  rng.normal(0, 4)))
        n = int(np.clip(rng.integers(n_min, n_max + 1) - depth, 0, 6))
        for j in range(n):
            placed.append(_Placed(order.pop(), True, (-40 + j * (CARD_W + rng.uniform(3, 15)), rng.normal(0, 4)),
                                  rng.normal(0, 3)))
    else:  # pragma: no cover - validated by SceneConfig
        raise SceneError(kind)
    placed = placed[:n_max]
    for p in placed:
        if rng.random() < cfg.face_down:
            p.face_up = False
        if on("rotation") and rng.random() < 0.25:
            p.angle += 180.0   # a card laid upside down for the camera
        if on("bend") and rng.random() < 0.5:
            p.bend = float(rng.uniform(-3.0, 4.0))
    return placed


# ------------------------------------------------------------------------------------------ camera

@dataclass(frozen=True)
class _Camera:
    """Table mm (x right, y away from the camera, z up) -> image pixels: a 3 x 4 projection."""
    P: np.ndarray

    def project(self, pts: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 3 if np.asarray(pts).shape[-1] == 3 else 2)
        if pts.shape[1] == 2:
            pts = np.hstack([pts, np.zeros((len(pts), 1))])
        h = pts @ self.P[:, :3].T + self.P[:, 3]
        return h[:, :2] / h[:, 2:3]

    @property
    def plane(self) -> np.ndarray:
        """The table plane's homography (z = 0)."""
        return self.P[:, [0, 1, 3]]


def _camera(rng, placed: list[_Placed], size, cfg: SceneConfig, on) -> _Camera:
    w, h = size
    corners = np.concatenate([_card_corners(p)[:, :2] for p in placed])
    lo, hi = corners.min(0), corners.max(0)
    centre = (lo + hi) / 2
    extent = float(max(hi[0] - lo[0], hi[1] - lo[1], 120.0))
    yaw = np.deg2rad(rng.uniform(0, 360) if on("rotation") and rng.random() < 0.5 else rng.normal(0, 4))
    tilt = np.deg2rad(rng.uniform(5, cfg.tilt_max_deg) if on("perspective") else 0.0)
    # A webcam's wide lens is close to the table for its field of view: near cards look larger.
    dist = extent * rng.uniform(0.8, 2.0)
    # World -> camera: yaw the table about the layout's centre, then look down at tilt.
    cy, sy = math.cos(yaw), math.sin(yaw)
    yaw_m = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    st, ct = math.sin(tilt), math.cos(tilt)
    cam_pos = np.array([0.0, -st * dist, ct * dist])
    r = np.array([[1, 0, 0], [0, -ct, -st], [0, st, -ct]], dtype=np.float64)
    rot = r @ yaw_m
    t = -r @ cam_pos - rot @ np.array([centre[0], centre[1], 0.0])
    P = np.hstack([rot, t[:, None]])            # unit focal length; the fit below scales it
    cam = _Camera(P)
    # Fit the layout into the frame with an image-space scale and shift (a change of focal length and
    # principal point), leaving the layout partly outside the frame when asked.
    img = cam.project(corners)
    ilo, ihi = img.min(0), img.max(0)
    quads = img.reshape(-1, 4, 2)
    card_h = float(np.mean(np.linalg.norm(quads[:, 0] - quads[:, 3], axis=1)))
    # A webcam over a table shows cards from about a tenth to two fifths of the frame's height tall;
    # the layout must fit unless it is meant to run out of the frame.
    scale_card = rng.uniform(0.11, 0.4) * h / card_h
    scale_fit = rng.uniform(0.8, 0.97) * min(w / (ihi[0] - ilo[0]), h / (ihi[1] - ilo[1]))
    scale = scale_card * rng.uniform(1.0, 1.6) if on("outside") else min(scale_card, scale_fit)
    span = (ihi - ilo) * scale
    frame = np.array([w, h], np.float64)
    if on("outside"):
        # Run off an edge, but keep most of the layout in view.
        lo_off = np.minimum(-0.25 * span, frame - span - 0.1 * frame)
        hi_off = np.maximum(frame - 0.75 * span, 0.1 * frame)
        off = np.array([rng.uniform(lo_off[0], hi_off[0]), rng.uniform(lo_off[1], hi_off[1])])
    else:
        off = np.array([rng.uniform(0, 1), rng.uniform(0, 1)]) * np.maximum(frame - span, 0)
    S = np.array([[scale, 0, off[0] - ilo[0] * scale], [0, scale, off[1] - ilo[1] * scale], [0, 0, 1]])
    return _Camera(S @ P)


def _card_corners(p: _Placed, z: float = 0.0) -> np.ndarray:
    """Table mm of a card's own TL, TR, BR, BL corners (TL is at the far-left when angle is 0)."""
    a = np.deg2rad(p.angle)
    ca, sa = math.cos(a), math.sin(a)
    local = np.array([[-CARD_W / 2, CARD_H / 2], [CARD_W / 2, CARD_H / 2], [CARD_W / 2, -CARD_H / 2],
                      [-CARD_W / 2, -CARD_H / 2]])
    xy = local @ np.array([[ca, sa], [-sa, ca]]) + np.array(p.centre)
    zc = np.full((4, 1), z + (-p.bend if p.bend < 0 else 0.0))
    return np.hstack([xy, zc])


# --------------------------------------------------------------------------------------- textures

@lru_cache(maxsize=4)
def _noise_bank(seed: int = 7) -> np.ndarray:
    """Gaussian sensor noise, 128-centred uint8, to crop from (drawing fresh noise per frame is slow)."""
    g = np.random.default_rng(seed)
    return np.clip(128 + g.normal(0, 40, (1200, 2000, 3)), 0, 255).astype(np.uint8)


def _noise_patch(rng, w: int, h: int) -> np.ndarray:
    """A w x h window of the noise bank at a random place (stretched if the frame is larger)."""
    bank = _noise_bank()
    if bank.shape[0] < h or bank.shape[1] < w:
        return cv2.resize(bank, (w, h), interpolation=cv2.INTER_NEAREST)
    y0 = int(rng.integers(0, bank.shape[0] - h + 1))
    x0 = int(rng.integers(0, bank.shape[1] - w + 1))
    return bank[y0:y0 + h, x0:x0 + w]


def _smooth_noise(g, shape, cells):
    small = g.random((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


@lru_cache(maxsize=32)
def _surface_texture(kind: str, variant: int) -> np.ndarray:
    """A TEXTURE_PX square BGR texture of a table surface; colours are varied later, per scene."""
    g = np.random.default_rng(1000 + variant * 31 + SURFACES.index(kind))
    n = TEXTURE_PX
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    fine = g.normal(0, 1, (n, n)).astype(np.float32)
    if kind == "felt":
        base = np.array([(40, 95, 30), (70, 40, 25), (35, 35, 110), (45, 45, 45), (90, 60, 20)][variant % 5], np.float32)
        v = 1 + 0.05 * cv2.GaussianBlur(fine, (0, 0), 1.2) * 3 + 0.08 * (_smooth_noise(g, (n, n), (6, 6)) - 0.5)
        img = base[None, None, :] * v[..., None]
    elif kind == "wood":
        base = np.array([(40, 80, 130), (30, 55, 95), (70, 120, 170), (25, 40, 60), (60, 100, 150)][variant % 5], np.float32)
        warp = _smooth_noise(g, (n, n), (4, 8)) * 60
        rings = np.sin((yy + warp) * 0.09 + 0.4 * np.sin(xx * 0.004))
        streak = cv2.GaussianBlur(fine, (0, 0), sigmaX=18, sigmaY=0.8)
        v = 1 + 0.12 * rings + 0.9 * streak
        img = base[None, None, :] * v[..., None]
        # plank seams every 192 texture pixels
        img[(yy % 192) < 2] *= 0.45
        img[((yy // 192) % 2 == 0)] *= 0.93
    elif kind == "cloth":
        base = np.array([(200, 200, 205), (60, 60, 150), (150, 110, 60), (90, 140, 180), (210, 225, 235)][variant % 5], np.float32)
        weave = 0.06 * np.sin(xx * 1.6) * np.sin(yy * 1.6)
        check = ((xx // 36 + yy // 36) % 2).astype(np.float32) if variant % 2 else 0.0
        v = 1 + weave + 0.05 * cv2.GaussianBlur(fine, (0, 0), 0.8) - 0.25 * check
        v += 0.06 * (_smooth_noise(g, (n, n), (5, 5)) - 0.5)
        img = base[None, None, :] * np.asarray(v)[..., None]
    elif kind == "paper":
        base = np.array([(215, 228, 235), (190, 205, 215), (235, 238, 240), (160, 190, 215), (205, 215, 200)][variant % 5], np.float32)
        fibres = cv2.GaussianBlur(fine, (0, 0), sigmaX=3, sigmaY=0.6)
        v = 1 + 0.1 * fibres + 0.03 * fine + 0.05 * (_smooth_noise(g, (n, n), (5, 5)) - 0.5)
        img = base[None, None, :] * v[..., None]
    elif kind == "tatami":
        base = np.array([(90, 170, 180), (80, 150, 165), (110, 185, 190), (70, 130, 150), (100, 160, 170)][variant % 5], np.float32)
        straw = cv2.GaussianBlur(fine, (0, 0), sigmaX=0.7, sigmaY=30)
        rows = 0.08 * np.sin(xx * 0.8)
        v = 1 + 0.8 * straw + rows
        img = base[None, None, :] * v[..., None]
        img[:, (np.arange(n) % 384) < 16] = (40, 50, 45)       # the cloth edging (heri) of a mat
    else:  # pragma: no cover
        raise SceneError(kind)
    out = np.clip(img, 0, 255).astype(np.uint8)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=32)
def _ukiyoe_texture(path: str) -> np.ndarray:
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise SceneError(f"cannot read background {path}")
    s = TEXTURE_PX / max(img.shape[:2])
    img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    img.setflags(write=False)
    return img


_PYRAMIDS: dict[int, tuple[np.ndarray, list[np.ndarray]]] = {}


def _texture_pyramid(tex: np.ndarray) -> list[np.ndarray]:
    entry = _PYRAMIDS.get(id(tex))
    if entry is None or entry[0] is not tex:
        levels = [tex]
        while min(levels[-1].shape[:2]) > 64 and len(levels) < 5:
            levels.append(cv2.pyrDown(levels[-1]))
        _PYRAMIDS[id(tex)] = entry = (tex, levels)
    return entry[1]


def _texture_level(H: np.ndarray, w: int, h: int, tex: np.ndarray) -> int:
    """How many halvings of the texture to use: texture pixels per output pixel, where the table is
    seen most obliquely (the frame's top edge), brought near 1."""
    inv = np.linalg.inv(H)
    pts = np.array([[w / 2, 0, 1], [w / 2 + 1, 0, 1], [w / 2, h / 2, 1], [w / 2 + 1, h / 2, 1]], np.float64) @ inv.T
    pts = pts[:, :2] / pts[:, 2:3]
    ratio = min(np.linalg.norm(pts[1] - pts[0]), np.linalg.norm(pts[3] - pts[2]))
    levels = len(_texture_pyramid(tex))
    return int(np.clip(np.floor(np.log2(max(ratio, 1e-6))), 0, levels - 1))


def _surface(rng, cfg: SceneConfig) -> tuple[str, np.ndarray, float]:
    kinds = list(cfg.surfaces)
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "ukiyoe":
        from datasets.art import background_paths
        paths = background_paths(cfg.shared)
        if not paths:
            raise SceneError("no backgrounds in the shared folder's backgrounds/")
        tex = _ukiyoe_texture(str(paths[int(rng.integers(len(paths)))]))
        mm_per_px = rng.uniform(0.67, 1.6)     # a printed cloth or mat
    else:
        tex = _surface_texture(kind, int(rng.integers(SURFACE_VARIANTS)))
        mm_per_px = {"felt": 0.8, "wood": 1.33, "cloth": 0.67, "paper": 0.53, "tatami": 1.87}[kind] * rng.uniform(0.6, 1.4)
    return kind, tex, mm_per_px


# -------------------------------------------------------------------------------------- the scene

class _Raster:
    """Who covers each pixel (at about 360 rows, whatever the frame): for the visible fractions."""

    def __init__(self, size, step=None, lens_k=0.0):
        w, h = size
        self.size, self.lens_k = size, lens_k      # painted as the lens will show it
        step = step or max(1, int(round(min(w, h) / 360)))
        self.step = step
        self.pad = 64
        self.lab = np.full(((h + step - 1) // step + 2 * self.pad, (w + step - 1) // step + 2 * self.pad), -2,
                           np.int16)
        self.lab[self.pad:-self.pad, self.pad:-self.pad] = -1

    def _pts(self, poly):
        poly = np.asarray(poly, np.float64)
        if self.lens_k:
            poly = _lens_forward(poly, *self.size, self.lens_k)
        return np.round((poly / self.step + self.pad - 0.5) * 16).astype(np.int32)

    def paint(self, poly, value):
        cv2.fillPoly(self.lab, [self._pts(poly)], int(value), cv2.LINE_8, 4)

    def visible(self, n):
        """Per card index: the raster pixels inside the frame that show it."""
        return np.bincount(self.lab[self.pad:-self.pad, self.pad:-self.pad].ravel() + 2, minlength=n + 2)[2:]


def render_scene(rng: np.random.Generator, art, config: SceneConfig | None = None) -> tuple[np.ndarray, dict]:
    """One scene: (BGR uint8 image of ``config.size``, labels as documented in this module)."""
    img, labels, quality = _render(rng, art, config or SceneConfig())
    return _jpeg_round_trip(img, quality), labels


def _jpeg_round_trip(img: np.ndarray, quality: int) -> np.ndarray:
    """The image as the camera's JPEG stream delivers it (unchanged for quality 0: no compression)."""
    if not quality:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _as_art_list(art) -> list[dict]:
    arts = [art] if isinstance(art, dict) else list(art)
    if not arts:
        raise SceneError("no art set given")
    needed = [c.id for c in all_cards()] + list(deck.BACKS)
    for a in arts:
        if not isinstance(a, dict):
            raise SceneError("art must be a dict of card id -> image (see datasets.art.load_art) or a list of them")
        missing = [k for k in needed if k not in a]
        if missing:
            raise SceneError(f"an art set lacks {len(missing)} card(s), e.g. {', '.join(missing[:3])}")
    return arts


@dataclass(frozen=True)
class Placement:
    """One card laid on the table for ``render_layout``: centre in table millimetres (x to the right,
    y away from the camera), ``angle`` in degrees counter-clockwise (0: upright for the camera)."""
    card: str
    x: float
    y: float
    angle: float = 0.0
    face_up: bool = True
    bend: float = 0.0


def render_layout(rng: np.random.Generator, art, placements, config: SceneConfig | None = None,
                  back: str | None = None) -> tuple[np.ndarray, dict]:
    """A scene of the given cards where the caller puts them (a demo table, a test case); camera,
    light, surface and distractors still come from ``config`` and ``rng``. Labels list the cards in
    the order given (later ones lie on earlier ones). ``back`` picks the deck's back (default: random)."""
    placements = list(placements)
    if not placements:
        raise SceneError("render_layout needs at least one placement")
    seen = set()
    for p in placements:
        if not isinstance(p, Placement):
            raise SceneError(f"placements must be datasets.scenes.Placement, not {type(p).__name__}")
        get_card(p.card)
        if p.card in seen:
            raise SceneError(f"card {p.card!r} is placed twice: a deck has one of each")
        seen.add(p.card)
    if back is not None and back not in deck.BACKS:
        raise SceneError(f"unknown back {back!r}: choose one of {', '.join(deck.BACKS)}")
    placed = [_Placed(p.card, p.face_up, (float(p.x), float(p.y)), float(p.angle), float(p.bend)) for p in placements]
    img, labels, quality = _render(rng, art, config or SceneConfig(), placed=placed, back=back)
    return _jpeg_round_trip(img, quality), labels


def _render(rng: np.random.Generator, art, cfg: SceneConfig, placed: list | None = None, back: str | None = None):
    if not isinstance(rng, np.random.Generator):
        raise SceneError("rng must be a numpy Generator (numpy.random.default_rng(seed))")
    arts = _as_art_list(art)
    art_index = int(rng.integers(len(arts)))
    cards = arts[art_index]
    w, h = cfg.size
    flags = {c: (c in cfg.conditions and (rng.random() < PROBABILITY[c] or c in cfg.always)) for c in CONDITIONS}

    def on(c):
        return flags[c]

    if placed is None:
        kind = cfg.layout if cfg.layout != "mixed" else LAYOUTS[int(rng.choice(4, p=[0.35, 0.25, 0.25, 0.15]))]
        placed = _layout(rng, kind, cfg.max_cards, cfg.min_cards, cfg, on)
    else:
        kind = "given"
        for p in placed:   # the caller's cards, only bent if asked
            if on("bend") and p.bend == 0.0 and rng.random() < 0.5:
                p.bend = float(rng.uniform(-3.0, 4.0))
    cam = _camera(rng, placed, (w, h), cfg, on)
    back_drawn = deck.BACKS[int(rng.integers(2))]
    back = back or back_drawn

    # The table: a surface texture laid on the table plane and seen through the camera.
    surface_kind, tex, mm_per_px = _surface(rng, cfg)
    tex_to_table = np.array([[mm_per_px, 0, -rng.uniform(0, 300)], [0, -mm_per_px, rng.uniform(0, 300)], [0, 0, 1]])
    a = rng.uniform(0, 2 * np.pi)
    rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    H_tex = cam.plane @ rot @ tex_to_table
    tint = rng.uniform(0.8, 1.2, 3) if surface_kind != "ukiyoe" or rng.random() < 0.5 else np.ones(3)
    # The table at half resolution, scaled up (a webcam never resolves the weave anyway, and the
    # full-frame warp is the dearest step of a scene), from the texture's pyramid level that matches
    # the scale at which the table is seen, so fine patterns do not alias into moire.
    out_scale = 0.5 if w >= 640 else 1.0
    ow, oh = int(round(w * out_scale)), int(round(h * out_scale))
    H_out = np.diag([out_scale, out_scale, 1.0]) @ H_tex
    level = _texture_level(H_out, ow, oh, tex)
    H_out = H_out @ np.diag([2.0 ** level, 2.0 ** level, 1.0])
    img = cv2.warpPerspective(_texture_pyramid(tex)[level], H_out, (ow, oh), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    if (ow, oh) != (w, h):
        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    img = cv2.multiply(img, (*tint, 0.0))

    # The lens is chosen now: the coverage raster is painted as the lens will show the scene.
    lens_k = float(rng.choice(_LENS_KS)) if on("lens") else 0.0
    raster = _Raster((w, h), lens_k=lens_k)
    light_dir = rng.normal(0, 1, 2)
    light_dir /= np.linalg.norm(light_dir) + 1e-9
    shadow_on = on("shadow")
    shadow_off = light_dir * rng.uniform(1.0, 3.0)   # mm, the shadow falls away from the light
    objs = _Objects(rng, cam, img, raster, shadow_on, shadow_off)
    if on("distractors"):
        for _ in range(int(rng.integers(1, 4))):
            objs.random_under()
        if cfg.foreign_cards and rng.random() < 0.6:
            from datasets.art import load_foreign_cards
            foreign = load_foreign_cards(cfg.shared)
            for _ in range(int(rng.integers(1, 4))):
                foreign_kind, tex, size_mm = foreign[int(rng.integers(len(foreign)))]
                objs.flat_card(foreign_kind, tex, size_mm)

    # The cards, in dealing order (a later card lies on an earlier one).
    out_cards = []
    for i, p in enumerate(placed):
        face_key = p.card if p.face_up else back
        # Cards of one deck differ a little: print runs, wear, the angle each one meets the light at.
        tone = float(rng.uniform(0.88, 1.08)) if on("light") else 1.0
        quad = _draw_card(img, cards[face_key], p, cam, raster, i, shadow_on, shadow_off, rng,
                          glare=on("glare") and rng.random() < 0.6, tone=tone)
        out_cards.append((p, quad))

    if on("distractors"):
        for _ in range(int(rng.integers(0, 3))):
            objs.random_over()
    if on("hands"):
        objs.hand()

    # The camera and its light.
    img = _light(img, rng, on)
    if on("motion_blur"):
        img = _motion_blur(img, rng)
    if on("focus_blur"):
        s = rng.uniform(0.6, 2.0)
        img = cv2.GaussianBlur(img, (0, 0), s)
    if lens_k:
        img = cv2.remap(img, *_lens_maps(w, h, lens_k), interpolation=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REFLECT)
    if on("noise"):
        dim = flags["low_light"]
        sigma = rng.uniform(0.03, 0.18) * (1.8 if dim else 1.0)
        img = cv2.addWeighted(img, 1.0, _noise_patch(rng, w, h), sigma, -128 * sigma)
        if dim or rng.random() < 0.3:
            # A dim sensor's colour noise comes in blotches, several pixels wide.
            blotch = cv2.resize(_noise_patch(rng, max(1, w // 4), max(1, h // 4)), (w, h),
                                interpolation=cv2.INTER_LINEAR)
            s2 = rng.uniform(0.03, 0.1)
            img = cv2.addWeighted(img, 1.0, blotch, s2, -128 * s2)
    quality = int(rng.integers(cfg.jpeg_quality[0], cfg.jpeg_quality[1] + 1)) if on("jpeg") else 0

    # Labels: visible fractions from the coverage raster; quads through the same lens.
    counts = raster.visible(len(placed))
    labels_cards = []
    for i, (p, quad) in enumerate(out_cards):
        if lens_k:
            quad = _lens_forward(quad, w, h, lens_k)
        area = _painted_area(raster, quad)
        visible = float(np.clip(counts[i] / area, 0, 1)) if area > 0 else 0.0
        in_frame = _inside_fraction(quad, w, h)
        if in_frame <= 0:
            continue   # the camera never saw it
        card = get_card(p.card)
        labels_cards.append({
            "card": str(p.card) if p.face_up else None,
            "face": card.face if p.face_up else "back",
            "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in quad],
            "face_up": bool(p.face_up),
            "visible": round(visible, 3),
            **({} if p.face_up else {"back": back}),
        })
    distractors = []
    for kind_d, quad in objs.flat:
        if lens_k:
            quad = _lens_forward(quad, w, h, lens_k)
        if _inside_fraction(quad, w, h) > 0:
            distractors.append({"kind": kind_d, "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in quad]})
    labels = {"width": w, "height": h, "art": art_index, "layout": kind, "surface": surface_kind,
              "conditions": sorted(c for c, v in flags.items() if v), "cards": labels_cards,
              "distractors": distractors}
    return img, labels, quality


def _painted_area(raster: _Raster, quad) -> float:
    """The card's whole area in raster pixels, inside the frame or not."""
    return abs(cv2.contourArea((np.asarray(quad, np.float32) / raster.step)))


def _inside_fraction(quad, w, h) -> float:
    q = np.asarray(quad, np.float32)
    area = abs(cv2.contourArea(q))
    if area <= 0:
        return 0.0
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inter, _ = cv2.intersectConvexConvex(q, frame)
    return float(inter / area)


def _draw_card(img, tex, p: _Placed, cam: _Camera, raster: _Raster, index, shadow_on, shadow_off, rng, glare,
               tone=1.0):
    """Paste one card, its shadow first; return its image quad (own TL, TR, BR, BL)."""
    h, w = img.shape[:2]
    base = _card_corners(p)
    corners = base.copy()
    corners[:, 2] += CARD_THICKNESS_MM   # the face is the card's top
    quad = cam.project(corners)
    if shadow_on:
        sh = corners.copy()
        sh[:, 0] += shadow_off[0]
        sh[:, 1] += shadow_off[1]
        sh[:, 2] = 0
        _shadow(img, cam.project(sh), rng.uniform(0.25, 0.5), blur_px=max(1.0, _px_per_mm(quad) * 1.2))
    # The card's edge: hanafuda are thick, and seen from the side their dark edge shows.
    hull = cv2.convexHull(np.concatenate([cam.project(base), quad]).astype(np.float32)).reshape(-1, 2)
    cv2.fillConvexPoly(img, np.round(hull * 16).astype(np.int32), EDGE_COLOUR, cv2.LINE_AA, 4)
    raster.paint(hull, -1)
    # A bent card: split along its length into strips lifted by a parabola, each strip a homography.
    strips = 4 if abs(p.bend) > 0.3 else 1
    level = _mip(tex, _px_per_mm(quad) * CARD_H)
    th, tw = level.shape[:2]
    overlap = 0.6 / max(_px_per_mm(quad) * CARD_H, 1.0)   # strips overlap by ~half a pixel: no seams
    for s in range(strips):
        v0 = s / strips - (overlap if s > 0 else 0.0)
        v1 = (s + 1) / strips + (overlap if s < strips - 1 else 0.0)
        def lift(v):
            return p.bend * (1 - (2 * v - 1) ** 2) if p.bend > 0 else -p.bend * (2 * v - 1) ** 2
        tl, tr, br, bl = corners
        top_l = tl + (bl - tl) * v0
        top_r = tr + (br - tr) * v0
        bot_l = tl + (bl - tl) * v1
        bot_r = tr + (br - tr) * v1
        pts3 = np.array([top_l, top_r, bot_r, bot_l])
        pts3[:, 2] = CARD_THICKNESS_MM + np.array([lift(v0), lift(v0), lift(v1), lift(v1)])
        dst = cam.project(pts3)
        src = np.array([[0, v0 * th], [tw, v0 * th], [tw, v1 * th], [0, v1 * th]], np.float32)
        shade = tone
        if strips > 1:
            # Light falls unevenly on a curved card.
            slope = (lift(v1) - lift(v0)) * strips / CARD_H
            shade = tone * float(np.clip(1.0 + 2.5 * slope, 0.75, 1.2))
        _paste(img, level, src, dst, shade, clip=strips > 1)
        raster.paint(dst, index)
    if glare:
        _glare(img, quad, rng)
    return quad


def _px_per_mm(quad) -> float:
    q = np.asarray(quad)
    return float(max(np.linalg.norm(q[0] - q[3]), np.linalg.norm(q[1] - q[2])) / CARD_H)


_MIP_CACHE: dict[int, tuple[np.ndarray, list[np.ndarray]]] = {}


def _mip(tex: np.ndarray, target_h: float, width_mm: float = CARD_W) -> np.ndarray:
    """The smallest pyramid level (premultiplied BGRA with rounded corners) of a card texture at least
    as tall as it will appear, so small cards do not alias."""
    key = id(tex)
    entry = _MIP_CACHE.get(key)
    if entry is None or entry[0] is not tex:
        levels = [_with_rounded_corners(np.ascontiguousarray(tex), width_mm)]
        while levels[-1].shape[0] > 48:
            levels.append(cv2.pyrDown(levels[-1]))
        if len(_MIP_CACHE) > 2000:
            _MIP_CACHE.clear()
        _MIP_CACHE[key] = entry = (tex, levels)
    levels = entry[1]
    for lv in reversed(levels):
        if lv.shape[0] >= target_h:
            return lv
    return levels[0]


def _roi(pts, w, h, pad=2):
    x0 = max(int(np.floor(pts[:, 0].min())) - pad, 0)
    y0 = max(int(np.floor(pts[:, 1].min())) - pad, 0)
    x1 = min(int(np.ceil(pts[:, 0].max())) + pad, w)
    y1 = min(int(np.ceil(pts[:, 1].max())) + pad, h)
    return x0, y0, x1, y1


def _paste(img, tex, src, dst, shade=1.0, clip=False):
    """Warp the premultiplied BGRA texture region ``src`` onto the image quad ``dst``. The texture's
    alpha gives the card's rounded, anti-aliased outline; ``clip`` also cuts to the quad (a strip of a
    bent card)."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = _roi(dst, w, h)
    if x1 <= x0 or y1 <= y0:
        return
    M = cv2.getPerspectiveTransform(src.astype(np.float32), (dst - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(tex, M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3].astype(np.float32) * (1.0 / 255.0)
    colour = warped[..., :3].astype(np.float32)
    if clip:
        mask = np.zeros((size[1], size[0]), np.uint8)
        cv2.fillConvexPoly(mask, np.round((dst - [x0, y0]) * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        m = mask.astype(np.float32) * (1.0 / 255.0)
        alpha *= m
        colour *= m[..., None]
    if shade != 1.0:
        colour *= shade
    roi = img[y0:y1, x0:x1]
    roi[:] = np.clip(roi * (1 - alpha[..., None]) + colour, 0, 255).astype(np.uint8)


CORNER_RADIUS_MM = 2.0


def _with_rounded_corners(tex: np.ndarray, width_mm: float) -> np.ndarray:
    """BGRA, premultiplied: the card with its die-cut rounded corners transparent."""
    h, w = tex.shape[:2]
    k = 4                                                   # drawn at 4x, then averaged: anti-aliased
    r = max(1, int(round(CORNER_RADIUS_MM / width_mm * w * k)))
    big = np.zeros((h * k, w * k), np.uint8)
    cv2.rectangle(big, (r, 0), (w * k - 1 - r, h * k - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w * k - 1, h * k - 1 - r), 255, -1)
    for cx, cy in [(r, r), (w * k - 1 - r, r), (w * k - 1 - r, h * k - 1 - r), (r, h * k - 1 - r)]:
        cv2.circle(big, (cx, cy), r, 255, -1)
    mask = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    a = mask.astype(np.float32) / 255.0
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = (tex.astype(np.float32) * a[..., None] + 0.5).astype(np.uint8)
    out[..., 3] = mask
    return out


def _shadow(img, poly, strength, blur_px):
    h, w = img.shape[:2]
    pad = int(blur_px * 3) + 2
    x0, y0, x1, y1 = _roi(poly, w, h, pad)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(mask, np.round((poly - [x0, y0]) * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), blur_px)
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi * (1 - strength * mask)[..., None]).astype(np.uint8)


def _glare(img, quad, rng):
    """A soft specular highlight on the glossy card, clipped to the card."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = _roi(quad, w, h, 0)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(mask, np.round((quad - [x0, y0]) * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    c = (quad.mean(0) - [x0, y0]) + rng.normal(0, 0.25, 2) * [x1 - x0, y1 - y0]
    axes = (max(2, int((x1 - x0) * rng.uniform(0.15, 0.5))), max(2, int((y1 - y0) * rng.uniform(0.1, 0.3))))
    blob = np.zeros_like(mask)
    cv2.ellipse(blob, (int(c[0]), int(c[1])), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
    blob = cv2.GaussianBlur(blob, (0, 0), max(axes) * 0.4 + 1)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    strength = rng.uniform(0.4, 0.95)
    roi += (blob * mask * strength)[..., None] * (255.0 - roi)
    img[y0:y1, x0:x1] = roi.astype(np.uint8)


# ------------------------------------------------------------------------------- the camera's flaws

def _light(img, rng, on):
    """Uneven, coloured light and white-balance drift as one smooth per-channel gain field."""
    h, w = img.shape[:2]
    if not (on("light") or on("white_balance") or on("low_light")):
        return img
    gain = np.ones((6, 8, 3), np.float32)
    if on("light"):
        yy, xx = np.mgrid[0:6, 0:8].astype(np.float32)
        d = rng.normal(0, 1, 2)
        grad = (xx / 7 - 0.5) * d[0] + (yy / 5 - 0.5) * d[1]
        spot = np.exp(-(((xx - rng.uniform(0, 7)) / rng.uniform(2, 5)) ** 2 + ((yy - rng.uniform(0, 5)) / rng.uniform(1.5, 4)) ** 2))
        # A webcam's lens darkens the corners (vignetting).
        r2 = ((xx - 3.5) / 3.5) ** 2 + ((yy - 2.5) / 2.5) ** 2
        vignette = 1 - rng.uniform(0, 0.18) * r2 / 2
        field = (1 + 0.25 * grad + rng.uniform(0, 0.35) * (spot - 0.4) + rng.normal(0, 0.04, (6, 8))) * vignette
        gain *= field[..., None]
        # A coloured lamp light: warm or cool over part of the table.
        gain *= (1 + rng.normal(0, 0.06, 3) * spot[..., None]).astype(np.float32)
    if on("white_balance"):
        gain *= np.array([rng.uniform(0.8, 1.2), rng.uniform(0.92, 1.08), rng.uniform(0.8, 1.2)], np.float32)
    if on("low_light"):
        gain *= rng.uniform(0.3, 0.6)
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.multiply(img, gain, dtype=cv2.CV_8U)


def _motion_blur(img, rng):
    k = int(rng.integers(3, 10))
    kernel = np.zeros((k, k), np.float32)
    a = rng.uniform(0, np.pi)
    c = (k - 1) / 2
    cv2.line(kernel, (int(round(c - math.cos(a) * c)), int(round(c - math.sin(a) * c))),
             (int(round(c + math.cos(a) * c)), int(round(c + math.sin(a) * c))), 1.0, 1, cv2.LINE_AA)
    kernel /= kernel.sum()
    return cv2.filter2D(img, -1, kernel)


# Webcams show barrel distortion. The model keeps the frame's corners in place (r = 1 maps to itself),
# so every output pixel samples inside the rendered frame and nothing unlabelled is mirrored in.
_LENS_KS = (0.03, 0.06, 0.09, 0.12)


@lru_cache(maxsize=12)
def _lens_maps(w, h, k):
    """Barrel distortion: for each output pixel, where to sample the undistorted frame."""
    c = np.array([(w - 1) / 2, (h - 1) / 2], np.float32)
    norm = float(np.hypot(w, h) / 2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = (xx - c[0]) / norm, (yy - c[1]) / norm
    f = (1 + k * (dx * dx + dy * dy)) / (1 + k)
    mx, my = c[0] + dx * f * norm, c[1] + dy * f * norm
    return cv2.convertMaps(mx, my, cv2.CV_16SC2)


def _lens_forward(pts, w, h, k):
    """Where an undistorted point lands in the distorted image (inverse of the map above)."""
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    norm = np.hypot(w, h) / 2
    d = (np.asarray(pts, np.float64) - c) / norm
    rs = np.linalg.norm(d, axis=1)
    rd = rs.copy()
    target = rs * (1 + k)
    for _ in range(20):   # solve rd * (1 + k rd^2) = rs * (1 + k) by Newton's method
        rd = rd - (rd * (1 + k * rd * rd) - target) / (1 + 3 * k * rd * rd)
    scale = np.where(rs > 1e-9, rd / np.maximum(rs, 1e-9), 1.0)
    return c + d * scale[:, None] * norm


# ---------------------------------------------------------------------------------------- objects

_SKIN = [(120, 150, 200), (95, 130, 185), (70, 105, 160), (60, 85, 120), (150, 175, 220)]


class _Objects:
    """Distractors on the table: chips, coins, go stones, card boxes, paper, a dealer's hand."""

    def __init__(self, rng, cam: _Camera, img, raster: _Raster, shadow_on, shadow_off):
        self.rng, self.cam, self.img, self.raster = rng, cam, img, raster
        self.shadow_on, self.shadow_off = shadow_on, shadow_off
        corners = cam.plane
        inv = np.linalg.inv(corners)
        h, w = img.shape[:2]
        frame = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64) @ inv.T
        frame = frame[:, :2] / frame[:, 2:3]
        self.lo, self.hi = frame.min(0), frame.max(0)      # the table mm the frame may show
        self.flat: list[tuple[str, np.ndarray]] = []         # card-like things: (kind, image quad)

    def _where(self):
        r = self.rng
        return np.array([r.uniform(self.lo[0], self.hi[0]), r.uniform(self.lo[1], self.hi[1])])

    def _poly(self, pts_mm, colour, occludes=True, z=0.0, shadow=True):
        pts = np.asarray(pts_mm, np.float64)
        if self.shadow_on and shadow:
            off = pts + self.shadow_off * (1 + z)
            _shadow(self.img, self.cam.project(off), 0.35, max(1.0, 1.0 + z))
        img_pts = self.cam.project(np.hstack([pts, np.full((len(pts), 1), z)]))
        cv2.fillPoly(self.img, [np.round(img_pts * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
        if occludes:
            self.raster.paint(img_pts, -1)
        return img_pts

    @staticmethod
    def _circle(c, r, n=28):
        a = np.linspace(0, 2 * np.pi, n, endpoint=False)
        return np.stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)], 1)

    def flat_card(self, kind: str, tex: np.ndarray, size_mm):
        """A card of another deck lying flat: card-shaped, but not a hanafuda card."""
        r = self.rng
        c = self._where()
        a = r.uniform(0, 2 * np.pi)
        ca, sa = math.cos(a), math.sin(a)
        wmm, hmm = size_mm
        local = np.array([[-wmm / 2, hmm / 2], [wmm / 2, hmm / 2], [wmm / 2, -hmm / 2], [-wmm / 2, -hmm / 2]])
        pts = local @ np.array([[ca, sa], [-sa, ca]]) + c
        quad = self.cam.project(np.hstack([pts, np.full((4, 1), CARD_THICKNESS_MM)]))
        if self.shadow_on:
            _shadow(self.img, self.cam.project(pts + self.shadow_off), 0.3, max(1.0, _px_per_mm(quad)))
        th, tw = tex.shape[:2]
        level = _mip(tex, _px_per_mm(quad) * hmm, wmm)
        lh, lw = level.shape[:2]
        _paste(self.img, level, np.array([[0, 0], [lw, 0], [lw, lh], [0, lh]], np.float32), quad)
        self.raster.paint(quad, -1)
        self.flat.append((kind, quad))

    def random_under(self):
        r = self.rng
        [self.paper, self.box, self.chips, self.coins, self.stones][int(r.integers(5))]()

    def random_over(self):
        r = self.rng
        [self.chips, self.coins, self.stones][int(r.integers(3))]()

    def chips(self):
        r = self.rng
        c = self._where()
        colours = [(40, 40, 190), (160, 80, 30), (40, 140, 40), (30, 30, 30), (220, 220, 220), (40, 180, 220)]
        for j in range(int(r.integers(1, 6))):
            cc = c + r.normal(0, 3, 2) + (j * r.uniform(30, 45) * (r.random() < 0.4), 0)
            col = colours[int(r.integers(len(colours)))]
            self._poly(self._circle(cc, 19.5), col)
            for k in range(6):   # the edge spots of a casino chip
                a = k * np.pi / 3 + r.uniform(0, 1)
                p = cc + 16 * np.array([math.cos(a), math.sin(a)])
                self._poly(self._circle(p, 3.2, 10), (235, 235, 235), occludes=False, shadow=False)
            self._poly(self._circle(cc, 11), tuple(int(v * 0.8) for v in col), occludes=False, shadow=False)

    def coins(self):
        r = self.rng
        for _ in range(int(r.integers(1, 6))):
            c = self._where()
            kind = int(r.integers(3))
            col = [(60, 160, 200), (190, 190, 195), (50, 90, 160)][kind]
            rad = [11, 13.25, 11.75][kind]
            self._poly(self._circle(c, rad), col)
            self._poly(self._circle(c, rad * 0.8), tuple(int(v * 0.85) for v in col), occludes=False, shadow=False)
            if kind == 0:    # the five-yen coin's hole
                self._poly(self._circle(c, 2.5, 12), tuple(int(v) for v in self.img[0, 0]), occludes=False,
                           shadow=False)

    def stones(self):
        r = self.rng
        c = self._where()
        col = (25, 25, 25) if r.random() < 0.5 else (225, 230, 230)
        for _ in range(int(r.integers(2, 10))):
            self._poly(self._circle(c + r.normal(0, 15, 2), 11), col)

    def box(self):
        r = self.rng
        c = self._where()
        a = r.uniform(0, np.pi)
        ca, sa = math.cos(a), math.sin(a)
        local = np.array([[-35, -50], [35, -50], [35, 50], [-35, 50]]) @ np.array([[ca, sa], [-sa, ca]])
        col = [(30, 30, 150), (30, 30, 30), (120, 40, 40)][int(r.integers(3))]
        self.flat.append(("card-box", self._poly(local + c, col, z=20.0)))
        inner = local * 0.6 + c
        self._poly(inner, (60, 180, 220), occludes=False, z=20.0, shadow=False)

    def paper(self):
        r = self.rng
        c = self._where()
        a = r.uniform(0, np.pi)
        ca, sa = math.cos(a), math.sin(a)
        rot = np.array([[ca, sa], [-sa, ca]])
        wmm, hmm = r.uniform(80, 150), r.uniform(100, 210)
        local = np.array([[-wmm / 2, -hmm / 2], [wmm / 2, -hmm / 2], [wmm / 2, hmm / 2], [-wmm / 2, hmm / 2]])
        self.flat.append(("paper", self._poly(local @ rot + c, (235, 240, 242))))
        for k in range(int(hmm // 9) - 2):   # lines of writing: a score sheet
            y = -hmm / 2 + 10 + k * 9
            x1 = wmm / 2 - r.uniform(8, wmm * 0.6)
            line = np.array([[-wmm / 2 + 8, y], [x1, y], [x1, y + 1.2], [-wmm / 2 + 8, y + 1.2]])
            self._poly(line @ rot + c, (80, 60, 50), occludes=False, shadow=False)

    def hand(self):
        """A hand reaching in, lying over whatever is there: shaded, and soft because it is nearer
        the camera than the table the lens is focused on."""
        r = self.rng
        c = self._where()
        a = r.uniform(0, 2 * np.pi)
        ca, sa = math.cos(a), math.sin(a)
        rot = np.array([[ca, sa], [-sa, ca]])
        skin = np.array(_SKIN[int(r.integers(len(_SKIN)))], np.float32) * r.uniform(0.85, 1.1)
        sleeve = np.array([(40, 40, 40), (120, 80, 40), (200, 200, 200), (50, 50, 120)][int(r.integers(4))],
                          np.float32)
        spread = r.uniform(0.8, 1.3)
        parts = [(np.array([[-35, -80], [35, -80], [40, -400], [-40, -400]], np.float64), sleeve),
                 (np.array([[-45, 0], [45, 0], [40, -90], [0, -100], [-40, -90]], np.float64), skin)]
        for k in range(4):
            x = (-33 + k * 22) * spread
            ln = r.uniform(45, 75) * (0.85 if k in (0, 3) else 1.0)
            tip = [(x + 7 * math.cos(t), ln + 7 * math.sin(t)) for t in np.linspace(0, np.pi, 7)]
            parts.append((np.array([[x - 8, -5], [x + 8, -5], *tip], np.float64), skin))
        parts.append((np.array([[40, -60], [55, -50], [85, -5], [80, 4], [72, 2], [45, -20]], np.float64), skin))
        z = 15.0
        projected = []
        for pts, colour in parts:
            pts = pts @ rot + c
            if self.shadow_on:
                _shadow(self.img, self.cam.project(pts + self.shadow_off * (1 + z)), 0.35, 2.0 + z * 0.3)
            img_pts = self.cam.project(np.hstack([pts, np.full((len(pts), 1), z)]))
            self.raster.paint(img_pts, -1)
            projected.append((img_pts, colour))
        h, w = self.img.shape[:2]
        allp = np.concatenate([p for p, _ in projected])
        ends = self.cam.project(np.array([[c[0], c[1], z], [c[0] + 10.0, c[1], z]]))
        px_per_mm = float(np.linalg.norm(ends[1] - ends[0])) / 10.0
        # capped: a camera very close to the hand would ask for a blur of hundreds of pixels, which
        # takes minutes to compute and looks the same as a dozen
        blur = min(max(0.5, px_per_mm * r.uniform(0.3, 1.0)), 12.0)
        x0, y0, x1, y1 = _roi(allp, w, h, pad=int(3 * blur) + 2)
        if x1 <= x0 or y1 <= y0:
            return
        canvas = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        for img_pts, colour in projected:
            q = np.round((img_pts - [x0, y0]) * 16).astype(np.int32)
            cv2.fillPoly(canvas, [q], colour.tolist(), cv2.LINE_AA, 4)
            cv2.fillPoly(mask, [q], 1.0, cv2.LINE_AA, 4)
        # Round shapes catch the light unevenly: a broad gradient and some mottling.
        yy, xx = np.mgrid[0:y1 - y0, 0:x1 - x0].astype(np.float32)
        d = r.normal(0, 1, 2)
        d /= np.linalg.norm(d) + 1e-9
        grad = (xx * d[0] + yy * d[1]) / max(x1 - x0, y1 - y0)
        shade = 0.9 + 0.25 * (grad - grad.mean())
        canvas *= shade[..., None]
        canvas = cv2.GaussianBlur(canvas, (0, 0), blur)
        mask = cv2.GaussianBlur(mask, (0, 0), blur)
        roi = self.img[y0:y1, x0:x1]
        roi[:] = np.clip(roi * (1 - mask[..., None]) + canvas, 0, 255).astype(np.uint8)


# ------------------------------------------------------------------------------------ generating

def scene_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of scene ``index`` of a set made with ``seed``: scenes are independent."""
    return np.random.default_rng([int(seed), int(index)])


def warm_caches(config: SceneConfig | None = None) -> None:
    """Build the per-process caches (surface textures, sensor noise, lens maps) now, e.g. before
    forking workers, so no scene pays for them."""
    config = config or SceneConfig()
    for kind in config.surfaces:
        if kind in PROCEDURAL_SURFACES:
            for v in range(SURFACE_VARIANTS):
                _surface_texture(kind, v)
    _noise_bank()
    for k in _LENS_KS:
        _lens_maps(config.size[0], config.size[1], k)


# Writing scene sets to disk lives in datasets.export; these names stay importable from here (looked
# up on first use, as datasets.export itself imports this module).
_EXPORTED = ("FORMATS", "KEYPOINT_NAMES", "LABEL_FORMAT_VERSION", "generate", "label_classes", "render_encoded",
             "to_coco", "worker_pool", "write_yolo")


def __getattr__(name):
    if name in _EXPORTED:
        from datasets import export
        return getattr(export, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["SceneConfig", "SceneError", "Placement", "render_scene", "render_layout", "clean_config", "scene_rng",
           "warm_caches", "LAYOUTS", "CONDITIONS", "SURFACES", "PROCEDURAL_SURFACES", "PROBABILITY"]
