"""A plug-in bot written outside the package, as anyone may write one."""

from __future__ import annotations

from pishti.engine import Card, SeatView


class LowestCardBot:
    """Always plays its lowest card."""

    name = "lowest"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: SeatView) -> Card:
        return min(view.legal_cards)


class NotABot:
    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
