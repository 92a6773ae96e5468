"""The project's own hanafuda deck, drawn from scratch with OpenCV primitives (no outside image).

Every card is drawn on a master canvas in millimetres (a real card is 54 x 87 mm) and resized to the
height asked for. A face carries its month's plant and colour scheme, its type's element (a bright's
red disc, the animal's figure, the ribbon of its kind, nothing for chaff), the month's number in kanji
numerals (drawn as strokes: OpenCV's fonts have no kanji) and in digits, on cream card stock inside the
traditional black frame. The two backs are plain black and dark red.
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from dealer.cards import Card, all_cards, get_card, UnknownCardError

# the drawing's own units (its proportions: the frame, the art's layout, and the scenes' spacing
# are laid out in them); a real hanafuda card is smaller, about 33 x 54 mm: PRINT_HEIGHT_MM
CARD_MM = (54.0, 87.0)          # width, height
PRINT_HEIGHT_MM = 54.0          # a real hanafuda card's height, as the A4 sheets print it
FRAME_MM = 3.4                   # the black frame: the back's colour folded over the face
BACKS = ("back-black", "back-red")
BACK_COLOURS = {"back-black": (24, 22, 22), "back-red": (28, 24, 120)}  # BGR
STOCK = (214, 232, 240)          # cream card stock, BGR
INK = (28, 26, 26)

_MASTER_SCALE = 10.0             # default canvas: 10 px per mm (540 x 870)
_SMALL_SCALE = 5.0               # the least: 5 px per mm, for cards up to 435 px tall
_SHIFT = 4                       # sub-pixel bits for OpenCV drawing


def card_width(height: int) -> int:
    return max(1, int(round(height * CARD_MM[0] / CARD_MM[1])))


def render_card(card_id_or_back: str, height: int = 435) -> np.ndarray:
    """One card (a card id or ``"back-black"``/``"back-red"``) as a BGR uint8 image ``height`` tall."""
    if not isinstance(height, (int, np.integer)) or height < 16:
        raise ValueError(f"card height must be an integer of at least 16 pixels, not {height!r}")
    return _render_cached(str(card_id_or_back), int(height)).copy()


def demo_deck(height: int = 435) -> dict[str, np.ndarray]:
    """The 48 faces and both backs, keyed by card id / back name."""
    return {key: render_card(key, height) for key in [c.id for c in all_cards()] + list(BACKS)}


@lru_cache(maxsize=128)
def _render_cached(key: str, height: int) -> np.ndarray:
    # Drawn at the smallest whole number of pixels per mm (at least 5) that reaches the height asked
    # for, then reduced: sharp at print sizes, cheap for small cards.
    scale = max(_SMALL_SCALE, float(np.ceil(height / CARD_MM[1])))
    master = _master(key, scale)
    width = card_width(height)
    interp = cv2.INTER_AREA if height < master.shape[0] else cv2.INTER_CUBIC
    out = cv2.resize(master, (width, height), interpolation=interp)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=128)
def _master(key: str, scale: float) -> np.ndarray:
    if key in BACKS:
        return _draw_back(key, scale)
    try:
        card = get_card(key)
    except UnknownCardError as exc:
        raise UnknownCardError(key, exc.suggestions + [b for b in BACKS if b.startswith(key[:4])]) from None
    return _draw_face(card, scale)


class _Canvas:
    """A card canvas addressed in millimetres."""

    def __init__(self, colour, scale: float = _MASTER_SCALE):
        self.scale = scale
        w, h = (int(round(v * scale)) for v in CARD_MM)
        self.img = np.empty((h, w, 3), np.uint8)
        self.img[:] = np.array(colour, np.uint8)

    def _p(self, points) -> np.ndarray:
        return np.round(np.asarray(points, np.float64).reshape(-1, 2) * self.scale * (1 << _SHIFT)).astype(np.int32)

    def _s(self, v: float) -> int:
        return int(round(v * self.scale * (1 << _SHIFT)))

    def _w(self, width_mm: float) -> int:
        return max(1, int(round(width_mm * self.scale)))

    def poly(self, points, colour):
        cv2.fillPoly(self.img, [self._p(points)], colour, cv2.LINE_AA, _SHIFT)

    def outline(self, points, colour, width=0.5, closed=True):
        cv2.polylines(self.img, [self._p(points)], closed, colour, self._w(width),
                      cv2.LINE_AA, _SHIFT)

    def line(self, a, b, colour, width=0.5):
        pa, pb = self._p([a, b])
        cv2.line(self.img, tuple(int(v) for v in pa), tuple(int(v) for v in pb), colour,
                 self._w(width), cv2.LINE_AA, _SHIFT)

    def circle(self, centre, radius, colour, width=-1.0):
        (c,) = self._p([centre])
        t = -1 if width < 0 else self._w(width)
        cv2.circle(self.img, (int(c[0]), int(c[1])), self._s(radius), colour, t, cv2.LINE_AA, _SHIFT)

    def ellipse(self, centre, axes, angle, colour, width=-1.0, start=0, end=360):
        (c,) = self._p([centre])
        t = -1 if width < 0 else self._w(width)
        cv2.ellipse(self.img, (int(c[0]), int(c[1])), (self._s(axes[0]), self._s(axes[1])), angle, start, end,
                    colour, t, cv2.LINE_AA, _SHIFT)

    def text(self, s, origin, size_mm, colour, thick=0.5):
        scale = size_mm * self.scale / 22.0
        org = (int(origin[0] * self.scale), int(origin[1] * self.scale))
        cv2.putText(self.img, s, org, cv2.FONT_HERSHEY_DUPLEX, scale, colour,
                    self._w(thick), cv2.LINE_AA)


# ---------------------------------------------------------------------------------------------- backs

def _draw_back(key: str, scale: float) -> np.ndarray:
    cv = _Canvas(BACK_COLOURS[key], scale)
    # A faint inner bevel, as the folded paper shows at the edge; otherwise a plain back.
    lighter = tuple(min(255, c + 14) for c in BACK_COLOURS[key])
    cv.outline([(1.2, 1.2), (52.8, 1.2), (52.8, 85.8), (1.2, 85.8)], lighter, 0.35)
    return cv.img


# ---------------------------------------------------------------------------------------------- faces

# The deck's palette (BGR), flat inks as the woodblock-style prints use.
RED = (40, 40, 205)
DEEP_RED = (38, 30, 150)
BLACK = (30, 28, 28)
WHITE = (245, 248, 250)
YELLOW = (40, 200, 240)
GREEN = (70, 140, 60)
DARK_GREEN = (50, 80, 35)
BLUE = (160, 80, 40)
PURPLE = (140, 60, 110)
PINK = (190, 170, 250)
BROWN = (40, 70, 120)
ORANGE = (40, 130, 240)
GREY = (140, 140, 140)


def _draw_face(card: Card, scale: float) -> np.ndarray:
    cv = _Canvas(INK, scale)
    inner = [(FRAME_MM, FRAME_MM), (54 - FRAME_MM, FRAME_MM), (54 - FRAME_MM, 87 - FRAME_MM),
             (FRAME_MM, 87 - FRAME_MM)]
    cv.poly(inner, STOCK)
    variant = int(card.id.rsplit("-", 1)[1]) if card.type == "chaff" and card.id[-1].isdigit() else 0
    # each card's own strokes: seeded by its month and its place in the month (10 * month + place)
    rng = np.random.default_rng(10 * card.month + [c.id for c in all_cards() if c.month == card.month].index(card.id))
    _MONTH_DRAW[card.suit](cv, card, rng, variant)
    _ELEMENT_DRAW.get(card.id, _no_element)(cv, card, rng)
    if card.type == "ribbon":
        _ribbon(cv, card.ribbon, card.month)
    if card.type == "bright":
        _bright_badge(cv)
    _month_mark(cv, card.month, variant)
    # Keep the frame crisp over anything that strayed onto it.
    img = cv.img
    f = int(round(FRAME_MM * scale))
    img[:f] = INK
    img[-f:] = INK
    img[:, :f] = INK
    img[:, -f:] = INK
    return img


def _no_element(cv, card, rng):
    pass


# Kanji numerals as strokes in a unit box (x right, y down): each stroke is a polyline.
_KANJI_STROKES = {
    1: [[(0.05, 0.5), (0.95, 0.5)]],
    2: [[(0.2, 0.28), (0.8, 0.28)], [(0.05, 0.75), (0.95, 0.75)]],
    3: [[(0.15, 0.18), (0.85, 0.18)], [(0.25, 0.5), (0.75, 0.5)], [(0.05, 0.85), (0.95, 0.85)]],
    4: [[(0.1, 0.15), (0.1, 0.9)], [(0.1, 0.15), (0.9, 0.15), (0.9, 0.9)], [(0.1, 0.88), (0.9, 0.88)],
        [(0.4, 0.15), (0.38, 0.45), (0.25, 0.62)], [(0.6, 0.15), (0.6, 0.55), (0.75, 0.62)]],
    5: [[(0.15, 0.12), (0.85, 0.12)], [(0.45, 0.12), (0.35, 0.88)], [(0.2, 0.45), (0.75, 0.45), (0.72, 0.88)],
        [(0.05, 0.88), (0.95, 0.88)]],
    6: [[(0.5, 0.05), (0.55, 0.22)], [(0.05, 0.3), (0.95, 0.3)], [(0.38, 0.5), (0.15, 0.9)],
        [(0.62, 0.5), (0.88, 0.9)]],
    7: [[(0.05, 0.4), (0.95, 0.3)], [(0.4, 0.05), (0.4, 0.8), (0.55, 0.9), (0.95, 0.9), (0.95, 0.75)]],
    8: [[(0.4, 0.2), (0.35, 0.6), (0.08, 0.9)], [(0.6, 0.2), (0.65, 0.6), (0.92, 0.9)]],
    9: [[(0.05, 0.35), (0.55, 0.35), (0.5, 0.7), (0.15, 0.95)],
        [(0.4, 0.05), (0.4, 0.4)], [(0.55, 0.35), (0.65, 0.85), (0.8, 0.92), (0.95, 0.9), (0.95, 0.75)]],
    10: [[(0.05, 0.42), (0.95, 0.42)], [(0.5, 0.05), (0.5, 0.95)]],
}
_TSUKI = [[(0.22, 0.05), (0.22, 0.7), (0.05, 0.97)], [(0.22, 0.05), (0.8, 0.05), (0.8, 0.95), (0.65, 0.9)],
          [(0.22, 0.35), (0.8, 0.35)], [(0.22, 0.62), (0.8, 0.62)]]  # 月, month


def _kanji(cv: _Canvas, strokes, x, y, size, colour, width):
    for stroke in strokes:
        pts = [(x + u * size, y + v * size) for u, v in stroke]
        cv.outline(pts, colour, width, closed=False)


def _month_mark(cv: _Canvas, month: int, variant: int):
    """The month as kanji numerals over 月 in a small plate at the top-left, and in digits at the
    bottom-right: a reader's aid the classifier may also use."""
    digits = [10, 1] if month == 11 else [10, 2] if month == 12 else [month]
    n = len(digits) + 1
    size = 3.6
    x0, y0 = FRAME_MM + 1.0, FRAME_MM + 1.0
    plate = [(x0 - 0.6, y0 - 0.6), (x0 + size + 0.6, y0 - 0.6), (x0 + size + 0.6, y0 + n * (size + 0.6)),
             (x0 - 0.6, y0 + n * (size + 0.6))]
    cv.poly(plate, STOCK)
    cv.outline(plate, DEEP_RED, 0.25)
    for i, d in enumerate(digits):
        _kanji(cv, _KANJI_STROKES[d], x0, y0 + i * (size + 0.6), size, INK, 0.45)
    _kanji(cv, _TSUKI, x0, y0 + len(digits) * (size + 0.6), size, INK, 0.45)
    label = str(month)
    w = 3.4 * len(label)
    bx, by = 54 - FRAME_MM - 1.2 - w, 87 - FRAME_MM - 1.2
    cv.poly([(bx - 0.6, by - 4.6), (bx + w + 0.4, by - 4.6), (bx + w + 0.4, by + 0.6), (bx - 0.6, by + 0.6)], STOCK)
    cv.text(label, (bx, by), 5.0, INK, 0.35)


