"""Classical card quad proposals from the frame itself, to re-fit the mask net's quads.

The mask net sees the frame at 1/4 of its size: its quads are grown blobs, a little off, and
sometimes two touching cards in one; the card's own outline is sharp in the frame. So: the frame at
half size, contrast-stretched, Canny edges on the colour image (a card can differ from the table in
colour only), every thin outline near a mask quad traced, and the outlines that are convex
quadrilaterals of a card's proportions (54:87, within what a tilted camera does to them) kept, their
sides re-fitted as lines. Each mask quad is also snapped onto the straight edges next to its sides.

``EdgeMap.supports`` scores how well quads sit on the frame's edges: the share of points along
its sides that lie on an edge. ``combine_quads`` uses it to choose, for each card, between the mask
quad, its snapped version and the proposals.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.quads import CARD_ASPECT, NEXT_CORNER, _line_corners, four_corners, order_clockwise_portrait, refit_sides
_SIDE_SAMPLES = np.linspace(0.12, 0.88, 16)  # where EdgeMap.support looks along each side


def _percentiles(hist: np.ndarray, low: float, high: float) -> tuple[float, float]:
    c = np.cumsum(hist)
    total = c[-1] if c[-1] > 0 else 1.0
    return float(np.searchsorted(c, low * total)), float(np.searchsorted(c, high * total))


@dataclass(frozen=True)
class EdgeMap:
    """Edges of the frame at 1/scale of its size (uint8, 255 on an edge, dilated by one pixel)."""
    edges: np.ndarray
    scale: int
    thin: np.ndarray | None = None  # the same edges undilated (one pixel wide)

    def supports(self, quads: list[np.ndarray], samples_per_side: int = 16) -> np.ndarray:
        """For each quad, the share of points along its sides (corners left out: cards are rounded
        there) that lie on an edge; all quads at once (a frame has dozens to score)."""
        if len(quads) == 0:
            return np.zeros(0)
        q = (np.asarray(quads, np.float64).reshape(-1, 4, 2) + 0.5) / self.scale - 0.5
        t = _SIDE_SAMPLES if samples_per_side == len(_SIDE_SAMPLES) else np.linspace(0.12, 0.88, samples_per_side)
        # quads x sides x samples points, then quads x all their points
        pts = q[:, :, None, :] + t[None, None, :, None] * (q[:, NEXT_CORNER] - q)[:, :, None, :]
        pts = pts.reshape(len(q), -1, 2)
        h, w = self.edges.shape
        xi = np.rint(pts[..., 0]).astype(np.int64)
        yi = np.rint(pts[..., 1]).astype(np.int64)
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        on = np.where(inside, self.edges[np.where(inside, yi, 0), np.where(inside, xi, 0)] > 0, False)
        return on.sum(axis=1) / pts.shape[1]


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
    # edge_map(near=...): the edges are found this far around each quad (its longer side's share,
    # plus pixels at the map's scale); snapping reaches 12% of the short side, a blob's quad can be
    # off by more, and Canny needs a few pixels of context at a region's border
    near_margin: float = 0.3
    near_pad: float = 8.0

    def edge_map(self, frame: np.ndarray, near: list[np.ndarray] | None = None,
                 half: np.ndarray | None = None) -> EdgeMap:
        """The frame's edges; with ``near``, only around those quads (each one's box grown by
        ``near_margin`` of its longer side), zero elsewhere: every use of the map (proposals that
        touch a mask quad, snapping and scoring mask quads) looks there only, and Canny and the
        outline tracing cost what they cover. ``half``: the frame already scaled to half its size
        (area), used as it is when this proposer works at half size."""
        size = (frame.shape[1] // self.scale, frame.shape[0] // self.scale)
        if half is not None and self.scale == 2 and half.shape[1::-1] == size:
            small = half
        else:
            small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (5, 5), 0)
        # contrast stretched (one gain for the three channels), so dim scenes give edges too; at most
        # 2.5x: more would turn the sensor noise of a plain dim table into edges
        sample = np.ascontiguousarray(small[::4, ::4]).reshape(-1, 1)  # the values of all three channels
        hist = cv2.calcHist([sample], [0], None, [256], [0, 256]).ravel()
        lo, hi = _percentiles(hist, 0.01, 0.99)
        alpha = min(255.0 / max(hi - lo, 1.0), 2.5)
        if alpha > 1.05:
            small = cv2.convertScaleAbs(small, alpha=alpha, beta=-lo * alpha)
        # Canny on the colour image takes the strongest gradient of the three channels: a card can
        # differ from the table in colour only
        if near is None:
            edges = cv2.Canny(small, self.canny_low, self.canny_high)
        else:
            edges = np.zeros(small.shape[:2], np.uint8)
            for x0, y0, x1, y1 in _merged_boxes(self._regions(near, small.shape[:2])):
                edges[y0:y1, x0:x1] = cv2.Canny(small[y0:y1, x0:x1], self.canny_low, self.canny_high)
        return EdgeMap(cv2.dilate(edges, np.ones((3, 3), np.uint8)), self.scale, thin=edges)

    def _regions(self, quads: list[np.ndarray], shape: tuple[int, int]) -> np.ndarray:
        """(x0, y0, x1, y1) at the map's scale around each quad, clipped to the map (K x 4)."""
        if not quads:
            return np.zeros((0, 4), np.int64)
        q = (np.asarray(quads, np.float64).reshape(-1, 4, 2) + 0.5) / self.scale - 0.5
        lo, hi = q.min(axis=1), q.max(axis=1)
        margin = (self.near_margin * (hi - lo).max(axis=1) + self.near_pad)[:, None]
        h, w = shape
        lo = np.clip(np.floor(lo - margin), 0, [w, h]).astype(np.int64)
        hi = np.clip(np.ceil(hi + margin), 0, [w, h]).astype(np.int64)
        keep = (hi > lo + 2).all(axis=1)
        return np.concatenate([lo, hi], axis=1)[keep]

    def propose(self, frame: np.ndarray, edge_map: EdgeMap | None = None,
                near: list[np.ndarray] | None = None) -> list[np.ndarray]:
        """Card-shaped quads (4x2 float, frame pixels, clockwise portrait order); with ``near``, only
        the ones that overlap the bounding box of one of those quads."""
        em = edge_map if edge_map is not None else self.edge_map(frame)
        s = em.scale
        h, w = em.edges.shape
        min_short = self.min_short_side / s
        min_area = min_short * min_short * self.aspect_low * self.min_fill
        max_area = self.max_area_share * h * w
        # the thin edges: where a card's outline runs close to its dark frame, or a pattern on the
        # cloth touches the outline, dilated edges merge, but the thin outline and the frame still
        # enclose a card-shaped ring
        contours, _ = cv2.findContours(em.thin if em.thin is not None else em.edges, cv2.RETR_LIST,
                                       cv2.CHAIN_APPROX_SIMPLE)
        near_boxes = None if near is None else \
            np.array([cv2.boundingRect(np.float32((np.asarray(q, np.float64).reshape(4, 2) + 0.5) / s - 0.5))
                      for q in near], np.int64).reshape(-1, 4)
        # the cheap tests on all outlines at once: four points or more, big enough, near a given quad
        lengths = np.fromiter(map(len, contours), np.int64, len(contours))
        boxes = _contour_boxes(contours, lengths)
        keep = (lengths >= 4) & (boxes[:, 2] >= 0.7 * min_short) & (boxes[:, 3] >= 0.7 * min_short)
        if near_boxes is not None:
            keep &= _touching(boxes, near_boxes).any(axis=1)
        # first guesses one outline at a time, then every guess's sides re-fitted at once
        outlines, guesses, hull_areas = [], [], []
        for k in np.flatnonzero(keep):
            contour = contours[k]
            area = abs(cv2.contourArea(contour))
            if area < min_area or area > max_area:
                continue
            # a cheap first look (the rotated bounding box) before the fit: most outlines are not cards
            (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
            r_short, r_long = min(rw, rh), max(rw, rh)
            if r_short < 0.85 * min_short or area < 0.8 * self.min_fill * rw * rh or \
                    not 0.9 * self.aspect_low <= r_long / max(r_short, 1e-6) <= 1.1 * self.aspect_high:
                continue
            guess = self._guess(contour, area)
            if guess is not None:
                outlines.append(contour)
                guesses.append(guess[0])
                hull_areas.append(guess[1])
        refined, refitted = refit_sides(outlines, guesses)
        quads = []
        for guess, hull_area, fitted, ok in zip(guesses, hull_areas, refined, refitted):
            quad = self._chosen(guess, hull_area, fitted if ok else None)
            if quad is None:
                continue
            sides = np.linalg.norm(quad - quad[NEXT_CORNER], axis=1)
            short, long = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
            if short > long:
                short, long = long, short
            if short < min_short or not self.aspect_low <= long / max(short, 1e-6) <= self.aspect_high:
                continue
            quads.append(order_clockwise_portrait((quad + 0.5) * s - 0.5))
        return _distinct(quads, em)

    def _guess(self, contour: np.ndarray, area: float) -> tuple[np.ndarray, float] | None:
        """A first quad for an outline (a 4-point polygon of its hull, or its rotated rectangle) and
        the hull's area; None when the outline is not a convex quadrilateral."""
        hull = cv2.convexHull(contour)
        hull_area = abs(cv2.contourArea(hull))
        if hull_area <= 0 or area / hull_area < self.min_fill:
            return None  # not convex enough: an outline of several things
        perimeter = cv2.arcLength(hull, True)
        guess = four_corners(hull, perimeter, (0.02, 0.035, 0.05))
        if guess is None:
            rect = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
            if hull_area / max(abs(cv2.contourArea(rect.astype(np.float32))), 1e-6) < 0.92:
                return None
            guess = rect
        quad_area = abs(cv2.contourArea(guess.astype(np.float32)))
        if quad_area <= 0 or hull_area / quad_area < self.min_fill or quad_area / hull_area > 1.15:
            return None
        return guess, hull_area

    @staticmethod
    def _chosen(guess: np.ndarray, hull_area: float, refined: np.ndarray | None) -> np.ndarray | None:
        """The re-fitted quad when it is convex and of about the hull's area, else the guess when it
        is convex, else None."""
        if refined is not None and cv2.isContourConvex(refined.astype(np.float32)):
            r_area = abs(cv2.contourArea(refined.astype(np.float32)))
            if 0.9 * hull_area <= r_area <= 1.15 * hull_area:
                return refined
        return guess if cv2.isContourConvex(guess.astype(np.float32)) else None


def combine_quads(mask_quads: list[np.ndarray], proposals: list[np.ndarray], edge_map: EdgeMap,
                  same_card_iou: float = 0.5, new_cards: bool = False, min_support: float = 0.8,
                  max_new: int = 24) -> list[np.ndarray]:
    """One quad per card from the mask net's quads and the proposals: each mask quad also snapped onto
    the card's outline, and where quads overlap (IoU at least ``same_card_iou``) the one whose sides
    lie best on the frame's edges is kept.

    A proposal that overlaps no mask quad (IoU under 0.3) is either a card the mask net missed or not
    a card. Measured on validation scenes, such proposals added a few cards but far more wrong answers,
    some with full confidence (patches of backs, table patterns), so they are left out unless
    ``new_cards``; then at most ``max_new`` of them (the best), each with at least ``min_support`` of
    its sides on edges, and the crop classifier's ``none`` has to reject the ones that are not cards."""
    from vision.evaluate import quad_iou
    scored = []
    mask_boxes = _bounding_boxes(mask_quads)
    # which mask quads' and proposals' boxes touch, all pairs at once (only those can overlap)
    mask_near_proposal = _touching(mask_boxes, _bounding_boxes(proposals))
    mask_supports = edge_map.supports(mask_quads).tolist()
    # no need to snap a quad already on its outline, or one a proposal fits better
    to_snap = [i for i, (q, support) in enumerate(zip(mask_quads, mask_supports))
               if not (support >= 0.85 or any(quad_iou(proposals[j], q) >= 0.7
                                              for j in np.flatnonzero(mask_near_proposal[i])))]
    snapped = {i: order_clockwise_portrait(q)
               for i, q in zip(to_snap, snap_all_to_edges([mask_quads[i] for i in to_snap], edge_map))}
    snapped_supports = dict(zip(snapped, edge_map.supports(list(snapped.values())).tolist()))
    for i, (q, support) in enumerate(zip(mask_quads, mask_supports)):
        q = np.asarray(q, np.float64)
        if i in snapped:
            scored.append(max((support, "mask", q), (snapped_supports[i], "mask", snapped[i]), key=lambda t: t[0]))
        else:
            scored.append((support, "mask", q))
    mask_areas = [abs(cv2.contourArea(np.float32(q))) for q in mask_quads]
    for j, (q, q_support) in enumerate(zip(proposals, edge_map.supports(proposals).tolist())):
        near = [(mask_quads[i], mask_areas[i], quad_iou(q, mask_quads[i]))
                for i in np.flatnonzero(mask_near_proposal[:, j])]
        is_new = all(iou < 0.3 for _, _, iou in near)
        if is_new and not new_cards:
            continue
        # a proposal well inside a mask quad that is 8-60% larger is the inner edge of a dark frame
        # whose outline does not show against a dark table: the mask net saw the whole card
        area = abs(cv2.contourArea(np.float32(q)))
        if any(1.08 * area <= ma <= 1.6 * area and iou >= 0.6 for _, ma, iou in near):
            continue
        scored.append((q_support, "new" if is_new else "proposal", q))
    # best-supported first (a tenth apart counts as equal); on a tie the larger: the card's outline,
    # not the inner edge of its frame
    scored.sort(key=lambda t: (-round(t[0] * 10), -abs(cv2.contourArea(t[2].astype(np.float32)))))
    scored_boxes = _bounding_boxes([q for _, _, q in scored])
    touching = _touching(scored_boxes, scored_boxes).tolist()  # lists: read one pair at a time
    kept: list[int] = []
    new = 0
    for j, (support, kind, q) in enumerate(scored):
        if any(touching[j][k] and quad_iou(q, scored[k][2]) >= same_card_iou for k in kept):
            continue
        if kind != "mask" and support < min_support:
            continue
        if kind == "new":
            if new >= max_new:
                continue
            new += 1
        kept.append(j)
    return [scored[k][2] for k in kept]


def _distinct(quads: list[np.ndarray], edge_map: EdgeMap, same_iou: float = 0.7) -> list[np.ndarray]:
    """One of each group of near-identical quads (the same outline traced on both sides of a thin
    edge): the one whose sides lie best on the edges."""
    from vision.evaluate import quad_iou
    # (supports a tenth apart count as equal: then the larger, the card's outline rather than the
    # inner edge of its frame)
    supports = edge_map.supports(quads).tolist()
    order = sorted(range(len(quads)), key=lambda i: (-round(supports[i] * 10), -abs(cv2.contourArea(quads[i].astype(np.float32)))))
    quads = [quads[i] for i in order]
    kept: list[np.ndarray] = []
    boxes = []
    for q in quads:
        box = cv2.boundingRect(q.astype(np.float32))
        if any(not _boxes_apart(box, b) and quad_iou(q, k) >= same_iou for k, b in zip(kept, boxes)):
            continue
        kept.append(q)
        boxes.append(box)
    return kept


def _merged_boxes(boxes: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) merged until none overlaps another: each pixel's edges are found once."""
    merged = [tuple(int(v) for v in b) for b in boxes]
    changed = True
    while changed and len(merged) > 1:
        changed = False
        out: list[tuple[int, int, int, int]] = []
        for b in merged:
            for k, m in enumerate(out):
                if b[0] < m[2] and m[0] < b[2] and b[1] < m[3] and m[1] < b[3]:
                    out[k] = (min(b[0], m[0]), min(b[1], m[1]), max(b[2], m[2]), max(b[3], m[3]))
                    changed = True
                    break
            else:
                out.append(b)
        merged = out
    return merged


def _contour_boxes(contours, lengths: np.ndarray) -> np.ndarray:
    """cv2.boundingRect (x, y, w, h) of each of the integer ``contours`` (of ``lengths`` points, at
    least one each), all at once: a frame's edges give hundreds of outlines."""
    if len(contours) == 0:
        return np.zeros((0, 4), np.int64)
    pts = np.concatenate(contours).reshape(-1, 2).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths[:-1])])
    lo = np.minimum.reduceat(pts, starts, axis=0)
    hi = np.maximum.reduceat(pts, starts, axis=0)
    return np.concatenate([lo, hi - lo + 1], axis=1)


