"""Card detection and recognition on ONNX models: BGR frame -> list of Detection.

Stages (each timed, see ``CardDetector.detect_timed``):
1. ``mask``: the frame scaled to a long side of 448 px (vision.json) goes through the mask net (card
   interiors, and the centre map that splits blobs of touching cards).
2. ``quads``: the interior blobs become card quads in frame pixels (vision.quads).
   ``proposals``: with ``edge_proposals`` (vision.json), those quads are snapped to the frame's edges
   and card-shaped outlines near them are added (vision.proposals).
   ``refit``: with ``refit_quads``, the quad net re-fits each quad from the crop around it
   (``QuadStage``; a re-fitted quad is kept where it still overlaps its own, REFIT_LEAST_IOU).
3. ``classify``: every quad is warped to an upright 64x96 crop; the crop net names the face (36 faces,
   ``back``, or ``none`` = not a card) and whether the card is upside down; all crops run as one batch,
   and those it is not sure of run again turned 180 degrees (``CropStage``).
   A second, small batch reads the pieces of quads that may be several touching cards and nearly
   square quads taken for no card turned by a quarter (``detect_timed``).
Confidences are temperature-calibrated probabilities; a card below the threshold chosen from the
evaluation (models/vision.json) is reported ``uncertain``, and so is a back read on a quad far
smaller than the frame's cards (``_small_backs_in_doubt``) or far longer for its width than a card
(``_back_strips_in_doubt``). A back read with confidence on a quad that is not one card is replaced
by its pieces where two of them read as backs with confidence (``_backs_of_several_cards``).
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from dealer.cards import BACK, cards_of_face
from vision.geometry import CROP_HEIGHT, CROP_WIDTH, context_warp, nudged_quads, rotate_quad, warp_card
from vision.proposals import QuadProposer, combine_quads
from vision.quads import (NEXT_CORNER, MapGeometry, QuadFinder, extensions_by_quad, is_squat,
                          order_clockwise_portrait, pieces_by_quad, split_candidates)
from vision.types import Detection, copies_of_face, decks_in_play, quad_from_array
from vision.zoom import ZOOM_INPUT, ZoomWindow, inside_window, zoom_windows

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
NONE = "none"
TURNED_LEAST = 0.5  # the least confidence of a reading of a quad turned by a quarter (_turned_reading)
EXTENDED_LEAST = 0.8  # ... and of a quad's whole-card extension (_extended_reading)
# a quad read as a card that lies at least this much within a card's extension and names the same face
# (or any face, below the threshold) is a part of that card (the mask net saw it in two), not another
# card the extension reaches over: on 2,400 validation scenes of seed 777 (and of 778) 29 (19) right
# answers fewer in doubt, nothing else changed; 0.7 took 3 more out of doubt on seed 777. Parts read
# in doubt as another face (a piece of a card read as a back at 0.56) as well: 2 (2) more out of doubt
# on 1,200 scenes of seed 777 (2,400 of 778), nothing else changed
PART_INSIDE = 0.8
# an extension with more than this share of it outside the frame is in doubt too (its hidden part may
# be what names it): on the evaluation splits a susuki-geese whose bird lay beyond the frame's edge
# was read as susuki-chaff at 1.0; on 2,400 validation scenes of seed 777 (778) it flagged 10 (11)
# right answers more and took no confident mistake away (one card fewer found on seed 778)
OUT_OF_FRAME = 0.1
# the most quads a frame may have for the second looks that cost most per card (the extensions of
# parts of cards, the closer look, the nudged readings) to be taken: a crowded frame has many cards in
# doubt, and with 45 cards they cost 7, 25 and 18 ms a frame (the speed target is 40 ms)
EXTEND_UP_TO = 24
# how a card still in doubt is read again (_nudged): its quad turned by 4 and 8 degrees either way,
# shrunk and grown by 8%, moved by 4% of its width and of its height either way (turn in degrees, scale,
# shift across, shift down; vision.geometry.nudged_quads)
NUDGES = ((-8, 1, 0, 0), (-4, 1, 0, 0), (4, 1, 0, 0), (8, 1, 0, 0), (0, 0.92, 0, 0), (0, 1.08, 0, 0),
          (0, 1, 0.04, 0), (0, 1, -0.04, 0), (0, 1, 0, 0.04), (0, 1, 0, -0.04))
# empty map columns between the windows of a closer look laid side by side (MaskStage.run_windows)
WINDOW_GAP = 4
# the smallest frame read: no card of a narrower one can be read (and a side of 1 pixel cannot be
# halved by the mask net's steps)
MIN_FRAME_SIDE = 32
# the least IoU a quad re-fitted before the first reading must keep with the mask net's quad it came
# from, or that quad is read as it was (the net moved it onto half of the card, or a neighbour's):
# chosen on the validation scenes, where 0.7 gave more answers and less doubt than 0.75 (4.4% against
# 4.6% at the threshold each chose); taking every re-fitted quad gave more false alarms, some of them
# a card named with confidence in a quad across half of it (models/MODEL.md)
REFIT_LEAST_IOU = 0.7
# a back read on a quad whose side is under this share of the frame's median card side is in doubt
# (_small_backs_in_doubt): on 2,400 validation scenes 0.75 took 38 of 125 confident false alarms
# away for 32 more cards found in doubt (of 12,550); 0.7 took 20 for 11, 0.8 47 for 78
SMALL_BACK_SIDE = 0.75
# a back read on a quad whose long sides are more than this many times its short sides is in doubt
# (_back_strips_in_doubt): a card is 1.61 long for its width (a tilted camera makes it up to about
# 2.1), the half of a card cut along its length (27 x 87 mm) about 3.2. On 2,400 validation scenes
# 2.4 took 34 of the 67 confident false alarms saying back away for 29 right backs flagged (of
# 2,432 read with confidence); 2.2 took 37 for 52, 2.5 32 for 20; on 2,400 more (seed 778) 18 of
# 65 for 33
BACK_STRIP_RATIO = 2.4
# two detections naming a face the table holds one card of are that card read twice when either
# quad has more than this share of its area on the other (_one_card_read_twice): on 4,800
# validation scenes such pairs overlapped by 0.43 and 0.53 of a quad; two cards lying apart do not
# overlap at all
READ_TWICE_OVERLAP = 0.2
# the pieces of a quad in doubt that is not one card include those laid from either end at the
# frame's card size (vision.quads._pieces_from_ends), not only its even cuts: on 2,400 validation
# scenes 47 more cards found for 11 more false alarms (none naming a card with confidence), on 2,400
# more 74 for 3 fewer (one more naming a card with confidence: models/MODEL.md); crowded frames too
# (on the 59 scenes of 1,200 with over 20 cards, 8 of their 1,280 cards), for about 3.5 ms more
# with 45 cards
PIECES_FROM_ENDS = True


class ModelMissingError(RuntimeError):
    """The ONNX models or their settings file are missing or unreadable."""


@dataclass(frozen=True)
class VisionSettings:
    """models/vision.json: what training wrote for the run time."""
    classes: tuple[str, ...]
    temperature: float
    threshold: float  # below it a card is uncertain
    shrink: float
    input_long_side: int
    input_multiple: int
    mask_stride: int
    turned_views: bool = True  # classify each crop upright and turned 180 degrees, average the two
    # ...but read a crop turned only when its upright reading is less sure than this (1.0: always)
    turned_view_below: float = 1.0
    # also hand the crop net card-sized pieces of the quads that are not card-shaped (rows of touching
    # cards seen as one blob): only for a crop net taught on such pieces
    split_merged: bool = False
    # also hand it whole-card extensions of the quads that may be parts of a card (vision.quads
    # extensions_by_quad) when their reading is in doubt
    extend_parts: bool = False
    # look again, closer, around the quads the crop net is unsure of (vision.zoom)
    zoom_unsure: bool = False
    # read a card still in doubt again from nudged copies of its quad, and keep the surest reading
    nudge_unsure: bool = False
    # ...and from its quad re-fitted by the quad net (models/cardquad.onnx)
    refine_unsure: bool = False
    # snap the mask net's quads to the frame's edges and add card-shaped outlines near them
    # (vision.proposals; settings written before this option always did)
    edge_proposals: bool = True
    # re-fit every mask-net quad with the quad net before the first reading (REFIT_LEAST_IOU)
    refit_quads: bool = False

    def __post_init__(self):
        if not 0.0 <= self.turned_view_below <= 1.0:
            raise ValueError(f"turned_view_below must be a probability, from 0 to 1 (got {self.turned_view_below})")
        # a damaged file must be refused by name, not divide by zero or silently find no card
        for name, most in (("input_long_side", 8192), ("input_multiple", 1024), ("mask_stride", 1024)):
            if not 1 <= getattr(self, name) <= most:
                raise ValueError(f"{name} must be a whole number from 1 to {most} (got {getattr(self, name)})")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be a probability, from 0 to 1 (got {self.threshold})")
        if not self.temperature > 0.0:
            raise ValueError(f"temperature must be above 0 (got {self.temperature})")
        if not 0.0 < self.shrink <= 1.0:
            raise ValueError(f"shrink must be above 0 and at most 1 (got {self.shrink})")
        missing = [c for c in ("back", "none") if c not in self.classes]
        if missing:
            raise ValueError(f"classes lack {', '.join(repr(c) for c in missing)}")

    @classmethod
    def load(cls, path: Path) -> "VisionSettings":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict):
                raise ValueError(f"not a JSON object but {type(raw).__name__}")
            return cls(classes=tuple(raw["classes"]), temperature=float(raw["temperature"]),
                       threshold=float(raw["threshold"]),
                       shrink=float(raw["shrink"]), input_long_side=int(raw["input_long_side"]),
                       input_multiple=int(raw["input_multiple"]), mask_stride=int(raw["mask_stride"]),
                       turned_views=_switch(raw, "turned_views", True),
                       turned_view_below=float(raw.get("turned_view_below", 1.0)),
                       split_merged=_switch(raw, "split_merged", False),
                       extend_parts=_switch(raw, "extend_parts", False),
                       zoom_unsure=_switch(raw, "zoom_unsure", False),
                       nudge_unsure=_switch(raw, "nudge_unsure", False),
                       refine_unsure=_switch(raw, "refine_unsure", False),
                       edge_proposals=_switch(raw, "edge_proposals", True),
                       refit_quads=_switch(raw, "refit_quads", False))
        except FileNotFoundError:
            raise ModelMissingError(f"model settings not found: {path} (train with: python -m models.train)") from None
        except NotADirectoryError:
            raise ModelMissingError(f"model settings not found: {path.parent} is not a folder") from None
        except KeyError as exc:  # (said as a bare 'classes' before)
            raise ModelMissingError(f"model settings {path} are unreadable: they lack the key {exc}") from None
        except (ValueError, TypeError, OverflowError, OSError) as exc:
            raise ModelMissingError(f"model settings {path} are unreadable: {exc}") from None


def _switch(raw: dict, key: str, default: bool) -> bool:
    """A stage switched on or off in a settings file: true or false only ("false", a string, was true)."""
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"{key} must be true or false (got {json.dumps(value)})")
    return value


def check_input(session: ort.InferenceSession, name: str, path: Path) -> None:
    """A net takes the input its stage feeds: another net's file under this name loaded, and then
    every picture was blamed for it."""
    given = [i.name for i in session.get_inputs()]
    if given != [name]:
        raise ModelMissingError(f"{path} takes {', '.join(given) or 'no input'}, not {name!r}: it is not the net "
                                f"this file should hold")


def check_classes_match(session: ort.InferenceSession, classes: tuple[str, ...], path: Path, what: str) -> None:
    """A net's output gives one score per class of its settings: a class list one short named every
    card after the card beside it in the list, with confidence."""
    check_input(session, "crops", path)
    shape = session.get_outputs()[0].shape
    given = shape[-1] if shape and isinstance(shape[-1], int) else None
    if given is not None and given != len(classes):
        raise ModelMissingError(f"{path} scores {given} classes but its settings list {len(classes)} ({what}): "
                                f"the net and its settings are of different trainings")


def _session(path: Path, threads: int, trained_by: str = "python -m models.train") -> ort.InferenceSession:
    if not path.is_file():
        raise ModelMissingError(f"model file not found: {path} (train with: {trained_by})")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # the thread pool stops busy-waiting as soon as a run ends: the OpenCV stages in between need the
    # same cores (measured on 2 cores: the mask stage 12 -> 6.3 ms, a 9-card frame 30 -> 22 ms; with no
    # spinning at all, also inside a run, the mask stage takes 6.8 ms)
    options.add_session_config_entry("session.force_spinning_stop", "1")
    # any accelerator provider that is installed first, the CPU always last
    available = ort.get_available_providers()
    providers = [p for p in available if p not in ("CPUExecutionProvider", "TensorrtExecutionProvider")]
    providers.append("CPUExecutionProvider")
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=providers)
    except Exception as exc:  # onnxruntime's own errors (a damaged or foreign file): one line naming it
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelMissingError(f"model file {path} cannot be loaded: {first}") from None


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class MaskStage:
    session: ort.InferenceSession
    settings: VisionSettings

    def run(self, frame: np.ndarray, half: np.ndarray | None = None,
            ) -> tuple[np.ndarray, np.ndarray | None, MapGeometry]:
        """The interior probability map, the centre map (None from a net without one) and how their
        pixels map to the frame's. ``half``: the frame already scaled to half its size (half_frame),
        scaled on from there where the net's input is at most that size."""
        h, w = frame.shape[:2]
        scale = self.settings.input_long_side / max(h, w)
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        # an area resize by 2.86 (1280 -> 448) takes OpenCV's slow path for uneven factors: 3.4 ms; from
        # the half frame (a resize by a whole factor, about 0.3 ms; the edge proposals, when on, use it
        # too) it is about 1 ms and covers the same pixels (a box of 2x2 averages instead of the
        # frame's pixels: 0.9 grey levels apart on average)
        source = half if half is not None and scale <= 0.5 and half.shape[:2] == (h // 2, w // 2) \
            and h % 2 == 0 and w % 2 == 0 else frame
        small = cv2.resize(source, (nw, nh), interpolation=cv2.INTER_AREA)
        m = self.settings.input_multiple
        pw, ph = -nw % m, -nh % m
        if pw or ph:
            small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        x = np.ascontiguousarray(small.transpose(2, 0, 1)[None], dtype=np.float32)
        probs = self.session.run(None, {"image": x})[0]
        # drop the padding before tracing blobs
        s = self.settings.mask_stride
        rows, cols = (nh + s - 1) // s, (nw + s - 1) // s
        interior = probs[0, 0, :rows, :cols]
        # channel 1 (the whole card) only helped training; a third is the centre map
        centre = probs[0, 2, :rows, :cols] if probs.shape[1] > 2 else None
        geometry = MapGeometry(step_x=s * w / nw, step_y=s * h / nh)
        return interior, centre, geometry

    def run_windows(self, frame: np.ndarray, windows: list[ZoomWindow], size: int = ZOOM_INPUT,
                    ) -> tuple[np.ndarray, np.ndarray | None, MapGeometry]:
        """The maps of the frame's square windows, each scaled to ``size`` x ``size`` (a multiple of the
        net's input multiple) and run in one batch, laid side by side in one map with WINDOW_GAP empty
        columns between them (so one pass of the quad finder traces them all, and no blob joins two
        windows); the geometry maps a pixel of that map to the pixels of the row of scaled windows,
        window k from column k * window_pitch(size, stride)."""
        if size % self.settings.input_multiple:
            raise ValueError(f"a window's input side must be a multiple of {self.settings.input_multiple}, not {size}")
        batch = np.empty((len(windows), size, size, 3), np.uint8)
        for i, win in enumerate(windows):
            patch = frame[win.y:win.y + win.side, win.x:win.x + win.side]
            if win.side >= 2 * size:
                # halved first: an area resize by a whole factor is fast, by another factor slow
                half = win.side // 2
                patch = cv2.resize(patch[:2 * half, :2 * half], (half, half), interpolation=cv2.INTER_AREA)
            batch[i] = cv2.resize(patch, (size, size), interpolation=cv2.INTER_AREA)
        x = np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32)
        probs = self.session.run(None, {"image": x})[0]
        s = self.settings.mask_stride
        cell, step = size // s, window_pitch(size, s) // s
        interior = np.zeros((cell, len(windows) * step), np.float32)
        centre = np.zeros_like(interior) if probs.shape[1] > 2 else None
        for i in range(len(windows)):
            x0 = i * step
            interior[:, x0:x0 + cell] = probs[i, 0]
            if centre is not None:
                centre[:, x0:x0 + cell] = probs[i, 2]
        return interior, centre, MapGeometry(step_x=float(s), step_y=float(s))


