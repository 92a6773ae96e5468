"""The plain data types that travel between the vision stages and on to the page."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Protocol

import numpy as np

Quad = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]


@dataclass(frozen=True)
class Detection:
    """One card seen in one frame.

    ``quad``: the card's four corners in frame pixels, starting at the card's own top-left corner
    (as the artwork stands) and going clockwise. ``face`` is one of the 36 faces of cards.csv or
    ``"back"``; ``card`` is the most likely card id (None for a back). ``confidence`` is calibrated:
    the probability that ``face`` is right.
    """
    card: str | None
    face: str
    quad: Quad
    confidence: float
    uncertain: bool = False

    def center(self) -> tuple[float, float]:
        xs, ys = zip(*self.quad)
        return (sum(xs) / 4.0, sum(ys) / 4.0)

    def to_json(self) -> dict:
        return {"card": self.card, "face": self.face,
                "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
                "confidence": round(self.confidence, 4), "uncertain": self.uncertain}


def quad_from_array(points: np.ndarray) -> Quad:
    p = np.asarray(points, dtype=float).reshape(4, 2)
    return tuple((float(x), float(y)) for x, y in p)  # type: ignore[return-value]


def decks_in_play(value) -> int:
    """How many 48-card decks are mixed on the table (a house rule of some games), checked: a whole
    number of at least 1, else ValueError naming the value."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"the decks in play must be a whole number of at least 1, not {value!r}")
    return value


class Detector(Protocol):
    def detect(self, frame: np.ndarray) -> list[Detection]: ...


@dataclass(frozen=True)
class TableCard:
    """A card that is stably on the table (after the tracker's hysteresis)."""
    track_id: int
    card: str | None
    face: str
    quad: Quad
    confidence: float
    uncertain: bool


@dataclass(frozen=True)
class TableState:
    """The stable table: cards per zone in table order, plus the cards no zone claimed."""
    zones: dict[str, tuple[TableCard, ...]] = field(default_factory=dict)
    unassigned: tuple[TableCard, ...] = ()
    frame_index: int = 0


def copies_of_face(face: str, decks: int = 1, kind: str = "hanafuda") -> float:
    """How many cards showing ``face`` the decks in play hold: a hanafuda face's cards (a month's
    chaff share one) or one western card a deck; a back, no card or a face of no deck known has no
    limit. The detector's check of one frame and the live table's of the cards on it ask it alike."""
    if face.startswith("back") or face == "none":
        return float("inf")
    if kind == "western":  # (a western card's face is its id)
        return decks
    return decks * _hanafuda_cards_showing(face)


@cache
def _hanafuda_cards_showing(face: str) -> float:
    # (asked for every face of every frame: the deck's 48 cards are looked through once a face)
    from dealer.cards import UnknownCardError, cards_of_face
    try:
        return len(cards_of_face(face))
    except UnknownCardError:
        return float("inf")
