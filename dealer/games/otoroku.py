"""Otoroku (おとろく), RULES.md §4.1 and the defaults of §4.4 / §10 O1-O7.

40 cards (November and December removed), each worth its month 1..10. Bettors draw towards 15 (at
least 2 cards, at most 5); the dealer plays last (at least 2 cards, at most ``dealer_max_cards``).
A hand is buta (bust) at 16, or at 17 for the last bettor (尾), who may stand on 16, stronger than 15.
Teyaku are never buta, but only for whoever may avail them:

    Makezu (bettors, 2 cards Jun+Sep)  = Otoroku (last bettor, 2 cards Jun+Oct or Jul+Sep)
      > Toritori (dealer: Pine Crane + Wisteria Cuckoo; on kabufuda the Aza-pin + Tama-shi) > Goshita Gomai (anyone, 5 cards each <= May)
      > the last bettor's 16 > 15 > 14.5 yaku (2 cards Jan+Sep) > 14 yaku (2 cards Jan+May, Jan+Oct)
      > totals 14 and below.

Settlement is in shares, each bettor against the dealer only: a buta bettor pays 1 share at once; a
buta dealer pays 1 share to every bettor still in; otherwise the higher hand wins 1 share, equal 15
pushes and equal below 15 goes to the dealer. With exactly 2 cards totalling 10 or more (point total,
teyaku not counted) the dealer may choose the bettors to show down with (``chosen``); the others pay
and receive nothing. ``net`` = shares × ``share``, less terazen on bettors' wins when ``fee_model`` is
``percent``; the dealer's net includes the fee, so ``net`` sums to zero.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping

from dealer.cards import BACK, all_cards, get_card
from dealer.games import Game, HouseOption, RoundError, ZoneSpec, exact_amounts, parse_amount, to_json_amount
from dealer.games.common import (DEALER, FEE_RATE_OPTION, check_card, check_deck_usage, check_fee_rate_applies, check_names,
                                 house_as_played, percent_fee, require)
from dealer.kabufuda import AZA_PIN, TAMA_SHI, is_kabufuda_card, kabufuda_deck, kabufuda_value
from dealer.western import all_western_cards, is_western_card, rank_value

NAME = "otoroku"
BETTOR_MIN_CARDS, BETTOR_MAX_CARDS = 2, 5
DEALER_MIN_CARDS = 2
MAX_BETTORS = 6  # 2-7 players in all (§4.1)
CHOICE_MIN_TOTAL = 10
TORITORI_CARDS = frozenset({"pine-crane", "wisteria-cuckoo"})
# §4.1: "On kabufuda: Aza-pin + Tama-shi"
TORITORI_KABUFUDA = frozenset({AZA_PIN, TAMA_SHI})

# comparison ranks (higher wins), RULES.md §4.1 "Comparison key"
RANK_TOP = 90        # Makezu, Otoroku
RANK_TORITORI = 80
RANK_GOSHITA = 70
RANK_SIXTEEN = 60
RANK_FIFTEEN = 50
RANK_FOURTEEN_HALF = 45
RANK_BUTA = -1

# name -> (English, Japanese)
LABELS = {
    "makezu": ("Makezu (undefeatable)", "負けず"),
    "otoroku": ("Otoroku", "おとろく"),
    "toritori": ("Toritori (birds)", "とりとり"),
    "goshita-gomai": ("Goshita Gomai", "五下五枚"),
    "14.5": ("14.5 yaku", "十四半"),
    "14": ("14 yaku", "十四"),
    "buta": ("buta (bust)", "ブタ"),
}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


OPTIONS = (
    HouseOption("teyaku_multipliers", False, (False, True),
                doc="true: bettors' wins pay the Kingo-banking multipliers (§4.2, §4.4)"),
    HouseOption("fee_model", "none", ("none", "percent"),
                doc="percent: the house keeps fee_rate of each bettor's win (terazen), which goes to the dealer's side"),
    FEE_RATE_OPTION,
    HouseOption("dealer_max_cards", 5, check=lambda v: _is_int(v) and 2 <= v <= 10,
                doc="an integer 2 to 10: the most cards the dealer may hold (§10 O1)"),
    HouseOption("dealer_bust_limit", 16, (16, 17),
                doc="the dealer is buta at this total or more (§10 O2); the bettors' own limits are fixed: "
                    "16, and 17 for the last bettor"),
    # RULES.md §4.4 names this house rule with its default alone: the one way it is settled, named so
    # that a round saying otherwise is refused rather than settled as if it had not
    HouseOption("dealer_bust_settlement", "pay_survivors", ("pay_survivors",),
                doc="pay_survivors: a buta dealer pays 1 share to every bettor still in, not buta (§4.4, §10 O2)"),
    HouseOption("goshita_vs_16", "goshita_higher", ("goshita_higher", "sixteen_higher"),
                doc="Goshita Gomai against the last bettor's 16 (§10 O3)"),
    HouseOption("deck", "hanafuda", ("hanafuda", "western", "kabufuda"),
                doc="hanafuda: 40 cards, months 1-10; western: A-10 of the four suits (no Toritori there); "
                    "kabufuda: 40 cards, 1-10 (Toritori: the Aza-pin and the Tama-shi)"),
    HouseOption("teyaku_tie", "push", ("push", "dealer_wins"),
                doc="equal hands above the 15 level (§10 O4); equal 15 always pushes, below always dealer"),
)

# Kingo banking multipliers (§4.2) used when teyaku_multipliers is on: name -> multiplier
KINGO_MULTIPLIERS = {"kingo": 3, "ittan-juuroku": 3, "arashi": 2, "shigoro": 2}


def deck(house: Mapping[str, Any]) -> Counter:
    if house.get("deck", "hanafuda") == "western":  # §4.1: Western A-10, no J/Q/K/jokers
        return Counter({c.id: 1 for c in all_western_cards() if c.rank not in ("J", "Q", "K")})
    if house.get("deck", "hanafuda") == "kabufuda":  # §1.3: 1-10, four of each
        return kabufuda_deck()
    return Counter({c.id: 1 for c in all_cards() if c.month <= 10})


def value_of(card_id: str) -> int:
    """Otoroku counts the month, 1..10 (November and December are not in the deck); A=1 .. 10 on
    western cards, the rank on kabufuda."""
    if is_western_card(card_id):
        return rank_value(card_id)
    if is_kabufuda_card(card_id):
        return kabufuda_value(card_id)
    return get_card(card_id).month


@dataclass(frozen=True)
class OtorokuHand:
    cards: tuple[str, ...]
    role: str          # 'bettor', 'last' or 'dealer'
    total: int
    rank: int
    name: str | None   # teyaku name, 'buta', or None for a plain total

    @property
    def buta(self) -> bool:
        return self.rank == RANK_BUTA

    @property
    def score(self) -> str | int:
        return self.name or self.total


def bust_limit(role: str, house: Mapping[str, Any]) -> int:
    return {"last": 17, "bettor": 16}.get(role, house.get("dealer_bust_limit", 16))


def evaluate(cards: list[str] | tuple[str, ...], role: str, house: Mapping[str, Any]) -> OtorokuHand:
    """Rank one hand for its owner's role (teyaku only for whoever may avail them)."""
    cards = tuple(cards)
    months = sorted(value_of(c) for c in cards)
    total = sum(months)
    n = len(cards)
    sixteen, goshita = ((RANK_SIXTEEN, RANK_GOSHITA) if house.get("goshita_vs_16", "goshita_higher")
                        == "goshita_higher" else (RANK_GOSHITA, RANK_SIXTEEN))

    def hand(rank: int, name: str | None = None) -> OtorokuHand:
        return OtorokuHand(cards, role, total, rank, name)

    if n == 2 and role in ("bettor", "last") and months == [6, 9]:
        return hand(RANK_TOP, "makezu")
    if n == 2 and role == "last" and months in ([6, 10], [7, 9]):
        return hand(RANK_TOP, "otoroku")
    if n == 2 and role == "dealer" and frozenset(cards) in (TORITORI_CARDS, TORITORI_KABUFUDA):
        return hand(RANK_TORITORI, "toritori")
    if n == 5 and months[-1] <= 5:
        return hand(goshita, "goshita-gomai")
    if total >= bust_limit(role, house):
        return hand(RANK_BUTA, "buta")
    if total == 16:
        return hand(sixteen)
    if total == 15:
        return hand(RANK_FIFTEEN)
    if n == 2 and months == [1, 9]:
        return hand(RANK_FOURTEEN_HALF, "14.5")
    if n == 2 and months in ([1, 5], [1, 10]):
        return hand(14, "14")
    return hand(total)


