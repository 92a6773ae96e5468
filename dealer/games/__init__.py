"""Game registry and the contract every game module fulfils.

A game is data plus small pure functions: its deck, its house-rule options (with the defaults of
RULES.md §10), its table layout, and ``settle(round, house) -> result``. ``settle_round`` is the one
entry point used by the CLI, the web page and the ledger.
"""
from __future__ import annotations

import difflib
import importlib
import math
import re
from collections import Counter
from decimal import Decimal
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

# Game name (as in the round file) -> module that defines ``GAME``. Imported lazily so one broken
# game cannot stop the others from loading.
_MODULES: dict[str, str] = {
    "batta-maki": "dealer.games.batta_maki",
    "atosaki": "dealer.games.batta_maki",
    "koikoi-atosaki": "dealer.games.batta_maki",
    "mutsu-wari": "dealer.games.batta_maki",
    "hankan": "dealer.games.hankan",
    "shoniban": "dealer.games.hankan",
    "otoroku": "dealer.games.otoroku",
    "kabu-tsukuri": "dealer.games.kabu_tsukuri",
    "echobo": "dealer.games.echobo",
    "kakeya-toranpu": "dealer.games.kakeya",
}

GAME_NAMES: tuple[str, ...] = tuple(_MODULES)


class RoundError(ValueError):
    """Bad round input. The message is one line naming the problem (shown to the dealer as is)."""


@dataclass(frozen=True)
class HouseOption:
    name: str
    default: Any
    choices: tuple[Any, ...] | None = None  # allowed values; None: use ``check``
    check: Callable[[Any], bool] | None = None
    doc: str = ""
    # (option, values): this option does something only while that one has one of those values, and
    # is refused when given otherwise (a fee rate with no percentage fee)
    applies_when: tuple[str, tuple[Any, ...]] | None = None

    def validate(self, value: Any) -> Any:
        if self.choices is not None:
            # bool is an int in Python: do not let True stand for 1 or the reverse
            ok = any(value == c and type(value) is type(c) or
                     (isinstance(c, float) and isinstance(value, int) and not isinstance(value, bool) and value == c)
                     for c in self.choices)
            if not ok:
                allowed = ", ".join(repr(c) for c in self.choices)
                raise RoundError(f"house option {self.name!r} cannot be {value!r} (allowed: {allowed})")
        elif self.check is not None and not self.check(value):
            raise RoundError(f"house option {self.name!r} cannot be {value!r} ({self.doc})")
        return value


@dataclass(frozen=True)
class ZoneSpec:
    """One place on the table where the game puts cards (a row, a hand, the dealer's card, a trick)."""
    name: str                 # as used in the round file: 'saki', 'ato', 'shi-e', a seat name, 'dealer'
    cards: int | None         # how many cards it holds when complete (None: it varies)
    label_en: str
    label_ja: str
    scored: bool = True       # False for rows that are shown but do not take part (Hankan's Shi-e)
    group: str | None = None  # e.g. the Kabu-Tsukuri player a row belongs to
    # True for the dealer's own place (Otoroku's dealer's hand, Echobo's dealer's card): it lies in
    # front of the dealer, across the table from the players, whatever order its cards came in
    dealer_side: bool = False


