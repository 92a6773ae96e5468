"""Stand-ins for the web tests: a LiveTable with a scripted table, and (only where the rule engine's
Batta Maki is not installed) a minimal Batta Maki with the same round format and base rules."""
from __future__ import annotations

import threading
from collections import Counter

from dealer.cards import all_cards, get_card
from dealer.games import Game, HouseOption, RoundError, ZoneSpec, parse_amount, to_json_amount
from dealer.games.common import check_deck_usage, check_hanafuda_card, parse_bets

JPEG = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"


class FakeLiveTable:
    """The LiveTable interface over a table the test sets with ``show``."""

    def __init__(self):
        self._cond = threading.Condition()
        self._snap = {"version": 0, "zones": {}, "unassigned": [], "status": {"camera": "ok", "error": None}}
        self.layout = None
        self.zones = None
        self.frames = 0

    def show(self, zones: dict, status: dict | None = None, unassigned=()):
        """zones: name -> list of (track_id, card, uncertain) or dicts."""
        with self._cond:
            out = {}
            for name, cards in zones.items():
                out[name] = [c if isinstance(c, dict) else card_json(*c) for c in cards]
            self._snap = {"version": self._snap["version"] + 1, "zones": out, "unassigned": list(unassigned),
                          "status": status or {"camera": "ok", "error": None}}
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
        self.layout, self.zones = layout, zones

    def start(self):
        pass

    def stop(self):
        pass


def card_json(track_id, card, uncertain=False, face=None):
    if card == "back":
        return {"track_id": track_id, "card": None, "face": "back", "confidence": 0.99,
                "uncertain": False, "quad": [[0, 0], [10, 0], [10, 15], [0, 15]]}
    return {"track_id": track_id, "card": card, "face": face or get_card(card).face,
            "confidence": 0.5 if uncertain else 0.98, "uncertain": uncertain,
            "quad": [[0, 0], [10, 0], [10, 15], [0, 15]]}


# --- a minimal Batta Maki: saki/ato rows of 3, ones digit of the months, push on a tie -------------

def _deck(house):
    return Counter({c.id: house["deck_count"] for c in all_cards()})


def _layout(setup):
    return [ZoneSpec("saki", 3, "Saki", "先"), ZoneSpec("ato", 3, "Ato", "後")]


def _settle(round_, house):
    rows = round_.get("rows")
    if not isinstance(rows, dict) or set(rows) != {"saki", "ato"}:
        raise RoundError("field 'rows' must have saki and ato")
    placed = []
    for name, cards in rows.items():
        if len(cards) != 3:
            raise RoundError(f"row {name!r} must have 3 cards, not {len(cards)}")
        placed += [(check_hanafuda_card(c, f"row {name!r}"), f"row {name!r}") for c in cards]
    check_deck_usage(placed, _deck(house), "batta-maki")
    scores = {n: sum(get_card(c).month for c in cs) % 10 for n, cs in rows.items()}
    bets = parse_bets(round_, ["saki", "ato"])
    winner = "tie" if scores["saki"] == scores["ato"] else max(scores, key=scores.get)
    net: dict = {}
    for b in bets:
        delta = 0 if winner == "tie" else (b.amount if b.on == winner else -b.amount)
        net[b.player] = net.get(b.player, 0) + delta
    net["dealer"] = -sum(net.values())
    return {"winner": winner, "scores": scores, "net": {k: to_json_amount(v) for k, v in net.items()}}


GAME = Game(name="batta-maki", title_en="Batta Maki", title_ja="バッタまき",
            options=(HouseOption("deck_count", 1, (1, 2)),
                     HouseOption("fee_model", "none", ("none", "percent", "buta_han")),
                     HouseOption("tie_rule", "push", ("push", "dealer_takes_all"))),
            deck=_deck, layout=_layout, settle=_settle)