def kingo_multiplier(cards: tuple[str, ...]) -> tuple[int, str | None]:
    """The Kingo-banking multiplier of a bettor's winning hand (1 when none applies)."""
    months = sorted(value_of(c) for c in cards)
    found = []
    if months == [5, 5, 5]:
        found.append("kingo")
    if len(months) == 2 and sum(months) == 16:
        found.append("ittan-juuroku")
    if len(months) == 3 and months[0] == months[2]:
        found.append("arashi")
    if months == [4, 5, 6]:
        found.append("shigoro")
    if not found:
        return 1, None
    best = max(found, key=lambda k: KINGO_MULTIPLIERS[k])
    return KINGO_MULTIPLIERS[best], best


def _seats(setup: Mapping[str, Any]) -> list[str]:
    seats = require(setup, "seats", list, "a list of the bettors in turn order")
    if not 1 <= len(seats) <= MAX_BETTORS:
        raise RoundError(f"field 'seats' must name 1 to {MAX_BETTORS} bettors (2 to 7 players with the dealer), "
                         f"not {len(seats)}")
    # the result maps each seat to its showdown's winner: the seat, 'dealer' or 'tie'
    return check_names(seats, "seat", "seats", reserved=("dealer", "tie"))


def layout(setup: Mapping[str, Any]) -> list[ZoneSpec]:
    seats = _seats(setup)
    zones = []
    for i, seat in enumerate(seats):
        last = i == len(seats) - 1
        zones.append(ZoneSpec(seat, None,
                              f"{seat}'s hand" + (" (last bettor)" if last else ""),
                              f"{seat}の手札" + ("（尾）" if last else ""), group=seat))
    zones.append(ZoneSpec(DEALER, None, "Dealer's hand", "親の手札", group=DEALER, dealer_side=True))
    return zones