def _bright_badge(cv: _Canvas):
    """The bright's mark: a red disc with a white ring at the top-right."""
    c = (54 - FRAME_MM - 5.5, FRAME_MM + 5.5)
    cv.circle(c, 4.2, RED)
    cv.circle(c, 3.0, WHITE, 0.5)
    cv.circle(c, 1.2, WHITE)


def _ribbon(cv: _Canvas, kind: str, month: int):
    """A tanzaku: a slanted paper strip, red with black writing (poetry), blue (purple-blue), or plain red."""
    colour = BLUE if kind == "blue" else RED
    cx, cy, ang = 27.0, 38.0, -28 if month % 2 else 26
    length, width = 40.0, 7.5
    t = np.deg2rad(ang)
    d = np.array([np.sin(t), np.cos(t)])       # along the strip (mostly downwards)
    n = np.array([np.cos(t), -np.sin(t)])
    c = np.array([cx, cy])
    top, bot = c - d * length / 2, c + d * length / 2
    quad = [top - n * width / 2, top + n * width / 2, bot + n * width / 2, bot - n * width / 2]
    cv.poly(quad, colour)
    cv.outline(quad, BLACK, 0.45)
    # The tie at the top: a small knot band.
    k1, k2 = top + d * 3.0, top + d * 4.6
    cv.poly([k1 - n * width / 2, k1 + n * width / 2, k2 + n * width / 2, k2 - n * width / 2], BLACK)
    if kind == "poetry":
        # Cursive-looking black marks down the strip.
        for i in range(4):
            p = top + d * (9 + i * 7.5)
            cv.outline([p - n * 1.6, p + n * 0.4 + d * 1.5, p - n * 0.8 + d * 3.2, p + n * 1.6 + d * 4.6],
                       BLACK, 0.7, closed=False)
    elif kind == "blue":
        cv.outline([top + d * 7 - n * (width / 2 - 1.2), bot - d * 2 - n * (width / 2 - 1.2)], WHITE, 0.4, closed=False)


