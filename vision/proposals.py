"""Classical card quad proposals from the frame itself, beside the mask net's quads.

The mask net sees the frame at 1/4 of its size and merges touching cards or misses small ones; the
card's own outline is sharp at full resolution. So: the frame at half size, edges per colour channel
(a card can differ from the table in colour only), closed by a small dilation, every outline traced,
and the outlines that are convex quadrilaterals of a card's proportions (54:87, within what a tilted
camera does to them) kept, their sides re-fitted as lines. The classifier's ``none`` class rejects the
rest (a phone, a book of the right shape).

``edge_support`` scores how well any quad sits on the frame's edges: the share of points along its
sides that lie on an edge. The detector uses it to choose between a mask quad and a proposal for the
same card.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.quads import _refit_sides, order_clockwise_portrait

CARD_ASPECT = 87 / 54


@dataclass(frozen=True)
class EdgeMap:
    """Edges of the frame at 1/scale of its size (uint8, 255 on an edge, dilated by one pixel)."""
    edges: np.ndarray
    scale: int

    def support(self, quad: np.ndarray, samples_per_side: int = 24) -> float:
        """The share of points along the quad's sides (corners left out: cards are rounded there)
        that lie on an edge."""
        q = (np.asarray(quad, np.float64).reshape(4, 2) + 0.5) / self.scale - 0.5
        t = np.linspace(0.12, 0.88, samples_per_side)[:, None]
        pts = np.concatenate([q[i] + t * (q[(i + 1) % 4] - q[i]) for i in range(4)])
        h, w = self.edges.shape
        xi = np.rint(pts[:, 0]).astype(int)
        yi = np.rint(pts[:, 1]).astype(int)
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        if not inside.any():
            return 0.0
        on = self.edges[yi[inside], xi[inside]] > 0
        return float(on.sum()) / len(pts)


@dataclass(frozen=True)
class QuadProposer:
    scale: int = 2  # work on the frame at 1/scale of its size
    canny_low: int = 30
    canny_high: int = 90
    min_short_side: float = 24.0  # frame pixels: a smaller card cannot be read from a 64x96 crop anyway
    max_area_share: float = 0.35  # of the frame: a bigger quad is the table or a tray, not a card
    aspect_low: float = CARD_ASPECT * 0.68  # a card tilted ~45 degrees away, foreshortened
    aspect_high: float = CARD_ASPECT / 0.68
    min_fill: float = 0.85  # outline area / quad area: a card's outline fills its quad

    def edge_map(self, frame: np.ndarray) -> EdgeMap:
        small = cv2.resize(frame, (frame.shape[1] // self.scale, frame.shape[0] // self.scale),
                           interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        edges = None
        for channel in cv2.split(small):
            # contrast stretched per channel, so dim scenes give edges too
            lo, hi = np.percentile(channel[::4, ::4], (1, 99))
            if hi - lo < 8:
                continue
            stretched = cv2.convertScaleAbs(channel, alpha=255.0 / (hi - lo), beta=-lo * 255.0 / (hi - lo))
            e = cv2.Canny(stretched, self.canny_low, self.canny_high, L2gradient=True)
            edges = e if edges is None else cv2.bitwise_or(edges, e)
        if edges is None:
            edges = np.zeros(small.shape[:2], np.uint8)
        return EdgeMap(cv2.dilate(edges, np.ones((3, 3), np.uint8)), self.scale)

    def propose(self, frame: np.ndarray, edge_map: EdgeMap | None = None) -> list[np.ndarray]:
        """Card-shaped quads (4x2 float, frame pixels, clockwise portrait order)."""
        em = edge_map if edge_map is not None else self.edge_map(frame)
        s = em.scale
        h, w = em.edges.shape
        min_short = self.min_short_side / s
        min_area = min_short * min_short * self.aspect_low * self.min_fill
        max_area = self.max_area_share * h * w
        contours, _ = cv2.findContours(em.edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        quads = []
        for contour in contours:
            area = abs(cv2.contourArea(contour))
            if area < min_area or area > max_area:
                continue
            quad = self._fit(contour, area)
            if quad is None:
                continue
            sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
            short, long = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
            if short > long:
                short, long = long, short
            if short < min_short or not self.aspect_low <= long / max(short, 1e-6) <= self.aspect_high:
                continue
            quads.append(order_clockwise_portrait((quad + 0.5) * s - 0.5))
        return quads

    def _fit(self, contour: np.ndarray, area: float) -> np.ndarray | None:
        hull = cv2.convexHull(contour)
        hull_area = abs(cv2.contourArea(hull))
        if hull_area <= 0 or area / hull_area < self.min_fill:
            return None  # not convex enough: an outline of several things
        perimeter = cv2.arcLength(hull, True)
        guess = None
        for eps in (0.02, 0.035, 0.05):
            poly = cv2.approxPolyDP(hull, eps * perimeter, True).reshape(-1, 2)
            if len(poly) == 4:
                guess = poly.astype(np.float64)
                break
            if len(poly) < 4:
                break
        if guess is None:
            rect = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
            if hull_area / max(abs(cv2.contourArea(rect.astype(np.float32))), 1e-6) < 0.92:
                return None
            guess = rect
        quad_area = abs(cv2.contourArea(guess.astype(np.float32)))
        if quad_area <= 0 or hull_area / quad_area < self.min_fill or quad_area / hull_area > 1.15:
            return None
        refined = _refit_sides(contour.reshape(-1, 2).astype(np.float64), guess)
        if refined is not None and cv2.isContourConvex(refined.astype(np.float32)):
            r_area = abs(cv2.contourArea(refined.astype(np.float32)))
            if 0.9 * hull_area <= r_area <= 1.15 * hull_area:
                return refined
        return guess if cv2.isContourConvex(guess.astype(np.float32)) else None


def combine_quads(mask_quads: list[np.ndarray], proposals: list[np.ndarray], edge_map: EdgeMap,
                  same_card_iou: float = 0.5, min_support: float = 0.5, max_new: int = 24) -> list[np.ndarray]:
    """One quad per card from the mask net's quads and the proposals: where quads overlap (IoU at least
    ``same_card_iou``) the one whose sides lie best on the frame's edges is kept. A proposal that
    overlaps no mask quad is a card the mask net missed, or not a card: it is kept when at least
    ``min_support`` of its sides lie on edges, at most ``max_new`` of them (the best), and the crop
    classifier's ``none`` rejects the ones that are not cards."""
    from vision.evaluate import quad_iou
    mask_quads = [np.asarray(q, np.float64) for q in mask_quads]
    scored = [(edge_map.support(q), True, q) for q in mask_quads]
    scored += [(edge_map.support(q), False, q) for q in proposals]
    # best-supported first; on a tie the mask quad (it saw the whole card, not a frame inside it)
    scored.sort(key=lambda t: (-t[0], not t[1]))
    kept: list[tuple[float, bool, np.ndarray]] = []
    new = 0
    boxes = []
    for support, from_mask, q in scored:
        box = cv2.boundingRect(q.astype(np.float32))
        clash = False
        for (_, _, k), kb in zip(kept, boxes):
            if _boxes_apart(box, kb):
                continue
            if quad_iou(q, k) >= same_card_iou:
                clash = True
                break
        if clash:
            continue
        if not from_mask:
            if support < min_support or new >= max_new:
                continue
            new += 1
        kept.append((support, from_mask, q))
        boxes.append(box)
    return [q for _, _, q in kept]


def _boxes_apart(a, b) -> bool:
    return a[0] + a[2] < b[0] or b[0] + b[2] < a[0] or a[1] + a[3] < b[1] or b[1] + b[3] < a[1]
