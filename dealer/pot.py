"""Who put in a pot carried over from a tie, so that a pot given up goes back to them.

A tie carries its pot to the next round (the tie rule ``carry_over``, Atosaki's deck run out,
Kabu-Tsukuri's drawn rows): the stakes are booked lost by those who staked them and are won by the
round that takes the pot. A pot given up instead (the dealer changes game) was taken off the books
with nobody's name on it, and the balances no longer added up. Its stakers are kept with the pot,
round by round, and it is returned to them, each what they put in.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Iterable, Mapping

# (the bank also holds a pot whose stakers are not known: one named when a session started)
from dealer.games.common import DEALER

# the bookings of a pot that are no round played, as the ledger keeps them (the round's "pot"), and
# as the history and the export say them
GIVEN_UP, NAMED = "given up", "named"
BOOKING_TEXT = {GIVEN_UP: "pot given up: returned to those who put it in",
                NAMED: "pot put on the table by the dealer"}


def exact(value: Any) -> Fraction:
    """An amount of a result, a session or a booking as a Fraction: a JSON number as the decimal it
    shows (0.1 is 1/10, as the rule engine reads amounts; rounding it to a nearby fraction booked
    999999.999999 as 999991999999/999992). Anything else is a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
        raise ValueError(f"amount must be a number, not {value!r}")
    if isinstance(value, float) and not math.isfinite(value):  # (an infinity raised OverflowError)
        raise ValueError(f"amount must be a finite number, not {value!r}")
    try:
        return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    except ZeroDivisionError:  # ("1/0" is no amount: said as the others are, not as a traceback)
        raise ValueError(f"amount must be a number, not {value!r}") from None


def carried(result: Mapping[str, Any]) -> Fraction:
    """The pot a settled round carries to the next (0 where it carries none)."""
    return exact(result.get("carry_exact") or result.get("carry") or 0)


def pot_stakers(result: Mapping[str, Any], stakers_in: Mapping[str, Fraction],
                carry_in: Fraction | None = None) -> dict[str, Fraction]:
    """Who put the pot that ``result`` carries to the next round in, and how much each (summing to
    it), from the stakers of the pot the round was played for (``stakers_in``, summing to
    ``carry_in``, exactly: the result's own is a JSON number, which a pot of 12 digits and 6 decimals
    does not hold; else that pot is taken as the dealer's):

    - a round that carries nothing: nobody;
    - Kabu-Tsukuri (its rows, each with its pot and winner, played in order): each player's ante of
      the rows drawn at the end of the hand, and the pot carried in where no row of the hand was won
      (a pot as large as the one carried in may be another: won, then the antes of the rows drawn);
    - a row game that carries the pot it was played for and no more (a push, the dealer taking the
      stakes): its stakers;
    - a row game (a tie carries every stake): the pot carried in, and every stake lost into it.

    A pot whose parts do not add up to it (no result of these shapes) is kept whole as the dealer's,
    to be handed back by him; parts off by what JSON numbers round away are made to add up."""
    carry = carried(result)
    if carry == 0:
        return {}
    if carry_in is None:
        carry_in = exact(result.get("carry_in") or 0)
    shares = {str(p): Fraction(a) for p, a in stakers_in.items() if a}
    if sum(shares.values(), Fraction(0)) != carry_in:
        shares = {DEALER: carry_in} if carry_in else {}
    rows = result.get("rounds")
    if isinstance(rows, list) and rows and all(isinstance(r, Mapping) and "pot" in r for r in rows):
        players = [str(p) for p in result.get("net") or ()]
        pot_in = carry_in
        for row in rows:
            pot = exact(row["pot"])
            ante = (pot - pot_in) / len(players) if players else Fraction(0)
            for p in players:
                shares[p] = shares.get(p, Fraction(0)) + ante
            if row.get("winner") == "tie":
                pot_in = pot
            else:  # won: the pot is paid out, and the next row's starts from nothing
                shares, pot_in = {}, Fraction(0)
    elif carry == carry_in:
        return shares
    else:
        net = result.get("net_exact") or result.get("net") or {}
        for p, amount in net.items():
            lost = -exact(amount)
            if lost > 0:
                shares[str(p)] = shares.get(str(p), Fraction(0)) + lost
    shares = {p: a for p, a in shares.items() if a}
    off = carry - sum(shares.values(), Fraction(0))
    if not shares or any(a < 0 for a in shares.values()) or abs(off) > max(Fraction(1, 10**6), abs(carry) / 10**12):
        return {DEALER: carry}
    if off:  # (the rows' pots are JSON numbers: the largest share takes what they rounded away)
        largest = max(shares, key=shares.get)
        shares[largest] += off
    return shares


def pot_said(result: Any) -> Fraction | None:
    """The pot a recorded round's result carries to the next, or None where the result does not
    say it as an amount, nor the amounts its stakers are worked out from (a damaged record)."""
    if not isinstance(result, Mapping) or not isinstance(result.get("net"), Mapping) or not result["net"]:
        return None
    try:
        for amount in result["net"].values():
            exact(amount)
        exact(result.get("carry_in") or 0)
        rows = result.get("rounds")
        for row in rows if isinstance(rows, list) else ():
            if isinstance(row, Mapping) and "pot" in row:
                exact(row["pot"])
        return carried(result)
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def result_from_bookings(booked: Mapping[str, Fraction], carry_in: Fraction,
                         stakers_known: bool = True) -> dict[str, Any]:
    """A round's result as far as its bookings tell it (``booked``: each amount the ledger holds for
    it), for a round whose own record cannot be read: what a round books, the pot it carries in and
    the pot it carries out add up to nothing (a tie's stakes go into the pot, a win takes it out), so
    its pot is the one carried in less what it booked. Who lost what into it is what each booked
    lost, unless not (``stakers_known`` false): then a pot it adds to is the dealer's to hand back.
    None is known (``ValueError``) where the pot is less than nothing: the bookings are not those
    of one round."""
    carry = carry_in - sum(booked.values(), Fraction(0))
    if abs(carry) < Fraction(1, 10**6):  # (a pot carried in kept as a JSON number rounds a little)
        carry = Fraction(0)
    if carry < 0:
        raise ValueError(f"its bookings take out {-carry} more than the pot of {carry_in} carried in")
    told: dict[str, Any] = {"carry_in": str(carry_in), "carry_exact": str(carry)}
    if stakers_known:
        told["net_exact"] = {p: str(a) for p, a in booked.items()}
    return told


def stakers_on_the_books(results_newest_first: Iterable[Mapping[str, Any]]) -> dict[str, Fraction]:
    """Who put in the pot the books hold now (the ties booked since the last round that carried
    nothing, a pot given up or won), from the results of the recorded rounds, newest first: for a
    pot whose session kept no stakers (one set aside as damaged, or kept before they were)."""
    chain = []
    for result in results_newest_first:
        if carried(result) == 0:
            break
        chain.append(result)
        if exact(result.get("carry_in") or 0) == 0:
            break
    else:
        if chain:  # (the books end before the first pot of the chain: its stakers are not known)
            return {DEALER: carried(chain[0])}
    shares: dict[str, Fraction] = {}
    for result in reversed(chain):
        shares = pot_stakers(result, shares, sum(shares.values(), Fraction(0)))
    return shares