# ------------------------------------------------------------------------------------- month plants

def _blossom(cv, c, r, petal, centre):
    for k in range(5):
        a = 2 * np.pi * k / 5 - np.pi / 2
        cv.circle((c[0] + np.cos(a) * r * 0.55, c[1] + np.sin(a) * r * 0.55), r * 0.5, petal)
    cv.circle(c, r * 0.28, centre)


def _cloud_bands(cv, y, colour, rng, n=2):
    """Stylised mist bands (kasumi) across the card."""
    for i in range(n):
        yy = y + i * 5.5
        x0 = 4 + rng.uniform(-2, 6)
        x1 = 50 - rng.uniform(-2, 6)
        cv.poly([(x0, yy), (x1, yy), (x1 - 2, yy + 3.6), (x0 + 2, yy + 3.6)], colour)
        cv.ellipse((x0 + 2, yy + 1.8), (2.4, 1.8), 0, colour)
        cv.ellipse((x1 - 2, yy + 1.8), (2.4, 1.8), 0, colour)


def _pine(cv, card, rng, variant):
    cv.poly([(3, 3), (51, 3), (51, 22), (3, 30)], RED)              # the red sky of January
    trunk = [(20 + variant * 6, 86), (24 + variant * 6, 86), (30, 50), (27, 48)]
    cv.poly(trunk, BROWN)
    for (x, y, s) in [(14, 62, 9), (36, 52, 8), (26, 72, 10), (40, 74, 7)]:
        x += variant * 3
        for k in range(13):
            a = np.pi * (k / 12.0)
            cv.line((x, y), (x - np.cos(a) * s, y - np.sin(a) * s * 0.7), DARK_GREEN, 0.9)
        cv.ellipse((x, y), (s, 1.4), 0, BLACK)


