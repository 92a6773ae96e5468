"""Validation shared by every game: cards against the game's deck, bets against its targets."""
from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Mapping

from dealer.cards import BACK, is_card, nearest_ids
from dealer.games import HouseOption, RoundError, did_you_mean, parse_amount
from dealer.kabufuda import is_kabufuda_card, nearest_kabufuda_ids
from dealer.western import is_western_card, nearest_western_ids


def require(round_: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str | None = None):
    """round_[key], which must exist and be of ``kind``; else a RoundError naming the field."""
    if key not in round_:
        raise RoundError(f"missing field {key!r}")
    value = round_[key]
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise RoundError(f"field {key!r} must be {what or _kind_name(kind)}, not {value!r}")
    return value


def _kind_name(kind) -> str:
    names = {list: "a list", dict: "an object", str: "a string", int: "an integer"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def check_card(card: Any, where: str, kind: str = "hanafuda") -> str:
    """A known card id of the ``kind`` of deck ('hanafuda', 'western' for ``AS``, ``10H``..., or
    'kabufuda' for ``kabu-7``, ``kabu-aza-pin``...), or a RoundError that names the place and suggests
    the nearest ids. A face-down card (``back``, as the camera reports one) cannot be scored: it must
    be revealed first."""
    if card == BACK:
        raise RoundError(f"a card in {where} is face down ('back'): every card must be revealed to settle")
    if kind == "western":
        if is_western_card(card):
            return card
        near, naming = nearest_western_ids(card), "; western cards are named like AS, 10H, QD"
        if is_card(card) or is_kabufuda_card(card):  # (said only as a western name it was not)
            naming = (f"; it is a {'hanafuda' if is_card(card) else 'kabufuda'} card, and this round is played "
                      f"with western cards (named like AS, 10H, QD)")
    elif kind == "kabufuda":
        if is_kabufuda_card(card):
            return card
        near, naming = nearest_kabufuda_ids(card), "; kabufuda cards are named kabu-1 .. kabu-10, kabu-aza-pin, kabu-tama-shi"
        if is_card(card) or is_western_card(card):
            naming = (f"; it is a {'hanafuda' if is_card(card) else 'western'} card, and this round is played "
                      f"with kabufuda cards (kabu-1 .. kabu-10, kabu-aza-pin, kabu-tama-shi)")
    else:
        if is_card(card):
            return card
        near, naming = nearest_ids(card), ""
        if is_western_card(card):  # (said as a bare "unknown card 'AS'")
            naming = ("; it is a western card, and this round is played with hanafuda cards (Kabu-Tsukuri and "
                      "Otoroku take western ones with the house option deck 'western')")
        elif is_kabufuda_card(card):
            naming = ("; it is a kabufuda card, and this round is played with hanafuda cards (Otoroku takes "
                      "kabufuda ones with the house option deck 'kabufuda')")
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise RoundError(f"unknown card {card!r} in {where}{hint}{naming}")


def check_hanafuda_card(card: Any, where: str) -> str:
    return check_card(card, where, "hanafuda")


def check_western_card(card: Any, where: str) -> str:
    return check_card(card, where, "western")


def check_deck_usage(placed: Iterable[tuple[str, str]], deck: Counter, game: str) -> None:
    """``placed``: (card id, where) pairs. Each card must be in the game's deck, and no card may appear
    more often than the deck holds copies of it (a card dealt twice with one deck)."""
    seen: dict[str, list[str]] = {}
    for card, where in placed:
        if deck.get(card, 0) <= 0:
            raise RoundError(f"card {card!r} in {where} is not in the deck of {game}")
        places = seen.setdefault(card, [])
        if len(places) >= deck[card]:
            copies = "once" if deck[card] == 1 else f"{deck[card]} times"
            # every place named: which of them is misread is not known, and the later one is not likelier
            raise RoundError(f"card {card!r} is dealt more than {copies} (in {', in '.join(places)}, "
                             f"again in {where}: one of them is another card)")
        places.append(where)


# the bank: the name each result books the dealer's money under
DEALER = "dealer"

# words a result uses beside people's names, so no seat or player may be called by them
RESERVED_NAMES = {DEALER: "the bank", "tie": "what a result calls a draw"}


def check_names(names: list, noun: str, field: str, reserved: Iterable[str] = ()) -> list[str]:
    """A list of people (``noun`` 'seat', 'player'; from the round's ``field``): non-empty strings,
    each named once, none of the ``reserved`` words (of RESERVED_NAMES) the result uses itself."""
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise RoundError(f"{noun} names must be non-empty strings, not {name!r}")
        check_name_ends(name, f"{noun} name")
        if name in reserved or (name.casefold() == "dealer" and "dealer" in reserved):
            word = "dealer" if name.casefold() == "dealer" else name
            raise RoundError(f"{name!r} is {RESERVED_NAMES[word]}, not a {noun} name")
    twice = [name for name, k in Counter(names).items() if k > 1]
    if twice:
        raise RoundError(f"{noun} {twice[0]!r} is listed twice in {field!r}")
    check_one_spelling(names, f"{noun} names in {field!r}")
    return names


def check_one_spelling(names: Iterable[str], what: str) -> None:
    """Names that look the same written two ways (an accent as one letter, or apart: 'José') are one
    person, as the ledger takes them: refused, or one bettor was on both sides, or past a limit."""
    seen: dict[str, str] = {}
    for name in names:
        key = unicodedata.normalize("NFC", name)
        if seen.setdefault(key, name) != name:
            raise RoundError(f"{what}: {seen[key]!r} and {name!r} are one name written two ways (its accents "
                             f"as letters of their own, or apart): write it one way")


def check_name_ends(name: str, what: str) -> None:
    """A name with spaces at either end is refused: 'ann ' and 'ann' would be two people, one bettor
    on both sides of a row and her balance split in two."""
    if name != name.strip():
        raise RoundError(f"{what} {name!r} has spaces at its ends: write it {name.strip()!r}")


@dataclass(frozen=True)
class Bet:
    player: str
    on: Any          # a row name, a card id, a month, … as the game has it
    amount: Fraction


def parse_bets(round_: Mapping[str, Any], targets: Iterable[Any], *, required: bool = True) -> list[Bet]:
    """The round's ``bets``: each an object with a non-empty ``player``, an ``on`` among ``targets``
    and a positive ``amount``."""
    if "bets" not in round_:
        if required:
            raise RoundError("missing field 'bets'")
        return []
    raw = round_["bets"]
    if not isinstance(raw, list):
        raise RoundError(f"field 'bets' must be a list, not {raw!r}")
    allowed = list(targets)
    bets = []
    for i, b in enumerate(raw):
        if not isinstance(b, Mapping):
            raise RoundError(f"bet {i + 1} must be an object with player, on and amount")
        # (a misspelt field, "amout": 99, was left out without a word; named before the field it
        # stands for is missing, so the message says what to fix)
        for key in b:
            if key not in ("player", "on", "amount"):
                raise RoundError(f"bet {i + 1} has a field {key!r} that a bet does not have"
                                 f"{did_you_mean(key, ('player', 'on', 'amount'))}; a bet is player, on and amount")
        for key in ("player", "on", "amount"):
            if key not in b:
                raise RoundError(f"bet {i + 1} is missing field {key!r}")
        player = b["player"]
        if not isinstance(player, str) or not player.strip():
            raise RoundError(f"bet {i + 1}: player must be a non-empty name, not {player!r}")
        check_name_ends(player, f"bet {i + 1}: player")
        if player.casefold() == "dealer":
            raise RoundError(f"bet {i + 1}: {player!r} is the bank, not a player name")
        if b["on"] not in allowed or isinstance(b["on"], bool):
            raise RoundError(f"bet {i + 1} is on {b['on']!r}, which does not exist in this game "
                             f"(choose from {', '.join(map(str, allowed))})")
        bets.append(Bet(player, b["on"], parse_amount(b["amount"], f"bet {i + 1} amount")))
    check_one_spelling((b.player for b in bets), "bets")
    return bets


def amount_or_null(value: Any) -> bool:
    """A house option that is an amount (a wager limit, a fixed stake): null, or an amount as the
    stakes are read (parse_amount)."""
    if value is None:
        return True
    try:
        parse_amount(value, "amount")
    except RoundError:
        return False
    return True


# --- a percentage fee (terazen) on winning players' profit --------------------------------------

def _fee_rate_ok(v: Any) -> bool:
    # (to 6 decimals, as amounts are: a rate of more was charged as its nearest millionths fraction,
    # 0.9999996 as all of the profit and 4e-7 as none)
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1 \
        and (_written(v) * 10**6).denominator == 1


def _written(v: int | float) -> Fraction:
    """A JSON number as written (0.1 is a tenth, not the float nearest it)."""
    return Fraction(repr(v))


FEE_RATE_OPTION = HouseOption("fee_rate", 0.1, check=_fee_rate_ok,
                              doc="a number between 0 and 1, to 6 decimals at most (0.1 = 10%)",
                              applies_when=("fee_model", ("percent",)))


def check_fee_rate_applies(round_: Mapping[str, Any], house: Mapping[str, Any]) -> None:
    """A ``fee_rate`` given without fee_model ``percent`` would charge nothing: refuse it, never ignore it."""
    given = round_.get("house") or {}
    if "fee_rate" in given and house["fee_model"] != "percent":
        raise RoundError(f"house option 'fee_rate' needs fee_model 'percent' (fee_model is {house['fee_model']!r})")


def house_as_played(house: Mapping[str, Any]) -> dict[str, Any]:
    """The house rules a result echoes: every option that applied, at its value (a fee rate beside
    another fee model, a tie fallback beside a tie rule that never falls back, did nothing, and fed
    back as the next round's house, the engine refuses them)."""
    out = dict(house)
    if "fee_rate" in out and out.get("fee_model", "percent") != "percent":
        del out["fee_rate"]
    if "tie_fallback" in out and out.get("tie_rule") not in ("card_points", "raw_total"):
        del out["tie_fallback"]
    return out


def percent_fee(house: Mapping[str, Any]) -> Fraction:
    """The share of a winning player's profit kept as fee under fee_model ``percent`` (else 0)."""
    if house["fee_model"] != "percent":
        return Fraction(0)
    return _written(house["fee_rate"])
