"""Small builders for round documents in the tests: cards picked by month value."""
from __future__ import annotations

from dealer.cards import all_cards


class CardPool:
    """Hands out distinct card ids of a wanted month (value), as a dealer would from one deck."""

    def __init__(self, taken: tuple[str, ...] = ()):
        self.left = {m: [c.id for c in all_cards() if c.month == m and c.id not in taken] for m in range(1, 13)}

    def take(self, month: int) -> str:
        return self.left[month].pop(0)

    def cards(self, months) -> list[str]:
        return [self.take(m) for m in months]
