"""Opponent models: a population of policies, and how much each seat plays like each.

The expert must not assume that the other seats play like the ``standard``
bot: people and other programs do not.  It keeps, for every other seat, a
posterior over a small population of policies (:data:`POLICIES`):

- ``standard``: :func:`~pishti.bots.standard.standard_card`, a careful player
  who counts cards;
- ``greedy``: :func:`greedy_policy`, takes whenever it can (a card of the top
  card's rank, else a jack), else throws its cheapest card;
- ``random``: any card of the hand, uniformly (it stands for every style the
  others do not explain, and for mistakes);
- ``opportunist``: :func:`opportunist_capture` when it can take the pile (as
  ``greedy`` takes), else any card of the hand, uniformly: a player who never
  misses a capture and throws without a plan.  Its prior is 0 in
  :data:`PRIOR` (the level does not use it); :data:`PRIOR_OPPORTUNIST` gives it
  a share, for study.

A play is judged with a likelihood that tolerates mistakes: a policy that
would have played the same card (same rank and card points, R3, R5.2) from
the hand gives ``1 - EPSILON + EPSILON * k / n``, one that would not
``EPSILON * k / n`` (``k`` cards of the hand play like it, ``n`` cards in
hand), so no single play rules a policy out.  The opportunist is judged so
when it could take the pile (with its own epsilon, ``opportunist_epsilon``,
:data:`EPSILON` unless told, for study), and as ``random`` when it could not.  For
study, the standard policy may instead be judged softly, by how much it
values the card played (a ``temperature`` in points, :func:`play_likelihoods`);
the level judges it by the exact rule.

:class:`OpponentModel` adds up, per seat and policy, the log of each deal's
evidence (the likelihood of that seat's plays in the deal, averaged over
sampled placements of the hidden cards, as the expert's sampling gives it)
and turns it into weights with its prior (:data:`PRIOR` unless told); every
policy whose prior is above 0 is raised to at least its floor (:data:`FLOOR`
unless told) before the weights are scaled to sum to 1 (so the least weight
is a little under it).  The model only
learns from what its seat has seen (R7.7).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from pishti.bots.knowledge import Knowledge
from pishti.bots.standard import card_values, standard_card
from pishti.engine.cards import CARD_POINTS, JACK, Card

STANDARD = 0
GREEDY = 1
RANDOM = 2
OPPORTUNIST = 3
POLICIES = ("standard", "greedy", "random", "opportunist")
"""The population of opponent policies, by index."""
PRIOR = (0.6, 0.2, 0.2, 0.0)
"""Prior weight of each policy before a seat has played (the level's); a policy
at 0 is never weighed nor drawn."""
PRIOR_OPPORTUNIST = (0.55, 0.15, 0.15, 0.15)
"""A prior that gives ``opportunist`` a share too (module doc), for study."""
EPSILON = 0.1
"""Share of a policy's plays that may be anything (mistakes, other reasons)."""
FLOOR = 0.05
"""Least weight of a policy for a seat before the weights are scaled to sum to 1
(the level's)."""


def check_policies(policies: Sequence[int] | None, players: int) -> None:
    """Refuse per-seat policies that a search cannot play by.

    Args:
        policies: None, or one index of :data:`POLICIES` per seat (an ``int``,
            never a bool).
        players: the count of seats, 2 or 4.
    Raises:
        ValueError: not one entry per seat, or an entry that is not an index
            of :data:`POLICIES`.
    """
    if policies is None:
        return
    if len(policies) != players:
        raise ValueError(f"policies: {len(policies)} entries for {players} seats")
    for seat, policy in enumerate(policies):
        if type(policy) is not int or not 0 <= policy < len(POLICIES):
            raise ValueError(
                f"policies: seat {seat} has {policy!r}, not an index of POLICIES "
                f"(0 to {len(POLICIES) - 1})"
            )


def opportunist_capture(hand: Sequence[Card], top: Card | None) -> Card | None:
    """The first card of ``hand`` of the top card's rank, else its first jack on
    a pile (R3.2, R3.3); None when it cannot take the pile."""
    if top is not None:
        top_rank = top >> 2
        for card in hand:
            if card >> 2 == top_rank:
                return card
        for card in hand:
            if card >> 2 == JACK:
                return card
    return None


def greedy_policy(hand: Sequence[Card], top: Card | None) -> Card:
    """A card of the top card's rank, else a jack on a pile (R3.2, R3.3), else the
    cheapest card (card points, R5.2; jacks last; the lowest card on ties)."""
    take = opportunist_capture(hand, top)
    if take is not None:
        return take
    return min(hand, key=lambda c: (c >> 2 == JACK, CARD_POINTS[c], c))


def same_play(a: Card, b: Card) -> bool:
    """True when ``a`` and ``b`` have the same effect: same rank and card points."""
    return a >> 2 == b >> 2 and CARD_POINTS[a] == CARD_POINTS[b]


def check_temperature(temperature: object) -> None:
    """Accept None or a finite number of points above 0 (not a bool).

    Raises:
        ValueError: anything else, naming it.
    """
    if temperature is None:
        return
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not 0 < temperature < math.inf
    ):
        raise ValueError(
            f"a temperature must be a finite number of points above 0, not {temperature!r}"
        )