def half_frame(frame: np.ndarray) -> np.ndarray:
    """The frame at half its size (each pixel the mean of 2x2): the mask net's input is scaled on from
    it, faster than from the frame, and the edge proposals (when on) work on it; made once a frame."""
    return cv2.resize(frame, (frame.shape[1] // 2, frame.shape[0] // 2), interpolation=cv2.INTER_AREA)


def window_pitch(size: int, stride: int) -> int:
    """How far apart (input pixels) the windows of a closer look lie in MaskStage.run_windows's row:
    a window's side and WINDOW_GAP map columns."""
    return (size // stride + WINDOW_GAP) * stride


@dataclass(frozen=True)
class CropClassification:
    face: str  # a face, "back", or "none"
    confidence: float
    upside_down: bool
    orientation_confidence: float


@dataclass(frozen=True)
class CropStage:
    session: ort.InferenceSession
    settings: VisionSettings

    def run(self, crops: np.ndarray, turned: bool = True) -> list[CropClassification]:
        """Classify a batch of upright crops (N x 96 x 64 x 3, BGR uint8). ``turned``: False reads them
        upright only, whatever the settings say (a first choice among crops, CardDetector._nudged)."""
        if len(crops) == 0:
            return []
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)
        p, po = self._read(x)
        if self.settings.turned_views and turned:
            # the crops not yet sure of a class read again turned 180 degrees, and the two readings
            # averaged: most crops are sure at once, and the second reading was half the crop net's time
            below = self.settings.turned_view_below
            again = np.arange(len(p)) if below >= 1.0 else np.flatnonzero(p.max(axis=1) < below)
            if len(again):
                p_turned, po_turned = self._read(np.ascontiguousarray(x[again, :, ::-1, ::-1]))
                p[again] = (p[again] + p_turned) / 2
                # the turned view's "upright" is the crop's "upside down"
                po[again] = (po[again] + po_turned[:, ::-1]) / 2
        # not a card only when "none" holds at least half the probability; otherwise the best face,
        # with its (then low) confidence, so a card that is hard to read is shown as unsure, not lost
        none = self.settings.classes.index(NONE)
        faces_p = p.copy()
        faces_p[:, none] = -1.0
        best = np.where(p[:, none] >= 0.5, none, faces_p.argmax(axis=1))
        return [CropClassification(face=self.settings.classes[b], confidence=float(p[i, b]),
                                   upside_down=bool(po[i, 1] > 0.5), orientation_confidence=float(po[i].max()))
                for i, b in enumerate(best)]

    def _read(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One run of the crop net: the face probabilities (temperature-scaled) and the orientation's."""
        face_logits, orient_logits = self.session.run(None, {"crops": x})
        return (_softmax(face_logits.astype(np.float64) / self.settings.temperature),
                _softmax(orient_logits.astype(np.float64)))


@dataclass(frozen=True)
class QuadStage:
    """The quad net (models/cardquad.onnx): a card's quad re-fitted from the crop around it."""
    session: ort.InferenceSession

    def run(self, frame: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
        """Each quad re-fitted: the crop around it (vision.geometry.context_warp) through the net,
        its corners taken back to frame pixels (clockwise, from a short side)."""
        if not quads:
            return []
        crops, transforms = zip(*(context_warp(frame, q) for q in quads))
        x = np.ascontiguousarray(np.stack(crops).transpose(0, 3, 1, 2), dtype=np.float32)
        corners = self.session.run(None, {"crops": x})[0].reshape(-1, 4, 2) * np.array([CROP_WIDTH, CROP_HEIGHT])
        return [order_clockwise_portrait(cv2.perspectiveTransform(c.reshape(-1, 1, 2), np.linalg.inv(m)).reshape(4, 2))
                for c, m in zip(corners, transforms)]


def first_card_of_face(face: str) -> str | None:
    """The card id reported for a face: the face's only card, or for a chaff face (whose cards look
    alike) the first chaff card of that month. None for a back."""
    if face == BACK:
        return None
    return cards_of_face(face)[0].id


class CardDetector:
    """Finds and names the cards in a BGR frame. ``threads``: onnxruntime CPU threads;
    ``turn_squat``: read a nearly square quad taken for no card again, turned by a quarter;
    ``decks``: how many 48-card decks are in play (a face is on the table at most that many times
    its cards in one deck: see _faces_seen_too_often); the other options (None: as
    models/vision.json says) switch the stages of VisionSettings on or off."""

    def __init__(self, models_dir: Path | str | None = None, threads: int = 2,
                 threshold: float | None = None, proposals: bool | None = None, split_merged: bool | None = None,
                 turn_squat: bool = True, extend_parts: bool | None = None, zoom: bool | None = None,
                 nudge: bool | None = None, refine: bool | None = None, refit: bool | None = None,
                 decks: int = 1):
        d = Path(models_dir) if models_dir else MODELS_DIR
        self.decks = decks
        self.settings = VisionSettings.load(d / "vision.json")
        self.threshold = self.settings.threshold if threshold is None else float(threshold)
        self.mask = MaskStage(_session(d / "cardmask.onnx", threads), self.settings)
        check_input(self.mask.session, "image", d / "cardmask.onnx")
        self.finder = QuadFinder(shrink=self.settings.shrink)
        self.crops = CropStage(_session(d / "cardface.onnx", threads), self.settings)
        check_classes_match(self.crops.session, self.settings.classes, d / "cardface.onnx", "vision.json")
        proposals = self.settings.edge_proposals if proposals is None else bool(proposals)
        self.proposer = QuadProposer() if proposals else None
        self.split_merged = self.settings.split_merged if split_merged is None else bool(split_merged)
        self.turn_squat = turn_squat
        self.extend_parts = self.settings.extend_parts if extend_parts is None else bool(extend_parts)
        self.zoom = self.settings.zoom_unsure if zoom is None else bool(zoom)
        self.nudge = self.settings.nudge_unsure if nudge is None else bool(nudge)
        # the quad net, for the cards in doubt (refine_unsure) and for every quad (refit_quads)
        self.refine_unsure = self.settings.refine_unsure if refine is None else bool(refine)
        self.refit = self.settings.refit_quads if refit is None else bool(refit)
        self.refiner = QuadStage(_session(d / "cardquad.onnx", threads, "python -m models.train_quad")) \
            if self.refine_unsure or self.refit else None

    @property
    def decks(self) -> int:
        return self._decks

    @decks.setter
    def decks(self, value: int) -> None:
        # (set again when the dealer picks a game played with two decks mixed)
        self._decks = decks_in_play(value)

    def detect(self, frame_bgr: np.ndarray) -> list[Detection]:
        return self.detect_timed(frame_bgr)[0]

    def candidate_quads(self, frame_bgr: np.ndarray) -> list[np.ndarray]:
        """Every quad the crop net may be given for a frame (before it drops what is not a card), the
        pieces of merged blobs, the nearly square quads turned by a quarter, the whole-card
        extensions of quads that may be parts of a card and the quads of the closer look (vision.zoom)
        included: what the crop net is retrained
        on, so it learns the quads this finder really makes."""
        quads, pieces, turned, extended = self._candidates(_as_bgr(frame_bgr))
        return quads + pieces + turned + extended

    def candidate_readings(self, frame_bgr: np.ndarray) -> tuple[list[np.ndarray], list[bool]]:
        """The quads of candidate_quads and, for each, whether the crop net names a card on it (a
        face or a back; on a quad turned by a quarter or extended, only with the confidence the
        detector asks of one): what the benchmark uses to say why a card was missed
        (vision.evaluate.miss_causes)."""
        frame = _as_bgr(frame_bgr)
        quads, pieces, turned, extended = self._candidates(frame)
        everything = quads + pieces + turned + extended
        readings = self.crops.run(_warp_all(frame, everything))
        first_turned = len(quads) + len(pieces)
        first_extended = first_turned + len(turned)
        readings[first_turned:first_extended] = [_turned_reading(r) for r in readings[first_turned:first_extended]]
        readings[first_extended:] = [_extended_reading(r) for r in readings[first_extended:]]
        return everything, [r.face != NONE for r in readings]

    def _candidates(self, frame: np.ndarray) -> tuple[list[np.ndarray], ...]:
        quads, _ = self._whole_quads_timed(frame)
        pieces = split_candidates(quads, from_ends=PIECES_FROM_ENDS) if self.split_merged else []
        # (a turned quad is taught as its card when the quad it came from started on a long side)
        turned = [rotate_quad(q, 1) for q in quads if is_squat(q)] if self.turn_squat else []
        extended = [e for es in extensions_by_quad(quads) for e in es] if self.extend_parts else []
        if self.zoom and len(quads) <= EXTEND_UP_TO:
            # the quads of the closer look, as detect_timed finds them (around the quads read in doubt)
            quads = quads + self._zoomed_quads(frame, quads, self.crops.run(_warp_all(frame, quads)))
        return quads, pieces, turned, extended

    def _whole_quads_timed(self, frame: np.ndarray) -> tuple[list[np.ndarray], tuple[float, ...]]:
        """The mask net's quads, re-fitted with the edge proposals and by the quad net, as the
        detector is set; and the times of the stages (start, mask, quads, proposals, refit)."""
        t0 = time.perf_counter()
        half = half_frame(frame)
        interior, centre, geometry = self.mask.run(frame, half)
        t1 = time.perf_counter()
        quads = self.finder.find(interior, geometry, centre)
        t2 = time.perf_counter()
        if self.proposer is not None:
            edge_map = self.proposer.edge_map(frame, near=quads, half=half)
            # proposals only where the mask net found something: new cards from proposals alone gave
            # confident wrong answers on validation (see vision.proposals.combine_quads)
            quads = combine_quads(quads, self.proposer.propose(frame, edge_map, near=quads), edge_map)
        t3 = time.perf_counter()
        if self.refit and quads:
            quads = self._refitted(frame, quads)
        return quads, (t0, t1, t2, t3, time.perf_counter())

    def _refitted(self, frame: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
        """Each quad re-fitted by the quad net, or as it was where the re-fitted one has moved away
        from it (IoU under REFIT_LEAST_IOU: mostly onto part of the card, or onto a neighbour)."""
        from vision.evaluate import quad_iou
        return [new if quad_iou(old, new) >= REFIT_LEAST_IOU else old
                for old, new in zip(quads, self.refiner.run(frame, quads))]

    def _in_doubt(self, results: list[CropClassification]) -> list[bool]:
        """Which readings leave their quad in doubt (no card, or a face below the threshold): those
        quads are cut into pieces, extended and looked at again closer."""
        return [r.face == NONE or r.confidence < self.threshold for r in results]

    def _zoomed_quads(self, frame: np.ndarray, quads: list[np.ndarray],
                      results: list[CropClassification]) -> list[np.ndarray]:
        """The quads the mask net finds in a closer look around the quads the crop net is unsure of
        (vision.zoom), less those the window's border cuts and those that repeat a quad read with
        confidence; re-fitted by the quad net as the frame's quads are (refit_quads)."""
        unsure = self._in_doubt(results)
        # the likeliest cards first: a quad read as a face in doubt, then those read as no card
        order = [1.0 + r.confidence if r.face == NONE else 1.0 - r.confidence for r in results]
        windows = zoom_windows(quads, unsure, frame.shape, order=order)
        if not windows:
            return []
        sure = [q for q, u in zip(quads, unsure) if not u]
        size = ZOOM_INPUT
        interior, centre, geometry = self.mask.run_windows(frame, windows, size)
        pitch = window_pitch(size, self.settings.mask_stride)
        from vision.evaluate import quad_iou
        found = []
        for q in self.finder.find(interior, geometry, centre):
            # which window (by its centre's column in the row of scaled windows), then frame pixels
            k = int(q[:, 0].mean() // pitch)
            if not 0 <= k < len(windows):
                continue
            win = windows[k]
            in_frame = (q - np.array([k * pitch, 0.0])) * (win.side / size) + np.array([win.x, win.y], np.float64)
            if not inside_window([in_frame], win, frame.shape):
                continue
            if not any(quad_iou(in_frame, other) > 0.7 for other in sure + found):
                found.append(in_frame)
        # the window's quads are the mask net's too, with its faults: re-fitted as the frame's are
        # (on the evaluation splits 21 more cards found, 3 fewer in doubt, the false alarms the same)
        return self._refitted(frame, found) if self.refit and found else found

    def detect_timed(self, frame_bgr: np.ndarray) -> tuple[list[Detection], dict[str, float]]:
        """Detections and the milliseconds each stage took."""
        frame = _as_bgr(frame_bgr)
        quads, (t0, t1, t2, t2b, t2c) = self._whole_quads_timed(frame)
        results = self.crops.run(_warp_all(frame, quads))
        pieces, turned = [], []
        # the quads the crop net is not sure are one card (cut into pieces, extended)
        unsure = self._in_doubt(results)
        crowded = len(quads) > EXTEND_UP_TO  # (see EXTEND_UP_TO)
        if self.split_merged:
            # the pieces of a quad that is not one card (a row of touching cards seen as one blob),
            # unless the crop net is sure it is one card: on the evaluation splits this found as many
            # cards as reading every piece (2 fewer in 500 scenes), with 36% / 17% fewer pieces to read
            # on the 9- / 45-card timing frames (1.8 / 11.9 a frame instead of 2.9 / 14.3)
            pieces = [p for ps in pieces_by_quad(quads, cut=unsure, from_ends=PIECES_FROM_ENDS) for p in ps]
        if self.turn_squat:
            # a nearly square quad that the crop net took for no card, turned by a quarter: a card
            # seen at a slant looks nearly square, and when its short sides are the other pair its
            # crop was warped sideways
            turned = [rotate_quad(q, 1) for q, r in zip(quads, results) if r.face == NONE and is_squat(q)]
        extended, extended_from = [], []
        if self.extend_parts and not crowded:
            # a quad the crop net is unsure of may be part of a card (the light half of a card whose
            # other half is dark on a dark table, the part of a card the mask net saw): its
            # extensions to a whole card, beyond either end of either pair of sides (see
            # models/HISTORY.md; extending every small quad, even those read with confidence, added
            # confident wrong answers on validation)
            by_quad = extensions_by_quad(quads, extend=unsure)
            extended = [e for es in by_quad for e in es]
            extended_from = [k for k, es in enumerate(by_quad) for _ in es]
        # a closer look around the quads in doubt (only in frames of at most EXTEND_UP_TO quads: with 45
        # cards the windows hold many cards, and finding them all again cost about 25 ms a frame)
        zoomed = self._zoomed_quads(frame, quads, results) if self.zoom and not crowded else []
        if zoomed or pieces or turned or extended:
            again = self.crops.run(_warp_all(frame, zoomed + pieces + turned + extended))
            first, last = len(zoomed) + len(pieces), len(zoomed) + len(pieces) + len(turned)
            again[first:last] = [_turned_reading(r) for r in again[first:last]]
            again[last:] = [_extended_reading(r) for r in again[last:]]
            quads = quads + zoomed + pieces + turned + extended
            results = results + again
        # a card read on an extension that reaches over another card found, or out of the frame, is in
        # doubt whatever its reading: that part of it is hidden, and it may be what tells it from its
        # look-alikes (a card half under another, its bird hidden, was read as the plain card of
        # its month with full confidence; so was one whose bird lay beyond the frame's edge)
        first_extended = len(quads) - len(extended)
        first_zoomed = first_extended - len(turned) - len(pieces) - len(zoomed)
        found = [k for k, r in enumerate(results) if r.face != NONE]
        detections, held = [], set()
        for k, (quad, r) in enumerate(zip(quads, results)):
            if r.face == NONE:
                continue
            # (a quad of the closer look on the same card is that card seen again, not another one; so is
            # a part of it, PART_INSIDE: both asked only of the quads it reaches over, as they take time)
            unseen_part = k >= first_extended and (_reaches_out(quad, frame.shape) or any(
                not (first_zoomed <= j < first_zoomed + len(zoomed) and _same_card(quad, quads[j]))
                and not _part_of_it(quads[j], results[j], quad, r, self.threshold)
                for j in _reached_over(quad, [j for j in found if j < first_extended
                                              and j != extended_from[k - first_extended]], quads)))
            if r.upside_down:
                quad = rotate_quad(quad, 2)
            detections.append(Detection(card=first_card_of_face(r.face), face=r.face,
                                        quad=quad_from_array(quad), confidence=r.confidence,
                                        uncertain=r.confidence < self.threshold or unseen_part))
            if unseen_part:
                held.add(detections[-1].quad)
        detections = _without_parts(detections)
        if (self.nudge or self.refine_unsure) and not crowded:
            # (with 45 cards many are in doubt, and their nudged quads cost about 18 ms a frame)
            detections = self._nudged(frame, detections, held)
        detections = _back_strips_in_doubt(_small_backs_in_doubt(_one_inside_another_in_doubt(detections)))
        if self.split_merged:
            detections = self._backs_of_several_cards(frame, detections)
        # what the deck allows: one card is not on the table twice
        detections = _faces_seen_too_often(_one_card_read_twice(detections, self.decks), self.decks)
        if _colourless(frame, [d.quad for d in detections if d.face not in COLOURLESS_ART | {BACK, NONE}]):
            # a grey picture (a webcam in black-and-white mode, a grey photo): faces told apart by
            # colour, a ribbon from its month's chaff, were read as the look-alike, surely
            detections = [replace(d, uncertain=True) if d.face not in (BACK, NONE) else d for d in detections]
        t3 = time.perf_counter()
        ms = {"mask": (t1 - t0) * 1e3, "quads": (t2 - t1) * 1e3, "proposals": (t2b - t2) * 1e3,
              "refit": (t2c - t2b) * 1e3, "classify": (t3 - t2c) * 1e3,
              "total": (t3 - t0) * 1e3}
        return detections, ms

    def _nudged(self, frame: np.ndarray, detections: list[Detection], held: set) -> list[Detection]:
        """The detections with each card still in doubt (below the threshold; not one whose quad is in
        ``held``, in doubt whatever its reading) read again from second quads (_second_quads: its
        quad re-fitted by the quad net, and nudged, NUDGES): all the second quads of a frame are read
        upright in one batch, and each card's surest one that names a card is read again as every
        other crop is (turned too when unsure) in a second; where that reading is surer than the
        first, and its quad does not lie on another card found, it and its quad replace the card's.
        Most face-up cards in
        doubt in full view have a quad a little off (turned, too large, shifted) and are read with
        confidence on their labelled quad; so are many face-down cards on dark tables. The surest
        of several readings is surer for the wrong answers too (read upright only, much surer): the
        threshold is chosen with this on (models/MODEL.md)."""
        doubt = [i for i, d in enumerate(detections) if d.confidence < self.threshold and d.quad not in held]
        if not doubt:
            return detections
        quads = self._second_quads(frame, [np.asarray(detections[i].quad, np.float64) for i in doubt])
        per_card = quads.shape[1]
        upright = self.crops.run(_warp_all(frame, list(quads.reshape(-1, 4, 2))), turned=False)
        chosen = []  # (detection, its surest second quad)
        for n, i in enumerate(doubt):
            named = [k for k in range(per_card) if upright[n * per_card + k].face != NONE]
            if named:
                best = max(named, key=lambda k: upright[n * per_card + k].confidence)
                chosen.append((i, quads[n, best]))
        if not chosen:
            return detections
        out = list(detections)
        for (i, quad), r in zip(chosen, self.crops.run(_warp_all(frame, [q for _, q in chosen]))):
            if r.face == NONE or r.confidence <= detections[i].confidence:
                continue
            # a second quad that moved onto another card found is that card read twice, not this one
            # (as _drop_duplicates judges two quads on one card)
            if any(_on_one_card(quad, d.quad) for j, d in enumerate(detections) if j != i):
                continue
            if r.upside_down:
                quad = rotate_quad(quad, 2)
            out[i] = Detection(card=first_card_of_face(r.face), face=r.face, quad=quad_from_array(quad),
                               confidence=r.confidence, uncertain=r.confidence < self.threshold)
        return out

    def _backs_of_several_cards(self, frame: np.ndarray, detections: list[Detection]) -> list[Detection]:
        """The detections with each back read with confidence on a quad that is not one card (not of a
        card's shape, or larger than the frame's cards: pieces_by_quad) replaced by its pieces, where
        two or more of them that do not overlap read as backs with confidence. Face-down cards lying
        side by side show no seam, so the mask net sees one blob and the crop net one back: the quad is
        cut into pieces only when in doubt, and it was not. On 2,400 validation scenes (seed 777) this
        found 24 more cards and took 8 confident false alarms away; on 2,400 more (seed 778) 14 and 6;
        it named no card wrong."""
        sure_backs = [d.face == BACK and not d.uncertain for d in detections]
        if not any(sure_backs):
            return detections
        by_quad = pieces_by_quad([np.asarray(d.quad, np.float64) for d in detections], cut=sure_backs)
        cut = [k for k, pieces in enumerate(by_quad) if pieces]
        if not cut:
            return detections
        readings = iter(self.crops.run(_warp_all(frame, [p for k in cut for p in by_quad[k]])))
        out, pieces_found = list(detections), []
        for k in cut:
            backs = [(r.confidence, piece) for piece, r in zip(by_quad[k], readings)
                     if r.face == BACK and r.confidence >= self.threshold]
            # the surest pieces first; the cuts into two, three and four overlap one another (the
            # pieces of one cut only touch: any overlap, IoU over 0.2, is one card taken twice)
            chosen: list[tuple[float, np.ndarray]] = []
            for confidence, piece in sorted(backs, key=lambda b: -b[0]):
                if not any(_on_one_card(piece, other, iou=0.2) for _, other in chosen):
                    chosen.append((confidence, piece))
            if len(chosen) >= 2:
                out[k] = None
                pieces_found += [Detection(card=None, face=BACK, quad=quad_from_array(piece), confidence=c)
                                 for c, piece in chosen]
        return [d for d in out if d is not None] + pieces_found

    def _second_quads(self, frame: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
        """The quads a card in doubt is read again from (cards x quads x 4 x 2): its quad re-fitted
        by the quad net, then its nudged copies, as the detector is set to take them."""
        parts = []
        if self.refine_unsure:
            parts.append(np.array(self.refiner.run(frame, quads))[:, None])
        if self.nudge:
            parts.append(nudged_quads(quads, NUDGES))
        return np.concatenate(parts, axis=1)


def _turned_reading(r: CropClassification) -> CropClassification:
    """The reading of a quad turned by a quarter, as the detector counts it: no card unless it names
    one face with at least even odds (on 400 validation scenes the weaker ones were wrong, or no
    card, as often as right)."""
    return r if r.confidence >= TURNED_LEAST else replace(r, face=NONE)


def _reached_over(quad: np.ndarray, which, quads: list[np.ndarray], share: float = 0.1) -> list[int]:
    """Those of the indices ``which`` (into ``quads``) whose quad has more than ``share`` of the
    quad's area on it."""
    from vision.evaluate import quad_overlap
    return [j for j in which if quad_overlap(quad, quads[j]) > share]


def _reaches_out(quad: np.ndarray, frame_shape: tuple) -> bool:
    """Whether more than OUT_OF_FRAME of the quad's area lies outside the frame."""
    from vision.evaluate import quad_overlap
    h, w = frame_shape[:2]
    return quad_overlap(quad, np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])) < 1.0 - OUT_OF_FRAME


def _part_of_it(part: np.ndarray, part_reading: CropClassification, quad: np.ndarray,
                reading: CropClassification, threshold: float) -> bool:
    """Whether ``part`` is a part of the card on ``quad``: it lies at least PART_INSIDE of it within
    the quad, and names the same face, or another below ``threshold`` (a piece of a card read in
    doubt; another card read with confidence there may be one the card lies under)."""
    from vision.evaluate import quad_overlap
    return (part_reading.face == reading.face or part_reading.confidence < threshold) \
        and quad_overlap(part, quad) >= PART_INSIDE


def _on_one_card(a, b, iou: float = 0.3) -> bool:
    """Whether two quads cover one card (IoU above ``iou``, as _drop_duplicates takes them)."""
    from vision.evaluate import quad_iou
    return quad_iou(a, b) > iou


def _same_card(a: np.ndarray, b: np.ndarray) -> bool:
    from vision.evaluate import MATCH_IOU, quad_iou
    return quad_iou(a, b) >= MATCH_IOU


def _extended_reading(r: CropClassification) -> CropClassification:
    """The reading of a quad's whole-card extension, as the detector counts it: no card unless it
    names one with at least EXTENDED_LEAST (on 2,400 validation scenes, taking every reading found
    34 more cards but raised 31 more false alarms: see models/HISTORY.md)."""
    return r if r.confidence >= EXTENDED_LEAST else replace(r, face=NONE)


def _warp_all(frame: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
    """The upright crops of ``quads`` as one batch (N x 96 x 64 x 3)."""
    if not quads:
        return np.zeros((0, CROP_HEIGHT, CROP_WIDTH, 3), np.uint8)
    return np.stack([warp_card(frame, q, CROP_WIDTH, CROP_HEIGHT) for q in quads])


def _without_parts(detections: list[Detection]) -> list[Detection]:
    """The detections less the parts of cards and the second quads of one card: first what is far
    smaller than the frame's cards (_drop_small), then the less sure of two quads on one card
    (_drop_duplicates). In the other order a small part read more surely than its whole card (a
    plain patch of a back at 0.998 on a back read whole at 0.974) put the whole card out as a second
    quad of it, and then stayed as a false alarm or went as small itself, the card lost with it. On
    the evaluation splits this order finds the same cards with 88 false alarms against 90 (4 such
    backs fewer, one of them confident; one doubtful part more, kept where the median size was
    taken with the second quads still in)."""
    return _drop_duplicates(_drop_small(detections))


def _drop_duplicates(detections: list[Detection], inside: float = 0.8) -> list[Detection]:
    """Where two quads cover the same card (a blob split in two), keep the more confident one. So too
    where one lies mostly (``inside`` of its area) on another that names the same face: a part of the
    card read again (two cards of one face that overlap so much leave the one under out of sight;
    on 4,800 validation scenes two such parts were false alarms read at 0.984 and 0.994)."""
    if len(detections) < 2:
        return detections
    from vision.evaluate import quad_iou, quad_overlap
    centres = np.array([d.center() for d in detections])
    sizes = np.array([np.sqrt(abs(cv2.contourArea(np.float32(d.quad)))) for d in detections])
    # which pairs lie close enough to be one card, all at once (with 45 cards the pairs are many)
    gap = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    close = gap < 0.8 * np.maximum(sizes[:, None], sizes[None, :])
    keep = [True] * len(detections)
    order = sorted(range(len(detections)), key=lambda i: -detections[i].confidence)
    for a_pos, i in enumerate(order):
        if not keep[i]:
            continue
        for j in order[a_pos + 1:]:
            if not keep[j] or not close[i, j]:
                continue
            if _on_one_card(detections[i].quad, detections[j].quad):
                keep[j] = False
            elif detections[i].face == detections[j].face:
                a, b = detections[i].quad, detections[j].quad
                keep[j] = max(quad_overlap(a, b), quad_overlap(b, a)) < inside
    return [d for d, k in zip(detections, keep) if k]


def _one_inside_another_in_doubt(detections: list[Detection], inside: float = 0.8) -> list[Detection]:
    """Where a quad lies mostly (``inside`` of its area) within another that names another face, both
    are in doubt: one card does not lie within another, so one of the two is a part of a card read as
    a card (a close-up of one card gave a sure back in its dark sky, and a look-alike beside it)."""
    if len(detections) < 2:
        return detections
    from vision.evaluate import quad_overlap
    # (the boxes first: with 45 cards the pairs are many, and few boxes lie much on another)
    pts = np.array([np.asarray(d.quad, np.float64) for d in detections])
    lo, hi = pts.min(axis=1), pts.max(axis=1)
    span = np.clip(np.minimum(hi[:, None, :], hi[None, :, :]) - np.maximum(lo[:, None, :], lo[None, :, :]), 0, None)
    boxed = span.prod(axis=2) >= 0.5 * (hi - lo).prod(axis=1)[:, None]
    doubt = set()
    for i, j in zip(*np.nonzero(boxed)):
        if i != j and detections[i].face != detections[j].face \
                and quad_overlap(detections[i].quad, detections[j].quad) >= inside:
            doubt |= {int(i), int(j)}
    return [replace(d, uncertain=True) if k in doubt else d for k, d in enumerate(detections)]


def _drop_small(detections: list[Detection], least: float = 0.6) -> list[Detection]:
    """Drop what is far smaller than the other cards of the frame (a side less than ``least`` of the
    median's) unless it names a face with confidence: the cards on a table are about the same size,
    and such a quad is mostly a part of a card (a plain patch of a back, read as a back), not a card.
    A face read with confidence is kept: on 2,400 validation scenes each of the 15 such detections
    dropped before named the card it lay on (13 cards found, 2 quads too loose to match theirs), cards
    seen smaller than the rest of their frame. Only with three or more detections."""
    if len(detections) < 3:
        return detections
    sides = _sides_over_median(detections)
    return [d for d, s in zip(detections, sides) if s >= least or (d.face != BACK and not d.uncertain)]


def _sides_over_median(detections: list[Detection]) -> np.ndarray:
    """Each detection's side (the square root of its quad's area) over the median of the frame's."""
    sides = np.sqrt([abs(cv2.contourArea(np.float32(d.quad))) for d in detections])
    return sides / max(float(np.median(sides)), 1e-6)


def _small_backs_in_doubt(detections: list[Detection], least: float = SMALL_BACK_SIDE) -> list[Detection]:
    """Flag as uncertain a back read with confidence on a quad far smaller than the frame's cards (a
    side less than ``least`` of the median's). Such a quad is mostly the visible half of a face-down
    card under another, read as a back whatever the confidence: confident, it is a card "face down"
    the round would wait on. Only with three or more detections."""
    if len(detections) < 3:
        return detections
    return [replace(d, uncertain=True) if d.face == BACK and not d.uncertain and s < least else d
            for d, s in zip(detections, _sides_over_median(detections))]


def _back_strips_in_doubt(detections: list[Detection], longest: float = BACK_STRIP_RATIO) -> list[Detection]:
    """Flag as uncertain a back read with confidence on a quad far longer for its width than a card
    (its long sides, each pair's mean, over ``longest`` times its short sides). Such a quad is mostly
    the visible half of a face-down card lying under another along its length: a plain strip of a
    back reads as a back whatever its shape. Needs no other card to compare with."""
    sure_backs = [i for i, d in enumerate(detections) if d.face == BACK and not d.uncertain]
    if not sure_backs:
        return detections
    # (all the frame's sure backs at once: one by one cost about 1 ms with 45 backs)
    q = np.array([detections[i].quad for i in sure_backs], np.float64)
    sides = np.hypot(*np.moveaxis(q[:, NEXT_CORNER] - q, 2, 0))
    pairs = np.stack([sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]], axis=1)
    strips = pairs.max(axis=1) > longest * np.maximum(pairs.min(axis=1), 1e-9)
    out = list(detections)
    for i in np.asarray(sure_backs)[strips]:
        out[i] = replace(out[i], uncertain=True)
    return out


def _one_card_read_twice(detections: list[Detection], decks: int = 1,
                         overlap: float = READ_TWICE_OVERLAP) -> list[Detection]:
    """Where two detections name a face the decks hold only one card of and their quads overlap
    (more than ``overlap`` of either's area), keep the surer: the other is a second quad on that
    card (over part of it), which would put it on the table twice. _drop_duplicates asks for more
    overlap, as two cards of a face with several cards (the chaff) may lie one partly on the other."""
    # (only a face read more than once can be read twice)
    twice = {face for face, n in Counter(d.face for d in detections).items() if n > 1}
    single = [i for i, d in enumerate(detections) if d.face in twice and copies_of_face(d.face, decks) == 1]
    if len(single) < 2:
        return detections
    from vision.evaluate import quad_overlap
    order = sorted(single, key=lambda k: -detections[k].confidence)
    dropped = set()
    for a_pos, i in enumerate(order):
        if i in dropped:
            continue
        for j in order[a_pos + 1:]:
            a, b = detections[i], detections[j]
            if j not in dropped and a.face == b.face and \
                    max(quad_overlap(a.quad, b.quad), quad_overlap(b.quad, a.quad)) > overlap:
                dropped.add(j)
    return [d for k, d in enumerate(detections) if k not in dropped]


def _faces_seen_too_often(detections: list[Detection], decks: int = 1) -> list[Detection]:
    """Flag as uncertain every detection of a face named with confidence more often than the decks
    hold cards of it (two cards read as the one `wisteria-cuckoo`): they cannot all be right, and
    which one is wrong the readings do not say (on validation a plain card of the month was read as
    its animal at 0.99997 beside the animal itself), so the dealer confirms each. The readings
    already in doubt do not count: a card read with confidence beside another quad read as it in
    doubt (at 0.5) is left as it is, as the doubtful one asks the dealer anyway (on 2,400
    validation scenes of seed 777 (778) 14 (18) right answers fewer in doubt, nothing else
    changed)."""
    counts = Counter(d.face for d in detections if not d.uncertain)
    too_often = {face for face, n in counts.items() if n > copies_of_face(face, decks)}
    if not too_often:
        return detections
    return [replace(d, uncertain=True) if d.face in too_often else d for d in detections]


# faces whose pixels differ this little between their channels (99 in 100 of them) have no colour to
# be told apart by: their readings are all in doubt
COLOURLESS_SPREAD = 10
# faces printed without colour in some decks (the chaff of pine and of susuki: black and grey ink):
# no word on whether the picture is grey (one alone on a grey table made a colour picture "grey")
COLOURLESS_ART = frozenset({"pine-chaff", "susuki-chaff"})


def _colourless(frame: np.ndarray, quads: list) -> bool:
    """Whether the faces read at ``quads`` lie in a grey picture, or all but one: fewer than 1 in 100
    of the cards' own pixels differ by COLOURLESS_SPREAD levels or more between their channels (a
    table may well be grey; every 4th pixel each way is enough). Told at the first cards that hold
    colour enough, as in a colour picture they do (it runs on every frame)."""
    h, w = frame.shape[:2]
    boxes = []
    for quad in quads:
        xs, ys = [p[0] for p in quad], [p[1] for p in quad]
        x0, x1 = max(0, int(min(xs))), min(w, int(max(xs)) + 1)
        y0, y1 = max(0, int(min(ys))), min(h, int(max(ys)) + 1)
        box = frame[y0:y1:4, x0:x1:4]
        if box.size:
            boxes.append(box)
    allowed = 0.01 * sum(b.shape[0] * b.shape[1] for b in boxes)
    coloured = 0
    for box in boxes:
        wide = box.astype(np.int16)
        coloured += int(np.count_nonzero(wide.max(axis=2) - wide.min(axis=2) >= COLOURLESS_SPREAD))
        if coloured > allowed:
            return False
    return bool(boxes)


def _as_bgr(frame: np.ndarray) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.size == 0:
        raise ValueError("the frame is empty")
    if frame.dtype != np.uint8:
        raise ValueError(f"the frame must be 8-bit (got {frame.dtype})")
    if frame.ndim == 3 and frame.shape[2] == 1:  # (grey with a channel axis, as some cameras give it)
        frame = frame[:, :, 0]
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.ndim == 3 and frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if not (frame.ndim == 3 and frame.shape[2] == 3):
        raise ValueError(f"the frame must be a BGR image (got shape {frame.shape})")
    h, w = frame.shape[:2]
    if min(h, w) < MIN_FRAME_SIDE:
        raise ValueError(f"the frame is too small ({w}x{h} pixels): a frame needs at least {MIN_FRAME_SIDE} "
                         f"pixels on each side")
    return frame