def _read_chosen(round_: Mapping[str, Any], seats: list[str]) -> list[str] | None:
    chosen = round_.get("chosen")
    if chosen is None:
        return None
    if not isinstance(chosen, list):
        raise RoundError(f"field 'chosen' must be a list of seats, not {chosen!r}")
    for k, s in enumerate(chosen):
        if s not in seats:
            raise RoundError(f"'chosen' names {s!r}, who is not in 'seats'")
        if s in chosen[:k]:
            raise RoundError(f"'chosen' names {s!r} twice")
    return chosen


def _read_hands(round_: Mapping[str, Any], seats: list[str], chosen: list[str] | None,
                house: Mapping[str, Any]) -> dict[str, list[str] | None]:
    """Each seat's and the dealer's cards in the order dealt. A bettor the dealer did not choose
    discards unseen, so his hand may be left out, empty or face down ('back'): it is then None."""
    hands = require(round_, "hands", dict, "an object mapping each seat and 'dealer' to card ids")
    for key in hands:
        if key != DEALER and key not in seats:
            raise RoundError(f"'hands' has a hand for {key!r}, who is not in 'seats' (seats: {', '.join(seats)})")
    placed = []
    out: dict[str, list[str] | None] = {}
    for who in seats + [DEALER]:
        unseen_ok = chosen is not None and who != DEALER and who not in chosen
        given = hands.get(who)
        if unseen_ok and (given is None or isinstance(given, list) and all(c == BACK for c in given)):
            out[who] = None  # discarded unseen: left out, empty, or still face down
            continue
        if unseen_ok and isinstance(given, list) and BACK in given:
            # as it lies: the first card hidden, those dealt after it face up (§4.1 "discard without
            # revealing"); the cards shown are still cards of the deck, none of them twice
            if not BETTOR_MIN_CARDS <= len(given) <= BETTOR_MAX_CARDS:
                raise RoundError(f"{who}'s hand must be a list of {BETTOR_MIN_CARDS} to {BETTOR_MAX_CARDS} card ids, "
                                 f"not {given!r}")
            if given[0] != BACK or BACK in given[1:]:
                raise RoundError(f"{who}'s hand, not chosen, is given as it lies: its first card face down "
                                 f"('back'), the cards dealt after it face up, not {given!r}")
            shown = [check_card(card, f"{who}'s hand", house["deck"]) for card in given[1:]]
            placed += [(card, f"{who}'s hand (card {k})") for k, card in enumerate(shown, 2)]
            months = [value_of(c) for c in shown]
            role = "last" if who == seats[-1] else "bettor"
            limit = bust_limit(role, house)
            # (buta before its last card, whatever the hidden one and in whatever order the cards
            # face up came, the largest last: no card is drawn on a buta, and 5-5-5-5 is buta at its
            # fourth card, no goshita-gomai)
            if sum(months) - max(months) + 1 >= limit or \
                    sum(months) + 1 >= limit and not (len(given) == 5 and max(months) <= 5):
                # (whatever the hidden card, the hand is buta: a buta is revealed and pays its share,
                # chosen or not; settled as not chosen, it paid nothing)
                raise RoundError(f"{who}'s hand is buta whatever its face-down card (the cards face up come to "
                                 f"{sum(months)}): a buta is revealed and pays its share; give it face up")
            out[who] = None
            continue
        if who not in hands:
            raise RoundError(f"missing hand for {who!r} in 'hands'")
        cards = hands[who]
        lo, hi = ((DEALER_MIN_CARDS, house["dealer_max_cards"]) if who == DEALER
                  else (BETTOR_MIN_CARDS, BETTOR_MAX_CARDS))
        if not isinstance(cards, list) or not lo <= len(cards) <= hi:
            raise RoundError(f"{who}'s hand must be a list of {lo} to {hi} card ids, not {cards!r}")
        for k, card in enumerate(cards, 1):
            placed.append((check_card(card, f"{who}'s hand", house["deck"]), f"{who}'s hand (card {k})"))
        out[who] = cards
    check_deck_usage(placed, deck(house), NAME)
    return out


