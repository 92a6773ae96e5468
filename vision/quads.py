"""From the mask net's interior map to card quads in frame pixels.

The mask net marks each card's interior shrunk to ``shrink`` of its size around its centre, so
touching cards give separate blobs. Each blob is traced at 4x the map's resolution (bilinear), fitted
with a quadrilateral (perspective) or a rotated rectangle, and grown back by 1 / shrink.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

_TRACE_UPSAMPLE = 4
# corner i's successor (np.roll is slow on 4 points)
NEXT_CORNER = np.array([1, 2, 3, 0])


@dataclass(frozen=True)
class MapGeometry:
    """How a map pixel relates to a frame pixel: frame = (map + 0.5) * step - 0.5 per axis."""
    step_x: float
    step_y: float

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        out = np.empty_like(pts, dtype=np.float64)
        out[:, 0] = (pts[:, 0] + 0.5) * self.step_x - 0.5
        out[:, 1] = (pts[:, 1] + 0.5) * self.step_y - 0.5
        return out


def order_clockwise_portrait(quad: np.ndarray) -> np.ndarray:
    """Corners clockwise on screen (y down), starting at a corner whose next edge is a short side,
    so the quad reads as an upright portrait card (or the same card turned 180 degrees)."""
    # plain floats: on four points numpy's per-call cost is most of the work (called per quad, often)
    pts = np.asarray(quad, dtype=np.float64).reshape(4, 2).tolist()
    cx = (((pts[0][0] + pts[1][0]) + pts[2][0]) + pts[3][0]) / 4
    cy = (((pts[0][1] + pts[1][1]) + pts[2][1]) + pts[3][1]) / 4
    # increasing angle with y down = clockwise on screen
    pts = sorted(pts, key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
    sides = [math.sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]))
             for a, b in zip(pts, pts[1:] + pts[:1])]
    if sides[0] + sides[2] > sides[1] + sides[3]:
        pts = pts[1:] + pts[:1]
    # of the two portrait readings, start at the one nearer the frame's top-left (the classifier's
    # orientation output turns it round when the card is upside down)
    if pts[2][0] + pts[2][1] < pts[0][0] + pts[0][1]:
        pts = pts[2:] + pts[:2]
    return np.array(pts)


def four_corners(hull: np.ndarray, perimeter: float, tolerances) -> np.ndarray | None:
    """The first simplification of ``hull`` to exactly four corners, trying each tolerance (a
    fraction of the perimeter) from tight to loose; None when none gives four."""
    for eps in tolerances:
        poly = cv2.approxPolyDP(hull, eps * perimeter, True).reshape(-1, 2)
        if len(poly) == 4:
            return poly.astype(np.float64)
        if len(poly) < 4:
            return None
    return None


def fit_quad(contour: np.ndarray, perspective: bool = True) -> np.ndarray:
    """Four corners for a card-like blob outline (``fit_quads`` of one)."""
    return fit_quads([contour], perspective)[0]


def fit_quads(contours: list[np.ndarray], perspective: bool = True) -> list[np.ndarray]:
    """Four corners for each card-like blob outline: a first guess (a 4-point polygon of the hull, or
    the minimum-area rectangle), then each side re-fitted as a line through the straight middle of
    that side of the outline and the corners put where the lines meet, so rounded blob corners and
    perspective (trapezoids) do not bias the quad. All outlines' sides are re-fitted at once
    (``refit_sides``): numpy's cost per call, not the points, was most of the work."""
    guesses, hull_areas = [], []
    for contour in contours:
        hull = cv2.convexHull(contour.reshape(-1, 1, 2).astype(np.float32))
        rect = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        hull_area = abs(cv2.contourArea(hull))
        guess = rect
        rect_area = abs(cv2.contourArea(rect.astype(np.float32)))
        # a blob that fills its rectangle is a card seen square on: start from the rectangle
        square_on = not perspective or (rect_area > 0 and hull_area / rect_area > 0.94)
        if not square_on:
            guess = four_corners(hull, cv2.arcLength(hull, True), (0.02, 0.035, 0.05, 0.08))
            if guess is None:
                guess = rect
        guesses.append(guess)
        hull_areas.append(hull_area)
    refined, refitted = refit_sides(contours, guesses)
    quads = []
    for guess, hull_area, quad, ok in zip(guesses, hull_areas, refined, refitted):
        if ok:
            area = abs(cv2.contourArea(quad.astype(np.float32)))
            if 0.9 * hull_area <= area <= 1.2 * hull_area and cv2.isContourConvex(quad.astype(np.float32)):
                quads.append(quad)
                continue
        quads.append(guess)
    return quads


