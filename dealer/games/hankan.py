"""Hankan 半貫 and Shoniban 初二番 (RULES.md §3.5, §3.6).

45 cards (the three Paulownia chaff removed), Nagoya values with Maple, Peony and Plum counting 10.
Three rows of three: Shi-e 初絵 (shown, not used), Naka-e 中絵 and Oto-e 乙絵; players bet on Naka-e or
Oto-e. Set strength, strongest first: Arashi (three cards of one month), Tsuke (two Willows and a Pine),
then the ones digit of the value sum. Equal strength (§10 A6: Arashi against Arashi and Tsuke against
Tsuke too) goes to the Hon-Bana card points; still equal, the bets are returned (§10 A7).

Hankan: winners gain half their stake, the dealer keeps the other half as terazen and takes the losers'
stakes; no equalising. Shoniban: bets made equal (the dealer tops up, §10 A5), winners split the pot.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from dealer.cards import Card, all_cards, get_card
from dealer.equalise import equalise
from dealer.games import Game, HouseOption, RoundError, ZoneSpec
from dealer.games.batta_maki import Outcome, PlayedRound, card_points, check_equalised, result_json
from dealer.games.common import FEE_RATE_OPTION, check_fee_rate_applies, parse_bets, percent_fee
from dealer.games.row_games import (WAGER_LIMIT_OPTIONS, check_wager_limits, parse_rows, refuse_fields,
                                    settle_banker, settle_pot, settle_push, stakes_by_player)

SHI_E, NAKA_E, OTO_E = "shi-e", "naka-e", "oto-e"
SIDES = (NAKA_E, OTO_E)
# in the order dealt; Shi-e is face up for reference only
ZONES = [ZoneSpec(SHI_E, 3, "Shi-e", "初絵", scored=False),
         ZoneSpec(NAKA_E, 3, "Naka-e", "中絵"),
         ZoneSpec(OTO_E, 3, "Oto-e", "乙絵")]

ARASHI, TSUKE = "Arashi", "Tsuke"
HAND_RANK = {ARASHI: 2, TSUKE: 1, None: 0}


def nagoya_value(card: Card) -> int:
    """Nagoya month, with Nagoya 11 (Peony) and 12 (Plum) counting 10 (§1.2): Pine 1, Willow 2, ...,
    Paulownia (Phoenix only) 6, ..., Maple, Peony, Plum 10."""
    return min(card.nagoya_month, 10)


def deck(house: Mapping[str, Any]) -> Counter:
    """The 45-card deck: every card except the three Paulownia chaff."""
    return Counter({c.id: 1 for c in all_cards() if c.in_nagoya_deck})


@dataclass(frozen=True)
class SetScore:
    cards: tuple[str, ...]
    values: tuple[int, ...]
    total: int
    score: int               # ones digit
    hand: str | None         # 'Arashi', 'Tsuke' or None
    card_points: int

    @property
    def rank(self) -> tuple[int, int]:
        """Higher is stronger. Two named hands of one kind rank equal (§10 A6)."""
        return (HAND_RANK[self.hand], self.score if self.hand is None else 0)

    @property
    def shown(self) -> str | int:
        """What the table shows: the named hand, else the ones digit."""
        return self.hand if self.hand is not None else self.score

    def to_json(self) -> dict:
        return {"cards": list(self.cards), "values": list(self.values), "total": self.total,
                "score": self.score, "hand": self.hand, "card_points": self.card_points}


def named_hand(cards: Sequence[Card]) -> str | None:
    if len({c.suit for c in cards}) == 1:
        return ARASHI
    if sorted(c.suit for c in cards) == ["pine", "willow", "willow"]:
        return TSUKE
    return None


def score_set(cards: Sequence[str], points_table: str = "honbana") -> SetScore:
    """Score one set of three. The order of the cards does not matter."""
    resolved = [get_card(c) for c in cards]
    values = tuple(nagoya_value(c) for c in resolved)
    total = sum(values)
    return SetScore(tuple(cards), values, total, total % 10, named_hand(resolved),
                    sum(card_points(c, points_table) for c in resolved))


def decide(naka: SetScore, oto: SetScore, points_table: str) -> Outcome:
    if naka.rank != oto.rank:
        winner = NAKA_E if naka.rank > oto.rank else OTO_E
        by = "hand" if naka.rank[0] != oto.rank[0] else "score"
        return Outcome(winner, by, None, None)
    tie_break = {"method": "card_points", "table": points_table,
                 "values": {NAKA_E: naka.card_points, OTO_E: oto.card_points}}
    if naka.card_points != oto.card_points:
        return Outcome(NAKA_E if naka.card_points > oto.card_points else OTO_E, "card_points", None, tie_break)
    tie_break["then"] = "push"
    return Outcome(None, None, "push", tie_break)


def _read(round_: Mapping[str, Any], house: Mapping[str, Any], name: str):
    refuse_fields(round_, ("carry", "redraws", "deck_exhausted"),
                  f"{name} has no carried pot and no redraw (a full tie is a push)")
    if isinstance(round_.get("bets"), list):
        for i, b in enumerate(round_["bets"]):
            if isinstance(b, Mapping) and b.get("on") == SHI_E:
                raise RoundError(f"bet {i + 1} is on 'shi-e', which is shown for reference only; "
                                 f"bet on 'naka-e' or 'oto-e'")
    bets = parse_bets(round_, SIDES)
    stakes = stakes_by_player(bets)
    check_wager_limits(stakes, house)
    rows = parse_rows(round_, ZONES, deck(house), name, optional=(SHI_E,))
    sets = {side: score_set(rows[side], house["card_points_table"]) for side in SIDES}
    outcome = decide(sets[NAKA_E], sets[OTO_E], house["card_points_table"])
    return bets, stakes, sets, outcome, rows


def play_hankan(round_: Mapping[str, Any], house: Mapping[str, Any]) -> PlayedRound:
    bets, stakes, sets, outcome, _ = _read(round_, house, "hankan")
    if outcome.winner is None:
        settlement = settle_push(stakes)
    else:
        # winners are paid even money less half of it as terazen: +50% of stake (§3.5)
        settlement = settle_banker(stakes, outcome.winner, Fraction(1), Fraction(1, 2))
    return PlayedRound("hankan", house, sets, outcome, None, stakes, settlement)


def play_shoniban(round_: Mapping[str, Any], house: Mapping[str, Any]) -> PlayedRound:
    check_fee_rate_applies(round_, house)
    bets, stakes, sets, outcome, _ = _read(round_, house, "shoniban")
    eq = equalise(bets, SIDES, dealer_tops_up=house["equalise"] == "dealer_tops_up")
    check_equalised(eq, house)
    if outcome.winner is None:
        settlement = settle_push(stakes)
    else:
        settlement = settle_pot(stakes, outcome.winner, eq.dealer_adds, eq.dealer_side, percent_fee(house))
    return PlayedRound("shoniban", house, sets, outcome, eq, stakes, settlement)


def _to_json(p: PlayedRound, round_: Mapping[str, Any]) -> dict:
    rows = round_["rows"]
    breakdown = {SHI_E: {"cards": list(rows[SHI_E]), "scored": False}} if SHI_E in rows else {}
    breakdown.update({side: p.rows[side].to_json() for side in SIDES})
    return result_json(p.game, p.house, rows_scores=p.rows, outcome=p.outcome, eq=p.equalisation,
                       stakes=p.stakes, settlement=p.settlement,
                       scores={s: p.rows[s].shown for s in SIDES}, rows=breakdown)


def settle_hankan(round_: Mapping[str, Any], house: Mapping[str, Any]) -> dict:
    return _to_json(play_hankan(round_, house), round_)


def settle_shoniban(round_: Mapping[str, Any], house: Mapping[str, Any]) -> dict:
    return _to_json(play_shoniban(round_, house), round_)


def play(round_: Mapping[str, Any]) -> PlayedRound:
    """The exact played round (Fractions) of a Hankan or Shoniban round document."""
    game = GAMES[round_["game"]]
    house = game.resolve_house(round_.get("house"))
    return (play_hankan if game.name == "hankan" else play_shoniban)(round_, house)


POINTS_OPTION = HouseOption("card_points_table", "honbana", ("honbana", "standard"),
                            doc="card points for the tie-break: Hon-Bana 30/20/10/5/0 (§10 A8) or 20/10/5/1")

GAMES: dict[str, Game] = {
    "hankan": Game(
        name="hankan", title_en="Hankan", title_ja="半貫", options=(POINTS_OPTION, *WAGER_LIMIT_OPTIONS), deck=deck,
        layout=lambda setup: list(ZONES), settle=settle_hankan, bet_targets=lambda setup: list(SIDES),
        # (a pot carried in and redraws are named only to be refused with the reason: hankan has none)
        fields=("bets", "rows", "carry", "redraws", "deck_exhausted"),
        notes=("winners gain +50% of stake; the dealer keeps the other half as terazen",)),
    "shoniban": Game(
        name="shoniban", title_en="Shoniban", title_ja="初二番",
        options=(POINTS_OPTION,
                 HouseOption("equalise", "dealer_tops_up", ("dealer_tops_up", "required"),
                             doc="dealer_tops_up: the dealer stakes the difference on the lighter side; "
                                 "required: the players' bets must already be equal"),
                 HouseOption("fee_model", "none", ("none", "percent"),
                             doc="none, or percent: fee_rate of each winning player's profit"),
                 FEE_RATE_OPTION,
                 *WAGER_LIMIT_OPTIONS),
        deck=deck, layout=lambda setup: list(ZONES), settle=settle_shoniban,
        bet_targets=lambda setup: list(SIDES), fields=("bets", "rows", "carry", "redraws", "deck_exhausted"),
        notes=("bets made equal; winners split the pot pro rata",)),
}
