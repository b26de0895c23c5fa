"""The expected points of every legal card at one position, from one seat's view (R7.7).

:func:`card_values` is the analysis's evaluation: the expert's sampling of the
hidden cards (:class:`~pishti.bots.determinize.Determinizer`, weighed by the
opponent model it learnt in the deck so far) with a larger budget and no
pruning.  On each of ``samples`` sampled decks every card that plays
differently (R3, R5.2) is played, then the rest of the deck is played out, the
seat's own seat by the standard policy and every other seat by a policy drawn
from its weights (the same draws for every card, so values are paired).  A
card's value is the deck's points of the seat's team less the other team's,
in points (R5.2), averaged over the samples.

It reads nothing but the :class:`~pishti.engine.view.SeatView`: changing a
card the seat may not see changes no value.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass

from pishti.bots.determinize import Determinizer
from pishti.bots.knowledge import Knowledge
from pishti.bots.opponents import STANDARD, OpponentModel, same_play
from pishti.bots.playout import clone_deck, distinct_cards, mixed_playout
from pishti.engine.cards import Card
from pishti.engine.view import SeatView

SAMPLES = 256
"""Sampled decks per analysed play (the live expert uses 128 and prunes)."""
PROPOSALS = 4
"""Placements proposed per sampled deck, resampled by likelihood (as the expert)."""


@dataclass(frozen=True, slots=True)
class CardValue:
    """One legal card's evaluation.

    Attributes:
        card: the card.
        expected: mean deck points of the seat's team less the other's (points).
        loss: how many expected points it gives up against the best card (>= 0).
        se: the standard error of ``loss`` (points; 0 for the best card).
    """

    card: Card
    expected: float
    loss: float
    se: float


def card_values(
    view: SeatView,
    seed: str,
    samples: int = SAMPLES,
    model: OpponentModel | None = None,
) -> list[CardValue]:
    """Evaluate every card of ``view.legal_cards`` (module doc), best first.

    Args:
        view: the seat's view at its turn.
        seed: seeds the sampling; the same seed and view give the same values.
        samples: sampled decks (at least 2).
        model: the opponent model learnt so far in the deck (None: every seat
            plays the standard policy).  It learns this deal's evidence.
    Returns:
        one :class:`CardValue` per card in hand, cards that play alike sharing
        one value; a single distinct card gets value 0 without a search.
    Raises:
        ValueError: it is not the seat's turn, or fewer than 2 samples.
    """
    hand = view.legal_cards
    if not hand:
        raise ValueError(f"seat {view.seat} has no card to play now")
    if samples < 2:
        raise ValueError("an analysis needs at least two samples per play")
    distinct = distinct_cards(hand)
    if len(distinct) == 1:
        return [CardValue(c, 0.0, 0.0, 0.0) for c in sorted(hand)]
    knowledge = Knowledge.from_view(view)
    rng = random.Random(seed)
    determinizer = Determinizer(view, knowledge, model)
    seat = view.seat
    team = view.team
    values: dict[Card, list[float]] = {c: [] for c in distinct}
    for placement in determinizer.resample(rng, samples, PROPOSALS * samples):
        deck = determinizer.build(placement)
        sample_knowledge = knowledge.copy()
        sample_knowledge.face_down = deck.middle[:3]
        policies = [
            STANDARD if s == seat or model is None else model.draw(s, rng)
            for s in range(view.players)
        ]
        sample_seed = rng.getrandbits(32)
        for card in distinct:
            child = clone_deck(deck)
            child_knowledge = sample_knowledge.copy()
            child_knowledge.observe(seat, card, child.play(card))
            values[card].append(
                mixed_playout(child, child_knowledge, team, policies, random.Random(sample_seed))
            )
    means = {c: statistics.fmean(v) for c, v in values.items()}
    best = max(distinct, key=lambda c: (means[c], -c))
    out = []
    for card in hand:
        rep = next(c for c in distinct if same_play(c, card))
        diffs = [b - a for a, b in zip(values[rep], values[best], strict=True)]
        loss = statistics.fmean(diffs)
        se = statistics.stdev(diffs) / math.sqrt(len(diffs))
        out.append(CardValue(card, means[rep], loss, se))
    out.sort(key=lambda v: (v.loss, v.card))
    return out
