"""The 40-card kabufuda deck (RULES.md §1.3), for Otoroku's house option ``deck: kabufuda``.

Ranks 1 to 10, four cards of each. Two cards have an identity of their own, which Otoroku's
Toritori needs: one of the 1s is the Aza-pin (the red ace, 赤ピン) and one of the 4s the Tama-shi
(玉四, the 4 with the gold or silver overprint). A kabufuda card is named ``kabu-`` and its rank
(``kabu-1`` .. ``kabu-10``: the plain cards, three 1s and three 4s, four of the others), or
``kabu-aza-pin`` and ``kabu-tama-shi``; a round names a plain card once for each copy dealt.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

from dealer.cards import UnknownCardError

AZA_PIN, TAMA_SHI = "kabu-aza-pin", "kabu-tama-shi"
PREFIX = "kabu-"


class UnknownKabufudaCardError(UnknownCardError):
    """A kabufuda card id that does not exist; the message suggests the nearest ids."""


@dataclass(frozen=True)
class KabufudaCard:
    id: str
    value: int   # 1..10
    copies: int  # how many cards of the deck carry this id


@cache
def all_kabufuda_cards() -> tuple[KabufudaCard, ...]:
    """The 12 kinds of card, by rank (each special after the plain cards of its rank)."""
    cards = []
    for value in range(1, 11):
        special = {1: AZA_PIN, 4: TAMA_SHI}.get(value)
        cards.append(KabufudaCard(f"{PREFIX}{value}", value, 3 if special else 4))
        if special:
            cards.append(KabufudaCard(special, value, 1))
    return tuple(cards)


@cache
def _by_id() -> dict[str, KabufudaCard]:
    return {c.id: c for c in all_kabufuda_cards()}


def kabufuda_ids() -> tuple[str, ...]:
    return tuple(c.id for c in all_kabufuda_cards())


def kabufuda_deck() -> Counter:
    """Each id with its number of copies: 40 cards."""
    return Counter({c.id: c.copies for c in all_kabufuda_cards()})


def is_kabufuda_card(card_id: object) -> bool:
    return isinstance(card_id, str) and card_id in _by_id()


def get_kabufuda_card(card_id: object) -> KabufudaCard:
    if is_kabufuda_card(card_id):
        return _by_id()[card_id]
    raise UnknownKabufudaCardError(card_id, nearest_kabufuda_ids(card_id))


def kabufuda_value(card_id: str) -> int:
    return get_kabufuda_card(card_id).value


def nearest_kabufuda_ids(text: object, n: int = 3) -> list[str]:
    """Likely meant ids: a bare rank (``7``, ``kabu7``, ``K7``) is that rank's plain card (and the
    special card of the rank), a name of a special card (``aza``, ``tama``) that card; else the closest
    spellings."""
    s = str(text).strip().lower().replace("_", "-").replace(" ", "-")
    rank = re.fullmatch(r"(?:kabu-?|k-?)?(\d{1,2})", s)
    if rank and 1 <= int(rank.group(1)) <= 10:
        value = int(rank.group(1))
        return [c.id for c in all_kabufuda_cards() if c.value == value][:n]
    words = set(re.split(r"[^a-z0-9]+", s))
    for word, card in (("aza", AZA_PIN), ("pin", AZA_PIN), ("tama", TAMA_SHI), ("kin", TAMA_SHI)):
        if word in words:
            return [card]
    return difflib.get_close_matches(s, kabufuda_ids(), n=n, cutoff=0.5)