def _check_no_draw_after_buta(who: str, cards: list[str], role: str, house: Mapping[str, Any]) -> None:
    # a buta hand is revealed and discarded at once: nobody draws on a buta hand. The cards are
    # those of the hand in whatever order they lie (the table shows them as laid, not as dealt): the
    # hand goes on after going buta only if no order it may have been dealt in has it drawn on buta
    # (a bust laid largest card first, or a Goshita Gomai laid so, was refused and held the round).
    # Each set of cards dealt first is asked once (up to 2**10 of them, not every order of ten cards)
    n = len(cards)

    @lru_cache(maxsize=None)
    def dealt_without_buta(held: frozenset) -> bool:
        """Whether the cards at these places can have been dealt first with no buta before the last."""
        if len(held) < 2:
            return True
        if len(held) < n and evaluate([cards[i] for i in sorted(held)], role, house).buta:
            return False
        return any(dealt_without_buta(held - {i}) for i in held)

    if dealt_without_buta(frozenset(range(n))):
        return
    k = next(k for k in range(2, n) if evaluate(cards[:k], role, house).buta)
    raise RoundError(f"{who}'s hand goes on after going buta at {k} cards "
                     f"(total {sum(value_of(c) for c in cards[:k])}), in whatever order it was dealt")


def _label(h: OtorokuHand, lang: int) -> str:
    if h.name:
        return LABELS[h.name][lang]
    if h.total == 16 and h.role == "last":  # the last bettor's 16, above 15
        return ("16 (last bettor)", "16（尾）")[lang]
    return str(h.total)


def may_choose_bettors(dealer: OtorokuHand) -> bool:
    """Whether the dealer's hand lets him choose the bettors he shows down with (RULES.md §4.1, §10
    O2): exactly 2 cards totalling 10 or more, not buta. The page offers the choice as soon as his two
    cards lie face up, before the bettors' hands are shown."""
    return len(dealer.cards) == 2 and not dealer.buta and dealer.total >= CHOICE_MIN_TOTAL