def _plum(cv, card, rng, variant):
    cv.poly([(3, 70), (51, 62), (51, 84), (3, 84)], DEEP_RED)
    branch = [(4, 40 + variant * 4), (18, 34), (28, 44), (40, 30), (50, 28)]
    cv.outline(branch, BLACK, 2.2, closed=False)
    cv.outline([(18, 34), (14, 22), (20, 12)], BLACK, 1.4, closed=False)
    for (x, y) in [(9, 37), (15, 25), (21, 14), (26, 42), (34, 37), (44, 29), (39, 22), (47, 40)]:
        _blossom(cv, (x, y + variant * 2), 3.2, RED, YELLOW)


def _cherry(cv, card, rng, variant):
    _cloud_bands(cv, 60 + variant * 3, RED, rng, 3)
    cv.outline([(3, 20), (20, 26), (34, 18), (51, 22)], BROWN, 1.6, closed=False)
    for k in range(14):
        x, y = rng.uniform(6, 48), rng.uniform(6, 52)
        _blossom(cv, (x, y), 3.0, PINK if k % 3 else WHITE, RED)


def _wisteria(cv, card, rng, variant):
    cv.outline([(3, 8), (20, 12), (35, 6), (51, 10)], BLACK, 1.5, closed=False)
    for j, x in enumerate([10, 22, 34, 44]):
        for i in range(9):
            r = 2.2 - i * 0.16
            cv.ellipse((x + np.sin(i * 0.9 + j) * 1.2, 12 + i * 4.2), (r * 1.3, r), 0, PURPLE)
            cv.circle((x + np.sin(i * 0.9 + j) * 1.2, 12 + i * 4.2), r * 0.4, WHITE)
    for k in range(4):                                              # dark hanging tendrils
        x = 6 + k * 12 + variant * 2
        cv.outline([(x, 50), (x + 3, 62), (x - 1, 76), (x + 2, 84)], BLACK, 0.9, closed=False)


