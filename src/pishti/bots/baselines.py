"""Sparring partners: bots of clearly different styles to measure other bots against.

These are not levels of a ladder.  Each plays one recognisable way that people
and other programs play, so that a bot measured against all of them is seen
against more than its own kind (the ``standard`` policy and the expert built on
it).  Every one plays from its seat's :class:`~pishti.engine.view.SeatView`
only (R7.7) and is reproducible from its seed.

The pool (:data:`POOL`) is split in two:

- :data:`TRAINING`: bots that may be used while a bot is developed and tuned:
  ``grabber``, ``hunter``, ``hoarder``, ``sloppy``;
- :data:`HELD_OUT`: bots kept for the final measurement only, never used to
  choose or tune anything: ``sampler``, ``miser``.

Styles:

- ``grabber``: takes whenever it can, the capture worth the most (card points,
  pishti), jacks spent on any pile; otherwise throws a random card that is
  not a jack.
- ``hunter``: plays for pishtis: it clears the table whenever it can so the
  next seat must lay a single card, keeps pairs of a rank to take that card,
  and onto an empty table lays the rank most seen (the least likely to be
  taken as a pishti).
- ``hoarder``: keeps its jacks for piles worth 3 card points or 8 cards (or a
  jack pishti) and its aces, two of clubs and ten of diamonds to capture
  with; captures with a card of the top card's rank always; otherwise lays its
  cheapest card, the rank held most first.
- ``sloppy``: the standard policy, but one move in four is a random card (a
  careless human who counts some of the time).
- ``sampler`` (held out): an expectimax player: for each card in hand it
  samples 16 placements of the unseen cards uniformly (no inference from
  play), plays the rest of the deck greedily at every seat and plays the card
  with the best mean deck margin.
- ``miser`` (held out): defensive: it lays the cards the next seat is least
  likely to take (ranks already seen, no points), captures only piles worth a
  card point, of 4 cards or more, or a pishti, and lays a jack only as the
  last card of its hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from pishti.bots.base import Bot
from pishti.bots.determinize import Determinizer
from pishti.bots.knowledge import Knowledge
from pishti.bots.playout import clone_deck, distinct_cards
from pishti.bots.standard import standard_card
from pishti.engine.cards import CARD_POINTS, JACK, Card
from pishti.engine.deck import Deck
from pishti.engine.view import SeatView


def _rank(card: Card) -> int:
    return card >> 2


def _captures(card: Card, top: Card | None) -> bool:
    """True when ``card`` takes a pile whose top card is ``top`` (R3.2, R3.3)."""
    return top is not None and (_rank(card) == _rank(top) or _rank(card) == JACK)


def _seen_by_rank(view: SeatView) -> list[int]:
    """Cards of each rank this seat has seen this deck: played, face up, in hand."""
    seen = [0] * 13
    for play in view.history:
        seen[_rank(play.card)] += 1
    seen[_rank(view.face_up)] += 1
    for card in view.hand:
        seen[_rank(card)] += 1
    if view.face_down is not None:
        for card in view.face_down:
            seen[_rank(card)] += 1
    return seen


def _pile_points(view: SeatView) -> int:
    """Card points of the pile's cards this seat has seen (the face-down ones aside)."""
    return Knowledge.from_view(view).pile_points


def _legal(view: SeatView) -> tuple[Card, ...]:
    hand = view.legal_cards
    if not hand:
        raise ValueError(f"seat {view.seat} has no card to play now")
    return hand


def grabber_take(
    hand: Sequence[Card], top: Card | None, pile_points: int, pile_size: int
) -> Card | None:
    """The capture ``grabber`` makes from ``hand``, or None when it cannot take the pile.

    Args:
        hand: the cards held.  top: the top card (None: an empty table).
        pile_points: card points of the pile's cards seen (R5.2).
        pile_size: cards in the pile, face-down ones included.
    Returns:
        The card worth the most (the pile's points, plus 10 for a pishti and
        20 for a jack pishti, R4.1, R4.2); on equal worth a card of the top
        card's rank before a jack (R3.2, R3.3), then the lowest card.
    """
    takes = [c for c in hand if _captures(c, top)]
    if not takes or top is None:
        return None
    pishti = pile_size == 1

    def worth(card: Card) -> tuple[float, int]:
        bonus = 0
        if pishti and _rank(card) == _rank(top):
            bonus = 20 if _rank(card) == JACK else 10
        # Same value: a card of the top card's rank before a jack.
        return pile_points + bonus, -(_rank(card) == JACK)

    return max(sorted(takes), key=worth)