def settle(round_: Mapping[str, Any], house: Mapping[str, Any]) -> dict:
    check_fee_rate_applies(round_, house)
    seats = _seats(round_)
    share = parse_amount(require(round_, "share", (int, float), "a positive number"), "'share'")
    if round_.get("bets") not in (None, []):
        raise RoundError("otoroku settles in shares: give 'share', not 'bets'")
    chosen = _read_chosen(round_, seats)
    cards = _read_hands(round_, seats, chosen, house)
    roles = {s: "bettor" for s in seats} | {seats[-1]: "last", DEALER: "dealer"}
    hands: dict[str, OtorokuHand | None] = {}
    for who, role in roles.items():
        if cards[who] is None:
            hands[who] = None  # not chosen, discarded unseen
            continue
        _check_no_draw_after_buta(who, cards[who], role, house)
        hands[who] = evaluate(cards[who], role, house)
    dealer = hands[DEALER]

    may_choose = may_choose_bettors(dealer)
    if chosen is not None and not may_choose:
        raise RoundError("the dealer may choose bettors only with exactly 2 cards totalling 10 or more "
                         f"and not buta (dealer holds {len(cards[DEALER])} cards, total {dealer.total})")

    shares: dict[str, Fraction] = {}
    outcome: dict[str, str] = {}
    winner: dict[str, str | None] = {}
    multipliers: dict[str, int] = {}
    for seat in seats:
        mine = hands[seat]
        if mine is None:
            shares[seat], outcome[seat], winner[seat] = Fraction(0), "not_chosen", None
        elif mine.buta:
            shares[seat], outcome[seat], winner[seat] = Fraction(-1), "buta", DEALER
        elif dealer.buta:
            shares[seat], outcome[seat], winner[seat] = Fraction(1), "dealer_buta", seat
        elif chosen is not None and seat not in chosen:
            shares[seat], outcome[seat], winner[seat] = Fraction(0), "not_chosen", None
        elif mine.rank > dealer.rank:
            mult, kingo = kingo_multiplier(mine.cards) if house["teyaku_multipliers"] else (1, None)
            if kingo:
                multipliers[seat] = mult
            shares[seat], outcome[seat], winner[seat] = Fraction(mult), "win", seat
        elif mine.rank < dealer.rank or mine.rank < RANK_FIFTEEN or (
                mine.rank > RANK_FIFTEEN and house["teyaku_tie"] == "dealer_wins"):
            shares[seat], outcome[seat], winner[seat] = Fraction(-1), "lose", DEALER
        else:
            shares[seat], outcome[seat], winner[seat] = Fraction(0), "push", "tie"

    rate = percent_fee(house)
    net, fee = {}, Fraction(0)
    for seat in seats:
        amount = shares[seat] * share
        if amount > 0:
            fee += amount * rate
            amount -= amount * rate
        net[seat] = amount
    net[DEALER] = -sum(net.values(), Fraction(0))
    shares[DEALER] = -sum(shares.values(), Fraction(0))

    out = {
        "game": NAME,
        "house": house_as_played(house),
        "winner": winner,
        "scores": {who: h.score if h else None for who, h in hands.items()},
        "net": {who: to_json_amount(v) for who, v in net.items()},
        "shares": {who: to_json_amount(v) for who, v in shares.items()},
        "share": to_json_amount(share),
        "fee": to_json_amount(fee),
        "results": outcome,
        "dealer_may_choose": may_choose,
        "chosen": chosen,
        "multipliers": multipliers,
        "hands": {who: {"role": h.role, "cards": list(h.cards), "total": h.total, "hand": h.name,
                        "label_en": _label(h, 0), "label_ja": _label(h, 1)}
                  for who, h in hands.items() if h is not None},
    }
    if (exact := exact_amounts(net)) is not None:
        out["net_exact"] = exact
    return out


GAME = Game(
    name=NAME, title_en="Otoroku", title_ja="おとろく", options=OPTIONS, deck=deck, layout=layout,
    settle=settle, fields=("seats", "share", "chosen", "hands", "bets"),
    notes=("40 cards, months 1..10; buta at 16, at 17 for the last bettor",
           "Toritori counts as exactly two cards, like the other two-card teyaku",
           "teyaku_multipliers on: Kingo 5-5-5 and a 2-card 16 x3, three of a kind and 4-5-6 x2"),
)
