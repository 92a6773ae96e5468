"""Small builders for round documents in the tests: cards picked by month value."""
from __future__ import annotations

from dealer.cards import all_cards


class CardPool:
    """Hands out distinct card ids of a wanted month (value), as a dealer would from one deck."""

    def __init__(self, taken: tuple[str, ...] = (), chaff_first: bool = False):
        self.left = {m: [c.id for c in all_cards() if c.month == m and c.id not in taken] for m in range(1, 13)}
        if chaff_first:  # keep the named cards (Crane, Cuckoo...) for the hands that ask for them
            self.left = {m: ids[::-1] for m, ids in self.left.items()}

    def take(self, month: int) -> str:
        return self.left[month].pop(0)

    def cards(self, months) -> list[str]:
        return [self.take(m) for m in months]