def grabber_throws(hand: Sequence[Card]) -> list[Card]:
    """The cards ``grabber`` throws from, uniformly, when it cannot capture: its
    cards that are not jacks, or all of them when it holds only jacks (sorted;
    empty for an empty ``hand``, which a seat to play never has)."""
    return sorted(c for c in hand if _rank(c) != JACK) or sorted(hand)


class GrabberBot:
    """``grabber``: the capture worth the most whenever there is one (module doc)."""

    name = "grabber"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` makes its random throws reproducible."""
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Card:
        """Return the card to play (R3.1).  Raises ValueError: not this seat's turn."""
        hand = _legal(view)
        take = grabber_take(hand, view.top_card, _pile_points(view), view.pile_size)
        if take is not None:
            return take
        return self.rng.choice(grabber_throws(hand))


class HunterBot:
    """``hunter``: plays for pishtis (module doc)."""

    name = "hunter"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` is unused (the hunter is deterministic)."""
        self.seed = seed

    def choose(self, view: SeatView) -> Card:
        """Return the card to play (R3.1).  Raises ValueError: not this seat's turn."""
        hand = _legal(view)
        top = view.top_card
        held = [0] * 13
        for card in hand:
            held[_rank(card)] += 1
        if top is not None:
            same = sorted(c for c in hand if _rank(c) == _rank(top))
            if same:
                return same[0]  # a pishti when the pile is a single card
            jacks = sorted(c for c in hand if _rank(c) == JACK)
            # Clear the table with a jack when it has cards left to hunt with.
            if jacks and len(hand) > 1:
                return jacks[0]
        seen = _seen_by_rank(view)
        non_jacks = [c for c in hand if _rank(c) != JACK] or list(hand)

        # Keep pairs (to take the card laid on an empty table) and valuable cards;
        # lay the rank most seen.
        def lay(card: Card) -> tuple[int, int, int, Card]:
            return (held[_rank(card)] > 1, -seen[_rank(card)], CARD_POINTS[card], card)

        return min(non_jacks, key=lay)


class HoarderBot:
    """``hoarder``: jacks and valuable cards kept for piles worth them (module doc)."""

    name = "hoarder"
    JACK_PILE_POINTS = 3
    JACK_PILE_CARDS = 8

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` is unused (the hoarder is deterministic)."""
        self.seed = seed

    def choose(self, view: SeatView) -> Card:
        """Return the card to play (R3.1).  Raises ValueError: not this seat's turn."""
        hand = _legal(view)
        top = view.top_card
        if top is not None:
            same = sorted(c for c in hand if _rank(c) == _rank(top) and _rank(c) != JACK)
            if same:
                return same[0]
            jacks = sorted(c for c in hand if _rank(c) == JACK)
            if jacks:
                worth = _pile_points(view)
                jack_pishti = view.pile_size == 1 and _rank(top) == JACK
                if (
                    jack_pishti
                    or worth >= self.JACK_PILE_POINTS
                    or view.pile_size >= self.JACK_PILE_CARDS
                    or len(hand) == len(jacks)
                ):
                    return jacks[0]
        held = [0] * 13
        for card in hand:
            held[_rank(card)] += 1
        non_jacks = [c for c in hand if _rank(c) != JACK] or list(hand)
        return min(non_jacks, key=lambda c: (CARD_POINTS[c], -held[_rank(c)], c))


class SloppyBot:
    """``sloppy``: the standard policy, with one move in four a random card."""

    name = "sloppy"
    MISTAKES = 0.25

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` makes its mistakes reproducible."""
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Card:
        """Return the card to play (R3.1).  Raises ValueError: not this seat's turn."""
        hand = _legal(view)
        if self.rng.random() < self.MISTAKES:
            return self.rng.choice(sorted(hand))
        return standard_card(hand, view.seat, Knowledge.from_view(view))


