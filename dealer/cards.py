"""The 48 hanafuda cards: the one card vocabulary of the project.

The table in ``cards.csv`` beside this module is the project's own table of the deck (ids, months,
types, point values), with the same ids and values as the shared deck reference (a test checks it
against ../shared/cards.csv where that is present). Every stage (rule engine, vision labels, JSON, UI) names
cards by its ``id`` column.
"""
from __future__ import annotations

import csv
import difflib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_TABLE = Path(__file__).with_name("cards.csv")

TYPES = ("bright", "animal", "ribbon", "chaff")
RIBBON_KINDS = ("poetry", "blue", "plain")
BACK = "back"  # the face a camera reports for a face-down card


class UnknownCardError(ValueError):
    """A card id that is not in the deck; the message suggests the nearest ids."""

    def __init__(self, card_id: object, suggestions: list[str]):
        self.card_id = card_id
        self.suggestions = suggestions
        hint = f" (did you mean {', '.join(suggestions)}?)" if suggestions else ""
        super().__init__(f"unknown card {card_id!r}{hint}")


@dataclass(frozen=True)
class Card:
    id: str
    month: int
    suit: str
    type: str
    ribbon: str | None
    face: str
    std_points: int
    honbana_points: int | None  # None: the card is removed from the 45-card (Nagoya) deck
    nagoya_month: int

    @property
    def in_nagoya_deck(self) -> bool:
        return self.honbana_points is not None


@cache
def all_cards() -> tuple[Card, ...]:
    """The 48 cards in month order."""
    with _TABLE.open(newline="", encoding="utf-8") as f:
        return tuple(
            Card(
                id=row["id"],
                month=int(row["month"]),
                suit=row["suit"],
                type=row["type"],
                ribbon=row["ribbon"] or None,
                face=row["face"],
                std_points=int(row["std_points"]),
                honbana_points=int(row["honbana_points"]) if row["honbana_points"] else None,
                nagoya_month=int(row["nagoya_month"]),
            )
            for row in csv.DictReader(f)
        )


@cache
def _by_id() -> dict[str, Card]:
    return {c.id: c for c in all_cards()}


def card_ids() -> tuple[str, ...]:
    return tuple(c.id for c in all_cards())


def faces() -> tuple[str, ...]:
    """The 36 distinguishable faces, in deck order (chaff of a month share one face)."""
    return tuple(dict.fromkeys(c.face for c in all_cards()))


def cards_of_face(face: str) -> tuple[Card, ...]:
    found = tuple(c for c in all_cards() if c.face == face)
    if not found:
        raise UnknownCardError(face, difflib.get_close_matches(str(face), faces(), n=3, cutoff=0.5))
    return found


def get_card(card_id: str) -> Card:
    """Look a card up by id; an unknown id raises UnknownCardError naming the nearest ids."""
    try:
        return _by_id()[card_id]
    except (KeyError, TypeError):
        raise UnknownCardError(card_id, nearest_ids(card_id)) from None


def nearest_ids(text: object, n: int = 3) -> list[str]:
    return difflib.get_close_matches(str(text), card_ids(), n=n, cutoff=0.5)


def is_card(card_id: object) -> bool:
    return isinstance(card_id, str) and card_id in _by_id()


def same_face(read: object, named: object) -> bool:
    """Whether a card the dealer named is the card as read: the same id, or another copy of a month's
    look-alike chaff (one face to a camera: naming the other copy puts nothing right)."""
    if read == named:
        return True
    return is_card(read) and is_card(named) and get_card(read).face == get_card(named).face
