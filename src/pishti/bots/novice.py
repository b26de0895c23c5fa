"""Level ``novice``: captures when it can, otherwise throws a low-value card."""

from __future__ import annotations

import random

from pishti.engine.cards import CARD_POINTS, JACK, Card
from pishti.engine.view import SeatView


def _throw_value(card: Card) -> int:
    """How reluctant a novice is to throw ``card``: jacks most, then card points (R5.2)."""
    return 4 if card >> 2 == JACK else CARD_POINTS[card]


class NoviceBot:
    """Level ``novice``: no counting, no memory.

    - On a pile, a card of the top card's rank captures it (R3.2) and is played;
      failing that, a jack captures it (R3.3).
    - Otherwise it throws a card of the least value: plain cards before aces,
      the two of clubs, the ten of diamonds and, last, jacks; ties are broken
      by its own generator seeded with ``seed``.
    """

    name = "novice"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` makes the tie-breaks reproducible."""
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Card:
        """Return the card to play from ``view.legal_cards``.

        Raises:
            ValueError: it is not this seat's turn (no legal card).
        """
        hand = view.legal_cards
        if not hand:
            raise ValueError(f"seat {view.seat} has no card to play now")
        top = view.top_card
        if top is not None:
            same = [c for c in hand if c >> 2 == top >> 2]
            if same:
                return self.rng.choice(same)
            jacks = [c for c in hand if c >> 2 == JACK]
            if jacks:
                return self.rng.choice(jacks)
        low = min(_throw_value(c) for c in hand)
        return self.rng.choice([c for c in hand if _throw_value(c) == low])