def play_likelihoods(
    hand: Sequence[Card],
    card: Card,
    seat: int,
    before: Knowledge,
    temperature: float | None = None,
    opportunist_epsilon: float = EPSILON,
) -> tuple[float, float, float, float]:
    """How likely each policy of :data:`POLICIES` plays ``card`` from ``hand``
    (``card`` among it) at ``seat`` with the public knowledge ``before``
    (mistake-tolerant, see the module doc).

    With a ``temperature`` (points, > 0) the standard policy is judged softly:
    ``1 - EPSILON`` times the share of ``card``'s plays in a softmax of
    :func:`~pishti.bots.standard.card_values` at that temperature, plus
    ``EPSILON * k / n``; a card worth nearly as much as the standard policy's
    best is then nearly as likely.  Cards of exactly equal value share their
    weight evenly, where :func:`~pishti.bots.standard.standard_card` gives the
    tie to the lower card, so a temperature near 0 is not the exact rule.

    ``opportunist_epsilon`` is the share of the opportunist's captures that
    may be anything (:data:`EPSILON` by default, as every policy): where it
    could take the pile, its capture is judged ``1 - e + e * k / n`` and any
    other card ``e * k / n``; a small ``e`` all but rules out a hand from
    which it would have taken the pile and did not.

    Raises:
        ValueError: a ``temperature`` that is not a finite number above 0
            (:func:`check_temperature`).
    """
    n = len(hand)
    k = 0
    for c in hand:
        if same_play(c, card):
            k += 1
    base = EPSILON * k / n
    hit = 1.0 - EPSILON + base
    if temperature is None or n == 1:
        std = hit if same_play(standard_card(hand, seat, before), card) else base
    else:
        check_temperature(temperature)
        values = card_values(hand, seat, before)
        best = max(values)
        mass = 0.0
        total = 0.0
        for c, v in zip(hand, values, strict=True):
            e = math.exp((v - best) / temperature)
            total += e
            if same_play(c, card):
                mass += e
        std = (1.0 - EPSILON) * mass / total + base
    top = before.pile[-1] if before.pile else None
    take = opportunist_capture(hand, top)
    if take is None:
        greedy = hit if same_play(greedy_policy(hand, top), card) else base
        return std, greedy, k / n, k / n
    taken = same_play(take, card)
    greedy = hit if taken else base
    e = opportunist_epsilon
    return std, greedy, k / n, (1.0 - e + e * k / n) if taken else e * k / n


