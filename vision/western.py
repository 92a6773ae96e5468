"""Western playing cards (Kakeya Toranpu) on the live table: BGR frame -> list of Detection.

The hanafuda mask net was trained to ignore western cards, so this detector finds their outlines
itself, classically, then names them with its own crop net (models/westernface.onnx):

1. ``quads``: edges of the frame (Canny on the contrast-stretched colour image, as
   ``vision.proposals.QuadProposer`` draws them); the regions the edges enclose (a card's white
   stock inside its outline, touching cards apart because each has its own outline) and the closed
   outlines themselves are fitted with quads, and those of a western card's proportions (63:88,
   within what a tilted camera does to them) kept.
2. ``classify``: every quad warped to an upright 64x96 crop; the crop net names the card (52 ids),
   ``back`` or ``none`` (not a western card: table, hanafuda card, chip, half a card) and says whether
   it is upside down; each crop is also read turned 180 degrees and the two readings averaged.
Confidences are temperature-calibrated; below the threshold chosen on validation (models/western.json)
a card is reported ``uncertain``. Many western cards look the same turned round (court cards, even
pips), so an unsure orientation never makes a card uncertain: either end is then right.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.detector import MODELS_DIR, NONE, ModelMissingError, _as_bgr, _session, _softmax, check_classes_match
from vision.geometry import CROP_HEIGHT, CROP_WIDTH, rotate_quad, warp_card
from vision.proposals import EdgeMap, QuadProposer
from vision.quads import corners_of_lines, fit_quad, order_clockwise_portrait
from vision.types import Detection, quad_from_array

WESTERN_ASPECT = 88 / 63
BACK = "back"
SETTINGS_FILE = "western.json"
MODEL_FILE = "westernface.onnx"


@dataclass(frozen=True)
class WesternSettings:
    """models/western.json: what training wrote for the run time."""
    classes: tuple[str, ...]
    temperature: float
    threshold: float

    @classmethod
    def load(cls, path: Path) -> "WesternSettings":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict):
                raise ValueError(f"not a JSON object but {type(raw).__name__}")
            settings = cls(classes=tuple(raw["classes"]), temperature=float(raw["temperature"]),
                           threshold=float(raw["threshold"]))
        except FileNotFoundError:
            raise ModelMissingError(f"western card settings not found: {path} "
                                    "(train with: python -m models.train_western)") from None
        except NotADirectoryError:
            raise ModelMissingError(f"western card settings not found: {path.parent} is not a folder") from None
        except KeyError as exc:  # (said as a bare 'classes' before)
            raise ModelMissingError(f"western card settings {path} are unreadable: they lack the key {exc}") from None
        except (ValueError, TypeError, OSError) as exc:
            raise ModelMissingError(f"western card settings {path} are unreadable: {exc}") from None
        if not 0.0 <= settings.threshold <= 1.0:  # (NaN too: no card was ever uncertain)
            raise ModelMissingError(f"western card settings {path}: threshold must be a probability, from 0 to 1 "
                                    f"(got {settings.threshold})")
        if not 0.0 < settings.temperature < float("inf"):
            raise ModelMissingError(f"western card settings {path}: temperature must be above 0 "
                                    f"(got {settings.temperature})")
        if NONE not in settings.classes or BACK not in settings.classes:
            raise ModelMissingError(f"western card settings {path} lack the classes 'back' and 'none'")
        return settings


@dataclass(frozen=True)
class WesternQuadFinder:
    """Card-shaped quads (4x2 float, frame pixels, clockwise portrait order) from the frame's edges."""
    edges: QuadProposer = QuadProposer(scale=1)
    work_long_side: int = 1280       # larger frames are looked at this size
    min_short_side: float = 26.0     # frame pixels: a smaller card cannot be read from a 64x96 crop
    max_area_share: float = 0.3      # of the frame: a bigger region is the table or a tray
    aspect_low: float = WESTERN_ASPECT * 0.75  # a card tilted ~40 degrees away, foreshortened (not a square)
    aspect_high: float = WESTERN_ASPECT / 0.75
    min_solidity: float = 0.88       # region area / its quad's area
    busy_edges: float = 0.08         # share of edge pixels above which the edges are taken at double thresholds
    max_quads: int = 48              # the largest this many (a patterned cloth can give hundreds)

    def find(self, frame: np.ndarray) -> list[np.ndarray]:
        h, w = frame.shape[:2]
        s = min(1.0, self.work_long_side / max(h, w))
        small = frame if s == 1.0 else cv2.resize(frame, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
        em = self.edges.edge_map(small)
        if float(np.count_nonzero(em.thin[::4, ::4])) > self.busy_edges * em.thin[::4, ::4].size:
            # a textured table (paper fibres, a cloth's weave) drowns the outlines in edges, the more
            # as a low-contrast frame is stretched: only the stronger edges then
            em = replace(self.edges, canny_low=2 * self.edges.canny_low, canny_high=2 * self.edges.canny_high).edge_map(small)
        # thin edges closed against diagonal leaks (regions are traced 8-connected)
        thin = cv2.dilate(em.thin, np.ones((2, 2), np.uint8))
        thick = cv2.dilate(em.thin, np.ones((5, 5), np.uint8))
        quads = (
            # the regions the edges enclose: a card's stock inside its outline (pips and art are holes,
            # filled), each of touching cards inside its own outline; with edges of three widths: thin
            # ones keep a narrow margin open, thick ones close an outline's gaps (a low-contrast side)
            self._regions(thin == 0, 1.0) + self._regions(em.edges == 0, 1.5) + self._regions(thick == 0, 2.5)
            # the white stock apart from the edges: a court card's or a back's white margin is cut into
            # pieces by its printed border and index, but is one white region
            + self._regions((thin == 0) & _card_stock(small), 1.0)
            # closed outlines (vision.proposals), and the outsides of thick edge blobs: a card whose art
            # touches its outline is one blob whose outside is the card's outline, 2 pixels out
            + self.edges.propose(small, em)
            + [_offset(q, -2.0) for q in self.edges.propose(small, EdgeMap(thick, 1, thin=thick))])
        quads = [q / s if s != 1.0 else q for q in quads]
        return _distinct(quads, self.max_quads)

    def _regions(self, inside: np.ndarray, margin: float) -> list[np.ndarray]:
        """Quads of the regions of the mask ``inside`` that are card-shaped (holes filled), grown by
        ``margin`` pixels (how far inside the card's outline the mask stops)."""
        h, w = inside.shape
        contours, hierarchy = cv2.findContours(inside.astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        if hierarchy is None:
            return []
        min_short = self.min_short_side
        min_area = 0.7 * min_short * min_short * self.aspect_low
        max_area = self.max_area_share * h * w
        # the regions' outsides (not holes), largest first: only the largest card-shaped ones are kept
        outer = [c for c, (_, _, _, parent) in zip(contours, hierarchy[0]) if parent == -1 and len(c) >= 8]
        areas = np.array([abs(cv2.contourArea(c)) for c in outer])
        quads = []
        for i in np.argsort(-areas, kind="stable"):
            contour, filled = outer[i], areas[i]  # pips and art inside the card are holes: filled
            if filled > max_area:
                continue
            if filled < min_area or len(quads) >= self.max_quads:
                break
            (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
            r_short, r_long = min(rw, rh), max(rw, rh)
            if r_short < 0.8 * min_short or filled < 0.8 * self.min_solidity * rw * rh or \
                    not 0.9 * self.aspect_low <= r_long / max(r_short, 1e-6) <= 1.1 * self.aspect_high:
                continue
            quad = fit_quad(contour.reshape(-1, 2).astype(np.float64), perspective=True)
            q_area = abs(cv2.contourArea(quad.astype(np.float32)))
            if q_area <= 0 or filled / q_area < self.min_solidity or not cv2.isContourConvex(quad.astype(np.float32)):
                continue
            quad = _offset(quad, margin)
            sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
            short, long = sorted(((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))
            if short < min_short or not self.aspect_low <= long / max(short, 1e-6) <= self.aspect_high:
                continue
            quads.append(order_clockwise_portrait(quad))
        return quads


def _card_stock(frame: np.ndarray) -> np.ndarray:
    """Where the frame looks like white card stock: unsaturated and among its brighter parts."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    s, v = hsv[..., 1], hsv[..., 2]
    bright = float(np.percentile(v[::4, ::4], 99))
    return (s < 80) & (v > 0.55 * bright)


def _offset(quad: np.ndarray, px: float) -> np.ndarray:
    """The convex quad with every side moved ``px`` pixels outwards."""
    c = quad.mean(axis=0)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        u = (b - a) / max(float(np.hypot(*(b - a))), 1e-9)
        n = np.array([-u[1], u[0]])
        if n @ ((a + b) / 2 - c) < 0:
            n = -n
        lines.append((a + n * px, u))
    out = corners_of_lines(lines, eps=1e-9)
    return quad if out is None else out


def _distinct(quads: list[np.ndarray], most: int, same_iou: float = 0.75) -> list[np.ndarray]:
    """One of each group of near-identical quads (a region and an outline of the same card, the two
    sides of one edge): the larger, the card's outline rather than its printed border; the ``most``
    largest."""
    from vision.evaluate import quad_iou
    from vision.proposals import _boxes_apart
    quads = sorted(quads, key=lambda q: -abs(cv2.contourArea(q.astype(np.float32))))
    kept: list[np.ndarray] = []
    boxes = []
    for q in quads:
        box = cv2.boundingRect(q.astype(np.float32))
        if not any(not _boxes_apart(box, b) and quad_iou(q, k) >= same_iou for k, b in zip(kept, boxes)):
            kept.append(q)
            boxes.append(box)
            if len(kept) == most:
                break
    return kept


@dataclass(frozen=True)
class WesternReading:
    card: str             # a western id, "back", or "none"
    confidence: float
    upside_down: bool


@dataclass(frozen=True)
class WesternCropStage:
    session: object
    settings: WesternSettings

    def run(self, crops: np.ndarray) -> list[WesternReading]:
        """Name a batch of upright crops (N x 96 x 64 x 3, BGR uint8), each read upright and turned."""
        if len(crops) == 0:
            return []
        n = len(crops)
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)
        x = np.concatenate([x, x[:, :, ::-1, ::-1]])
        logits, orient = self.session.run(None, {"crops": np.ascontiguousarray(x)})
        p = _softmax(logits.astype(np.float64) / self.settings.temperature)
        po = _softmax(orient.astype(np.float64))
        p = (p[:n] + p[n:]) / 2
        po = (po[:n] + po[n:, ::-1]) / 2  # the turned view's "upright" is the crop's "upside down"
        # not a card only when "none" holds at least half the probability; otherwise the best card with
        # its (then low) confidence, so a card that is hard to read is shown as unsure, not lost
        none = self.settings.classes.index(NONE)
        cards_p = p.copy()
        cards_p[:, none] = -1.0
        best = np.where(p[:, none] >= 0.5, none, cards_p.argmax(axis=1))
        return [WesternReading(self.settings.classes[b], float(p[i, b]), bool(po[i, 1] > 0.5))
                for i, b in enumerate(best)]


class WesternCardDetector:
    """Finds and names western playing cards in a BGR frame (the ``vision.types.Detector`` protocol).
    ``threads``: onnxruntime CPU threads; ``threshold``: overrides the uncertainty threshold."""

    def __init__(self, models_dir: Path | str | None = None, threads: int = 2, threshold: float | None = None):
        d = Path(models_dir) if models_dir else MODELS_DIR
        self.settings = WesternSettings.load(d / SETTINGS_FILE)
        self.threshold = self.settings.threshold if threshold is None else float(threshold)
        self.crops = WesternCropStage(_session(d / MODEL_FILE, threads, "python -m models.train_western"), self.settings)
        check_classes_match(self.crops.session, self.settings.classes, d / MODEL_FILE, SETTINGS_FILE)
        self.finder = WesternQuadFinder()

    def detect(self, frame_bgr: np.ndarray) -> list[Detection]:
        return self.detect_timed(frame_bgr)[0]

    def detect_timed(self, frame_bgr: np.ndarray) -> tuple[list[Detection], dict[str, float]]:
        """Detections and the milliseconds each stage took."""
        frame = _as_bgr(frame_bgr)
        t0 = time.perf_counter()
        quads = self.finder.find(frame)
        t1 = time.perf_counter()
        crops = np.stack([warp_card(frame, q, CROP_WIDTH, CROP_HEIGHT) for q in quads]) if quads else \
            np.zeros((0, CROP_HEIGHT, CROP_WIDTH, 3), np.uint8)
        readings = self.crops.run(crops)
        detections = []
        for quad, r in zip(quads, readings):
            if r.card == NONE:
                continue
            if r.upside_down:
                quad = rotate_quad(quad, 2)
            back = r.card == BACK
            detections.append(Detection(card=None if back else r.card, face=BACK if back else r.card,
                                        quad=quad_from_array(quad), confidence=r.confidence,
                                        uncertain=r.confidence < self.threshold))
        detections = _drop_nested(detections)
        t2 = time.perf_counter()
        return detections, {"quads": (t1 - t0) * 1e3, "classify": (t2 - t1) * 1e3, "total": (t2 - t0) * 1e3}


def _drop_nested(detections: list[Detection]) -> list[Detection]:
    """Drop a detection lying mostly inside a larger one (a court card's framed panel, the blue field
    of a back): cards of one deck are the same size, so a card cannot lie within another."""
    if len(detections) < 2:
        return detections
    polys = [np.float32(d.quad) for d in detections]
    areas = [abs(cv2.contourArea(p)) for p in polys]
    keep = []
    for i, d in enumerate(detections):
        inside = False
        for j in range(len(detections)):
            if j != i and areas[j] > 1.15 * areas[i]:
                inter, _ = cv2.intersectConvexConvex(polys[i], polys[j])
                if inter > 0.8 * areas[i]:
                    inside = True
                    break
        if not inside:
            keep.append(d)
    return keep
