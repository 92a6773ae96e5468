"""Echobo (絵樗蒲, also Ehonbiki), RULES.md §7.1.

The dealer hides one card of months 1–6; each bettor lays face down the card(s) he bets on, with
chips on each. A correct card is paid ``profit`` times its stake (5, or 4.5 / 4.6 playing for money:
the dealer keeps the other 0.5 / 0.4 as terazen); a wrong card's stake goes to the dealer. Card
type is irrelevant: only the month counts.

Bets are ``on`` a card id (the card the bettor laid down; it must be of months 1–6) or on a month
number 1–6. Betting limits (§10 E1): ``bet_mode`` ``fixed_per_card`` (default: every card carries the
same stake, ``bet_size`` if set) or ``limit_per_player`` (any stake per card, each bettor's total at
most ``bet_limit`` if set); at most ``max_cards`` cards per bettor (default 4, the Tehonbiki maximum).
Each bettor holds one card of each month, so one bettor cannot bet twice on a month, and one deck
(four cards a month) serves the dealer and at most three bettors.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any, Mapping

from dealer.cards import all_cards, get_card
from dealer.games import Game, HouseOption, RoundError, ZoneSpec, exact_amounts, parse_amount, to_json_amount
from dealer.games.common import (DEALER, amount_or_null, check_deck_usage, check_hanafuda_card, check_names, house_as_played,
                                 parse_bets, require)

NAME = "echobo"
MONTHS = tuple(range(1, 7))
FULL_PROFIT = Fraction(5)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


OPTIONS = (
    HouseOption("profit", 5, check=lambda v: _is_number(v) and v in (5, 4.5, 4.6),
                doc="5, 4.5 or 4.6: what a correct card wins per unit staked"),
    HouseOption("max_cards", 4, check=lambda v: isinstance(v, int) and not isinstance(v, bool)
                and 1 <= v <= 6, doc="an integer 1 to 6: most cards one bettor may bet on"),
    HouseOption("bet_mode", "fixed_per_card", ("fixed_per_card", "limit_per_player"),
                doc="fixed_per_card: every card bet on has the same stake (bet_size, if set); "
                    "limit_per_player: any stake per card, each bettor's total at most bet_limit (§10 E1)"),
    HouseOption("bet_size", None, check=amount_or_null,
                doc="null or a positive number: the fixed stake per card (fixed_per_card)",
                applies_when=("bet_mode", ("fixed_per_card",))),
    HouseOption("bet_limit", None, check=amount_or_null,
                doc="null or a positive number: most one bettor may stake in a round"),
    # (RULES.md §7.1: more decks allow more bettors; three serve eleven, as many as the page seats)
    HouseOption("deck_count", 1, (1, 2, 3), doc="decks mixed: 1 serves the dealer's card and 3 bettors, each more 4 bettors (7, 11)"),
)


def deck(house: Mapping[str, Any]) -> Counter:
    copies = house.get("deck_count", 1)
    return Counter({c.id: copies for c in all_cards() if c.month in MONTHS})


def value_of(card_id: str) -> int:
    """Echobo counts only the month."""
    return get_card(card_id).month


def _bettors(setup: Mapping[str, Any]) -> list[str]:
    """The bettors of a round file (from its bets), or of a bare setup ``{"players": [...]}``."""
    if isinstance(setup.get("players"), list):
        return [p for p in setup["players"] if isinstance(p, str)]
    bets = setup.get("bets")
    if not isinstance(bets, list):
        return []
    return list(dict.fromkeys(b["player"] for b in bets
                              if isinstance(b, Mapping) and isinstance(b.get("player"), str)))


def layout(setup: Mapping[str, Any]) -> list[ZoneSpec]:
    zones = [ZoneSpec("dealer", 1, "Dealer's card (under the kamishita)", "親の札", dealer_side=True)]
    for p in _bettors(setup):
        zones.append(ZoneSpec(p, None, f"{p}: cards bet on", f"{p}の張り札", group=p))
    return zones


def _month_of_target(on: Any, where: str, house: Mapping[str, Any]) -> int:
    if isinstance(on, str):
        if on.strip().isdecimal():  # (the page's form sends text; a round's JSON says what it means)
            raise RoundError(f"{where} is on {on!r}, text: a month is written as a number ({int(on)}), "
                             f"a card by its id")
        card = get_card(check_hanafuda_card(on, where))
        if card.month not in MONTHS:
            raise RoundError(f"card {on!r} in {where} is not in the deck of {NAME} (months 1-6 only)")
        return card.month
    # a whole number (1 or 1.0); checked without float() so that a huge integer is refused cleanly too
    if _is_number(on) and (isinstance(on, int) or math.isfinite(on) and on.is_integer()):
        if on in MONTHS:
            return int(on)
        raise RoundError(f"{where} is on month {on!r}; {NAME} uses months 1-6")
    raise RoundError(f"{where} must be on a card id or a month number 1-6, not {on!r}")


def settle(round_: Mapping[str, Any], house: Mapping[str, Any]) -> dict:
    dealer_card = check_hanafuda_card(require(round_, "dealer_card", str, "a card id"), "dealer_card")
    if get_card(dealer_card).month not in MONTHS:
        raise RoundError(f"card {dealer_card!r} in dealer_card is not in the deck of {NAME} (months 1-6 only)")
    raw = require(round_, "bets", list)
    # validate targets first, so an unknown or out-of-deck card gets its own clear message
    months = [_month_of_target(b.get("on") if isinstance(b, Mapping) else None, f"bet {i + 1}", house)
              if isinstance(b, Mapping) and "on" in b else None for i, b in enumerate(raw)]
    targets = [c.id for c in all_cards() if c.month in MONTHS] + list(MONTHS)
    bets = parse_bets(round_, targets)
    if "players" in round_:
        # read only to check it: the bets say who plays, so a bet by someone not listed is a mistake
        players = check_names(require(round_, "players", list, "a list of player names"), "player", "players",
                              reserved=(DEALER,))
        for i, bet in enumerate(bets, 1):
            if bet.player not in players:
                raise RoundError(f"bet {i} is by {bet.player!r}, who is not in 'players'")

    placed = [(dealer_card, "dealer_card")]
    seen: dict[tuple[str, int], int] = {}
    per_player: dict[str, list[int]] = {}
    for i, (bet, month) in enumerate(zip(bets, months), 1):
        if (bet.player, month) in seen:
            raise RoundError(f"bet {i}: {bet.player} already bets on month {month} (bet {seen[bet.player, month]}); "
                             f"a bettor holds one card of each month")
        seen[bet.player, month] = i
        per_player.setdefault(bet.player, []).append(i)
        if isinstance(bet.on, str):
            placed.append((bet.on, f"bet {i} ({bet.player})"))
    check_deck_usage(placed, deck(house), NAME)
    most_bettors = 4 * house["deck_count"] - 1
    if len(per_player) > most_bettors:
        raise RoundError(f"{len(per_player)} bettors, but {house['deck_count']} deck(s) serve the dealer "
                         f"and at most {most_bettors} bettors")
    for player, idx in per_player.items():
        if len(idx) > house["max_cards"]:
            raise RoundError(f"{player} bets on {len(idx)} cards; at most {house['max_cards']} (max_cards)")
    _check_stakes(bets, per_player, house)

    profit = Fraction(str(house["profit"]))
    dealer_month = get_card(dealer_card).month
    net: dict[str, Fraction] = {p: Fraction(0) for p in per_player}
    fee = Fraction(0)
    lines = []
    for bet, month in zip(bets, months):
        won = month == dealer_month
        change = profit * bet.amount if won else -bet.amount
        if won:
            fee += (FULL_PROFIT - profit) * bet.amount
        net[bet.player] += change
        lines.append({"player": bet.player, "on": bet.on, "month": month,
                      "amount": to_json_amount(bet.amount), "result": "win" if won else "lose",
                      "net": to_json_amount(change)})
    net[DEALER] = -sum(net.values(), Fraction(0))
    out = {
        "game": NAME,
        "house": house_as_played(house),
        "winner": dealer_month,
        "scores": {DEALER: dealer_month},
        "net": {p: to_json_amount(v) for p, v in net.items()},
        "fee": to_json_amount(fee),
        "dealer_card": dealer_card,
        "bets": lines,
    }
    if (exact := exact_amounts(net)) is not None:
        out["net_exact"] = exact
    return out


def check_bet_size_within_limit(house: Mapping[str, Any]) -> None:
    """A fixed stake per card above the most a bettor may stake leaves no bet that could be taken."""
    if house["bet_mode"] == "fixed_per_card" and house["bet_size"] is not None and house["bet_limit"] is not None:
        size = parse_amount(house["bet_size"], "house option 'bet_size'")
        limit = parse_amount(house["bet_limit"], "house option 'bet_limit'")
        if size > limit:
            raise RoundError(f"house option 'bet_size' {to_json_amount(size)} (the stake on every card) is above "
                             f"'bet_limit' {to_json_amount(limit)} (the most a bettor stakes): no bet could be taken")


def _check_stakes(bets, per_player: dict[str, list[int]], house: Mapping[str, Any]) -> None:
    check_bet_size_within_limit(house)
    if house["bet_mode"] == "fixed_per_card":
        if house["bet_size"] is not None:
            size = parse_amount(house["bet_size"], "house option 'bet_size'")
        else:  # every card carries the first card's stake
            size = bets[0].amount if bets else None
        for i, bet in enumerate(bets, 1):
            if bet.amount != size:
                raise RoundError(f"bet {i} stakes {to_json_amount(bet.amount)}, but every card carries the "
                                 f"same fixed stake {to_json_amount(size)} (bet_mode fixed_per_card)")
    elif house["bet_size"] is not None:
        raise RoundError("house option 'bet_size' applies only to bet_mode fixed_per_card")
    if house["bet_limit"] is not None:
        limit = parse_amount(house["bet_limit"], "house option 'bet_limit'")
        for player, idx in per_player.items():
            total = sum((bets[i - 1].amount for i in idx), Fraction(0))
            if total > limit:
                raise RoundError(f"{player} stakes {to_json_amount(total)} in all, over the bet_limit "
                                 f"{to_json_amount(limit)}")


GAME = Game(
    name=NAME, title_en="Echobo", title_ja="えちょぼ (絵樗蒲)", options=OPTIONS, deck=deck,
    layout=layout, settle=settle, fields=("dealer_card", "bets", "players"),
    notes=("months 1-6 only; card type is irrelevant",
           "a correct card wins profit × stake (5, or 4.5 / 4.6 with terazen); a wrong card loses its stake"),
)