class OpponentModel:
    """Per seat, the weight of each policy of :data:`POLICIES` (module doc).

    Attributes:
        players: 4 or 2.
        prior: the weight of each policy before a seat has played (a policy
            at 0 keeps weight 0).
        temperature: how the standard policy's likelihood is judged (points,
            :func:`play_likelihoods`; None: the exact rule).
        floor: the least weight of a policy before the weights are scaled
            (:data:`FLOOR` by default).
        opportunist_epsilon: the share of the opportunist's captures that may
            be anything (:func:`play_likelihoods`; :data:`EPSILON` by default).
        evidence: ``{(deck, deal): per seat, per policy, log evidence}``.
    """

    def __init__(
        self,
        players: int,
        prior: Sequence[float] = PRIOR,
        temperature: float | None = None,
        floor: float = FLOOR,
        opportunist_epsilon: float = EPSILON,
    ) -> None:
        """An empty model: every seat at ``prior``; ``temperature`` (points, or
        None for the exact rule) and ``opportunist_epsilon`` are how plays are
        judged (:func:`play_likelihoods`), ``floor`` the least weight of a policy.

        Raises:
            ValueError: ``prior`` does not give one weight, at least 0, per
                policy of :data:`POLICIES`, some above 0; a ``temperature``
                that is not a finite number above 0; a ``floor`` outside
                [0, 1) or an ``opportunist_epsilon`` outside (0, 1].
        """
        if (
            isinstance(prior, str | bytes)
            or not isinstance(prior, Sequence)
            or len(prior) != len(POLICIES)
            or not all(
                not isinstance(p, bool) and isinstance(p, int | float) and 0 <= p < math.inf
                for p in prior
            )
            or max(prior) <= 0
        ):
            raise ValueError(
                f"a prior needs {len(POLICIES)} finite weights >= 0, some above 0, not {prior!r}"
            )
        check_temperature(temperature)
        if isinstance(floor, bool) or not isinstance(floor, int | float) or not 0 <= floor < 1:
            raise ValueError(f"a floor must be a number from 0 to below 1, not {floor!r}")
        e = opportunist_epsilon
        if isinstance(e, bool) or not isinstance(e, int | float) or not 0 < e <= 1:
            raise ValueError(f"opportunist_epsilon must be above 0 and at most 1, not {e!r}")
        self.players = players
        self.prior = tuple(prior)
        self.temperature = temperature
        self.floor = floor
        self.opportunist_epsilon = opportunist_epsilon
        self._active = [i for i, p in enumerate(self.prior) if p > 0]
        self.evidence: dict[tuple[int, int], list[list[float]]] = {}
        self._weights: list[tuple[float, ...]] | None = None

    def record(self, deck: int, deal: int, logs: list[list[float]]) -> None:
        """Keep the log evidence of deal ``deal`` of deck ``deck`` (replacing an
        earlier, shorter account of the same deal)."""
        self.evidence[(deck, deal)] = logs
        self._weights = None

    def weights(self, seat: int) -> tuple[float, ...]:
        """The weight of each policy for ``seat``: posterior, floored, summing to 1."""
        if self._weights is None:
            self._weights = [self._posterior(s) for s in range(self.players)]
        return self._weights[seat]

    def _posterior(self, seat: int) -> tuple[float, ...]:
        active = self._active
        logs = [math.log(self.prior[i]) for i in active]
        for per_seat in self.evidence.values():
            for j, i in enumerate(active):
                logs[j] += per_seat[seat][i]
        top = max(logs)
        raw = [math.exp(v - top) for v in logs]
        total = sum(raw)
        floor = self.floor
        floored = [max(floor, v / total) for v in raw]
        total = sum(floored)
        out = [0.0] * len(POLICIES)
        for j, i in enumerate(active):
            out[i] = floored[j] / total
        return tuple(out)

    def draw(self, seat: int, rng: random.Random) -> int:
        """A policy for ``seat`` drawn from its weights (an index of :data:`POLICIES`)."""
        w = self.weights(seat)
        x = rng.random()
        running = 0.0
        for i in self._active[:-1]:
            running += w[i]
            if x < running:
                return i
        return self._active[-1]
