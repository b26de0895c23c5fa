"""A template plug-in bot: copy this file (and its test) to start your own.

Run it with::

    pishti arena template_bot:TemplateBot standard --players 2 --matches 20
    pishti play --bots template_bot:TemplateBot

(from this folder, or give the file: ``path/to/template_bot.py:TemplateBot``).

It shows what a bot usually needs: its own seeded generator, the pile rebuilt
from the deck's public history, the cards already seen, and the optional
``observe`` hook that tells it when a deck or a match begins and every card
played, those after its own last card of a deck too.  Its play is simple on
purpose: take a pile when it can (a card of the top card's rank, or a jack on
a pile worth a point), otherwise lay the card whose rank has been seen most.
"""

from __future__ import annotations

import random

from pishti.engine import (
    JACK,
    LAID,
    Card,
    CardPlayed,
    DeckStarted,
    Event,
    SeatView,
)
from pishti.engine.cards import CARD_POINTS


def rebuild_pile(view: SeatView) -> list[Card]:
    """The pile's face-up cards, bottom first, from the deck's history.

    Before the deck's first capture three face-down cards lie under them
    (``view.pile_size`` counts those too).  ``pile[-1] == view.top_card``.
    """
    pile = [view.face_up]
    for play in view.history:
        if play.outcome == LAID:
            pile.append(play.card)
        else:  # CAPTURE, PISHTI or JACK_PISHTI: the table is empty again
            pile = []
    return pile


class TemplateBot:
    """Takes a pile when it is worth it, otherwise lays the rank most seen."""

    name = "template"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` seeds the bot's own generator: never the global ``random``."""
        self.rng = random.Random(seed)
        self.matches = 0  # matches begun, told by observe
        self.decks = 0  # decks begun in this match
        self.plays_seen = 0  # cards played this deck, told by observe

    def observe(self, event: Event) -> None:
        """Optional: every event of the match as this seat sees it (R7.7)."""
        if isinstance(event, DeckStarted):
            if event.deck == 0:
                self.matches += 1
                self.decks = 0
            self.decks += 1
            self.plays_seen = 0
        elif isinstance(event, CardPlayed):
            self.plays_seen += 1

    def choose(self, view: SeatView) -> Card:
        """Return one of ``view.legal_cards``, a plain int (R3.1)."""
        hand = sorted(view.legal_cards)
        pile = rebuild_pile(view)
        top = view.top_card
        if top is not None:
            same = [c for c in hand if c >> 2 == top >> 2]
            if same:
                return same[0]
            jacks = [c for c in hand if c >> 2 == JACK]
            if jacks and sum(CARD_POINTS[c] for c in pile) >= 1:
                return jacks[0]
        seen = [0] * 13
        for card in [view.face_up, *hand, *(p.card for p in view.history)]:
            seen[card >> 2] += 1
        plain = [c for c in hand if c >> 2 != JACK] or hand
        best = max(seen[c >> 2] for c in plain)
        # Ties are broken by the bot's own generator: reproducible from its seed.
        return self.rng.choice([c for c in plain if seen[c >> 2] == best])