def _bounding_boxes(quads: list[np.ndarray]) -> np.ndarray:
    """cv2.boundingRect (x, y, w, h) of each quad (N x 4)."""
    return np.array([cv2.boundingRect(np.float32(q)) for q in quads], np.int64).reshape(-1, 4)


def _touching(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For boxes (x, y, w, h) ``a`` (N x 4) and ``b`` (M x 4): N x M, whether each pair touches
    (``not _boxes_apart``)."""
    ax, ay, aw, ah = (a[:, i:i + 1] for i in range(4))
    bx, by, bw, bh = (b[:, i] for i in range(4))
    return ~((ax + aw < bx) | (bx + bw < ax) | (ay + ah < by) | (by + bh < ay))


def _boxes_apart(a, b) -> bool:
    return a[0] + a[2] < b[0] or b[0] + b[2] < a[0] or a[1] + a[3] < b[1] or b[1] + b[3] < a[1]


def snap_to_edges(quad: np.ndarray, edge_map: EdgeMap, band: float = 0.12, min_share: float = 0.35) -> np.ndarray:
    """The quad with each side moved onto the outermost straight edge near it (``snap_all_to_edges``
    of one quad)."""
    return snap_all_to_edges([quad], edge_map, band, min_share)[0]


def snap_all_to_edges(quads: list[np.ndarray], edge_map: EdgeMap, band: float = 0.12,
                      min_share: float = 0.35) -> list[np.ndarray]:
    """Each quad with each side moved onto the outermost straight edge near it (within ``band`` of
    the card's short side, turned by up to 4 degrees): a mask quad is a blob grown back to size, a
    little off; the card's outline is sharp. A side with no such edge stays where it is, and a quad
    whose snapped version is not convex or changes its area too much stays as it was. All quads at
    once: numpy's cost per call, not the few hundred edge points of a quad, was most of the work."""
    s = edge_map.scale
    out = [np.asarray(quad, np.float64).reshape(4, 2) for quad in quads]
    if not out:
        return out
    q_all = (np.array(out) + 0.5) / s - 0.5
    d = q_all - q_all[:, NEXT_CORNER]
    sides = np.sqrt((d * d).sum(axis=2))
    reach_all = band * np.minimum(sides.min(axis=1), 400.0) + 2.0
    lo = np.floor(q_all.min(axis=1) - reach_all[:, None]).astype(int)
    hi = np.ceil(q_all.max(axis=1) + reach_all[:, None]).astype(int)
    h, w = edge_map.edges.shape
    lo, hi = np.maximum(lo, 0), np.minimum(hi, [w, h])
    # the thin edges: a third of the points of the dilated ones, and sharper lines
    edges = edge_map.thin if edge_map.thin is not None else edge_map.edges
    which, point_sets = [], []
    for i, ((x0, y0), (x1, y1)) in enumerate(zip(lo.tolist(), hi.tolist())):
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        ys, xs = np.nonzero(edges[y0:y1, x0:x1])
        if len(xs) >= 8:
            which.append(i)
            point_sets.append(np.stack([xs + x0, ys + y0], axis=1))
    if not which:
        return out
    q, reach = q_all[which], reach_all[which]
    owner = np.repeat(np.arange(len(which)), [len(p) for p in point_sets])
    lines = _snap_sides(np.concatenate(point_sets).astype(np.float64), owner, q, reach, min_share)
    snapped, met = _line_corners(lines)
    for i, quad, corners, ok in zip(which, q, snapped, met):
        if not ok:
            continue
        area_before = abs(cv2.contourArea(quad.astype(np.float32)))
        area_after = abs(cv2.contourArea(corners.astype(np.float32)))
        if cv2.isContourConvex(corners.astype(np.float32)) and 0.92 * area_before <= area_after <= 1.25 * area_before:
            out[i] = (corners + 0.5) * s - 0.5
    return out


_SNAP_ANGLES = np.deg2rad(np.arange(-4, 4.5, 1.0))
_SNAP_COS, _SNAP_SIN = np.cos(_SNAP_ANGLES), np.sin(_SNAP_ANGLES)
_SNAP_SIN_MAX = float(np.sin(_SNAP_ANGLES.max()))


def _snap_sides(pts: np.ndarray, owner: np.ndarray, q: np.ndarray, reach: np.ndarray,
                min_share: float) -> np.ndarray:
    """A line (x, y, dx, dy) for each side q[k, i] -> q[k, i+1] of K quads (K x 4 x 4): the
    outermost well-supported edge line near it among the edge points ``pts`` of that quad
    (``owner``: which quad each point is of), or the side itself where there is none."""
    k_quads = len(q)
    a, b = q, q[:, NEXT_CORNER]
    d = b - a
    length = np.hypot(d[..., 0], d[..., 1])  # K x 4
    u = d / np.maximum(length, 1e-9)[..., None]
    mid = (a + b) / 2
    normal = np.stack([-u[..., 1], u[..., 0]], axis=-1)
    outward = ((mid - q.mean(axis=1, keepdims=True)) * normal).sum(axis=2) >= 0
    normal = np.where(outward[..., None], normal, -normal)  # pointing out of the card
    # every edge point's place along and across each of the four sides of its quad
    x, y = pts[:, :1], pts[:, 1:]
    # (each quad's values per point by take: the same values as indexing, in less time)
    along = x * u[..., 0].take(owner, axis=0) + y * u[..., 1].take(owner, axis=0) - \
        (mid * u).sum(axis=2).take(owner, axis=0)
    across0 = x * normal[..., 0].take(owner, axis=0) + y * normal[..., 1].take(owner, axis=0) - \
        (mid * normal).sum(axis=2).take(owner, axis=0)
    # only the edge points along the middle of a side and within reach of it (any of the angles)
    length_of = length.take(owner, axis=0)
    near = (np.abs(along) < 0.38 * length_of) & \
        (np.abs(across0) < reach.take(owner)[:, None] + 0.4 * length_of * _SNAP_SIN_MAX)
    angles = len(_SNAP_ANGLES)
    bins = int(2 * reach.max()) + 2  # the widest quad's; the others' bins beyond their own stay empty
    # each side's outward normal turned by each angle (K x 4 x 2 x angles)
    normals = np.stack([_SNAP_COS * normal[..., :1] - _SNAP_SIN * normal[..., 1:],
                        _SNAP_SIN * normal[..., :1] + _SNAP_COS * normal[..., 1:]], axis=2)
    point, side = np.nonzero(near)
    quad = owner[point]
    quad_side = quad * 4 + side
    rel = pts.take(point, axis=0) - mid.reshape(-1, 2).take(quad_side, axis=0)
    normals_of = normals.reshape(k_quads * 4, 2, angles)
    across_all = rel[:, :1] * normals_of[:, 0].take(quad_side, axis=0) + \
        rel[:, 1:] * normals_of[:, 1].take(quad_side, axis=0)  # pairs x angles
    r = reach.take(quad)[:, None]
    inband = np.abs(across_all) < r
    # one histogram of the distance across the side per quad, side and angle, all in one bincount
    index = np.floor(across_all + r).astype(np.int64) + \
        (quad_side[:, None] * angles + np.arange(angles)) * bins
    counts = np.bincount(index[inband], minlength=k_quads * 4 * angles * bins).reshape(k_quads, 4, angles, bins)
    counts = counts[..., :-1] + counts[..., 1:]  # 2-pixel bins, overlapping
    # per side, the angle whose best line is the sharpest
    k_angle = counts.max(axis=3).argmax(axis=2)
    rows = np.take_along_axis(counts, k_angle[..., None, None], axis=2)[:, :, 0]
    strongest = rows.max(axis=2)
    # an edge along a side: about one hit per pixel of side (a thin edge, 2-pixel bins)
    need = min_share * 0.76 * length
    found = (np.bincount(quad_side, minlength=4 * k_quads).reshape(k_quads, 4) >= 4) & (strongest >= need)
    # on it, the outermost line nearly as strong as the strongest: the card's outline, not the
    # inner edge of its frame or a straight line of its art
    strong = rows >= np.maximum(need, 0.6 * strongest)[..., None]
    k = rows.shape[2] - 1 - strong[..., ::-1].argmax(axis=2)
    n = np.take_along_axis(normals, k_angle[:, :, None, None], axis=3)[..., 0]
    points = mid + n * (k + 1 - reach[:, None])[..., None]
    directions = np.stack([n[..., 1], -n[..., 0]], axis=-1)
    # a side with no such edge stays where it is
    return np.where(found[..., None], np.concatenate([points, directions], axis=2), np.concatenate([a, u], axis=2))
