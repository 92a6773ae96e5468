"""The live table: frames -> detections -> stable cards -> the game's zones, for the dealer's page.

``LiveTable(source, detector, layout)`` runs a ``FrameGrabber`` (newest frame only) and one
processing thread (detector -> ``CardTracker`` -> ``ZoneAssigner``). A camera failure or a detector
exception is shown in the status and the thread keeps going (and retries); nothing here raises
into the web server.

``snapshot()`` returns this JSON-ready dict (the web page's contract; keys are stable)::

    {
      "version": int,          # +1 on every change of the stable state (below); starts at 1
      "frame_index": int,      # number of the last frame processed (0: none yet)
      "time": float,           # time.time() of that frame's processing
      "zones": [               # the layout's zones, in table order
        {"name": "saki", "label_en": "Saki", "label_ja": "先", "scored": true, "group": null,
         "expected": 3,        # cards the zone holds when complete (null: it varies)
         "cards": [CARD, ...], # in table order (left to right along the row)
         "face_down": 1,       # how many of its cards are face down
         "complete": false}    # expected is known and that many cards are there, all face up
      ],
      "unassigned": [CARD, ...],   # stable cards no zone claimed
      "face_down": int,            # face-down cards on the whole table
      "status": {"camera": "ok" | "lost" | "reconnecting",
                 "error": str | null,   # camera or detector problem, for the page's banner
                 "table": "live" | "stale"}  # stale: the cards are the last ones read, not the table now
    }

    CARD = {"track_id": int, "card": "pine-crane" | null, "face": "pine-crane" | "back",
            "confidence": float, "uncertain": bool, "quad": [[x, y] x 4]}

``card`` is null for a face-down card (face ``"back"``). ``quad`` is in pixels of the frame
served by ``jpeg()``, from the card's own top-left corner, clockwise. The stable state that
``version`` follows is everything except quads, ``time`` and ``frame_index``, with confidences
counted in steps of 0.1, so the page is not woken for every jitter of a corner.

``wait_for_change(version, timeout)`` blocks until the version differs from ``version`` and
returns the new snapshot (None on timeout): the loop of a Server-Sent Events stream. ``jpeg()`` is
the newest frame with the drawn zones and each stable card's outline and name (green when sure, amber
when uncertain).
``set_layout(layout, zones)`` switches the game or the drawn zones. ``process(frame)`` runs one frame
in the caller's thread, for tests and benchmarks.
"""
from __future__ import annotations

import copy
import logging
import threading
import time
from collections import Counter
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping

import cv2
import numpy as np

from dealer.games import ZoneSpec
from vision.camera import FrameGrabber, FrameSource, RotatedSource
from vision.tracking import CardTracker
from vision.types import Detector, TableCard, TableState, copies_of_face, decks_in_play
from vision.zones import TableZone, ZoneAssigner, describe_turn, picture_turn

log = logging.getLogger(__name__)

SURE_COLOUR = (60, 200, 60)       # BGR green
UNSURE_COLOUR = (0, 180, 255)     # BGR amber


def default_detector(kind: str = "hanafuda"):
    """The project's ONNX card detectors (imported only when asked for: they load the models): the
    one for ``kind`` cards (the game's first: ``hanafuda``, or ``western`` for Kakeya Toranpu) at
    once, so that a model missing is said at the start, the other when a game first needs it (a
    Kakeya table needed the hanafuda models too)."""
    makers = {"hanafuda": _hanafuda_detector, "western": _western_detector}
    if kind not in makers:
        raise ValueError(f"no detector for {kind!r} cards (known: {', '.join(makers)})")
    return DetectorByDeck(makers, kind=kind, built={kind: makers[kind]()})


def _hanafuda_detector():
    try:
        from vision.detector import CardDetector
    except ImportError as exc:
        raise RuntimeError(f"the card detector is not available: {exc}") from exc
    return CardDetector()


def _western_detector():
    try:
        from vision.western import WesternCardDetector
    except ImportError as exc:
        raise RuntimeError(f"western card recognition is not available: {exc}") from exc
    return WesternCardDetector()