def refit_sides(contours: list[np.ndarray], quads: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each quad's four sides re-fitted to its outline, all outlines at once: each side becomes the
    least-squares line (as ``cv2.fitLine`` with ``DIST_L2`` fits it) through the outline points along
    the middle 70% of that side and close to it, and the corners are put where the lines meet.
    Returns the re-fitted quads (K x 4 x 2) and whether each could be re-fitted (every side at least
    2 long with 3 points near it, no two neighbouring lines parallel); where not, its row holds the
    quad as given."""
    k = len(contours)
    q = np.asarray(quads, np.float64).reshape(k, 4, 2)
    if k == 0:
        return q, np.zeros(0, bool)
    point_sets = [np.asarray(c).reshape(-1, 2) for c in contours]
    pts = np.concatenate(point_sets).astype(np.float64)
    owner = np.repeat(np.arange(k), [len(c) for c in point_sets])
    d = q[:, NEXT_CORNER] - q
    length = np.hypot(d[..., 0], d[..., 1])  # K x 4
    ok = (length >= 2).all(axis=1)
    length = np.where(ok[:, None], length, 1.0)  # (a quad with a side too short is given back as it is)
    u = d / length[..., None]
    n = np.stack([-u[..., 1], u[..., 0]], axis=-1)
    # where every outline point lies along (0 to 1) and across each side of its own quad
    x, y = pts[:, :1], pts[:, 1:]
    # (each quad's values per point by take: the same values as indexing, in less time)
    length_of = length.take(owner, axis=0)
    along = (x * u[..., 0].take(owner, axis=0) + y * u[..., 1].take(owner, axis=0) -
             (q * u).sum(axis=2).take(owner, axis=0)) / length_of
    across = np.abs(x * n[..., 0].take(owner, axis=0) + y * n[..., 1].take(owner, axis=0) -
                    (q * n).sum(axis=2).take(owner, axis=0))
    near = (along > 0.15) & (along < 0.85) & (across < np.maximum(1.5, 0.12 * length_of))
    point, side = np.nonzero(near)
    side_of = owner.take(point) * 4 + side
    count = np.bincount(side_of, minlength=4 * k).reshape(k, 4)
    ok &= (count >= 3).all(axis=1)
    # cv2.fitLine's line: through the points' mean, along the direction of their largest spread.
    # Its sums, done the same way (float32 points, float32 squares summed in double: exact for
    # outline points on a pixel grid, so the order of summing does not matter)
    p = pts.astype(np.float32)
    px, py = p[:, 0].take(point), p[:, 1].take(point)
    mean = [np.bincount(side_of, weights=v.astype(np.float64), minlength=4 * k).reshape(k, 4) /
            np.maximum(count, 1) for v in (px, py, px * px, py * py, px * py)]
    mx, my, mxx, myy, mxy = mean
    angle = (np.arctan2(2 * (mxy - mx * my), (mxx - mx * mx) - (myy - my * my)).astype(np.float32)
             / np.float32(2)).astype(np.float64)
    lines = np.stack([mx.astype(np.float32), my.astype(np.float32),
                      np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)], axis=-1).astype(np.float64)
    corners, met = _line_corners(lines)
    ok &= met
    return np.where(ok[:, None, None], corners, q), ok


def _line_corners(lines: np.ndarray, eps: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """For K quads' side lines (K x 4 x (x, y, dx, dy)), the corners where each line meets the one
    before it (K x 4 x 2, by Cramer's rule), and whether every pair of neighbouring lines met (not
    parallel within ``eps``)."""
    p1x, p1y, d1x, d1y = np.moveaxis(lines[:, [3, 0, 1, 2]], 2, 0)
    p2x, p2y, d2x, d2y = np.moveaxis(lines, 2, 0)
    det = d1y * d2x - d1x * d2y
    met = (np.abs(det) >= eps).all(axis=1)
    rx, ry = p2x - p1x, p2y - p1y
    t = (ry * d2x - rx * d2y) / np.where(det == 0, 1.0, det)
    return np.stack([p1x + t * d1x, p1y + t * d1y], axis=-1), met


def corners_of_lines(lines, eps: float = 1e-6) -> np.ndarray | None:
    """The four corners where each side line (point, direction) meets the one before it, or None
    when two neighbouring sides are parallel."""
    flat = np.array([[p[0], p[1], d[0], d[1]] for p, d in lines], np.float64)
    corners, met = _line_corners(flat[None], eps)
    return corners[0] if met[0] else None


def grow(quad: np.ndarray, shrink: float) -> np.ndarray:
    """The quad (4 x 2), or each of a stack of quads (K x 4 x 2), scaled about its centre by 1 / shrink."""
    c = quad.mean(axis=-2, keepdims=True)
    return c + (quad - c) / shrink


@dataclass(frozen=True)
class QuadFinder:
    shrink: float
    threshold: float = 0.5
    min_blob_px: int = 6  # in map pixels: smaller blobs are specks, not cards
    core_threshold: float = 0.9  # a blob with several cores this sure is split between them
    centre_core: float = 0.5  # with a centre map: its cores are where it passes this
    perspective: bool = False  # start trapezoids from a 4-point polygon (measured worse than from the rectangle)

    def find(self, interior: np.ndarray, geometry: MapGeometry, centre: np.ndarray | None = None) -> list[np.ndarray]:
        """Quads (4x2, frame pixels, clockwise portrait order) of the blobs of the interior map. With
        a ``centre`` map (the mask net's third output, the same shape), a blob is split between the
        cores of the centre map when every part is card-shaped (PART_SHAPED), else between the
        interior's most confident cores as without it."""
        if centre is not None and centre.shape != interior.shape:
            raise ValueError(f"the centre map is {centre.shape}, the interior map {interior.shape}")
        binary = (interior > self.threshold).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=4)
        h, w = interior.shape
        # which blobs hold two or more cores (of the centre map; of the interior's most confident
        # pixels), counted for the whole map at once: most blobs hold one, and only the others need
        # _split's work (a core lies inside one blob, so its blob's own labelling finds the same ones)
        split_by_centre = self._several_cores(centre > self.centre_core, binary, labels, n) \
            if centre is not None else np.zeros(n, bool)
        split_by_interior = self._several_cores(interior > self.core_threshold, binary, labels, n)
        # each blob's outlines in blob order; a blob split by the centre map keeps its parts only
        # when all of them fit card-shaped quads, judged after one fit of every such blob's parts
        # (numpy's cost per call, not the points, was most of the fitting's time), else its
        # outlines are those of the split without the centre map
        blob_outlines: list[list[np.ndarray]] = []
        centre_parts: dict[int, list[np.ndarray]] = {}  # blob position -> the parts of its centre split
        windows: dict[int, tuple] = {}  # blob position -> its window, for the split without the centre map
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            if area < self.min_blob_px:
                continue
            x0, y0 = max(x - 2, 0), max(y - 2, 0)
            x1, y1 = min(x + bw + 2, w), min(y + bh + 2, h)
            window = (interior[y0:y1, x0:x1], labels[y0:y1, x0:x1] == 0, labels[y0:y1, x0:x1] == i,
                      x0, y0, split_by_interior[i])
            if split_by_centre[i]:
                roi, _, blob = window[:3]
                regions = self._split(roi, blob, centre[y0:y1, x0:x1])
                if len(regions) > 1:
                    # every part must look like a card: a card's centre map with two bumps (cut into
                    # halves) or a hidden card's sliver give parts that do not; then split as without it
                    parts = self._region_outlines(window, regions)
                    if all(part is not None for part in parts):
                        centre_parts[len(blob_outlines)] = parts
                        windows[len(blob_outlines)] = window
                        blob_outlines.append([])
                        continue
            blob_outlines.append(self._blob_outlines(window))
        # the centre splits judged: fitted all at once
        judged = iter(self._quads([p for parts in centre_parts.values() for p in parts], geometry))
        centre_quads = {}
        for position, parts in centre_parts.items():
            found = [next(judged) for _ in parts]
            if all(PART_SHAPED[0] <= side_ratio(q) <= PART_SHAPED[1] for q in found):
                centre_quads[position] = found
            else:
                blob_outlines[position] = self._blob_outlines(windows[position])
        fitted = iter(self._quads([o for k, outlines in enumerate(blob_outlines) if k not in centre_quads
                                   for o in outlines], geometry))
        quads: list[np.ndarray] = []
        for k, outlines in enumerate(blob_outlines):
            quads += centre_quads[k] if k in centre_quads else [next(fitted) for _ in outlines]
        return quads

    def _region_outlines(self, window: tuple, regions: list[np.ndarray]) -> list[np.ndarray | None]:
        """The outline of each region of a blob's window (None for a speck); the soft edge just
        outside the blob (the background) is kept as part of each region's outline."""
        roi, background, _, x0, y0, _ = window
        return [self._outline(np.where(region | background, roi, 0.0).astype(np.float32), x0, y0)
                for region in regions]

    def _blob_outlines(self, window: tuple) -> list[np.ndarray]:
        """A blob's outlines without the centre map: the blob's, or its parts' when it holds several
        confident interior cores."""
        roi, _, blob, _, _, several_cores = window
        parts = self._region_outlines(window, self._split(roi, blob) if several_cores else [blob])
        return [o for o in parts if o is not None]

    def _several_cores(self, core_pixels: np.ndarray, binary: np.ndarray, blob_labels: np.ndarray,
                       blobs: int) -> np.ndarray:
        """For each blob label (0 to ``blobs`` - 1), whether it holds at least two cores that
        ``_split`` counts: 4-connected groups of ``core_pixels`` inside the blob of at least its
        least core size."""
        cores = (core_pixels & (binary > 0)).astype(np.uint8)
        n, core_labels, stats, _ = cv2.connectedComponentsWithStats(cores, connectivity=4)
        blob_of_core = np.zeros(n, np.int64)
        inside = core_labels > 0
        blob_of_core[core_labels[inside]] = blob_labels[inside]
        big = stats[:, cv2.CC_STAT_AREA] >= max(2, self.min_blob_px // 2)
        big[0] = False  # the background
        return np.bincount(blob_of_core[big], minlength=blobs)[:blobs] >= 2

    def _split(self, roi: np.ndarray, blob: np.ndarray, centre: np.ndarray | None = None) -> list[np.ndarray]:
        """The blob, or its parts when touching cards left it with several confident cores (of the
        centre map when there is one: it falls to 0 at each interior's edge, so touching cards keep
        apart there even where their interiors run together)."""
        if centre is not None:
            cores = ((centre > self.centre_core) & blob).astype(np.uint8)
        else:
            cores = ((roi > self.core_threshold) & blob).astype(np.uint8)
        n, core_labels, stats, _ = cv2.connectedComponentsWithStats(cores, connectivity=4)
        big = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= max(2, self.min_blob_px // 2)]
        if len(big) < 2:
            return [blob]
        markers = np.zeros(roi.shape, np.int32)
        for m, k in enumerate(big, start=1):
            markers[core_labels == k] = m
        if centre is not None:
            # each pixel of the blob goes to the nearest core: the cores are the cards' middles, so
            # the parts meet halfway between them, where the cards touch. (A watershed floods by the
            # map's steps, and across a gap the net filled, flat, one side took it all.)
            distances = np.stack([cv2.distanceTransform((markers != m).astype(np.uint8), cv2.DIST_L2, 3)
                                  for m in range(1, len(big) + 1)])
            nearest = distances.argmin(axis=0) + 1
            return [(nearest == m) & blob for m in range(1, len(big) + 1)]
        markers[~blob] = len(big) + 1  # outside the blob
        image = cv2.cvtColor((255 - np.clip(roi * 255, 0, 255)).astype(np.uint8), cv2.COLOR_GRAY2BGR)
        cv2.watershed(image, markers)
        return [(markers == m) & blob for m in range(1, len(big) + 1)]

    def _outline(self, roi: np.ndarray, x0: int, y0: int) -> np.ndarray | None:
        """The outline of the largest region of ``roi`` (a window of the interior map from column
        ``x0``, row ``y0``) traced at 4x its resolution, in map pixels; None for a speck."""
        rh, rw = roi.shape
        up = cv2.resize(roi, (rw * _TRACE_UPSAMPLE, rh * _TRACE_UPSAMPLE), interpolation=cv2.INTER_LINEAR)
        contours, _ = cv2.findContours((up > self.threshold).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_NONE)
        if not contours:
            return None
        contour = max(contours, key=cv2.contourArea)
        if cv2.contourArea(contour) < self.min_blob_px * _TRACE_UPSAMPLE ** 2:
            return None
        # upsampled pixel centre -> map pixel coordinates
        return (contour.reshape(-1, 2).astype(np.float64) + 0.5) / _TRACE_UPSAMPLE - 0.5 + np.array([x0, y0])

    def _quads(self, outlines: list[np.ndarray], geometry: MapGeometry) -> list[np.ndarray]:
        """The card quads (frame pixels) of blob outlines: fitted, grown back by 1 / shrink."""
        if not outlines:
            return []
        # all at once: numpy's cost per call on four points was most of this
        fitted = np.array(fit_quads(outlines, self.perspective), np.float64)
        in_frame = geometry.to_frame(fitted.reshape(-1, 2)).reshape(fitted.shape)
        return [order_clockwise_portrait(q) for q in grow(in_frame, self.shrink)]


# long side / short side of a part of a blob split by the centre map, and of a piece of a quad cut by
# pieces_by_quad: a little looser than CARD_SHAPED, such parts are rough
PART_SHAPED = (1.3, 2.0)

# a card's long side over its short side (87 : 54 mm)
CARD_ASPECT = 87 / 54

# long side / short side of a quad taken as one card (a card is 87:54 = 1.61; a tilted camera and
# a slightly off blob stretch it a little)
CARD_SHAPED = (1.45, 1.8)


def card_sizes(quads: list[np.ndarray]) -> tuple[list[float], list[bool], float | None]:
    """Each quad's side (sqrt of its area), whether it is card-shaped (CARD_SHAPED), and the median
    side of the card-shaped ones (None with fewer than two): the size of the frame's cards."""
    sides = [math.sqrt(abs(cv2.contourArea(np.float32(q)))) for q in quads]
    shaped = [CARD_SHAPED[0] <= side_ratio(q) <= CARD_SHAPED[1] for q in quads]
    median = float(np.median([s for s, ok in zip(sides, shaped) if ok])) if sum(shaped) >= 2 else None
    return sides, shaped, median


# long side / short side (the mean of each pair of opposite sides) below which a quad's portrait
# reading is in doubt: a card seen at a slant of more than 30 degrees along its long side looks
# nearly square (at about 50 degrees, square), and its short sides may be the other pair
SQUAT_BELOW = 1.4


def is_squat(quad: np.ndarray, below: float = SQUAT_BELOW) -> bool:
    """Whether the quad is so near square that which pair of sides is the card's short one is in doubt."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    sides = np.hypot(*(q[NEXT_CORNER] - q).T)
    a, b = sides[0] + sides[2], sides[1] + sides[3]
    return bool(max(a, b) < below * max(min(a, b), 1e-9))


def side_ratio(quad: np.ndarray) -> float:
    """The longer over the shorter of the first two sides (from corner 0). (Measured on validation
    scenes, this test of the corner-0 sides let through fewer pieces and found more cards than the
    mean of each pair of opposite sides: a merged blob's quad is often far from a parallelogram.)"""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    a = math.hypot(q[1, 0] - q[0, 0], q[1, 1] - q[0, 1])
    b = math.hypot(q[2, 0] - q[1, 0], q[2, 1] - q[1, 1])
    return max(a, b) / max(min(a, b), 1e-9)


def _cut_table(most: int) -> tuple[np.ndarray, ...]:
    """Each cut of pieces_by_quad, for 2 to ``most`` pieces across each pair of sides: the corners
    (a, b, c, d) whose sides a->b and c->d are cut, where the piece starts and ends along them, and
    into how many pieces the quad is cut."""
    rows = [(a, b, c, d, k / n, (k + 1) / n, n) for n in range(2, most + 1)
            for a, b, c, d in ((0, 1, 3, 2), (0, 3, 1, 2)) for k in range(n)]
    table = np.array(rows, np.float64)
    return table[:, :4].astype(np.intp), table[:, 4:5], table[:, 5:6], table[:, 6]


_MOST_PIECES = 6
_CUT_CORNERS, _CUT_FROM, _CUT_TO, _CUT_PARTS = _cut_table(_MOST_PIECES)


def split_candidates(quads: list[np.ndarray], most: int = 4, size_band: tuple[float, float] = (0.75, 1.3),
                     piece_shape: tuple[float, float] = PART_SHAPED, from_ends: bool = False) -> list[np.ndarray]:
    """All the pieces of ``pieces_by_quad``, in one list."""
    return [p for pieces in pieces_by_quad(quads, most, size_band, piece_shape, from_ends=from_ends) for p in pieces]


def pieces_by_quad(quads: list[np.ndarray], most: int = 4, size_band: tuple[float, float] = (0.75, 1.3),
                   piece_shape: tuple[float, float] = PART_SHAPED,
                   cut: list[bool] | None = None, from_ends: bool = False) -> list[list[np.ndarray]]:
    """Card-sized pieces of the quads that are not one card: a row of touching cards that the mask
    net saw as one blob. Such a quad is not card-shaped, or (when the frame has two or more
    card-shaped quads) larger than ``size_band[1]`` of their median (sqrt of the area; two cards
    side by side, 1.41 times a card's side, can look nearly card-shaped). Each is cut evenly into 2
    to ``most`` (at most 6) pieces across one pair of its sides or the other; the pieces of about a
    card's shape are kept and, given that median, only those of about its size. These are candidates
    only: the crop net, taught on such pieces, says which are cards (a piece across two cards is
    ``none``). One list per quad (empty for a quad taken as one card), in the order of ``quads``.
    ``cut``: which quads may be cut at all (the others get an empty list, and their cuts are not
    worked out); all quads still count for the median. ``from_ends``: also the pieces laid from
    either end of the quad at the frame's card size (_pieces_from_ends), after its even cuts."""
    if not 2 <= most <= _MOST_PIECES:
        raise ValueError(f"a quad is cut into 2 to {_MOST_PIECES} pieces, not {most}")
    if cut is not None and len(cut) != len(quads):
        raise ValueError(f"cut says which of the {len(quads)} quads to cut, but has {len(cut)} entries")
    cuts = _CUT_PARTS <= most
    corners, start, end = _CUT_CORNERS[cuts], _CUT_FROM[cuts], _CUT_TO[cuts]
    quads = [np.asarray(q, np.float64).reshape(4, 2) for q in quads]
    sides, shaped, median = card_sizes(quads)
    to_cut = [k for k, (side, ok) in enumerate(zip(sides, shaped))
              if (cut is None or cut[k]) and not (ok and (median is None or side <= size_band[1] * median))]
    pieces: list[list[np.ndarray]] = [[] for _ in quads]
    if not to_cut:
        return pieces
    # every cut of every such quad at once: piece k of n spans k/n..(k+1)/n of the sides a->b and c->d
    q = np.array([quads[k] for k in to_cut])
    a, b, c, d = (q[:, corners[:, i]] for i in range(4))
    p = np.stack([a + (b - a) * start, a + (b - a) * end, c + (d - c) * end, c + (d - c) * start], axis=2)
    first = np.hypot(*np.moveaxis(p[:, :, 1] - p[:, :, 0], 2, 0))
    second = np.hypot(*np.moveaxis(p[:, :, 2] - p[:, :, 1], 2, 0))
    ratio = np.maximum(first, second) / np.maximum(np.minimum(first, second), 1e-9)
    keep = (ratio >= piece_shape[0]) & (ratio <= piece_shape[1])
    if median is not None:
        x, y = p[..., 0], p[..., 1]
        piece_side = np.sqrt(0.5 * np.abs((x * y[..., NEXT_CORNER] - x[..., NEXT_CORNER] * y).sum(axis=2)))
        keep &= (piece_side >= size_band[0] * median) & (piece_side <= size_band[1] * median)
    for k, quad_pieces, kept in zip(to_cut, p, keep):
        pieces[k] = [order_clockwise_portrait(piece) for piece in quad_pieces[kept]]
        if from_ends and median is not None:
            pieces[k] += _pieces_from_ends(quads[k], median, size_band)
    return pieces


def _pieces_from_ends(quad: np.ndarray, median: float, size_band: tuple[float, float],
                      shorter_than: float = 0.85) -> list[np.ndarray]:
    """Card-shaped pieces laid from either end of a quad that is not one card: two cards overlapping
    in a row make a blob 1.2 to 1.9 cards long, and cutting it evenly puts neither piece on a card,
    while a card laid from each end fits both. Each pair of sides is taken in turn for the sides
    kept, as the card's short side and as its long one; the other pair is cut to a card's
    proportions (87:54) from either end, where that leaves under ``shorter_than`` of it and gives
    about the frame's card size (``size_band`` times ``median``, the side as in card_sizes)."""
    out = []
    for turn in (0, 1):
        # corners p0..p3 with p0->p1 the side kept, p1->p2 the one cut
        p = np.roll(quad, -turn, axis=0)
        kept = (math.dist(p[0], p[1]) + math.dist(p[2], p[3])) / 2
        length = (math.dist(p[1], p[2]) + math.dist(p[3], p[0])) / 2
        for target in (kept * CARD_ASPECT, kept / CARD_ASPECT):
            if not (target < shorter_than * length and size_band[0] <= math.sqrt(kept * target) / median <= size_band[1]):
                continue
            share = target / length
            near = np.array([p[0], p[1], p[1] + (p[2] - p[1]) * share, p[0] + (p[3] - p[0]) * share])
            far = np.array([p[3] + (p[0] - p[3]) * share, p[2] + (p[1] - p[2]) * share, p[2], p[3]])
            out += [order_clockwise_portrait(near), order_clockwise_portrait(far)]
    return out


def extensions_by_quad(quads: list[np.ndarray], extend: list[bool] | None = None,
                       smaller_than: float = 0.85, least: float = 0.35, size_band: tuple[float, float] = (0.7, 1.4),
                       grow_at_least: float = 1.15) -> list[list[np.ndarray]]:
    """Whole-card extensions of the quads that may be parts of a card: a quad not of a card's shape
    (CARD_SHAPED), or one whose side (sqrt of the area) is under ``smaller_than`` of the frame's
    median card-shaped quad's (and at least ``least`` of it), such as the light half of a card whose
    other half is dark on a dark table, or the part of a card the mask net saw. Each pair of its
    sides is taken in turn for the card's short sides, and the quad lengthened along the other pair,
    beyond either end, to a card's proportions, where that makes it at least ``grow_at_least`` times
    as long and of about the median's size (``size_band``): up to four candidates for the
    crop net to choose among (an extension onto the table or a neighbour is ``none``). (Taking the
    kept pair for the card's long sides as well found a fifth of the cards on validation scenes, for
    twice the crops.) One list per quad, in order; empty where ``extend`` says no, and for every
    quad when the frame has fewer than two card-shaped quads (no card size to go by)."""
    if extend is not None and len(extend) != len(quads):
        raise ValueError(f"extend says which of the {len(quads)} quads to extend, but has {len(extend)} entries")
    quads = [np.asarray(q, np.float64).reshape(4, 2) for q in quads]
    out: list[list[np.ndarray]] = [[] for _ in quads]
    sides, shaped, median = card_sizes(quads)
    if median is None:
        return out  # no card's size to go by
    for k, (q, side, ok) in enumerate(zip(quads, sides, shaped)):
        if extend is not None and not extend[k]:
            continue
        if not least * median <= side or (ok and side >= smaller_than * median):
            continue
        for turn in (0, 1):
            # corners p0..p3 with p0->p1 the side kept (the card's short side), p1->p2 the one lengthened
            p = np.roll(q, -turn, axis=0)
            kept = (math.dist(p[0], p[1]) + math.dist(p[2], p[3])) / 2
            length = (math.dist(p[1], p[2]) + math.dist(p[3], p[0])) / 2
            if kept <= 0 or length <= 0:
                continue
            target = kept * CARD_ASPECT
            scale = target / length
            if scale < grow_at_least:
                continue
            if not size_band[0] <= math.sqrt(kept * target) / median <= size_band[1]:
                continue
            beyond_far = np.array([p[0], p[1], p[1] + (p[2] - p[1]) * scale, p[0] + (p[3] - p[0]) * scale])
            beyond_near = np.array([p[3] + (p[0] - p[3]) * scale, p[2] + (p[1] - p[2]) * scale, p[2], p[3]])
            out[k] += [order_clockwise_portrait(beyond_far), order_clockwise_portrait(beyond_near)]
    return out
