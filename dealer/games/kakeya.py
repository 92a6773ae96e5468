"""Kakeya Toranpu (掛合トランプ, called 絵取り Etori), RULES.md §8 and §10 KT1-KT5.

A trick-taking partnership game with the 52 western cards, settled in stones. 4 or 6 players sit in
``players`` order (the order of play); partners sit opposite (4 players: 1-3 and 2-4; 6 players: 1-4,
2-5, 3-6). In the 6-player game the dealing pair sits out, so ``hands`` holds four players (two
pairs) of 13 cards each; the pair without hands is the resting pair.

Ranks A K Q J 10 … 2. The trump (``trump``, else house ``default_trump``, ♠) beats the other suits;
the Rensho beats everything: ♣A when spades are trumps, else ♠A (house ``rensho_rule``: ``standard``,
or ``spade_ace`` for the kakeya-js reading). The Rensho belongs to its own suit for following but may be
played at any time. Follow suit if able (the Rensho counts as a card of its suit), else play any
card. The trick goes to the Rensho, else the highest trump, else the highest card of the suit led;
its winner leads the next trick. The non-dealing pair leads the first trick (checked in the 4-player
game when ``dealers`` names the dealing pair).

A pair with 9 or more of the 16 picture cards (A K Q J) wins; at 8-8 the pair not dealt the Rensho
wins. Losers pay winners ``max(ace_bonus, count_bonus)`` stones: ace_bonus 4 with no aces, 2 with
1-2 aces but neither the Rensho nor the trump ace, else 1; count_bonus 1 up to 11 picture cards,
2 for 12-15, 4 for all 16. The winners' aces are those dealt to them (house ``ace_basis`` ``dealt``,
§10 KT1) or those they captured (``captured``).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from dealer.games import Game, HouseOption, RoundError, ZoneSpec
from dealer.games.common import check_names, check_western_card, house_as_played, require
from dealer.western import SUIT_JA, SUIT_NAMES, SUITS, WesternCard, all_western_cards, get_western_card

NAME = "kakeya-toranpu"
HAND_SIZE = 13
TRICKS = 13
PICTURES_TO_WIN = 9
PICTURES_ALL = 16

OPTIONS = (
    HouseOption("default_trump", "S", SUITS, doc="the trump when the round gives none"),
    HouseOption("rensho_rule", "standard", ("standard", "spade_ace"),
                doc="standard: clubs ace with spade trumps, else spades ace (§10 KT3); spade_ace: always"),
    HouseOption("ace_basis", "dealt", ("dealt", "captured"),
                doc="the winners' aces for the stone table: dealt to them (§10 KT1) or captured"),
    # (a settled hand is told the stones held in 'stones_held'; the live table keeps them hand to hand)
    HouseOption("stones_per_pair", 5, check=lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1000,
                doc="the stones each partnership starts the game with, 1 to 1000 (§8: 5); the game ends when "
                    "a partnership has none (§10 KT5)"),
)


def deck(house: Mapping[str, Any]) -> Counter:
    return Counter({c.id: 1 for c in all_western_cards()})


def rensho_of(trump: str, rule: str = "standard") -> str:
    if rule == "spade_ace":
        return "AS"
    return "AC" if trump == "S" else "AS"


def pairs_of(players: list[str]) -> list[tuple[str, str]]:
    """Partners sit opposite: seat i with seat i + n/2."""
    half = len(players) // 2
    return [(players[i], players[i + half]) for i in range(half)]


def pair_name(pair: tuple[str, str]) -> str:
    return f"{pair[0]}+{pair[1]}"


def _players(setup: Mapping[str, Any]) -> list[str]:
    players = require(setup, "players", list, "a list of 4 or 6 player names in seat order")
    if len(players) not in (4, 6):
        raise RoundError(f"kakeya-toranpu is played by 4 or 6 players, not {len(players)}")
    check_names(players, "player", "players")
    for p in players:
        if "+" in p:  # a pair is named "ann+cat" in scores and net: names must keep pairs apart
            raise RoundError(f"player {p!r} may not have '+' in the name (it joins the names of a pair)")
    return players


def layout(setup: Mapping[str, Any]) -> list[ZoneSpec]:
    players = _players(setup)
    zones = [ZoneSpec("trick", 4, "Trick in play", "場の札")]
    for p in players:
        zones.append(ZoneSpec(p, None, f"{p}'s seat", f"{p}の席", group=p))
    for pair in pairs_of(players):
        zones.append(ZoneSpec(f"{pair_name(pair)}/pictures", None,
                              f"{pair[0]} and {pair[1]}: picture cards taken",
                              f"{pair[0]}・{pair[1]}組の取り絵札", group=pair_name(pair)))
    return zones


def _card(card: Any, where: str) -> WesternCard:
    return get_western_card(check_western_card(card, where))


def stones_for(pictures: int, aces: set[str], rensho: str, trump_ace: str) -> tuple[int, int, int]:
    """(stones, ace_bonus, count_bonus) for a winning pair with ``pictures`` picture cards."""
    if not aces:
        ace_bonus = 4
    elif len(aces) <= 2 and rensho not in aces and trump_ace not in aces:
        ace_bonus = 2
    else:
        ace_bonus = 1
    count_bonus = 4 if pictures == PICTURES_ALL else 2 if pictures >= 12 else 1
    return max(ace_bonus, count_bonus), ace_bonus, count_bonus


def may_play(card: str, led: str | None, hand: set[str] | list[str], rensho: str) -> bool:
    """Follow suit if able (the Rensho counts as a card of its own suit), else any card; the Rensho
    itself may be played at any time (§8, §10 KT4). ``led``: the suit led, None when leading."""
    if led is None or card == rensho or get_western_card(card).suit == led:
        return True
    return not any(get_western_card(c).suit == led for c in hand)


def _stones_left(held: Any, active_pairs: list[tuple[str, str]], winners: tuple[str, str],
                 stones: int) -> tuple[dict[str, int], int] | None:
    """With ``stones_held`` (each playing pair's stones before the hand): what each holds after it,
    and the stones paid. The losers pay what they have, at most the stones due: the game ends when a
    partnership has no stones left (§8, §10 KT5), so none can owe stones it does not hold."""
    if held is None:
        return None
    names = [pair_name(p) for p in active_pairs]
    if not isinstance(held, Mapping) or set(held) != set(names) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in held.values()):
        raise RoundError(f"field 'stones_held' must give each playing pair ({', '.join(names)}) "
                         f"its stones, a positive whole number, not {held!r}")
    losers = next(n for n in names if n != pair_name(winners))
    paid = min(stones, held[losers])
    return {n: held[n] + (paid if n == pair_name(winners) else -paid) for n in names}, paid


def trick_winner(cards: list[WesternCard], trump: str, rensho: str) -> int:
    """Index of the winning card in a trick (cards in the order played)."""
    for i, c in enumerate(cards):
        if c.id == rensho:
            return i
    trumps = [i for i, c in enumerate(cards) if c.suit == trump]
    pool = trumps or [i for i, c in enumerate(cards) if c.suit == cards[0].suit]
    return max(pool, key=lambda i: cards[i].strength)


def settle(round_: Mapping[str, Any], house: Mapping[str, Any]) -> dict:
    players = _players(round_)
    if round_.get("bets") not in (None, []):
        raise RoundError("kakeya-toranpu settles in stones between the pairs; it takes no 'bets'")
    trump = round_.get("trump", house["default_trump"])
    if trump not in SUITS:
        raise RoundError(f"field 'trump' must be one of S, H, D, C, not {trump!r}")
    rensho = rensho_of(trump, house["rensho_rule"])
    trump_ace = "A" + trump
    pairs = pairs_of(players)
    pair_of = {p: pair for pair in pairs for p in pair}

    hands_raw = require(round_, "hands", dict, "an object mapping each active player to 13 card ids")
    for who in hands_raw:
        if who not in players:
            raise RoundError(f"'hands' has a hand for {who!r}, who is not in 'players'")
    active_pairs = [pair for pair in pairs if any(p in hands_raw for p in pair)]
    if len(active_pairs) != 2 or any(p not in hands_raw for pair in active_pairs for p in pair):
        need = "every player" if len(players) == 4 else "the four players of two pairs (the dealing pair sits out)"
        raise RoundError(f"'hands' must give {need}; it has {', '.join(hands_raw) or 'none'}")
    resting = [pair for pair in pairs if pair not in active_pairs]
    active = [p for p in players if p in hands_raw]  # the order of play

    dealers = round_.get("dealers")
    if dealers is not None and (not isinstance(dealers, list) or not all(isinstance(p, str) for p in dealers)
                                or tuple(dealers) not in pairs + [p[::-1] for p in pairs]):
        raise RoundError(f"'dealers' must be one of the pairs {[list(p) for p in pairs]}, not {dealers!r}")
    if len(players) == 6:
        if dealers is not None and set(dealers) != set(resting[0]):
            raise RoundError(f"'dealers' {dealers!r} must be the pair sitting out, {list(resting[0])}")
        dealers = list(resting[0])

    hands: dict[str, list[WesternCard]] = {}
    holder: dict[str, str] = {}
    for who in active:
        cards = hands_raw[who]
        if not isinstance(cards, list) or len(cards) != HAND_SIZE:
            raise RoundError(f"{who}'s hand must be {HAND_SIZE} card ids, not {cards!r}")
        hands[who] = [_card(c, f"{who}'s hand") for c in cards]
        for c in hands[who]:
            if c.id in holder:
                raise RoundError(f"card {c.id!r} is dealt more than once ({holder[c.id]} and {who})")
            holder[c.id] = who

    tricks_raw = require(round_, "tricks", list, f"a list of {TRICKS} tricks")
    if len(tricks_raw) != TRICKS:
        raise RoundError(f"a hand is {TRICKS} tricks; 'tricks' has {len(tricks_raw)}")
    remaining = {who: {c.id for c in hands[who]} for who in active}
    pictures: dict[tuple[str, str], list[str]] = {pair: [] for pair in active_pairs}
    tricks_out = []
    leader = None
    for t, trick in enumerate(tricks_raw, 1):
        if not isinstance(trick, list) or len(trick) != len(active):
            raise RoundError(f"trick {t} must be {len(active)} cards in the order played, not {trick!r}")
        cards = [_card(c, f"trick {t}") for c in trick]
        first = holder[cards[0].id]  # every card of the deck is in some hand
        if leader is None:
            if dealers is not None and len(players) == 4 and first in dealers:
                raise RoundError(f"trick 1 is led by {first}, of the dealing pair; the other pair leads")
        elif first != leader:
            raise RoundError(f"trick {t} is led by {first} ({cards[0].id}), but {leader} won trick {t - 1} "
                             f"and leads")
        start = active.index(first)
        order = [active[(start + k) % len(active)] for k in range(len(active))]
        led = cards[0].suit
        for card, who in zip(cards, order):
            if holder[card.id] != who:
                raise RoundError(f"trick {t}: {card.id} is {holder[card.id]}'s card, but it is {who}'s turn")
            if card.id not in remaining[who]:
                raise RoundError(f"trick {t}: {card.id} was already played by {who}")
            if not may_play(card.id, led, remaining[who], rensho):
                same = [c for c in remaining[who] if get_western_card(c).suit == led]
                raise RoundError(f"trick {t}: {who} plays {card.id} but must follow {SUIT_NAMES[led]} "
                                 f"(holds {', '.join(sorted(same))})")
            remaining[who].discard(card.id)
        win = order[trick_winner(cards, trump, rensho)]
        taken = [c.id for c in cards if c.is_picture]
        pictures[pair_of[win]].extend(taken)
        tricks_out.append({"trick": t, "cards": [c.id for c in cards], "players": order, "winner": win,
                           "pictures": taken})
        leader = win

    counts = {pair: len(pics) for pair, pics in pictures.items()}
    rensho_pair = pair_of[holder[rensho]]
    top = max(active_pairs, key=lambda pair: counts[pair])
    if counts[top] >= PICTURES_TO_WIN:
        winners, how = top, f"{counts[top]} picture cards"
    else:  # 8-8: every picture card has been taken
        winners = next(pair for pair in active_pairs if pair != rensho_pair)
        how = "8-8: the pair not dealt the Rensho wins"
    losers = next(pair for pair in active_pairs if pair != winners)
    if house["ace_basis"] == "dealt":
        aces = {c.id for p in winners for c in hands[p] if c.is_ace}
    else:
        aces = {c for c in pictures[winners] if c.startswith("A")}
    stones, ace_bonus, count_bonus = stones_for(counts[winners], aces, rensho, trump_ace)
    after = _stones_left(round_.get("stones_held"), active_pairs, winners, stones)
    stones_left, paid = after if after is not None else (None, stones)

    pair_net = {pair_name(pair): 0 for pair in pairs}
    pair_net[pair_name(winners)] = paid
    pair_net[pair_name(losers)] = -paid
    out = {
        "game": NAME,
        "house": house_as_played(house),
        "winner": list(winners),
        "scores": {pair_name(pair): counts.get(pair, 0) for pair in pairs if pair in active_pairs},
        "net": pair_net,
        "unit": "stones (per pair)",
        "stones": stones,
        "ace_bonus": ace_bonus,
        "count_bonus": count_bonus,
        "winner_aces": sorted(aces),
        "decided_by": how,
        "trump": trump,
        "trump_label_en": SUIT_NAMES[trump],
        "trump_label_ja": SUIT_JA[trump],
        "rensho": rensho,
        "rensho_dealt_to": holder[rensho],
        **({"stones_left": stones_left, "stones_paid": paid, "game_over": any(v <= 0 for v in stones_left.values())}
           if stones_left is not None else {}),
        "next_dealers": list(losers),  # from the second deal on the losing pair deals (and sits out with 6)
        "pairs": [list(pair) for pair in pairs],
        "resting": [list(pair) for pair in resting],
        "pictures": {pair_name(pair): pics for pair, pics in pictures.items()},
        "tricks": tricks_out,
    }
    return out


GAME = Game(
    name=NAME, title_en="Kakeya Toranpu", title_ja="掛合トランプ", options=OPTIONS, deck=deck,
    layout=layout, settle=settle, card_kind="western",
    fields=("players", "hands", "tricks", "trump", "dealers", "stones_held", "bets"),
    notes=("52 western cards; picture cards are A K Q J",
           "net is in stones per pair: the losing pair pays the winning pair"),
)
