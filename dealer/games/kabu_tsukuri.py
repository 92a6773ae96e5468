"""Kabu-Tsukuri (かぶ作り), RULES.md §6.

2–5 players each lay out three face-down rows of three cards from the 48-card deck (values 1..12 by
month). For each row in turn every player antes ``bet`` into the pot and exposes that row; the
strongest row takes the pot. On a draw for the strongest row the pot carries over to the next row,
and a draw on row 3 carries out of the hand (``carry``), to row 1 of the next hand.

Row strength (§10 K1): the 3-card yaku of the extended Kabu list (``dealer.kabu``), then the ones
digit; house option ``ranking`` = ``ones_digit`` uses the plain ones digit only.

House option ``deck`` = ``western`` plays with the 52 western cards less the kings (A=1 … Q=12,
ids like ``QS``), the alternative of §1.2.

Money: ``net`` is each player's change over the whole hand (three antes out, pots won in), and
``sum(net) + carry == carry_in``: chips only move between the players and the pot.
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any, Mapping

from dealer.cards import all_cards, get_card
from dealer.games import (MAX_AMOUNT, Game, HouseOption, RoundError, ZoneSpec, exact_amounts, parse_amount, parse_carried_pot,
                          to_json_amount)
from dealer.games.common import check_card, check_deck_usage, check_names, house_as_played, require
from dealer.kabu import KabuHand, classify, ones_digit
from dealer.western import all_western_cards, is_western_card, rank_value

NAME = "kabu-tsukuri"
ROWS_PER_PLAYER = 3
CARDS_PER_ROW = 3
MIN_PLAYERS, MAX_PLAYERS = 2, 5
RESERVED = ("dealer", "tie")  # 'winner' lists each row's winning player, or 'tie'

OPTIONS = (
    HouseOption("ranking", "extended", ("extended", "ones_digit"),
                doc="extended: §5.2 3-card yaku then ones digit (default); ones_digit: plain"),
    HouseOption("deck", "hanafuda", ("hanafuda", "western"),
                doc="hanafuda: 48 cards, the month is the value; western: 52 cards less the kings, A=1 .. Q=12"),
    # §6: later dealers are unattested, a house rule; §10 K3 its default
    HouseOption("next_dealer", "rotate_ccw", ("rotate_ccw", "rotate_cw"),
                doc="who deals the next hand: the player after the dealer counter-clockwise (the order the "
                    "players sit in, as 'rows' lists them), or clockwise"),
)
# the western alternative (§1.2, §6): kings removed, jack 11 and queen 12 stand for November and December


def deck(house: Mapping[str, Any]) -> Counter:
    if house.get("deck", "hanafuda") == "western":
        return Counter({c.id: 1 for c in all_western_cards() if c.rank != "K"})
    return Counter({c.id: 1 for c in all_cards()})


def value_of(card_id: str) -> int:
    """Kabu-Tsukuri counts the standard month, 1..12 (or A=1 .. Q=12 on a western deck)."""
    return rank_value(card_id) if is_western_card(card_id) else get_card(card_id).month


def _players(setup: Mapping[str, Any]) -> list[str]:
    """The players of a round file (the keys of ``rows``), or of a bare setup ``{"players": [...]}``."""
    if "rows" not in setup and "players" in setup:
        players = check_names(require(setup, "players", list, "a list of player names"), "player", "players",
                              reserved=RESERVED)
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise RoundError(f"kabu-tsukuri needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
        return players
    rows = require(setup, "rows", dict, "an object mapping each player to three rows")
    return list(rows)


def layout(setup: Mapping[str, Any]) -> list[ZoneSpec]:
    zones = []
    for player in _players(setup):
        for i in range(1, ROWS_PER_PLAYER + 1):
            zones.append(ZoneSpec(f"{player}/{i}", CARDS_PER_ROW, f"{player}: row {i}",
                                  f"{player}の{i}列目", group=player))
    return zones


def _read_rows(round_: Mapping[str, Any], house: Mapping[str, Any]) -> dict[str, list[list[str]]]:
    rows = require(round_, "rows", dict, "an object mapping each player to three rows")
    if not MIN_PLAYERS <= len(rows) <= MAX_PLAYERS:
        raise RoundError(f"kabu-tsukuri needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(rows)}")
    check_names(list(rows), "player", "rows", reserved=RESERVED)
    if "players" in round_:
        # read only to check it: 'rows' says who plays, so a 'players' naming others is a mistake
        players = check_names(require(round_, "players", list, "a list of player names"), "player", "players",
                              reserved=RESERVED)
        missing = [p for p in players if p not in rows] + [p for p in rows if p not in players]
        if missing:
            where = "has no rows" if missing[0] in players else "is not in 'players'"
            raise RoundError(f"player {missing[0]!r} {where}: 'players' and the keys of 'rows' must name "
                             f"the same players")
    placed = []
    for player, player_rows in rows.items():
        if not isinstance(player_rows, list) or len(player_rows) != ROWS_PER_PLAYER:
            raise RoundError(f"{player} must have {ROWS_PER_PLAYER} rows (lists of card ids), "
                             f"not {player_rows!r}")
        for i, row in enumerate(player_rows, 1):
            where = f"{player}'s row {i}"
            if not isinstance(row, list) or len(row) != CARDS_PER_ROW:
                raise RoundError(f"{where} must have {CARDS_PER_ROW} cards, not {row!r}")
            for k, card in enumerate(row, 1):
                placed.append((check_card(card, where, house["deck"]), f"{where} (card {k})"))
    check_deck_usage(placed, deck(house), NAME)
    return rows


def score_row(cards: list[str], ranking: str = "extended") -> KabuHand:
    values = [value_of(c) for c in cards]
    return classify(values) if ranking == "extended" else ones_digit(values)


def _hand_json(hand: KabuHand) -> dict:
    return {"hand": hand.name, "digit": hand.digit, "label_en": hand.label_en(),
            "label_ja": hand.label_ja()}


def next_dealer(players: list[str], dealer: str, rule: str = "rotate_ccw") -> str:
    """Who deals the next hand (house option ``next_dealer``): ``players`` in the order they sit,
    counter-clockwise (the order of play)."""
    step = 1 if rule == "rotate_ccw" else -1
    return players[(players.index(dealer) + step) % len(players)]


def check_ante_can_carry(ante: Fraction, players: int, carry_in: Fraction = Fraction(0)) -> None:
    """Three tied rows carry every ante out of the hand: a pot the next hand must still take (above
    MAX_AMOUNT it was refused there, and the pot was stranded)."""
    most = carry_in + ante * players * ROWS_PER_PLAYER
    if most > MAX_AMOUNT:
        raise RoundError(f"three tied rows would carry a pot of {to_json_amount(most)} (the pot carried in and "
                         f"every ante), above the largest amount {MAX_AMOUNT}: the ante is too large")


def settle(round_: Mapping[str, Any], house: Mapping[str, Any]) -> dict:
    if round_.get("bets") not in (None, []):
        raise RoundError("kabu-tsukuri takes the ante as 'bet' (every player antes it on each row), not 'bets'")
    rows = _read_rows(round_, house)
    ante = parse_amount(require(round_, "bet", (int, float), "a positive number"), "'bet' (the ante)")
    carry = round_.get("carry")
    players = list(rows)
    dealer = round_.get("dealer")
    if dealer is not None and (not isinstance(dealer, str) or dealer not in rows):
        raise RoundError(f"'dealer' must name one of the players ({', '.join(players)}), not {dealer!r}")
    carry_in = Fraction(0)
    if carry is not None and not (type(carry) in (int, float) and carry == 0):  # 0: nothing carried in
        carry_in = parse_carried_pot(carry, "'carry' (the pot carried in)")
    check_ante_can_carry(ante, len(players), carry_in)

    net = {p: Fraction(0) for p in players}
    pot = carry_in
    winners: list[str] = []
    rounds = []
    for i in range(ROWS_PER_PLAYER):
        hands = {p: score_row(rows[p][i], house["ranking"]) for p in players}
        for p in players:
            net[p] -= ante
        pot += ante * len(players)
        best = max(h.key() for h in hands.values())
        top = [p for p in players if hands[p].key() == best]
        won = top[0] if len(top) == 1 else None
        if won is not None:
            net[won] += pot
        rounds.append({"row": i + 1, "pot": to_json_amount(pot), "winner": won or "tie",
                       "hands": {p: _hand_json(hands[p]) for p in players}})
        winners.append(won or "tie")
        if won is not None:
            pot = Fraction(0)
    carry_out = pot
    out = {
        "game": NAME,
        "house": house_as_played(house),
        "winner": winners,
        "scores": {p: [r["hands"][p]["hand"] or r["hands"][p]["digit"] for r in rounds] for p in players},
        "net": {p: to_json_amount(v) for p, v in net.items()},
        "carry": to_json_amount(carry_out),
        "carry_in": to_json_amount(carry_in),
        "rounds": rounds,
        "next_dealer": None if dealer is None else next_dealer(players, dealer, house["next_dealer"]),
    }
    if (exact := exact_amounts(net)) is not None:
        out["net_exact"] = exact
    if Fraction(str(out["carry"])) != carry_out:  # a pot a JSON number cannot hold exactly
        out["carry_exact"] = str(carry_out)
    return out


GAME = Game(
    name=NAME, title_en="Kabu-Tsukuri", title_ja="かぶ作り", options=OPTIONS, deck=deck,
    layout=layout, settle=settle, fields=("players", "rows", "bet", "carry", "bets", "dealer"),
    notes=("values 1..12 by month; 11 and 12 count only in sums and runs (§10 K4)",
           "a draw for the strongest row carries the pot to the next row; after row 3, out as 'carry'",
           "with 10 cards dealt the spare card is dead and is not listed (§10 K2)"),
)