def _iris(cv, card, rng, variant):
    for k in range(7):
        x = 8 + k * 6.5 + variant
        cv.poly([(x - 1.2, 84), (x + 1.2, 84), (x + rng.uniform(-4, 4), 30 + rng.uniform(0, 20))], GREEN)
    for (x, y) in [(14, 30), (34, 24), (26, 42)]:
        x += variant * 2
        cv.ellipse((x - 3, y), (4, 2), 30, PURPLE)
        cv.ellipse((x + 3, y), (4, 2), -30, PURPLE)
        cv.ellipse((x, y - 3), (1.8, 4), 0, PURPLE)
        cv.circle((x, y + 0.5), 0.9, YELLOW)


def _peony(cv, card, rng, variant):
    for (x, y, a) in [(10, 70, 20), (40, 74, -30), (25, 80, 0), (46, 58, 50)]:
        cv.ellipse((x, y), (8, 3.2), a, DARK_GREEN)
    for (x, y, s) in [(22 + variant * 8, 32, 10), (38 - variant * 4, 56, 7)]:
        for ring, col in [(1.0, DEEP_RED), (0.72, RED), (0.45, PINK)]:
            for k in range(8):
                a = 2 * np.pi * k / 8
                cv.circle((x + np.cos(a) * s * 0.5 * ring, y + np.sin(a) * s * 0.5 * ring), s * 0.45 * ring, col)
        cv.circle((x, y), s * 0.15, YELLOW)


def _clover(cv, card, rng, variant):
    cv.ellipse((27, 87), (30, 12), 0, BLACK, start=180, end=360)   # dark ground
    for k in range(4):
        x0 = 6 + k * 12
        pts = [(x0 + 10 * t + variant * 2, 80 - 60 * t + 10 * t * t) for t in np.linspace(0, 1, 8)]
        cv.outline(pts, BROWN, 0.8, closed=False)
        for i, p in enumerate(pts[1:]):
            cv.circle((p[0] + 2.2, p[1]), 1.5, RED if i % 2 else (90, 40, 170))
            cv.ellipse((p[0] - 2.0, p[1] + 1), (1.8, 1.0), 30, GREEN)


def _susuki(cv, card, rng, variant):
    cv.poly([(3, 3), (51, 3), (51, 40), (3, 40)], (50, 70, 230) if card.id != "susuki-moon" else RED)
    cv.ellipse((27, 87), (34, 40 + variant * 4), 0, BLACK, start=180, end=360)   # the dark hill
    for k in range(11):
        x = 5 + k * 4.4
        cv.line((x, 60), (x + rng.uniform(-3, 3), 44 + rng.uniform(-4, 4)), WHITE, 0.7)


