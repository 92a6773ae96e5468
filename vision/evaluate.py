"""Scoring detections against labelled cards: matching, accuracy, recall/precision, doubt, and the
choice of the uncertainty threshold.

A labelled card counts (for recall) when at least MIN_VISIBLE of it shows; a detection that matches a
card hidden more than that is neither a hit nor a false alarm. A detection matches a card when their
quads overlap with IoU >= MATCH_IOU, the cards that count before the hidden ones, and among those the
card of the face it names before the others.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dealer.cards import BACK
from vision.types import Detection

MATCH_IOU = 0.5
MIN_VISIBLE = 0.5
# a card at least this visible is "in the open" (apart from cards partly under others)
IN_THE_OPEN = 0.9
# a false alarm overlapping this much a card of the face it names, which nothing else found, is that
# card in a quad a little off (see threshold_outcomes)
LOOSE_IOU = 0.3


def _areas_and_overlap(a, b) -> tuple[float, float, float]:
    """The areas of quads ``a`` and ``b`` and of their intersection (0 where either has no area)."""
    pa = np.asarray(a, np.float32).reshape(4, 2)
    pb = np.asarray(b, np.float32).reshape(4, 2)
    # (contourArea is not oriented by default: either order of corners gives the area; the convex
    # hulls below put both quads in one orientation for the intersection)
    aa, ab = cv2.contourArea(pa), cv2.contourArea(pb)
    if aa <= 0 or ab <= 0:
        return aa, ab, 0.0
    inter, _ = cv2.intersectConvexConvex(cv2.convexHull(pa), cv2.convexHull(pb))
    return aa, ab, max(float(inter), 0.0)


def quad_iou(a, b) -> float:
    aa, ab, inter = _areas_and_overlap(a, b)
    return float(inter / (aa + ab - inter)) if inter > 0 else 0.0


def quad_overlap(a, b) -> float:
    """The share of quad ``a``'s area that lies on quad ``b``."""
    aa, _, inter = _areas_and_overlap(a, b)
    return float(inter / aa) if inter > 0 else 0.0


@dataclass(frozen=True)
class LabelledCard:
    face: str
    quad: tuple
    required: bool  # counts for recall (visible enough, not cut by the border)
    visible: float = 1.0


@dataclass(frozen=True)
class CardOutcome:
    """One labelled card that counts: found or not, and what was said about it."""
    found: bool
    face_right: bool = False
    orientation_right: bool = False
    confidence: float = 0.0
    uncertain: bool = False
    said: str | None = None
    truth: str = ""
    visible: float = 1.0


# why a counting card was missed, from the quads the detector could have read (see miss_causes)
MISS_CAUSES = ("no_quad", "quad_off", "read_as_no_card", "read_but_not_reported")


def miss_causes(missed: list[LabelledCard], quads: list, named: list[bool]) -> list[str]:
    """Why each missed card was missed, given every quad the detector's crop net could be handed for
    the frame (``quads``) and whether the crop net names a card (a face or a back) on each (``named``):
    ``no_quad``: none lies on it (IoU under LOOSE_IOU); ``quad_off``: some do, none closely enough to
    match it (IoU under MATCH_IOU: a row of touching cards cut in the wrong places, a blob's quad
    off); ``read_as_no_card``: one matches it, and the crop net takes every such one for no card;
    ``read_but_not_reported``: the crop net names a card on one that matches it, yet the detector did
    not report it (a piece it did not read because the whole blob was read as one card, dropped as a
    duplicate or as too small, or a detection matched to another card)."""
    if len(quads) != len(named):
        raise ValueError(f"{len(quads)} quads but {len(named)} readings")
    causes = []
    for card in missed:
        ious = [quad_iou(q, card.quad) for q in quads]
        best = max(ious, default=0.0)
        if best < LOOSE_IOU:
            causes.append("no_quad")
        elif best < MATCH_IOU:
            causes.append("quad_off")
        elif any(n for n, iou in zip(named, ious) if iou >= MATCH_IOU):
            causes.append("read_but_not_reported")
        else:
            causes.append("read_as_no_card")
    return causes