@dataclass(frozen=True)
class Game:
    name: str
    title_en: str
    title_ja: str
    options: tuple[HouseOption, ...]
    # house -> card id -> how many copies the deck holds (0 or absent: not in this game's deck)
    deck: Callable[[Mapping[str, Any]], Counter]
    # setup (the round file, or just its seats/players) -> zones, in table order
    layout: Callable[[Mapping[str, Any]], list[ZoneSpec]]
    # (round, resolved house options) -> result dict; pure; raises RoundError on bad input
    settle: Callable[[Mapping[str, Any], Mapping[str, Any]], dict]
    # the round file's fields besides 'game' and 'house': any other is refused, so a misspelt one
    # ('hosue', 'choosen') is an error, not a fee, a carried pot or a showdown silently left out
    fields: tuple[str, ...] = ()
    card_kind: str = "hanafuda"  # or 'western' (Kakeya Toranpu)
    bet_targets: Callable[[Mapping[str, Any]], list[str]] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def resolve_house(self, house: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every option with its value: given ones validated, omitted ones at their default."""
        if house is None:
            house = {}
        if not isinstance(house, Mapping):
            raise RoundError("'house' must be an object of house-rule options")
        known = {o.name: o for o in self.options}
        for key in house:
            if key not in known:
                names = ", ".join(known) or "none"
                raise RoundError(f"unknown house option {key!r} for {self.name} (options: {names})")
        return {name: (opt.validate(house[name]) if name in house else opt.default)
                for name, opt in known.items()}


def get_game(name: object) -> Game:
    if not isinstance(name, str) or name not in _MODULES:
        raise RoundError(f"unknown game {name!r} (games: {', '.join(GAME_NAMES)})")
    module = importlib.import_module(_MODULES[name])
    games = getattr(module, "GAMES", None) or {module.GAME.name: module.GAME}
    return games[name]


def game_and_house(round_: Any) -> tuple[Game, dict[str, Any]]:
    """The game a round document names, and its house options (defaults filled in)."""
    if not isinstance(round_, Mapping):
        raise RoundError("a round must be a JSON object")
    if "game" not in round_:
        raise RoundError("missing field 'game'")
    game = get_game(round_["game"])
    check_fields(game, round_)
    return game, game.resolve_house(round_.get("house"))


def check_fields(game: Game, round_: Mapping[str, Any]) -> None:
    """Refuse a field of the round document that the game does not read, naming the likeliest one
    meant."""
    known = ("game", "house", *game.fields)
    for key in round_:
        if key not in known:
            raise RoundError(f"unknown field {key!r} in a {game.name} round{did_you_mean(key, known)}; its "
                             f"fields are: {', '.join(known)}")


def did_you_mean(key: Any, known) -> str:
    """`` (did you mean 'house'?)`` for the known name nearest a misspelt one, or nothing."""
    near = difflib.get_close_matches(str(key), list(known), n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def settle_round(round_: Mapping[str, Any]) -> dict:
    """Score and settle one round document (the JSON of ``hanadealer settle``)."""
    game, house = game_and_house(round_)
    return game.settle(round_, house)


# --- money -----------------------------------------------------------------------------------
# Amounts are exact fractions inside the engine so that settlement conserves chips exactly;
# they become JSON numbers only at the edge.

# Amounts are counted to 6 decimals: a float is read as the decimal it is written as (its shortest
# repr, so 0.1 is exactly a tenth and 999999999999.5 stays exact); one of more places is refused, not
# rounded (the dealer would be paid other than the bet he was given). No amount may
# exceed a trillion: a bound no table reaches, that keeps every result a finite JSON number.
AMOUNT_DECIMALS = 6
MAX_AMOUNT = 10**12


class InexactNumber(ValueError):
    """A JSON number that a float cannot hold as written (see ``exact_json_float``)."""


def exact_json_float(text: str) -> float:
    """A JSON number with a fraction or exponent, read only where the float holds it as written (its
    shortest repr the same decimal): read plainly, 999999999999.999999 became 10^12 and
    12345678901.1234567 lost its 7th decimal, and were then settled as amounts; 1e400 became inf."""
    value = float(text)
    written = Decimal(text)
    if not math.isfinite(value):
        raise InexactNumber(f"the number {text} is too large to read (an amount is at most {MAX_AMOUNT})")
    if value == 0 and written != 0:
        raise InexactNumber(f"the number {text} is too small to read (an amount is at least 0.000001)")
    if Decimal(repr(value)) != written:
        raise InexactNumber(f"the number {text} has more digits than can be read exactly (about 15 "
                            f"significant digits): round it")
    return value


def parse_amount(value: Any, what: str) -> Fraction:
    """A positive, finite number (bet, share, ante); anything else is a RoundError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise RoundError(f"{what} must be a positive number, not {value!r}")
    if value <= 0:
        raise RoundError(f"{what} must be a positive number, not {value!r}")
    if value > MAX_AMOUNT:
        raise RoundError(f"{what} is {value!r}, above the largest amount {MAX_AMOUNT}")
    amount = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if amount < Fraction(1, 10**AMOUNT_DECIMALS):  # (5e-324 is a positive number too small to count)
        raise RoundError(f"{what} is {value!r}, below the smallest amount 0.000001")
    if round(amount, AMOUNT_DECIMALS) != amount:  # (rounded, a bet of 0.9999996 was settled as 1)
        raise RoundError(f"{what} is {value!r}: amounts are counted to {AMOUNT_DECIMALS} decimals")
    return amount


def parse_carried_pot(value: Any, what: str) -> Fraction:
    """A pot carried in from a tied round: a positive number as ``parse_amount`` takes it, or, as the
    engine gives it back in ``carry_exact``, the exact amount written as text ("49382715604938/2",
    "24691357802.469002"), which a JSON number cannot always hold."""
    if not isinstance(value, str):
        return parse_amount(value, what)
    # digits only, as carry_exact writes it: an exponent ("1e100000000") took Fraction minutes
    if len(value) > 60 or not re.fullmatch(r"\s*[0-9]+(?:\.[0-9]+|/[0-9]+)?\s*", value):
        raise RoundError(f"{what} must be a positive number, or its exact amount as text, not {value!r}")
    try:
        amount = Fraction(value.strip())
    except (ValueError, ZeroDivisionError):
        raise RoundError(f"{what} must be a positive number, or its exact amount as text, not {value!r}") from None
    if amount <= 0 or amount > MAX_AMOUNT:
        raise RoundError(f"{what} is {value!r}: a pot is above 0 and at most {MAX_AMOUNT}")
    if round(amount, AMOUNT_DECIMALS) != amount:
        raise RoundError(f"{what} is {value!r}: amounts are counted to {AMOUNT_DECIMALS} decimals")
    return amount


def to_json_amount(x: Fraction | int) -> int | float:
    x = Fraction(x)
    return int(x) if x.denominator == 1 else round(float(x), 6)


def exact_amounts(amounts: Mapping[str, Fraction]) -> dict[str, str] | None:
    """Each amount as an exact fraction (``"40/3"``), where the JSON number of one of them does not show
    it exactly (a pro rata third, or 6 decimals on an amount too large for a float); None where the
    JSON numbers are exact."""
    if all(Fraction(str(to_json_amount(v))) == v for v in amounts.values()):
        return None
    return {k: str(Fraction(v)) for k, v in amounts.items()}
