"""Kabu hand ranking: the extended Oicho-Kabu list of local yaku (RULES.md §5.2).

Works on card *values* (1..10, or 1..12 for Kabu-Tsukuri's 48-card deck), in the order the cards
were dealt. Only Nobori and Kudari depend on that order. A 2-card yaku is void once a third card is
added; values 11 and 12 count 1 and 2 in the sum and may extend a run (10-11-12) but never stand in
for 1 or 2 in a named yaku (RULES.md §10 K4); there is no wrap-around run (12→1 or 10→1).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Yaku:
    name: str        # id used in results, e.g. 'arashi-kabu'
    label_en: str
    label_ja: str
    rank: int        # 1 strongest … 14; 15 is "no yaku" (ones digit)
    multiplier: int  # Oicho-Kabu payout multiplier of the list (not used by pot games)
    cards: int       # 2 or 3: how many cards the yaku needs


YAKU: tuple[Yaku, ...] = (
    Yaku("doshippin", "Doshippin (10-10-1)", "ドシッピン", 1, 5, 3),
    Yaku("arashi-kabu", "Arashi-kabu (3-3-3)", "嵐かぶ", 2, 5, 3),
    Yaku("arashi", "Arashi (three of a kind)", "嵐", 3, 3, 3),
    Yaku("nana-go-san", "Nana-Go-San (7-5-3)", "七五三", 4, 3, 3),
    Yaku("ichi-ni-san", "Ichi-Ni-San (1-2-3)", "一二三", 5, 3, 3),
    Yaku("raijin", "Raijin (4-7-9)", "雷神", 6, 3, 3),
    Yaku("fujin", "Fūjin (3-7-10)", "風神", 7, 3, 3),
    Yaku("nobori", "Nobori (ascending run)", "上り", 8, 3, 3),
    Yaku("kudari", "Kudari (descending run)", "下り", 9, 3, 3),
    Yaku("kuppin", "Kuppin (9-1)", "九一", 10, 2, 2),
    Yaku("shippin", "Shippin (4-1)", "四一", 11, 2, 2),
    Yaku("toichi", "Tōichi (10-1)", "十一", 12, 2, 2),
    Yaku("tsuru", "Tsuru (2-2)", "ツル", 13, 2, 2),
    Yaku("gogo", "Gogo (5-5)", "五五", 14, 2, 2),
)
BY_NAME = {y.name: y for y in YAKU}
NO_YAKU_RANK = 15

# yaku decided by the multiset of values alone (sorted values -> yaku name)
_SET_YAKU_3 = {(1, 10, 10): "doshippin", (3, 3, 3): "arashi-kabu", (3, 5, 7): "nana-go-san",
               (1, 2, 3): "ichi-ni-san", (4, 7, 9): "raijin", (3, 7, 10): "fujin"}
_SET_YAKU_2 = {(1, 9): "kuppin", (1, 4): "shippin", (1, 10): "toichi", (2, 2): "tsuru", (5, 5): "gogo"}
# within these yaku, two hands compare by ones digit; any other equal yaku is a draw
_DIGIT_TIEBREAK = {"nobori", "kudari"}


@dataclass(frozen=True)
class KabuHand:
    values: tuple[int, ...]
    yaku: Yaku | None
    digit: int  # ones digit of the sum

    @property
    def name(self) -> str | None:
        return self.yaku.name if self.yaku else None

    @property
    def rank(self) -> int:
        return self.yaku.rank if self.yaku else NO_YAKU_RANK

    def key(self) -> tuple[int, int]:
        """Higher key is the stronger hand; equal keys are a draw."""
        if self.yaku is None or self.yaku.name in _DIGIT_TIEBREAK:
            return (-self.rank, self.digit)
        return (-self.rank, 0)

    def label_en(self) -> str:
        return self.yaku.label_en if self.yaku else f"{self.digit}"

    def label_ja(self) -> str:
        return self.yaku.label_ja if self.yaku else f"{self.digit}"


def classify(values: Sequence[int]) -> KabuHand:
    """The hand's best yaku of the §5.2 list (or none) and its ones digit; ``values`` in dealt order."""
    vals = tuple(int(v) for v in values)
    if not 1 <= len(vals) <= 3 or any(not 1 <= v <= 12 for v in vals):
        raise ValueError(f"a Kabu hand is 1 to 3 values in 1..12, not {vals!r}")
    digit = sum(vals) % 10
    name = None
    s = tuple(sorted(vals))
    if len(vals) == 3:
        if s in _SET_YAKU_3:
            name = _SET_YAKU_3[s]
        elif s[0] == s[2]:
            name = "arashi"
        elif vals[1] == vals[0] + 1 and vals[2] == vals[1] + 1:
            name = "nobori"
        elif vals[1] == vals[0] - 1 and vals[2] == vals[1] - 1:
            name = "kudari"
    elif len(vals) == 2:
        name = _SET_YAKU_2.get(s)
    return KabuHand(vals, BY_NAME[name] if name else None, digit)


def ones_digit(values: Sequence[int]) -> KabuHand:
    """Plain ones-digit scoring, no yaku."""
    vals = tuple(int(v) for v in values)
    return KabuHand(vals, None, sum(vals) % 10)