@dataclass
class Tally:
    cards: list[CardOutcome] = field(default_factory=list)
    false_alarms: list[Detection] = field(default_factory=list)  # detections of no card
    # per false alarm: it names a face and lies (IoU >= LOOSE_IOU) on a counting card of that face
    # that no detection matched: the right card, in a quad too far off to match it
    on_its_card: list[bool] = field(default_factory=list)
    detections: int = 0  # detections that were judged (matched a counting card or none)
    # (cause, visible share) of missed cards, when the evaluation asked why (see miss_causes)
    missed_causes: list[tuple[str, float]] = field(default_factory=list)
    missed_labels: list[LabelledCard] = field(default_factory=list)  # the counting cards no detection matched

    def add(self, other: "Tally") -> None:
        self.cards += other.cards
        self.false_alarms += other.false_alarms
        self.on_its_card += other.on_its_card
        self.detections += other.detections
        self.missed_causes += other.missed_causes
        self.missed_labels += other.missed_labels

    def summary(self) -> dict:
        n = len(self.cards)
        found = [c for c in self.cards if c.found]
        wrong_confident = [c for c in found if not c.face_right and not c.uncertain]
        right = sum(c.face_right for c in found)
        out = {
            "cards": n,
            "detection_recall": _ratio(len(found), n),
            "detection_precision": _ratio(self.detections - len(self.false_alarms), self.detections),
            "face_accuracy": _ratio(right, len(found)),
            # without the face-down cards (their backs are one design in every art set, the held-out
            # one too, and all are read right): the faces alone
            "face_accuracy_face_up": _ratio(sum(c.face_right for c in found if c.truth != BACK),
                                            sum(1 for c in found if c.truth != BACK)),
            "face_accuracy_of_all_cards": _ratio(right, n),
            "orientation_accuracy": _ratio(sum(c.orientation_right for c in found if c.truth != "back"),
                                           sum(1 for c in found if c.truth != "back")),
            "uncertain_share": _ratio(sum(c.uncertain for c in found), len(found)),
            "uncertain": sum(c.uncertain for c in found),
            # the doubt split by what the card is: a face-up card the dealer confirms before a settlement
            # names it, or a face-down card read as a back (a plain dark back on a dark table reads
            # much like the table; a back names no card)
            "uncertain_share_face_up": _ratio(sum(c.uncertain for c in found if c.truth != BACK),
                                              sum(1 for c in found if c.truth != BACK)),
            "uncertain_backs": sum(c.uncertain for c in found if c.truth == BACK and c.said == BACK),
            "confident_wrong_rate": _ratio(len(wrong_confident), len(found)),
            "confident_wrong": len(wrong_confident),
            "false_alarms": len(self.false_alarms),
            "confident_false_alarms": sum(not d.uncertain for d in self.false_alarms),
            # of those, the ones that name a face (the rest say "back": a face-down card names no one)
            "confident_false_alarms_naming_a_face": sum(not d.uncertain and d.face != BACK for d in self.false_alarms),
            # of those, the ones on a card of the face they name that nothing else found (a quad off)
            "confident_false_alarms_on_their_card": sum(not d.uncertain and on for d, on in
                                                        zip(self.false_alarms, self.on_its_card)),
            "missed": n - len(found),
        }
        # every confident answer that is wrong, per card that counts: the cards misread with
        # confidence and the confident false alarms (a "card" where there is none, or a second one);
        # and of those, the ones that name a card (a wrong back names no one, but stops the round)
        confident_alarms = [d for d in self.false_alarms if not d.uncertain]
        out["confident_errors"] = len(wrong_confident) + len(confident_alarms)
        out["confident_errors_rate"] = _ratio(out["confident_errors"], n)
        out["confident_errors_naming_a_card"] = (sum(c.said != BACK for c in wrong_confident)
                                                 + sum(d.face != BACK for d in confident_alarms))
        out["confident_errors_naming_a_card_rate"] = _ratio(out["confident_errors_naming_a_card"], n)
        # cards in the open apart from cards partly under others
        whole = [c for c in self.cards if c.visible >= IN_THE_OPEN]
        whole_found = [c for c in whole if c.found]
        out["cards_in_the_open"] = len(whole)
        out["detection_recall_in_the_open"] = _ratio(len(whole_found), len(whole))
        out["face_accuracy_in_the_open"] = _ratio(sum(c.face_right for c in whole_found), len(whole_found))
        if self.missed_causes:
            out["missed_by_cause"] = {k: sum(c == k for c, _ in self.missed_causes) for k in MISS_CAUSES}
            out["missed_in_the_open_by_cause"] = {k: sum(c == k and v >= IN_THE_OPEN for c, v in self.missed_causes)
                                                  for k in MISS_CAUSES}
        confusions: dict[str, int] = {}
        for c in found:
            if not c.face_right:
                key = f"{c.truth}->{c.said}"
                confusions[key] = confusions.get(key, 0) + 1
        out["confusions"] = dict(sorted(confusions.items(), key=lambda kv: -kv[1])[:10])
        return out


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 5) if b else None


