"""The bot interface: a bot picks a card from what its seat may see (R7.7).

A bot gets a :class:`~pishti.engine.view.SeatView` (its hand, the top card,
sizes, the deck's public history ...) and returns one of ``view.legal_cards``.
It never reads the engine's full state.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from pishti.engine.cards import Card
from pishti.engine.view import SeatView


@runtime_checkable
class Bot(Protocol):
    """What every bot provides.

    Attributes:
        name: the bot's level or name, e.g. ``"standard"``.

    A bot may also define ``observe(event) -> None``: it is then given every
    event of the match (:mod:`pishti.engine.events`) as its seat sees it
    (:func:`~pishti.engine.view.event_for_seat`, R7.7), in order, from the
    first deck's ``DeckStarted`` and ``CardsDealt`` on: a ``DeckStarted`` with
    ``deck == 0`` begins a match, every ``DeckStarted`` a deck, and
    ``CardPlayed`` tells every play, those after the bot's own last card of a
    deck too.  The arena and ``pishti play`` call it (guarded, see
    :mod:`pishti.bots.guard`); it is optional.
    """

    name: str

    def choose(self, view: SeatView) -> Card:
        """Return the card to play: one of ``view.legal_cards`` (never empty when asked)."""
        ...


class RandomBot:
    """Level ``random``: any legal card, uniformly, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` makes the bot's choices reproducible."""
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Card:
        """Return a uniformly random card of ``view.legal_cards``."""
        return self.rng.choice(view.legal_cards)