class DetectorByDeck:
    """The detector for the deck in play (``use("western")`` for Kakeya Toranpu), each built the
    first time it is needed; ``detect(frame)`` as any detector. A detector that cannot be built
    raises from ``detect``, so the table shows why and keeps running."""

    def __init__(self, makers: Mapping[str, Callable[[], Detector]], kind: str = "hanafuda",
                 built: Mapping[str, Detector] | None = None):
        self.makers = dict(makers)
        self.kind = kind
        self.decks = 1
        self._built: dict[str, Detector] = dict(built or {})
        self._lock = threading.Lock()

    def use(self, kind: str, decks: int = 1) -> None:
        """Read ``kind`` cards from now on, of ``decks`` decks mixed (a detector that knows how many
        of each card can be on the table, as CardDetector does, is told)."""
        if kind not in self.makers:
            raise ValueError(f"no detector for {kind!r} cards (known: {', '.join(self.makers)})")
        decks = decks_in_play(decks)
        with self._lock:
            self.kind, self.decks = kind, decks

    def detect(self, frame: np.ndarray) -> list:
        with self._lock:
            kind = self.kind
            detector = self._built.get(kind)
            if detector is None:
                detector = self._built[kind] = self.makers[kind]()
            if hasattr(detector, "decks"):
                detector.decks = self.decks
        return detector.detect(frame)


def card_json(card: TableCard) -> dict:
    return {"track_id": card.track_id, "card": card.card, "face": card.face,
            "confidence": round(float(card.confidence), 3), "uncertain": bool(card.uncertain),
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in card.quad]}


def state_json(state: TableState, layout: list[ZoneSpec]) -> dict:
    """The zones / unassigned / face_down part of the snapshot for one table state."""
    zones = []
    for spec in layout:
        cards = state.zones.get(spec.name, ())
        down = sum(1 for c in cards if c.face == "back")
        zones.append({"name": spec.name, "label_en": spec.label_en, "label_ja": spec.label_ja,
                      "scored": spec.scored, "group": spec.group, "expected": spec.cards,
                      "cards": [card_json(c) for c in cards], "face_down": down,
                      "complete": spec.cards is not None and len(cards) == spec.cards and down == 0})
    all_cards = [c for cs in state.zones.values() for c in cs] + list(state.unassigned)
    return {"zones": zones, "unassigned": [card_json(c) for c in state.unassigned],
            "face_down": sum(1 for c in all_cards if c.face == "back")}


def _change_key(body: dict) -> tuple:
    def cards_key(cards):
        return tuple((c["track_id"], c["card"], c["face"], c["uncertain"], round(c["confidence"] * 10))
                     for c in cards)
    return (tuple((z["name"], cards_key(z["cards"])) for z in body["zones"]),
            cards_key(body["unassigned"]), body["status"]["camera"], body["status"]["error"],
            body["status"]["table"])


ZONE_COLOUR = (230, 230, 230)     # BGR light grey: drawn zones under the cards


