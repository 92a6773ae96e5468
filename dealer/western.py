"""The 52 western playing cards (Kakeya Toranpu), named ``AS``, ``10H``, ``QD``, ``2C``...

An id is the rank (``A K Q J 10 9 ... 2``) followed by the suit letter (``S H D C``): the same names
as the card art in ``../shared/cardart-western``. Jokers are not part of any game here.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cache

from dealer.cards import UnknownCardError

SUITS = ("S", "H", "D", "C")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_JA = {"S": "スペード", "H": "ハート", "D": "ダイヤ", "C": "クラブ"}
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")  # strongest first
PICTURE_RANKS = ("A", "K", "Q", "J")  # Kakeya's picture cards (絵札) include the aces


class UnknownWesternCardError(UnknownCardError):
    """A western card id that does not exist; the message suggests the nearest ids."""


@dataclass(frozen=True)
class WesternCard:
    id: str
    rank: str
    suit: str
    strength: int  # 14 for an ace down to 2: higher beats lower within a suit

    @property
    def is_picture(self) -> bool:
        return self.rank in PICTURE_RANKS

    @property
    def is_ace(self) -> bool:
        return self.rank == "A"


@cache
def all_western_cards() -> tuple[WesternCard, ...]:
    """The 52 cards, suit by suit (S, H, D, C), each from the ace down to the two."""
    return tuple(WesternCard(f"{rank}{suit}", rank, suit, 14 - i)
                 for suit in SUITS for i, rank in enumerate(RANKS))


@cache
def _by_id() -> dict[str, WesternCard]:
    return {c.id: c for c in all_western_cards()}


def western_ids() -> tuple[str, ...]:
    return tuple(c.id for c in all_western_cards())


def is_western_card(card_id: object) -> bool:
    return isinstance(card_id, str) and card_id in _by_id()


def get_western_card(card_id: object) -> WesternCard:
    if is_western_card(card_id):
        return _by_id()[card_id]
    raise UnknownWesternCardError(card_id, nearest_western_ids(card_id))


def nearest_western_ids(text: object, n: int = 3) -> list[str]:
    """Likely meant ids: the same card written another way (``as``, ``TH``, ``1S``, ``♠A``), else
    the closest spellings."""
    s = str(text).strip().upper()
    for sym, letter in (("♠", "S"), ("♥", "H"), ("♦", "D"), ("♣", "C")):
        s = s.replace(sym, letter)
    candidates = {s}
    if len(s) >= 2 and s[0] in SUITS and s[1:] in RANKS + ("T", "1"):  # suit written first
        candidates.add(s[1:] + s[0])
    for c in list(candidates):
        if c[:1] == "T":
            candidates.add("10" + c[1:])
        if c[:1] == "1" and c[:2] != "10":  # "1S" for the ace
            candidates.add("A" + c[1:])
    exact = [c for c in candidates if c in _by_id()]
    if exact:
        return sorted(exact)[:n]
    if s[:-1] in RANKS:  # a known rank with a wrong suit letter: that rank in each suit
        return [s[:-1] + suit for suit in SUITS][:max(n, 4)]
    if s[-1:] in SUITS:  # a known suit: the closest ranks of it
        return difflib.get_close_matches(s, [i for i in western_ids() if i.endswith(s[-1])], n=n, cutoff=0.3)
    return difflib.get_close_matches(s, western_ids(), n=n, cutoff=0.5)


def rank_value(card_id: str) -> int:
    """Counting value where a game plays western cards for months: A=1, 2..10, J=11, Q=12 (K=13)."""
    rank = get_western_card(card_id).rank
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(rank) or int(rank)