def score_frame(detections: list[Detection], cards: list[LabelledCard]) -> Tally:
    """Greedy one-to-one matching by IoU, best pairs first; the counting cards before the cards
    hidden too much to count, and a card of the face the detection names before a card of another.
    (By IoU alone, the top card of a pile, in full view and found, was counted missed whenever its
    detection fitted a card under it a little better: the cards of a stacked deck lie nearly on one
    another. And one quad over a card and the card half under it, IoU >= MATCH_IOU with both, that
    named the card on top was counted a misread of the card under it when it fitted that one a
    little better: it names a card that is there, and the card under it is missed.)"""
    pairs = []
    for i, d in enumerate(detections):
        for j, c in enumerate(cards):
            iou = quad_iou(d.quad, c.quad)
            if iou >= MATCH_IOU:
                pairs.append((c.required, d.face == c.face, iou, i, j))
    pairs.sort(reverse=True)
    used_d, used_c = set(), set()
    tally = Tally()
    matched = {}
    for *_, i, j in pairs:
        if i in used_d or j in used_c:
            continue
        used_d.add(i)
        used_c.add(j)
        matched[j] = i
    for j, c in enumerate(cards):
        if not c.required:
            continue
        if j not in matched:
            tally.cards.append(CardOutcome(found=False, truth=c.face, visible=c.visible))
            continue
        d = detections[matched[j]]
        tally.cards.append(CardOutcome(found=True, face_right=d.face == c.face,
                                       orientation_right=_same_start(d.quad, c.quad),
                                       confidence=d.confidence, uncertain=d.uncertain, said=d.face,
                                       truth=c.face, visible=c.visible))
    unfound = [c for j, c in enumerate(cards) if c.required and j not in matched]
    tally.missed_labels = list(unfound)
    for i, d in enumerate(detections):
        if i in used_d:
            j = next(j for j, k in matched.items() if k == i)
            if cards[j].required:
                tally.detections += 1
            continue
        tally.detections += 1
        tally.false_alarms.append(d)
    # which false alarms are an unfound card in a quad a little off: the most confident one on each
    # such card (a second one on the same card would count it twice). The cards hidden too much to
    # count come after the counting ones: a card that is there, named right, is no mistake either
    # (matched at MATCH_IOU such a detection is not judged at all)
    unmatched_hidden = [c for j, c in enumerate(cards) if not c.required and j not in matched]
    tally.on_its_card = [False] * len(tally.false_alarms)
    for k in sorted(range(len(tally.false_alarms)), key=lambda k: -tally.false_alarms[k].confidence):
        d = tally.false_alarms[k]
        if d.face == BACK:
            continue
        card = next((c for c in unfound + unmatched_hidden
                     if c.face == d.face and quad_iou(d.quad, c.quad) >= LOOSE_IOU), None)
        if card is not None:
            tally.on_its_card[k] = True
            (unfound if card in unfound else unmatched_hidden).remove(card)
    return tally


def _same_start(q, truth) -> bool:
    """The detection starts at the labelled top-left corner (nearest of the four)."""
    q = np.asarray(q, float).reshape(4, 2)
    t = np.asarray(truth, float).reshape(4, 2)
    return int(np.argmin(np.linalg.norm(t - q[0], axis=1))) == 0


def cards_from_scene_labels(labels: dict) -> list[LabelledCard]:
    return [LabelledCard(face=c["face"], quad=tuple(map(tuple, c["quad"])),
                         required=float(c.get("visible", 1.0)) >= MIN_VISIBLE, visible=float(c.get("visible", 1.0)))
            for c in labels["cards"]]


# ---------------------------------------------------------------- the uncertainty threshold

