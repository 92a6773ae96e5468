"""A stand-in LiveTable for the web tests: the table is whatever the test shows."""
from __future__ import annotations

import threading

from dealer.cards import get_card

JPEG = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"


class FakeLiveTable:
    """The LiveTable interface over a table the test sets with ``show``."""

    def __init__(self):
        self._cond = threading.Condition()
        self._snap = {"version": 0, "zones": {}, "unassigned": [], "status": {"camera": "ok", "error": None, "table": "live"}}
        self.layout = None
        self.zones = None
        self.card_kind = "hanafuda"
        self.decks = 1
        self.frames = 0

    def show(self, zones: dict, status: dict | None = None, unassigned=()):
        """zones: name -> list of (track_id, card, uncertain) or dicts."""
        with self._cond:
            out = {}
            for name, cards in zones.items():
                if isinstance(cards, dict):  # the live table's shape: {"cards": [...], "face_down": n}
                    out[name] = dict(cards, cards=[c if isinstance(c, dict) else card_json(*c) for c in cards["cards"]])
                else:
                    out[name] = [c if isinstance(c, dict) else card_json(*c) for c in cards]
            self._snap = {"version": self._snap["version"] + 1, "zones": out, "unassigned": list(unassigned),
                          "status": status or {"camera": "ok", "error": None, "table": "live"}}
            self._cond.notify_all()

    def snapshot(self):
        with self._cond:
            return self._snap

    def wait_for_change(self, version, timeout):
        with self._cond:
            self._cond.wait_for(lambda: self._snap["version"] != version, timeout=timeout)
            return self._snap if self._snap["version"] != version else None

    def jpeg(self):
        self.frames += 1
        return JPEG + str(self.frames).encode()

    def set_layout(self, layout, zones=None):
        # drawn zones of names not in the layout are refused whole, as the live table's ZoneAssigner does
        names = [z.name for z in layout]
        unknown = [z.name for z in zones or () if z.name not in names]
        if unknown:
            raise ValueError(f"drawn zone(s) {', '.join(unknown)} are not in this game's layout ({', '.join(names)})")
        self.layout, self.zones = layout, zones

    def set_card_kind(self, kind, decks=1):
        self.card_kind, self.decks = kind, decks

    def start(self):
        pass

    def stop(self):
        pass


def card_json(track_id, card, uncertain=False, face=None):
    if card == "back":
        return {"track_id": track_id, "card": None, "face": "back", "confidence": 0.5 if uncertain else 0.99,
                "uncertain": uncertain, "quad": [[0, 0], [10, 0], [10, 15], [0, 15]]}
    return {"track_id": track_id, "card": card, "face": face or get_card(card).face,
            "confidence": 0.5 if uncertain else 0.98, "uncertain": uncertain,
            "quad": [[0, 0], [10, 0], [10, 15], [0, 15]]}