def _chrysanthemum(cv, card, rng, variant):
    for (x, y, a) in [(12, 74, 30), (40, 70, -20), (28, 80, 0)]:
        cv.ellipse((x, y), (7, 3), a, GREEN)
    for (x, y, s) in [(20 + variant * 12, 30, 9), (36 - variant * 10, 50, 7)]:
        for k in range(16):
            a = 2 * np.pi * k / 16
            cv.ellipse((x + np.cos(a) * s * 0.55, y + np.sin(a) * s * 0.55), (s * 0.5, s * 0.16),
                       np.rad2deg(a), YELLOW)
        cv.circle((x, y), s * 0.3, ORANGE)
        cv.circle((x, y), s * 0.14, RED)


def _maple_leaf(cv, c, s, colour, angle):
    pts = []
    for k in range(14):
        a = np.deg2rad(angle) + 2 * np.pi * k / 14
        r = s if k % 2 == 0 else s * 0.45
        if k in (6, 8):
            r *= 0.7
        pts.append((c[0] + np.cos(a) * r, c[1] + np.sin(a) * r))
    cv.poly(pts, colour)


def _maple(cv, card, rng, variant):
    cv.outline([(3, 14), (22, 20), (36, 12), (51, 16)], BROWN, 1.6, closed=False)
    cv.outline([(22, 20), (26, 44), (20, 70)], BROWN, 1.2, closed=False)
    for k in range(9):
        x, y = rng.uniform(8, 46), rng.uniform(10, 76)
        _maple_leaf(cv, (x, y + variant), rng.uniform(3.5, 5.5), RED if k % 3 else ORANGE, rng.uniform(0, 60))


def _willow(cv, card, rng, variant):
    cv.poly([(3, 3), (51, 3), (51, 16), (3, 12)], BLACK)
    for k in range(7):
        x = 6 + k * 7
        pts = [(x + np.sin(t * 3 + k) * 3, 8 + t * 55) for t in np.linspace(0, 1, 9)]
        cv.outline(pts, DARK_GREEN, 1.0, closed=False)
        for p in pts[2::2]:
            cv.ellipse(p, (2.2, 0.8), 70, GREEN)


def _paulownia(cv, card, rng, variant):
    for (x, y, s) in [(14, 62, 12), (38, 66, 11), (26, 80, 10)]:
        cv.ellipse((x, y), (s, s * 0.7), 0, DARK_GREEN)
        cv.line((x, y - s * 0.6), (x, y + s * 0.6), GREEN, 0.6)
    for x in (14, 27, 40):                                            # the three flower spikes
        for i in range(6):
            cv.circle((x + (i % 2) * 1.5 - 0.7, 40 - i * 4.2), 2.2 - i * 0.15, PURPLE)
            cv.circle((x + (i % 2) * 1.5 - 0.7, 40 - i * 4.2), 0.6, YELLOW)
    if variant == 3:                                                  # the yellow-bottomed chaff
        cv.poly([(3, 74), (51, 74), (51, 84), (3, 84)], YELLOW)
    if variant == 2:
        cv.poly([(3, 3), (51, 3), (51, 9), (3, 9)], GREY)


_MONTH_DRAW = {"pine": _pine, "plum": _plum, "cherry": _cherry, "wisteria": _wisteria, "iris": _iris,
               "peony": _peony, "clover": _clover, "susuki": _susuki, "chrysanthemum": _chrysanthemum,
               "maple": _maple, "willow": _willow, "paulownia": _paulownia}


# ------------------------------------------------------------------------------ the special elements