def greedy_card(hand: Sequence[Card], top: Card | None) -> Card:
    """The greedy rollout policy: a card of the top card's rank, else a jack on a
    pile, else the card with the fewest card points (the lowest card on ties)."""
    if top is not None:
        for card in hand:
            if _rank(card) == _rank(top):
                return card
        for card in hand:
            if _rank(card) == JACK:
                return card
    return min(hand, key=lambda c: (_rank(c) == JACK, CARD_POINTS[c], c))


def greedy_rollout(deck: Deck, team: int) -> int:
    """Play ``deck`` to its end with :func:`greedy_card` at every seat; return
    ``team``'s deck points less the other team's (R5.2)."""
    while deck.counts is None:
        hand = deck.hands[deck.to_play]
        deck.play(greedy_card(hand, deck.pile[-1] if deck.pile else None))
    counts = deck.counts
    return counts[team].points - counts[1 - team].points


class SamplerBot:
    """``sampler``: expectimax over uniform samples with greedy rollouts (module doc)."""

    name = "sampler"
    SAMPLES = 16

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` seeds the samples, together with the position."""
        self.seed = 0 if seed is None else seed

    def choose(self, view: SeatView) -> Card:
        """Return the card to play (R3.1).  Raises ValueError: not this seat's turn."""
        hand = _legal(view)
        cards = distinct_cards(hand)
        if len(cards) == 1:
            return cards[0]
        rng = random.Random(f"{self.seed}/{view.deck}/{len(view.history)}/{view.seat}")
        determinizer = Determinizer(view)
        determinizer.use_voids = False
        totals = dict.fromkeys(cards, 0)
        for _ in range(self.SAMPLES):
            deck = determinizer.sample(rng)
            for card in cards:
                child = clone_deck(deck)
                child.play(card)
                totals[card] += greedy_rollout(child, view.team)
        return max(cards, key=lambda c: (totals[c], -c))


class MiserBot:
    """``miser``: defensive, gives the next seat as little as it can (module doc)."""

    name = "miser"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` is unused (the miser is deterministic)."""
        self.seed = seed

    def choose(self, view: SeatView) -> Card:
        """Return the card to play (R3.1).  Raises ValueError: not this seat's turn."""
        hand = _legal(view)
        top = view.top_card
        if top is not None:
            worth = _pile_points(view)
            pishti = view.pile_size == 1
            same = sorted(c for c in hand if _rank(c) == _rank(top))
            if same and (pishti or worth >= 1 or view.pile_size >= 4 or len(hand) == 1):
                return same[0]
            jacks = sorted(c for c in hand if _rank(c) == JACK)
            if jacks and (worth >= 2 or view.pile_size >= 6):
                return jacks[0]
        seen = _seen_by_rank(view)
        non_jacks = [c for c in hand if _rank(c) != JACK] or list(hand)
        # The rank the next seat is least likely to hold, then the fewest points.
        return min(non_jacks, key=lambda c: (-seen[_rank(c)], CARD_POINTS[c], c))


TRAINING: dict[str, Callable[[int | None], Bot]] = {
    "grabber": GrabberBot,
    "hunter": HunterBot,
    "hoarder": HoarderBot,
    "sloppy": SloppyBot,
}
"""Sparring partners that may be used while developing and tuning a bot."""

HELD_OUT: dict[str, Callable[[int | None], Bot]] = {
    "sampler": SamplerBot,
    "miser": MiserBot,
}
"""Sparring partners kept for final measurements only: never tune against these."""

POOL: dict[str, Callable[[int | None], Bot]] = {**TRAINING, **HELD_OUT}
"""Every sparring partner by name: ``POOL[name](seed)`` builds one."""
