"""Machinery shared by the row games (Batta Maki family, Hankan, Shoniban): reading the rows and the
bets of a round, and the two ways their stakes are settled.

- Banker settlement (Hankan, RULES.md §3.5): the dealer pays each winner a fixed fraction of the
  stake and takes the losers' stakes.
- Pot settlement (Batta Maki family §3.1-3.4, Shoniban §3.6): the dealer first tops the lighter side
  up so both sides are equal, then the winning side takes the losing side's stakes (and any pot
  carried in), split pro rata to stake. The dealer's top-up is a stake like the others. With equal
  sides every winner gets exactly 1:1, so this is also §3.1's banker formula
  ``Δdealer = Σ_L stake − (1 − f)·Σ_W stake``. A fee is a share of a winning *player's* profit and goes
  to the dealer; it never touches returned stakes.

Everything here works in exact Fractions; conversion to JSON numbers happens at the edge.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Mapping

from dealer.games import MAX_AMOUNT, HouseOption, RoundError, ZoneSpec, parse_amount, parse_carried_pot, to_json_amount
from dealer.games.common import DEALER, Bet, amount_or_null, check_deck_usage, check_hanafuda_card, require



# --- reading a round -------------------------------------------------------------------------

def parse_rows(round_: Mapping[str, Any], zones: list[ZoneSpec], deck, game: str,
               optional: Iterable[str] = (), extra: Iterable[tuple[str, str]] = ()) -> dict[str, list[str]]:
    """The round's ``rows``: every zone present (except ``optional`` ones) with exactly its number of
    known cards, no other row, and no card used beyond the deck. ``extra``: further (card, where)
    pairs on the table (redrawn cards) that count against the deck too."""
    rows = require(round_, "rows", dict, "an object mapping row names to lists of card ids")
    by_name = {z.name: z for z in zones}
    for name in rows:
        if name not in by_name:
            raise RoundError(f"unknown row {name!r} in 'rows' (rows of {game}: {', '.join(by_name)})")
    placed: list[tuple[str, str]] = []
    out: dict[str, list[str]] = {}
    for zone in zones:
        if zone.name not in rows:
            if zone.name in optional:
                continue
            raise RoundError(f"missing row {zone.name!r} in 'rows'")
        cards = rows[zone.name]
        if not isinstance(cards, list):
            raise RoundError(f"row {zone.name!r} must be a list of card ids, not {cards!r}")
        if len(cards) != zone.cards:
            raise RoundError(f"row {zone.name!r} must have {zone.cards} cards, not {len(cards)}")
        for i, card in enumerate(cards):
            where = f"row {zone.name!r} (card {i + 1})"
            check_hanafuda_card(card, where)
            placed.append((card, where))
        out[zone.name] = list(cards)
    for card, where in extra:
        check_hanafuda_card(card, where)
        placed.append((card, where))
    check_deck_usage(placed, deck, game)
    return out


def stakes_by_player(bets: list[Bet]) -> dict[str, tuple[str, Fraction]]:
    """player -> (side, total stake). A player bets on one side only (RULES.md §3.1: "never both")."""
    stakes: dict[str, tuple[str, Fraction]] = {}
    for bet in bets:
        if bet.player in stakes:
            side, amount = stakes[bet.player]
            if side != bet.on:
                raise RoundError(f"player {bet.player!r} bets on both {side!r} and {bet.on!r}; "
                                 f"a player may bet on one side only")
            stakes[bet.player] = (side, amount + bet.amount)
        else:
            stakes[bet.player] = (bet.on, bet.amount)
    return stakes


# Wager limits are unattested (RULES.md §3.1): a house rule, off by default. They bound each player's
# total stake in the round.
WAGER_LIMIT_OPTIONS = (
    HouseOption("min_bet", None, check=amount_or_null, doc="each player's whole stake in the round at least this: null (no minimum) or a positive number"),
    HouseOption("max_bet", None, check=amount_or_null, doc="each player's whole stake in the round at most this: null (no maximum) or a positive number"),
)


def check_wager_limits(stakes: Mapping[str, tuple[str, Fraction]], house: Mapping[str, Any]) -> None:
    # the limits are amounts like the stakes (read as the decimals written, not as binary floats)
    low, high = (None if house.get(name) is None else parse_amount(house[name], f"house option {name!r}")
                 for name in ("min_bet", "max_bet"))
    if low is not None and high is not None and low > high:
        raise RoundError(f"house option 'min_bet' ({house['min_bet']}) is above 'max_bet' ({house['max_bet']})")
    for player, (side, amount) in stakes.items():
        if low is not None and amount < low:
            raise RoundError(f"player {player!r} stakes {to_json_amount(amount)} on {side!r}, "
                             f"below the house's min_bet {house['min_bet']}")
        if high is not None and amount > high:
            raise RoundError(f"player {player!r} stakes {to_json_amount(amount)} on {side!r}, "
                             f"above the house's max_bet {house['max_bet']}")


def refuse_fields(round_: Mapping[str, Any], fields: Iterable[str], why: str) -> None:
    """Fields that carry money or cards must not be silently ignored by a game that has no use for them."""
    for name in fields:
        if name in round_:
            raise RoundError(f"field {name!r} does not apply here: {why}")


def parse_carry(round_: Mapping[str, Any]) -> Fraction:
    """The optional ``carry``: a pot carried in from a previous tied round (0 when absent)."""
    if "carry" not in round_ or round_["carry"] == 0 and not isinstance(round_["carry"], bool):
        return Fraction(0)
    return parse_carried_pot(round_["carry"], "'carry' (the pot carried in)")


def may_carry(house: Mapping[str, Any]) -> bool:
    """Whether a tie can carry the pot into the next round under these house rules (carry_over, or a
    redraw that the deck runs out on, §10 A4; a tie-break that ends in carry_over)."""
    rule = house.get("tie_rule")
    # (the fallback is only that of a tie-break by card points or totals: under push it is never used)
    return rule in ("carry_over", "redraw") or (rule in ("card_points", "raw_total")
                                                and house.get("tie_fallback") == "carry_over")


def check_pot_can_carry(carry_in: Fraction, stakes: Mapping[str, tuple[str, Fraction]],
                        dealer_adds: Fraction) -> None:
    """The pot a tie would carry (what came in, every stake, the dealer's top-up) must be an amount the
    next round takes: above MAX_AMOUNT it was refused there, and the pot was stranded."""
    pot = carry_in + sum((a for _s, a in stakes.values()), Fraction(0)) + dealer_adds
    if pot > MAX_AMOUNT:
        raise RoundError(f"a tie would carry a pot of {to_json_amount(pot)} (the pot carried in, every stake "
                         f"and the dealer's top-up), above the largest amount {MAX_AMOUNT}: the stakes are too large")


# --- settlement ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Settlement:
    net: dict[str, Fraction]      # each player and 'dealer' -> signed change
    fee: Fraction                 # taken from winning players' profit, included in net['dealer']
    carry_in: Fraction = Fraction(0)
    carry: Fraction = Fraction(0)  # the pot carried out to the next round

    def balance(self) -> Fraction:
        """Σ net + carry − carry_in: zero when no chip is created or lost."""
        return sum(self.net.values(), Fraction(0)) + self.carry - self.carry_in


def _zero_net(stakes: Mapping[str, tuple[str, Fraction]]) -> dict[str, Fraction]:
    net = {player: Fraction(0) for player in stakes}
    net[DEALER] = Fraction(0)
    return net


def settle_pot(stakes: Mapping[str, tuple[str, Fraction]], winner: str, dealer_stake: Fraction,
               dealer_side: str | None, fee_rate: Fraction, carry_in: Fraction = Fraction(0),
               dealer_on_table: bool = True) -> Settlement:
    """The winning side takes the losing side's stakes plus ``carry_in``, pro rata to stake.
    ``dealer_on_table`` false: the dealer covers ``dealer_stake`` as banker at the showdown, not as a
    stake on the table, so a carried pot (the stakes on the table of the rounds tied) goes to the
    players' winning stakes only; with none of them on the winning side it is carried on."""
    if not dealer_on_table and carry_in and dealer_side is not None and dealer_stake:
        players_win = sum((a for side, a in stakes.values() if side == winner), Fraction(0))
        without_pot = settle_pot(stakes, winner, dealer_stake, dealer_side, fee_rate)
        if players_win == 0:
            return Settlement(without_pot.net, without_pot.fee, carry_in, carry_in)
        net, fee = dict(without_pot.net), without_pot.fee
        for player, (side, amount) in stakes.items():
            if side == winner:
                share = amount * carry_in / players_win
                net[player] += share - share * fee_rate
                fee += share * fee_rate
                net[DEALER] += share * fee_rate
        return Settlement(net, fee, carry_in, Fraction(0))
    net = _zero_net(stakes)
    win_total = sum((a for side, a in stakes.values() if side == winner), Fraction(0))
    lose_total = sum((a for side, a in stakes.values() if side != winner), Fraction(0))
    if dealer_side is not None and dealer_stake:
        if dealer_side == winner:
            win_total += dealer_stake
        else:
            lose_total += dealer_stake
    if win_total == 0:
        # Nobody on the winning side. With the dealer's top-up this happens only when nobody bet
        # at all: nothing moves and a carried pot stays in the middle.
        if lose_total:
            raise RoundError("bets are on one side only and the dealer does not top up the other")
        return Settlement(net, Fraction(0), carry_in, carry_in)
    pool = lose_total + carry_in
    fee = Fraction(0)
    for player, (side, amount) in stakes.items():
        if side == winner:
            profit = amount * pool / win_total
            cut = profit * fee_rate
            net[player] = profit - cut
            fee += cut
        else:
            net[player] = -amount
    if dealer_side is not None and dealer_stake:
        net[DEALER] += dealer_stake * pool / win_total if dealer_side == winner else -dealer_stake
    net[DEALER] += fee
    return Settlement(net, fee, carry_in, Fraction(0))


def settle_banker(stakes: Mapping[str, tuple[str, Fraction]], winner: str, win_rate: Fraction,
                  fee_rate: Fraction = Fraction(0)) -> Settlement:
    """The dealer pays each winner ``win_rate``·stake (less ``fee_rate`` of it) and takes losers' stakes."""
    net = _zero_net(stakes)
    fee = Fraction(0)
    for player, (side, amount) in stakes.items():
        if side == winner:
            profit = amount * win_rate
            cut = profit * fee_rate
            net[player] = profit - cut
            net[DEALER] -= profit - cut
            fee += cut
        else:
            net[player] = -amount
            net[DEALER] += amount
    return Settlement(net, fee)


def settle_push(stakes, carry_in: Fraction = Fraction(0)) -> Settlement:
    """All bets returned; a carried pot stays in the middle."""
    return Settlement(_zero_net(stakes), Fraction(0), carry_in, carry_in)


def settle_dealer_takes_all(stakes, carry_in: Fraction = Fraction(0)) -> Settlement:
    """The dealer takes every player's stake (his own top-up simply returns to him)."""
    net = _zero_net(stakes)
    for player, (_side, amount) in stakes.items():
        net[player] = -amount
        net[DEALER] += amount
    return Settlement(net, Fraction(0), carry_in, carry_in)


def settle_carry_over(stakes, dealer_stake: Fraction, carry_in: Fraction = Fraction(0)) -> Settlement:
    """Every stake on the table, the dealer's top-up included, goes into the pot for the next round."""
    net = _zero_net(stakes)
    for player, (_side, amount) in stakes.items():
        net[player] = -amount
    net[DEALER] = -dealer_stake
    total = sum((a for _s, a in stakes.values()), Fraction(0)) + dealer_stake
    return Settlement(net, Fraction(0), carry_in, carry_in + total)


# --- output ----------------------------------------------------------------------------------

def amounts(mapping: Mapping[str, Fraction]) -> dict[str, int | float]:
    return {k: to_json_amount(v) for k, v in mapping.items()}


def players_json(stakes: Mapping[str, tuple[str, Fraction]], settlement: Settlement) -> dict:
    return {player: {"on": side, "stake": to_json_amount(amount),
                     "net": to_json_amount(settlement.net[player])}
            for player, (side, amount) in stakes.items()}
