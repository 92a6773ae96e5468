"""The project's own western deck (Kakeya Toranpu), drawn from scratch with OpenCV primitives.

A card is 63 x 88 mm (poker size): white stock with rounded corners and a thin grey border, the rank
and a small suit symbol in the top-left corner and the same turned 180 degrees in the bottom-right.
Suits are drawn as shapes (circles and polygons): hearts and diamonds red, spades and clubs black.
Numbered cards carry their pips in the usual layouts (the pips of the lower half stand upside down),
an ace one big pip; a jack, queen or king a framed coloured panel with a simple double-ended figure
and its big letter. The one back is dark blue with a white margin and a lattice.

Everything is drawn on a canvas in millimetres at a whole number of pixels per mm and reduced to the
height asked for, so a given id and height always gives the same image.
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from dealer.western import RANKS, UnknownWesternCardError, get_western_card, western_ids

CARD_MM = (63.0, 88.0)          # width, height
BACK = "back-western"
CORNER_MM = 3.2                  # radius of the rounded corners
OUTSIDE = (200, 200, 200)        # the pixels outside the rounded corners (a renderer masks them off)
STOCK = (246, 248, 248)          # white card stock, BGR
BORDER = (120, 120, 120)
RED = (40, 30, 200)
BLACK = (25, 25, 25)
SUIT_COLOUR = {"H": RED, "D": RED, "S": BLACK, "C": BLACK}
# the court panels (BGR): the panel's colour tells the rank, the robe's the suit
COURT_FILL = {"J": (205, 160, 90), "Q": (150, 120, 220), "K": (60, 190, 230)}
COURT_ROBE = {"S": (120, 50, 30), "H": (50, 50, 190), "D": (30, 140, 235), "C": (60, 130, 40)}
BACK_BLUE = (110, 45, 25)

_SHIFT = 4                       # sub-pixel bits for OpenCV drawing
_LEAST_SCALE = 4.0               # px per mm the master is drawn at, at least


def card_width(height: int) -> int:
    return max(1, int(round(height * CARD_MM[0] / CARD_MM[1])))


def render_western_card(card_id_or_back: str, height: int = 352) -> np.ndarray:
    """One card (a western id such as ``"QH"``, or ``"back-western"``) as a BGR uint8 image
    ``height`` pixels tall and 63:88 wide."""
    if isinstance(height, bool) or not isinstance(height, (int, np.integer)) or height < 16:
        raise ValueError(f"card height must be an integer of at least 16 pixels, not {height!r}")
    key = str(card_id_or_back)
    if key != BACK:
        try:
            get_western_card(key)
        except UnknownWesternCardError as exc:
            raise UnknownWesternCardError(key, exc.suggestions + ([BACK] if key.lower().startswith("back") else [])) \
                from None
    return _render_cached(key, int(height)).copy()


def western_demo_deck(height: int = 352) -> dict[str, np.ndarray]:
    """The 52 faces (keyed by id) and the back (``"back-western"``)."""
    return {key: render_western_card(key, height) for key in list(western_ids()) + [BACK]}


@lru_cache(maxsize=256)
def _render_cached(key: str, height: int) -> np.ndarray:
    scale = max(_LEAST_SCALE, 2.0 * float(np.ceil(height / CARD_MM[1])))
    master = _draw_back(scale) if key == BACK else _draw_face(key, scale)
    out = cv2.resize(master, (card_width(height), height), interpolation=cv2.INTER_AREA)
    out.setflags(write=False)
    return out


class _Canvas:
    """A card canvas addressed in millimetres."""

    def __init__(self, scale: float):
        self.scale = scale
        w, h = (int(round(v * scale)) for v in CARD_MM)
        self.img = np.empty((h, w, 3), np.uint8)
        self.img[:] = OUTSIDE

    def _p(self, points) -> np.ndarray:
        return np.round(np.asarray(points, np.float64).reshape(-1, 2) * self.scale * (1 << _SHIFT)).astype(np.int32)

    def _w(self, width_mm: float) -> int:
        return max(1, int(round(width_mm * self.scale)))

    def poly(self, points, colour):
        cv2.fillPoly(self.img, [self._p(points)], colour, cv2.LINE_AA, _SHIFT)

    def outline(self, points, colour, width=0.4):
        cv2.polylines(self.img, [self._p(points)], True, colour, self._w(width), cv2.LINE_AA, _SHIFT)

    def circle(self, centre, radius, colour, width=-1.0):
        (c,) = self._p([centre])
        t = -1 if width < 0 else self._w(width)
        cv2.circle(self.img, (int(c[0]), int(c[1])), int(round(radius * self.scale * (1 << _SHIFT))), colour, t,
                   cv2.LINE_AA, _SHIFT)

    def text(self, s, centre, height_mm, colour, thick_mm=0.9, font=cv2.FONT_HERSHEY_DUPLEX):
        """``s`` centred on ``centre`` with capitals ``height_mm`` tall."""
        thick = self._w(thick_mm)
        (tw, th), _ = cv2.getTextSize(s, font, 1.0, thick)
        size = height_mm * self.scale / max(th, 1)
        (tw, th), _ = cv2.getTextSize(s, font, size, thick)
        org = (int(round(centre[0] * self.scale - tw / 2)), int(round(centre[1] * self.scale + th / 2)))
        cv2.putText(self.img, s, org, font, size, colour, thick, cv2.LINE_AA)


def _rounded_rect(x0, y0, x1, y1, r, n=8) -> np.ndarray:
    """The outline of a rectangle with rounded corners, as a polygon (mm)."""
    pts = []
    for cx, cy, a0 in ((x1 - r, y0 + r, -90), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90), (x0 + r, y0 + r, 180)):
        for a in np.deg2rad(np.linspace(a0, a0 + 90, n)):
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    return np.array(pts)


# ---------------------------------------------------------------------------------------------- suits

def _suit(cv: _Canvas, suit: str, centre, size: float, upside_down: bool = False) -> None:
    """A suit symbol ``size`` mm tall centred on ``centre``; ``upside_down`` turns it 180 degrees."""
    cx, cy = centre
    f = -1.0 if upside_down else 1.0
    colour = SUIT_COLOUR[suit]

    def at(points):  # unit coordinates (y down, symbol about -0.5..0.5) -> mm
        p = np.asarray(points, np.float64).reshape(-1, 2)
        return np.stack([cx + f * p[:, 0] * size, cy + f * p[:, 1] * size], axis=1)

    def disc(x, y, r):
        (c,) = at([(x, y)])
        cv.circle(c, r * size, colour)

    if suit == "D":
        cv.poly(at([(0, -0.5), (0.36, 0), (0, 0.5), (-0.36, 0)]), colour)
    elif suit == "H":
        disc(-0.22, -0.22, 0.25)
        disc(0.22, -0.22, 0.25)
        cv.poly(at([(-0.46, -0.14), (0.46, -0.14), (0, 0.48)]), colour)
    elif suit == "S":
        disc(-0.22, 0.1, 0.24)
        disc(0.22, 0.1, 0.24)
        cv.poly(at([(-0.45, 0.03), (0.45, 0.03), (0, -0.5)]), colour)
        cv.poly(at([(0, 0.05), (0.14, 0.5), (-0.14, 0.5)]), colour)
    elif suit == "C":
        disc(0, -0.26, 0.21)
        disc(-0.24, 0.08, 0.21)
        disc(0.24, 0.08, 0.21)
        cv.poly(at([(0, -0.05), (0.14, 0.5), (-0.14, 0.5)]), colour)
    else:  # pragma: no cover (ids are checked before drawing)
        raise ValueError(suit)


# where the pips of each number stand: (column, row) with columns -1/0/1 and rows 0 (top) .. 1 (bottom)
_SIDES = ((-1, 0.0), (1, 0.0), (-1, 1.0), (1, 1.0))
PIP_LAYOUTS = {
    "2": ((0, 0.0), (0, 1.0)),
    "3": ((0, 0.0), (0, 0.5), (0, 1.0)),
    "4": _SIDES,
    "5": _SIDES + ((0, 0.5),),
    "6": _SIDES + ((-1, 0.5), (1, 0.5)),
    "7": _SIDES + ((-1, 0.5), (1, 0.5), (0, 0.25)),
    "8": _SIDES + ((-1, 0.5), (1, 0.5), (0, 0.25), (0, 0.75)),
    "9": _SIDES + ((-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3), (0, 0.5)),
    "10": _SIDES + ((-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3), (0, 1 / 6), (0, 5 / 6)),
}
_PIP_COLUMNS = {-1: 19.5, 0: 31.5, 1: 43.5}   # mm
_PIP_TOP, _PIP_BOTTOM = 17.0, 71.0            # mm: the centres of the top and bottom rows
_PIP_SIZE = 10.0


def _draw_face(card_id: str, scale: float) -> np.ndarray:
    card = get_western_card(card_id)
    cv = _Canvas(scale)
    w, h = CARD_MM
    cv.poly(_rounded_rect(0, 0, w, h, CORNER_MM), STOCK)
    cv.outline(_rounded_rect(1.6, 1.6, w - 1.6, h - 1.6, CORNER_MM - 1.2), BORDER, 0.3)
    colour = SUIT_COLOUR[card.suit]
    # the corner index: rank over a small suit symbol; then the top-left corner region (index, border,
    # rounded corner) turned 180 degrees is the bottom-right one
    cv.text(card.rank, (6.6, 8.0), 5.6, colour, 0.75 if card.rank != "10" else 0.6)
    _suit(cv, card.suit, (6.6, 15.6), 5.0)
    rh, rw = int(round(20.0 * scale)), int(round(11.0 * scale))
    H, W = cv.img.shape[:2]
    cv.img[H - rh:, W - rw:] = cv.img[:rh, :rw][::-1, ::-1]
    if card.rank == "A":
        _suit(cv, card.suit, (w / 2, h / 2), 26.0)
    elif card.rank in ("J", "Q", "K"):
        _draw_court(cv, card.rank, card.suit, scale)
    else:
        for col, row in PIP_LAYOUTS[card.rank]:
            y = _PIP_TOP + row * (_PIP_BOTTOM - _PIP_TOP)
            _suit(cv, card.suit, (_PIP_COLUMNS[col], y), _PIP_SIZE, upside_down=row > 0.5)
    return cv.img


def _draw_court(cv: _Canvas, rank: str, suit: str, scale: float) -> None:
    """A framed panel with a double-ended figure: the top half drawn, the bottom half the top turned."""
    fill, trim = COURT_FILL[rank], COURT_ROBE[suit]
    colour = SUIT_COLOUR[suit]
    x0, y0, x1, y1 = 12.5, 11.0, 50.5, 77.0
    cv.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill)
    cx, mid = (x0 + x1) / 2, (y0 + y1) / 2
    # the figure: shoulders and robe, a face, the rank's headwear; the big letter beside it
    cv.poly([(cx - 12, mid), (cx - 10, mid - 10), (cx - 4, mid - 14), (cx + 4, mid - 14), (cx + 10, mid - 10),
             (cx + 12, mid)], trim)
    cv.poly([(cx - 3, mid - 14), (cx + 3, mid - 14), (cx, mid - 4)], colour)
    cv.circle((cx, mid - 19), 4.6, (170, 205, 240))
    cv.circle((cx, mid - 19), 4.6, BLACK, 0.35)
    if rank == "K":   # a crown of five points
        cv.poly([(cx - 5, mid - 22.5), (cx - 5, mid - 28.5), (cx - 2.5, mid - 25), (cx, mid - 29.5),
                 (cx + 2.5, mid - 25), (cx + 5, mid - 28.5), (cx + 5, mid - 22.5)], (30, 170, 230))
    elif rank == "Q":  # a round coronet with a jewel
        cv.poly([(cx - 4.5, mid - 22.5), (cx - 3.5, mid - 26), (cx + 3.5, mid - 26), (cx + 4.5, mid - 22.5)],
                (30, 170, 230))
        cv.circle((cx, mid - 26.5), 1.3, RED if suit in "SC" else (160, 90, 30))
    else:              # a jack's flat cap with a feather
        cv.poly([(cx - 5.5, mid - 22), (cx - 4, mid - 25.5), (cx + 4, mid - 25.5), (cx + 5.5, mid - 22)], trim)
        cv.poly([(cx + 3, mid - 25.5), (cx + 8, mid - 29.5), (cx + 4.5, mid - 24.5)], colour)
    cv.text(rank, (x0 + 5.5, y0 + 6.5), 7.5, colour, 1.0)
    _suit(cv, suit, (x1 - 5.0, y0 + 6.0), 6.0)
    # the lower half is the upper one turned 180 degrees about the panel's centre
    px0, py0, px1, py1 = (int(round(v * scale)) for v in (x0, y0, x1, y1))
    pmid = (py0 + py1) // 2
    top = cv.img[py0:pmid, px0:px1]
    cv.img[py1 - (pmid - py0):py1, px0:px1] = top[::-1, ::-1]
    cv.outline([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour, 0.6)
    cv.outline([(x0 + 1.2, y0 + 1.2), (x1 - 1.2, y0 + 1.2), (x1 - 1.2, y1 - 1.2), (x0 + 1.2, y1 - 1.2)], trim, 0.3)
    cv.poly([(x0, mid - 0.25), (x1, mid - 0.25), (x1, mid + 0.25), (x0, mid + 0.25)], colour)


def _draw_back(scale: float) -> np.ndarray:
    cv = _Canvas(scale)
    w, h = CARD_MM
    cv.poly(_rounded_rect(0, 0, w, h, CORNER_MM), STOCK)
    x0, y0, x1, y1 = 4.0, 4.0, w - 4.0, h - 4.0
    cv.poly(_rounded_rect(x0, y0, x1, y1, 1.5), BACK_BLUE)
    # a diagonal lattice inside the blue field, clipped to it
    field = cv.img.copy()
    light = (200, 150, 110)
    for t in np.arange(-h, w + h, 4.0):
        for a, b in (((t, y0), (t + (y1 - y0), y1)), ((t, y1), (t + (y1 - y0), y0))):
            pa, pb = cv._p([a, b])
            cv2.line(field, tuple(int(v) for v in pa), tuple(int(v) for v in pb), light, cv._w(0.3), cv2.LINE_AA,
                     _SHIFT)
    inner = np.zeros(cv.img.shape[:2], np.uint8)
    cv2.fillPoly(inner, [cv._p(_rounded_rect(x0 + 1, y0 + 1, x1 - 1, y1 - 1, 1.0))], 255, cv2.LINE_8, _SHIFT)
    cv.img[inner > 0] = field[inner > 0]
    cv.outline(_rounded_rect(x0 + 1, y0 + 1, x1 - 1, y1 - 1, 1.0), light, 0.5)
    # a plain oval medallion in the middle
    (c,) = cv._p([(w / 2, h / 2)])
    axes = (int(round(9 * scale * (1 << _SHIFT))), int(round(13 * scale * (1 << _SHIFT))))
    cv2.ellipse(cv.img, (int(c[0]), int(c[1])), axes, 0, 0, 360, BACK_BLUE, -1, cv2.LINE_AA, _SHIFT)
    cv2.ellipse(cv.img, (int(c[0]), int(c[1])), axes, 0, 0, 360, light, cv._w(0.6), cv2.LINE_AA, _SHIFT)
    return cv.img


__all__ = ["BACK", "CARD_MM", "RANKS", "card_width", "render_western_card",
           "western_demo_deck"]