def threshold_outcomes(tally: Tally, threshold: float | None = None) -> list[tuple[float, bool]]:
    """(confidence, right) of every answer the threshold is chosen on: each card found (wrong when
    misread) and each false alarm (wrong), except face-down cards read as backs and false alarms read
    as backs (a quad across two touching face-down cards, a plain patch of a back). A back names no
    card and pays no one, and a round cannot be settled while a card is face down, so the threshold
    is set by the answers a settlement depends on; the benchmark still counts every false alarm.

    A false alarm that names the face of a card it lies on (IoU >= LOOSE_IOU) which no other
    detection found counts as right: it names the card that is there, in a quad a little too far off
    to match it (on 1,200 validation scenes most of the confident "wrong" answers were such quads). On a
    card another detection found it is a second answer for one card, and wrong.

    ``threshold``: the one the detector ran at. An answer it flagged uncertain though its confidence
    is at least that (a card read on an extension that reaches over another card, whose hidden part
    may be what tells it from its look-alikes) is flagged whatever the threshold: it is never a
    confident answer, and counts with confidence 0. (Below the threshold the flag does not say why:
    such answers count by their confidence, which can only make a lower threshold look worse.)"""
    def confidence(c: float, uncertain: bool) -> float:
        return 0.0 if threshold is not None and uncertain and c >= threshold else c

    out = [(confidence(c.confidence, c.uncertain), c.face_right) for c in tally.cards
           if c.found and not (c.said == BACK and c.truth == BACK)]
    out += [(confidence(d.confidence, d.uncertain), on) for d, on in zip(tally.false_alarms, tally.on_its_card)
            if d.face != BACK]
    return out


def pick_threshold(outcomes: list[tuple[float, bool]], max_wrong_rate: float) -> tuple[float, dict]:
    """The lowest threshold at which the answers given with confidence (>= threshold) are wrong at most
    ``max_wrong_rate`` of all answers. ``outcomes``: (confidence, right) per detection, false alarms
    counting as wrong."""
    if not outcomes:
        return 0.9, {"threshold_from": 0}
    conf = np.array([c for c, _ in outcomes])
    wrong = np.array([not r for _, r in outcomes])
    allowed = max_wrong_rate * len(conf)
    # candidate thresholds: each distinct confidence (a card is confident when conf >= threshold)
    order = np.argsort(-conf, kind="stable")
    cum_wrong = np.cumsum(wrong[order])
    levels = np.unique(conf)[::-1]
    n_at_or_above = np.searchsorted(-conf[order], -levels, side="right")
    wrong_at = cum_wrong[n_at_or_above - 1]
    ok = levels[wrong_at <= allowed]
    threshold = float(ok.min()) if len(ok) else float(levels[0]) + 1e-6
    threshold = min(max(threshold, 0.3), 0.99999)
    return threshold, threshold_stats(outcomes, threshold, max_wrong_rate)


def threshold_stats(outcomes: list[tuple[float, bool]], threshold: float, max_wrong_rate: float) -> dict:
    """What ``threshold`` does to ``outcomes`` (as pick_threshold's): the answers, the wrong ones given
    with confidence, the share in doubt, and the same at a row of other thresholds."""
    conf = np.array([c for c, _ in outcomes], dtype=float)
    wrong = np.array([not r for _, r in outcomes], dtype=bool)
    kept = conf >= threshold
    curve = {f"{t:g}": {"confident_wrong": int((wrong & (conf >= t)).sum()), "uncertain_share": round(float((conf < t).mean()), 5)}
             for t in (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9999)}
    return {"threshold_from": int(len(conf)), "threshold_wrong_confident": int((wrong & kept).sum()),
            "threshold_uncertain_share": round(float((~kept).mean()), 5),
            "threshold_max_wrong_rate": max_wrong_rate, "wrong_answers": int(wrong.sum()),
            "curve": curve}


# ---------------------------------------------------------------- real photos

def load_photo_labels(folder: Path) -> dict[str, list[LabelledCard]]:
    """photos-dev/labels.csv: photo -> its labelled cards (partial ones do not count)."""
    by_photo: dict[str, list[LabelledCard]] = {}
    with (folder / "labels.csv").open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            quad = tuple((float(row[f"x{i}"]), float(row[f"y{i}"])) for i in range(1, 5))
            by_photo.setdefault(row["photo"], []).append(
                LabelledCard(face=row["face"], quad=quad, required=row.get("partial", "no").strip() != "yes"))
    return by_photo
