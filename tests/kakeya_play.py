"""Builds legal Kakeya Toranpu rounds for the tests: deals and plays out a hand by a simple rule."""
from __future__ import annotations

import random

from dealer.games.kakeya import may_play, rensho_of, trick_winner
from dealer.western import get_western_card, western_ids


def deal(players: list[str], seed: int, active: list[str] | None = None) -> dict[str, list[str]]:
    active = active or players
    cards = list(western_ids())
    random.Random(seed).shuffle(cards)
    return {p: sorted(cards[i::4]) for i, p in enumerate(active)}


def legal_cards(hand: list[str], led: str | None, rensho: str) -> list[str]:
    return [c for c in hand if may_play(c, led, hand, rensho)]


def play(players: list[str], hands: dict[str, list[str]], trump: str = "S", leader: str | None = None,
         seed: int = 0, rensho_rule: str = "standard", n_tricks: int = 13) -> list[list[str]]:
    """``n_tricks`` legal tricks from ``hands``; each player picks a random legal card."""
    rng = random.Random(seed)
    rensho = rensho_of(trump, rensho_rule)
    active = [p for p in players if p in hands]
    left = {p: list(h) for p, h in hands.items()}
    leader = leader or active[0]
    tricks = []
    for _ in range(n_tricks):
        start = active.index(leader)
        order = [active[(start + k) % len(active)] for k in range(len(active))]
        trick = []
        for who in order:
            led = get_western_card(trick[0]).suit if trick else None
            card = rng.choice(legal_cards(left[who], led, rensho))
            left[who].remove(card)
            trick.append(card)
        leader = order[trick_winner([get_western_card(c) for c in trick], trump, rensho)]
        tricks.append(trick)
    return tricks