def annotate(frame: np.ndarray, cards: Iterable[TableCard],
             zones: Iterable[TableZone] = ()) -> np.ndarray:
    """A copy of the frame with the drawn zones (thin, named) and each card's outline and name:
    green when sure, amber when not."""
    out = frame.copy()
    scale = max(0.4, frame.shape[0] / 1400.0)
    for zone in zones:
        pts = np.round(np.asarray(zone.polygon, dtype=np.float32)).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, ZONE_COLOUR, 1, cv2.LINE_AA)
        x, y = (int(v) for v in np.asarray(zone.polygon).min(axis=0))
        cv2.putText(out, zone.name, (x + 4, y + 16), cv2.FONT_HERSHEY_SIMPLEX, scale, ZONE_COLOUR, 1,
                    cv2.LINE_AA)
    for card in cards:
        colour = UNSURE_COLOUR if card.uncertain else SURE_COLOUR
        pts = np.round(np.asarray(card.quad, dtype=np.float32)).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, colour, 3, cv2.LINE_AA)
        name = "face down" if card.face == "back" else (card.card or card.face)
        if card.uncertain:
            name += " ?"
        x = int(min(p[0] for p in card.quad))
        y = int(min(p[1] for p in card.quad)) - 6
        y = max(y, 14)
        (tw, th), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        cv2.rectangle(out, (x, y - th - 4), (x + tw + 4, y + 3), (0, 0, 0), -1)
        cv2.putText(out, name, (x + 2, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)
    return out


def _showable(frame) -> bool:
    """An 8-bit BGR picture, which annotate() draws on and JPEG holds (the frame grabber lets no
    other through; a frame handed to LiveTable.process may be anything)."""
    return (isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3
            and frame.shape[2] == 3 and frame.size > 0)


def _describe(frame) -> str:
    if not isinstance(frame, np.ndarray):
        return type(frame).__name__
    return f"{frame.dtype}, {'x'.join(str(n) for n in frame.shape)}"


CAMERA_AWAY = {"lost": "The camera is lost", "reconnecting": "Reconnecting to the camera"}


def _stale_picture(frame: np.ndarray, what: str) -> np.ndarray:
    """The last picture read, dimmed, with a line saying it is not the table now."""
    out = (frame.astype(np.uint16) * 2 // 5).astype(np.uint8)
    scale = max(0.5, frame.shape[0] / 900.0)
    text = f"{what}: this picture is old"
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    x, y = max(4, (frame.shape[1] - tw) // 2), frame.shape[0] // 2
    cv2.rectangle(out, (x - 8, y - th - 10), (x + tw + 8, y + 10), (0, 0, 0), -1)
    cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (220, 220, 220), 2, cv2.LINE_AA)
    return out


def placeholder_picture(message: str, size=(1280, 720)) -> np.ndarray:
    """A grey picture saying why there is no camera picture to show."""
    img = np.full((size[1], size[0], 3), 40, np.uint8)
    cv2.putText(img, message, (40, size[1] // 2), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (220, 220, 220), 2,
                cv2.LINE_AA)
    return img


def _held_too_often(cards: list[TableCard], kind: str, decks: int) -> list[TableCard]:
    """The table's cards, those of a face shown sure more often than the decks hold cards of it
    marked uncertain: they cannot all be right (a card misread as another while that one was out of
    sight, both green on the page; the detector flags a face read too often only within a frame),
    and which is wrong only the dealer can say. Backs and faces of no deck known have no limit."""
    counts = Counter(c.face for c in cards if not c.uncertain and c.face is not None)
    too_often = {face for face, n in counts.items() if n > copies_of_face(face, decks, kind)}
    return [replace(c, uncertain=True) if c.face in too_often else c for c in cards] if too_often else cards


class LiveTable:
    """The live table state, kept up to date in the background; see the module docstring."""

    def __init__(self, source: FrameSource, detector: Detector, layout: list[ZoneSpec],
                 zones: list[TableZone] | None = None, tracker: CardTracker | None = None,
                 enter_frames: int = 3, leave_frames: int = 3, jpeg_quality: int = 80,
                 detector_retry_s: float = 0.5, grabber: FrameGrabber | None = None, stall_s: float = 3.0):
        self.source = source
        self.detector = detector
        self.grabber = grabber or FrameGrabber(source)
        self.grabber.on_status = self._on_source_status
        self.tracker = tracker or CardTracker(enter_frames=enter_frames, leave_frames=leave_frames)
        self.jpeg_quality = jpeg_quality
        self.detector_retry_s = detector_retry_s
        # no frame read for this long while running: the camera or the detector hangs (a read or a
        # detect() that never returns raised nothing, and the table stayed "live" on old cards); a
        # source that gives a frame only every few seconds (a slideshow video) does not hang between them
        period = getattr(source, "frame_period", 0.0)
        period = float(period) if isinstance(period, (int, float)) else 0.0
        self.stall_s = max(stall_s, 2 * period + 1.0) if period > 0 else stall_s
        self._last_read = time.monotonic()
        # the camera seen away, and when it was seen back: a stall counts from then (the time away was
        # said as a hang for a moment after it came back), and the picture is of before the outage
        # until a frame numbered from then (the grabber's) is processed (it was shown undimmed, live)
        self._away = False
        self._back_at = 0.0
        self._old_before_frame: int | None = None
        self._shown_frame = 0  # the grabber's number of the frame shown
        self._detecting_since: float | None = None  # when the frame in recognition was taken up
        # after the camera was away, frames to read before the table is live again: the tracker's
        # votes from before the outage would show the old cards, sure, until fresh frames replace them
        self._fresh_after_outage = max(enter_frames, leave_frames)
        # and at the start: until a card has had the frames to enter, an empty table is not the table
        # (read as one, the round just recorded looked gathered at a restart, and was booked again)
        self._fresh_needed = self._fresh_after_outage
        # the picture size the drawn zones were first used with (they are in its pixels): a camera
        # that comes back at another size would put the cards in the wrong zones
        self._zones_size: tuple[int, int] | None = None
        self._frame_size: tuple[int, int] | None = None  # the last frame read (width, height)
        self._size_error: str | None = None
        self._turn_error: str | None = None
        self._layout = list(layout)
        self._assigner = ZoneAssigner(self._layout, zones)
        self._zones_drawn_on(zones)
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._frame: np.ndarray | None = None
        self._cards: list[TableCard] = []
        self._card_kind = "hanafuda"  # the deck the detector reads (set_card_kind)
        self._decks = 1               # ...and how many of it are mixed
        self._forget_cards = False    # the cards read are of another deck: the tracker starts afresh
        self._frame_serial = 0  # +1 whenever _frame or _cards change: the key of the JPEG cache
        self._jpeg: tuple[int, bytes] | None = None  # (serial, encoded)
        self._detector_error: str | None = None
        self._version = 1
        self._snapshot = self._build(TableState(), frame_index=0)
        self._key = _change_key(self._snapshot)
        self.frames_processed = 0

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> "LiveTable":
        if self._thread is not None and self._thread.is_alive() and self._stop.is_set():
            # stopped while a detect() hung: a second thread would work beside it on the same tracker
            raise RuntimeError("the table is still reading a frame that has not finished since it was "
                               "stopped: it cannot be started again until that frame is done")
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._last_read = time.monotonic()
            self.grabber.start()
            self._thread = threading.Thread(target=self._run, name="live-table", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.grabber.stop(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
            if not self._thread.is_alive():  # (one still in a hung detect() is kept, to be waited for)
                self._thread = None
        with self._cond:
            self._cond.notify_all()

    def __enter__(self) -> "LiveTable":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- reading the state ---------------------------------------------------------------------
    def snapshot(self) -> dict:
        """The current state (a copy: the caller may change it freely)."""
        with self._cond:
            self._refresh_status()
            return copy.deepcopy(self._snapshot)

    @property
    def version(self) -> int:
        with self._cond:
            return self._version

    @property
    def layout(self) -> list[ZoneSpec]:
        with self._cond:
            return list(self._layout)

    def wait_for_change(self, version: int, timeout: float | None = None) -> dict | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                self._refresh_status()
                if self._version != version:
                    return copy.deepcopy(self._snapshot)
                remaining = None if deadline is None else deadline - time.monotonic()
                if (remaining is not None and remaining <= 0) or self._stop.is_set():
                    return None
                # wake now and then: a camera status change is noticed even with no frames
                self._cond.wait(0.5 if remaining is None else min(remaining, 0.5))

    def jpeg(self) -> bytes:
        """The newest processed frame, annotated, as JPEG (a placeholder before the first frame)."""
        with self._cond:
            # the cards read last are not on a picture recognition failed on: drawn there, green and
            # named, they showed a table that may be gone (the banner says why none are drawn)
            cards = [] if self._detector_error else list(self._cards)
            frame, index = self._frame, self._frame_serial
            zones = list(self._assigner.zones or ())
            cached = self._jpeg
            self._refresh_status()  # (the camera seen back: its picture of before the outage is old)
            camera = self.grabber.status().camera
            # a camera or a recognition that hangs (no frame read for stall_s) shows the last
            # picture as old too: drawn live, green and named, it looked like the table now
            stalled = self._stalled()
            old = self._old_before_frame is not None
        key = (index, camera, stalled, old)
        if cached is not None and cached[0] == key and frame is not None:
            return cached[1]
        if frame is None:
            image = placeholder_picture("waiting for the camera...")
        elif not _showable(frame):  # a frame the detector refused too (the status says why): still a picture
            image = placeholder_picture(f"this camera picture cannot be shown ({_describe(frame)})")
        elif camera != "ok":
            # the last picture is of a table that may have changed since: shown dimmed, its cards
            # neither outlined nor named, and said to be old (it looked like a live, frozen table)
            image = _stale_picture(frame, CAMERA_AWAY.get(camera, "The camera is away"))
        elif stalled:
            image = _stale_picture(frame, "No picture read for a while")
        elif old:
            image = _stale_picture(frame, "The camera is back, no new picture read yet")
        else:
            image = annotate(frame, cards, zones)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        data = buf.tobytes() if ok else b""
        if frame is not None:
            with self._cond:
                self._jpeg = (key, data)
        return data

    def set_layout(self, layout: list[ZoneSpec], zones: list[TableZone] | None = None) -> None:
        """Switch game (or redraw zones); raises ZoneError for zones that do not fit the layout."""
        assigner = ZoneAssigner(list(layout), zones)
        with self._cond:
            if assigner.same_table(self._assigner):
                # (the same layout again, a Settings save or the session started anew: forgotten, each
                # row lying took the free zones in the table's order, a hand a neighbour's seat)
                assigner.remember(self._assigner)
            self._layout = list(layout)
            self._assigner = assigner
            self._zones_drawn_on(zones)
            self._frame_serial += 1  # the picture shows the drawn zones: draw it again
            state = assigner.assign(self._cards, self._snapshot["frame_index"])
            self._publish(state, self._snapshot["frame_index"], force=True)

    def rename_zones(self, names: Mapping[str, str]) -> None:
        """Players renamed (``names``: zone name before -> now): where each zone's cards lie is
        remembered under the new names, for the layout that names them next (set_layout)."""
        with self._cond:
            if self._assigner is not None:
                self._assigner = self._assigner.renamed(names)

    def seat_places(self) -> dict[str, tuple[float, float]]:
        """Where each zone's cards lay last (automatic zones), for the session to keep."""
        with self._cond:
            return self._assigner.places()

    def remember_seat_places(self, places: Mapping[str, Any]) -> None:
        """The places of before a restart (``seat_places``), the cards lying given their zones by them."""
        with self._cond:
            self._assigner.remember_places(places)
            state = self._assigner.assign(self._cards, self._snapshot["frame_index"])
            self._publish(state, self._snapshot["frame_index"], force=True)

    def rotation(self) -> int:
        """The turn given to the source's frames (``serve --rotate``), in degrees clockwise."""
        return int(getattr(self.source, "degrees", 0) or 0) if isinstance(self.source, RotatedSource) else 0

    def mirrored(self) -> bool:
        """Whether the source's frames are flipped left to right (``serve --mirror``)."""
        return bool(getattr(self.source, "mirror", False)) if isinstance(self.source, RotatedSource) else False

    def picture(self) -> dict | None:
        """The picture the page shows and zones are drawn on: its width, height and turn, and
        ``mirror``: true where it is mirrored (None before the first frame)."""
        with self._cond:
            frame = self._frame
        if frame is None:
            return None
        picture = {"width": int(frame.shape[1]), "height": int(frame.shape[0]), "rotate": self.rotation()}
        if self.mirrored():
            picture["mirror"] = True
        return picture

    def _zones_drawn_on(self, zones) -> None:
        """Check drawn zones against the picture they were drawn on, where their file says it: known,
        a picture of another size or turn is said from the first frame, and after a restart too (the
        size was taken from the first frame after each start, so a camera back at another size, or
        turned by --rotate, read the old zones silently once the page was restarted)."""
        picture = getattr(zones, "picture", None) if zones else None
        self._zones_size = (picture["width"], picture["height"]) if picture else None
        self._size_error = self._turn_error = None
        now = {"rotate": self.rotation(), "mirror": self.mirrored()}
        if picture and picture_turn(picture) != picture_turn(now):
            # (mirrored or not, each zone lies on the other side of the picture)
            self._turn_error = (f"the zones were drawn on the picture {describe_turn(picture, now)}, it is "
                                f"{describe_turn(now, picture)} now (--rotate, --mirror): draw the zones again")
        self._size_error = self._turn_error

    def set_card_kind(self, kind: str, decks: int = 1) -> None:
        """The deck in play ("hanafuda" or "western") and how many of them are mixed (a house rule of
        some games): the detector reads that deck from now on. Another deck than before forgets the
        cards read (they were read as the other deck's: a hanafuda card was shown sure in Kakeya's
        trick) and the table is stale until fresh frames are read."""
        decks = decks_in_play(decks)
        # the detector first: a frame read between the forgetting and the switch was the old deck's
        use = getattr(self.detector, "use", None)
        if use is not None:
            use(kind, decks)
        elif hasattr(self.detector, "decks"):  # one detector (a CardDetector) for every game
            self.detector.decks = decks
        with self._cond:
            self._decks = decks
            if kind != self._card_kind:
                self._card_kind = kind
                self._forget_cards = True
                self._cards = []
                # (the frame whose reading is thrown away counts for nothing: after it, as many as a
                # card needs to enter, so the table is live with its cards, not empty)
                self._fresh_needed = self._fresh_after_outage + 1
                self._frame_serial += 1
                self._publish(self._assigner.assign([], self._snapshot["frame_index"]),
                              self._snapshot["frame_index"], force=True)

    # -- the processing thread -----------------------------------------------------------------
    def _stalled(self) -> bool:
        """Under the lock: running, and a frame in recognition for over stall_s, or no frame read
        for stall_s since the later of the last frame read and the camera's return (a recognition
        hung while the camera kept dropping out was never said: each return started the clock again)."""
        if self._thread is None or not self._thread.is_alive():
            return False
        now = time.monotonic()
        detecting = self._detecting_since
        return ((detecting is not None and now - detecting > self.stall_s)
                or now - max(self._last_read, self._back_at) > self.stall_s)

    def _picture_read(self, frame_index: int) -> None:
        """Under the lock: frame ``frame_index`` (the grabber's number) is the picture shown now."""
        self._shown_frame = frame_index
        if self._old_before_frame is not None and frame_index >= self._old_before_frame:
            self._old_before_frame = None

    def _status(self) -> dict:
        source = self.grabber.status()
        if source.camera != "ok":
            self._away = True
        elif self._away:
            self._away = False
            self._back_at = time.monotonic()
            # (the return seen late, as a frame taken since is published, that frame is not old)
            first = self.grabber.first_frame_back()
            self._old_before_frame = first if self._shown_frame < first else None
        stalled = self._stalled()
        if source.camera != "ok" or self._detector_error is not None or stalled:
            # the tracker was not fed meanwhile: its cards are of before, sure, until fresh frames
            # replace them (after a failed recognition or a hang as after a camera away). Never fewer
            # than were needed already: a switch of deck meanwhile, whose first frame counts for
            # nothing, let the table be live and empty a frame early
            self._fresh_needed = max(self._fresh_needed, self._fresh_after_outage)
        # (a hang said before a recognition error: a camera that hangs while recognition fails was
        # said as the recognition's failure, its picture dimmed as old)
        error = source.error or (
            f"no picture of the table read for over {self.stall_s:g} s: the camera or the card recognition "
            f"has stopped" if stalled else None) or self._detector_error or self._size_error
        # "stale": the cards shown are those of the last frame read, not of the table now (the
        # camera is away, or frames cannot be read, or not enough frames read since it came back):
        # nothing may be settled on them
        table = "live" if (source.camera == "ok" and self._detector_error is None and not stalled
                           and self._size_error is None and self._fresh_needed == 0) else "stale"
        return {"camera": source.camera, "error": error, "table": table}

    def _build(self, state: TableState, frame_index: int) -> dict:
        body = state_json(state, self._layout)
        return {"version": self._version, "frame_index": frame_index, "time": time.time(),
                **body, "status": self._status()}

    def _publish(self, state: TableState, frame_index: int, force: bool = False) -> None:
        """Under the lock: rebuild the snapshot; bump the version if the stable state changed."""
        snap = self._build(state, frame_index)
        key = _change_key(snap)
        if force or key != self._key:
            self._version += 1
            self._key = key
        snap["version"] = self._version
        self._snapshot = snap
        self._cond.notify_all()

    def _on_source_status(self, _status) -> None:
        with self._cond:
            self._refresh_status()

    def _refresh_status(self) -> None:
        """Under the lock: pick up camera status changes even when no frame is coming."""
        status = self._status()
        if status != self._snapshot["status"]:
            snap = dict(self._snapshot, status=status)
            key = _change_key(snap)
            if key != self._key:
                self._version += 1
                self._key = key
            snap["version"] = self._version
            self._snapshot = snap
            self._cond.notify_all()

    def _run(self) -> None:
        last = 0
        while not self._stop.is_set():
            got = self.grabber.newest(after=last, timeout=0.5)
            if got is None:
                with self._cond:
                    self._refresh_status()
                continue
            last, frame = got
            self._detecting_since = time.monotonic()
            try:
                detections = list(self.detector.detect(frame))
            except Exception as exc:  # a model error must not stop the table: show it and retry
                self._detecting_since = None
                said = f"card recognition failed: {exc}"
                if said != self._detector_error:  # (logged once while it lasts: it repeats every retry)
                    if isinstance(exc, ValueError):  # a frame the detector refuses: its own one-line reason
                        log.warning("%s", said)
                    else:
                        log.exception("the detector failed")
                with self._cond:
                    self._detector_error = said
                    self._last_read = time.monotonic()  # (frames are read: no hang, the error is said)
                    self._frame = frame
                    self._picture_read(last)
                    self._frame_serial += 1
                    self._refresh_status()
                if self._stop.wait(self.detector_retry_s):
                    break
                continue
            self._detecting_since = None
            try:
                self._track(frame, last, detections)
            except Exception as exc:  # nor may a bad detection: the thread dying froze the table as "ok"
                log.exception("the table could not be updated")
                with self._cond:
                    self._detector_error = f"the table could not be updated: {exc}"
                    # the picture drawn again, without the cards: the last ones stayed outlined and
                    # named as if read, until the table was said stalled
                    self._last_read = time.monotonic()
                    self._frame = frame
                    self._picture_read(last)
                    self._frame_serial += 1
                    self._refresh_status()
                if self._stop.wait(self.detector_retry_s):
                    break

    def _track(self, frame: np.ndarray, frame_index: int, detections) -> dict:
        with self._cond:
            forget, self._forget_cards = self._forget_cards, False
        if forget:  # (in this thread: the tracker is this thread's; the frame may be read as the old deck)
            self.tracker.reset()
            detections = []
        size = (int(frame.shape[1]), int(frame.shape[0]))
        with self._cond:
            resized = not self._assigner.zones and self._frame_size is not None and size != self._frame_size
            if resized:
                # automatic zones, the camera back at another size: the cards tracked and where each
                # zone's cards lay are in the old picture's pixels (no hand lay near its seat's place,
                # and the hands took the free seats in table order: a neighbour's bust's seat, with
                # its money). The cards are read afresh, the places scaled to the new picture
                self._assigner.rescale(size[0] / self._frame_size[0], size[1] / self._frame_size[1])
                self._fresh_needed = max(self._fresh_needed, self._fresh_after_outage)
            self._frame_size = size
        if resized:
            self.tracker.reset()
        cards = self.tracker.update(detections)
        with self._cond:
            cards = _held_too_often(cards, self._card_kind, self._decks)
            if self._assigner.zones:
                self._zones_size = self._zones_size or size
                self._size_error = self._turn_error if size == self._zones_size else (
                    f"the picture is {size[0]}x{size[1]} now, the zones were drawn on one of "
                    f"{self._zones_size[0]}x{self._zones_size[1]}: draw the zones again")
            # (measured from the camera's return, as _stalled does: a camera away a while is no hang)
            hung = time.monotonic() - max(self._last_read, self._back_at) > self.stall_s
            if hung:  # (a hang no look at the status saw)
                self._fresh_needed = max(self._fresh_needed, self._fresh_after_outage)
            self._detector_error = None
            self._last_read = time.monotonic()
            if self._fresh_needed and not hung:  # (a frame taken before a hang is no fresh one)
                self._fresh_needed -= 1
            state = self._assigner.assign(cards, frame_index)
            self._frame = frame
            self._picture_read(frame_index)
            self._cards = cards
            self._frame_serial += 1
            self.frames_processed += 1
            self._publish(state, frame_index)
            return copy.deepcopy(self._snapshot)

    def process(self, frame: np.ndarray, frame_index: int | None = None) -> dict:
        """Run one frame through detector, tracker and zones in the caller's thread; the snapshot.

        For tests and benchmarks, instead of ``start()``: a detector exception propagates here.
        """
        if frame_index is None:
            frame_index = self._snapshot["frame_index"] + 1
        return self._track(frame, frame_index, list(self.detector.detect(frame)))
