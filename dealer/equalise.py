"""The dealer's helper for equalising bets (Batta Maki family, Shoniban).

In these games the two sides must carry equal stakes before the reveal: the dealer puts his own stake
on the lighter side to make the totals exactly equal (RULES.md §3.1; §10 A5 for Atosaki and Shoniban).
Given the players' bets, ``equalise`` says how much the dealer must add and on which side.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from dealer.games.common import Bet


@dataclass(frozen=True)
class Equalisation:
    totals: dict[str, Fraction]   # side -> the players' total stake on it
    lighter_side: str | None      # None when the totals are already equal
    difference: Fraction          # heavier total minus lighter total
    dealer_adds: Fraction         # what the dealer stakes (0 where the house does not let him top up)
    dealer_side: str | None       # where the dealer's stake goes (None when he adds nothing)

    @property
    def equal(self) -> bool:
        return self.difference == 0

    def side_totals_after(self) -> dict[str, Fraction]:
        """Each side's total once the dealer's stake is on the table."""
        return {side: total + (self.dealer_adds if side == self.dealer_side else 0)
                for side, total in self.totals.items()}


def equalise(bets: Iterable[Bet], sides: tuple[str, str], *, dealer_tops_up: bool = True) -> Equalisation:
    """How much the dealer must add, and on which of the two ``sides``, to make the stakes equal."""
    totals = {side: Fraction(0) for side in sides}
    for bet in bets:
        if bet.on not in totals:
            raise ValueError(f"bet on {bet.on!r} is not on one of {sides}")
        totals[bet.on] += bet.amount
    first, second = sides
    difference = abs(totals[first] - totals[second])
    lighter = None if difference == 0 else (first if totals[first] < totals[second] else second)
    adds = difference if dealer_tops_up else Fraction(0)
    return Equalisation(totals=totals, lighter_side=lighter, difference=difference,
                        dealer_adds=adds, dealer_side=lighter if adds else None)


def equalise_round(round_, check_limits: bool = True) -> dict:
    """The equalisation for a round document before its cards are revealed: only ``game``, ``house``
    and ``bets`` are read. For the games that make the sides equal (those with an ``equalise`` house
    option: the Batta Maki family and Shoniban). ``check_limits``: a stake outside the house's wager
    limits is refused (the dealer's page says that apart, and still shows the sides)."""
    from dealer.games import RoundError, game_and_house, to_json_amount
    from dealer.games.common import parse_bets
    from dealer.games.row_games import check_pot_can_carry, check_wager_limits, may_carry, parse_carry, stakes_by_player

    game, house = game_and_house(round_)
    if "equalise" not in house or game.bet_targets is None:
        raise RoundError(f"{game.name} does not equalise bets")
    sides = tuple(game.bet_targets(round_))
    bets = parse_bets(round_, sides)
    # the bets the round will be refused for once its cards are shown are refused now, before the
    # dealer stakes on them: a player on both sides, a stake outside the house's limits
    stakes = stakes_by_player(bets)
    if check_limits:
        check_wager_limits(stakes, house)
    mode = house["equalise"]
    eq = equalise(bets, sides, dealer_tops_up=mode == "dealer_tops_up")
    if may_carry(house):
        check_pot_can_carry(parse_carry(round_), stakes, eq.dealer_adds)
    short = f"{eq.lighter_side} is short by {to_json_amount(eq.difference)}"
    if eq.equal:
        message = "the bets are equal"
    elif eq.dealer_adds:
        message = f"the dealer adds {to_json_amount(eq.dealer_adds)} on {eq.dealer_side}"
    elif mode in ("encouraged", "none") and house.get("settlement") == "parimutuel" and not eq.totals[eq.lighter_side]:
        # (nobody to win from, or nobody to pay: whichever set wins, every stake goes back)
        message = (f"{eq.lighter_side} has no bets: under parimutuel nothing is won or lost unless someone "
                   f"bets on {eq.lighter_side}")
    elif mode in ("encouraged", "none") and house.get("settlement") == "parimutuel":
        # (no cover: the winners split the losing stakes, so the sides need not meet)
        urge = f"encourage bets on {eq.lighter_side}; " if mode == "encouraged" else ""
        message = f"{short}: {urge}the winners split the losing stakes pro rata (parimutuel)"
    elif mode == "encouraged":
        message = f"{short}: encourage bets on {eq.lighter_side}; the dealer covers the rest as banker"
    elif mode == "none":
        message = f"{short}: the dealer covers it as banker at the showdown"
    else:
        message = f"{short}: the players must equalise"
    return {"game": game.name, "totals": {s: to_json_amount(t) for s, t in eq.totals.items()},
            "lighter_side": eq.lighter_side, "difference": to_json_amount(eq.difference),
            "dealer_adds": to_json_amount(eq.dealer_adds), "dealer_side": eq.dealer_side,
            "message": message}