def _bird(cv, c, s, body, wing, angle=0.0):
    t = np.deg2rad(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    def tr(pts):
        return [tuple(np.array(c) + rot @ (np.array(p) * s)) for p in pts]
    cv.poly(tr([(-1.0, 0.0), (-0.2, -0.35), (0.7, -0.25), (1.1, 0.0), (0.6, 0.3), (-0.3, 0.35)]), body)
    cv.poly(tr([(-0.2, -0.1), (0.2, -1.0), (0.5, -0.9), (0.4, -0.1)]), wing)
    cv.poly(tr([(-0.9, 0.0), (-1.6, -0.3), (-1.5, 0.3)]), wing)
    cv.poly(tr([(1.05, -0.05), (1.45, 0.05), (1.05, 0.12)]), YELLOW)
    cv.circle(tr([(0.8, -0.08)])[0], s * 0.07, BLACK)


def _crane(cv, card, rng):
    cv.circle((30, 21), 9, (30, 80, 235))                              # the rising sun, over the red sky
    cv.circle((30, 21), 9, BLACK, 0.5)
    cv.ellipse((24, 50), (9, 6), -20, WHITE)
    cv.ellipse((24, 50), (9, 6), -20, BLACK, 0.5)
    cv.ellipse((29, 53), (6, 3), -20, BLACK)                           # black tail feathers
    cv.outline([(18, 47), (14, 34), (17, 22)], BLACK, 1.6, closed=False)  # neck
    cv.circle((17, 21), 2.0, WHITE)
    cv.circle((17, 20), 1.2, RED)                                      # red crown
    cv.poly([(18, 21), (27, 17), (18.5, 22)], YELLOW)                  # beak
    cv.line((22, 56), (20, 70), BLACK, 0.6)
    cv.line((26, 56), (27, 70), BLACK, 0.6)


def _curtain(cv, card, rng):
    cv.poly([(6, 44), (48, 44), (48, 76), (6, 76)], WHITE)
    for k in range(5):                                                 # the manmaku's red and white
        cv.poly([(6 + k * 8.4, 44), (10.2 + k * 8.4, 44), (10.2 + k * 8.4, 76), (6 + k * 8.4, 76)], RED)
    cv.line((6, 45), (48, 45), BLACK, 1.2)
    for k in range(3):
        cv.circle((15 + k * 12, 60), 3.4, BLACK)
        cv.circle((15 + k * 12, 60), 2.2, WHITE)


def _rainman(cv, card, rng):
    cv.ellipse((27, 30), (11, 5), 0, RED, start=180, end=360)        # the umbrella
    cv.line((27, 30), (27, 52), BROWN, 0.7)
    cv.poly([(22, 34), (32, 34), (35, 62), (19, 62)], BLUE)            # robe
    cv.circle((27, 31), 2.8, (170, 200, 230))                          # face
    cv.ellipse((27, 29), (3.4, 1.4), 0, BLACK)                         # hat
    cv.poly([(38, 66), (50, 66), (50, 72), (38, 72)], YELLOW)          # the frog's ground
    cv.circle((42, 62), 2.2, GREEN)                                    # the frog
    cv.outline([(3, 78), (20, 74), (36, 80), (51, 76)], BLUE, 1.2, closed=False)  # the stream


def _phoenix(cv, card, rng):
    cv.circle((36, 18), 9, RED)
    pts_tail = [(10, 40), (4, 60), (14, 56), (10, 74), (20, 62), (22, 78), (26, 60)]
    cv.poly(pts_tail, GREEN)
    cv.poly([(18, 44), (30, 34), (40, 36), (38, 46), (26, 54)], ORANGE)   # body
    cv.poly([(30, 38), (44, 22), (46, 30), (36, 44)], PURPLE)             # wing
    cv.circle((38, 34), 2.0, RED)
    cv.poly([(39.5, 33), (44, 34), (39.5, 35)], YELLOW)


def _warbler(cv, card, rng):
    _bird(cv, (30, 56), 5.5, (70, 150, 110), (50, 110, 80), -10)


def _cuckoo(cv, card, rng):
    cv.circle((40, 64), 6.5, YELLOW)
    cv.circle((42.5, 62), 5.8, STOCK)                                  # the crescent moon
    _bird(cv, (24, 66), 6.0, BLACK, (60, 60, 60), 20)


def _bridge(cv, card, rng):
    for k, (x, y) in enumerate([(6, 56), (24, 64), (12, 74)]):
        cv.poly([(x, y), (x + 26, y - 3), (x + 26, y + 1.2), (x, y + 4.2)], BROWN)
        cv.line((x + 2, y + 4), (x + 2, y + 9), BLACK, 0.6)
        cv.line((x + 24, y + 1), (x + 24, y + 6), BLACK, 0.6)


def _butterfly(cv, c, s, colour):
    for sx in (-1, 1):
        cv.ellipse((c[0] + sx * s * 0.55, c[1] - s * 0.3), (s * 0.55, s * 0.4), sx * 30, colour)
        cv.ellipse((c[0] + sx * s * 0.45, c[1] + s * 0.35), (s * 0.35, s * 0.3), -sx * 30, colour)
    cv.line((c[0], c[1] - s * 0.5), (c[0], c[1] + s * 0.6), BLACK, 0.6)


def _butterflies(cv, card, rng):
    _butterfly(cv, (14, 14), 8, BLUE)
    _butterfly(cv, (40, 66), 7, PURPLE)


def _boar(cv, card, rng):
    body = [(8, 58), (14, 48), (30, 46), (40, 50), (46, 56), (44, 62), (38, 62), (36, 70), (33, 70), (32, 63),
            (18, 63), (17, 70), (14, 70), (13, 63)]
    cv.poly(body, BROWN)
    cv.outline(body, BLACK, 0.5)
    cv.circle((41, 54), 0.8, BLACK)
    cv.line((45, 58), (48, 55), WHITE, 0.5)                            # tusk


def _moon(cv, card, rng):
    cv.circle((27, 26), 13, WHITE)
    cv.circle((27, 26), 13, (200, 200, 200), 0.5)


def _geese(cv, card, rng):
    for (x, y) in [(14, 14), (26, 22), (38, 12)]:
        cv.poly([(x - 6, y - 2), (x, y + 1), (x + 6, y - 2), (x + 1, y + 2.5), (x - 1, y + 2.5)], BLACK)


def _sake(cv, card, rng):
    cv.ellipse((26, 60), (12, 4), 0, RED)
    cv.ellipse((26, 60), (12, 4), 0, YELLOW, 0.8)
    cv.poly([(14, 60), (38, 60), (32, 70), (20, 70)], RED)
    cv.ellipse((26, 60), (8, 2.2), 0, YELLOW)                          # the gold mark inside the cup


def _deer(cv, card, rng):
    body = [(14, 56), (20, 50), (34, 50), (38, 46), (40, 38), (44, 38), (44, 44), (40, 52), (38, 60),
            (36, 72), (34, 72), (33, 62), (21, 62), (19, 72), (17, 72), (16, 62)]
    cv.poly(body, BROWN)
    cv.outline([(41, 38), (38, 30), (41, 26)], BROWN, 0.7, closed=False)  # antlers
    cv.outline([(43, 38), (45, 30), (48, 27)], BROWN, 0.7, closed=False)
    for (x, y) in [(22, 54), (27, 56), (31, 53)]:
        cv.circle((x, y), 0.9, WHITE)


def _swallow(cv, card, rng):
    _bird(cv, (26, 40), 7.0, BLACK, BLACK, -25)
    cv.poly([(18, 44), (8, 52), (16, 46)], BLACK)


def _lightning(cv, card, rng):
    cv.poly([(3, 3), (51, 3), (51, 30), (3, 30)], (60, 40, 150))
    cv.poly([(30, 6), (22, 22), (28, 22), (20, 40), (34, 18), (28, 18), (36, 6)], BLACK)  # the bolt
    cv.circle((14, 16), 5, RED)                                        # the thunder drum
    cv.circle((14, 16), 2, YELLOW)


_ELEMENT_DRAW = {
    "pine-crane": _crane, "cherry-curtain": _curtain, "willow-rainman": _rainman,
    "paulownia-phoenix": _phoenix, "plum-warbler": _warbler, "wisteria-cuckoo": _cuckoo,
    "iris-bridge": _bridge, "peony-butterflies": _butterflies, "clover-boar": _boar,
    "susuki-moon": _moon, "susuki-geese": _geese, "chrysanthemum-sake": _sake, "maple-deer": _deer,
    "willow-swallow": _swallow, "willow-lightning": _lightning,
}
