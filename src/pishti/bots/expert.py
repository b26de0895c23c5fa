"""Level ``expert``: determinized Monte Carlo search that does not assume how others play.

For each move the expert

1. asks the standard policy (:func:`standard_card`) for its card, the *default*,
   and plays it at once when the policy values it ``obvious`` points above
   every other card (a pishti, say);
2. samples ``samples`` decks that agree with everything its seat has seen
   (:class:`~pishti.bots.determinize.Determinizer`: the unseen cards placed at
   random, biased by the voids other seats showed, then resampled by how well
   they explain this deal's plays);
3. on every sampled deck plays each distinct card in hand and then the rest of
   the deck (a playout), scoring the deck's points of its team less the
   other's (R5.2); every :data:`BATCH` samples, cards trailing the default by
   more than :data:`PRUNE` standard errors are dropped, and the search ends
   when only the default is left;
4. plays another card only if it beats the default on the *same* samples by
   more than ``margin`` standard errors of the paired difference.  Most
   choices are near-ties between discards; without this guard the sampling
   noise throws away the standard policy's small, steady edge.

It does not assume that the other seats play like the standard bot.  It keeps
an :class:`~pishti.bots.opponents.OpponentModel` for the match: for every
other seat, a weight for each policy of a small population (standard, greedy,
random), learnt from that seat's plays deal by deal with a likelihood that
tolerates mistakes.  Step 2 weighs placements under each seat's mixture of
policies (and trusts a seat's voids less the more it plays at random); in
step 3 each other seat plays, in each sampled deck, a policy drawn from its
weights (its partner's too: a person may sit there), and the expert's own
seat the standard policy.  Against a seat that plays like the standard bot
the weights go to ``standard`` within a deal or two and the search is the one
it was before; against a greedy or erratic seat the playouts stop expecting
standard replies.  ``adaptive=False`` gives the earlier expert (standard
policy everywhere), for study.

When the stock is empty and few cards remain (the product of the hands'
factorials at most ``endgame_leaves``) each sampled deck is instead solved
exactly (:func:`~pishti.bots.playout.solve`: both teams at their best), and
the card with the best mean is played (the default on ties).  For study, at a
count of players in ``model_endgame`` (none in the level,
:data:`MODEL_ENDGAME`) each seat of the other team plays there a policy drawn
from its weights, as in the playouts (``standard`` at its best, the others by
their rule, a random card as the mean over its hand).

The budget per move is ``samples`` sampled decks (``endgame_samples`` in an
exact endgame), and optionally ``time_limit`` seconds after which no further
deck is sampled or solved (at least :data:`MIN_SAMPLES`), counted from the
start of :meth:`ExpertBot.choose` on ``clock``: ``"wall"`` (elapsed time,
:func:`time.perf_counter`) or ``"cpu"`` (:func:`time.thread_time`, the CPU
time of the thread making the move, which other load on the machine does not
stretch).  A time limit makes choices depend on the machine's speed, so the
level itself has none.  With a time limit the decks are sampled in rounds of
:data:`ROUND` (each round's placements proposed and weighed when the search
reaches it), so that a large ``samples`` costs nothing until the time allows
it.  The samples come from a generator seeded with the bot's seed and the
public position (deck number, cards played, seat), so a choice depends only on
the seed and what the seat has seen (R7.7) in this match.  The bot keeps its
model between moves and starts a new one when a new match begins (the deck
number or the number of cards played goes back).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from pishti.bots.determinize import Determinizer, Placement
from pishti.bots.fastplay import fast_playout, fast_solve
from pishti.bots.knowledge import Knowledge
from pishti.bots.opponents import EPSILON, FLOOR, PRIOR, STANDARD, OpponentModel
from pishti.bots.playout import clone_deck, distinct_cards, mixed_playout, playout, solve
from pishti.bots.standard import card_values, standard_card
from pishti.engine.cards import CARD_POINTS, Card
from pishti.engine.deck import CARDS_PER_HAND, PLAYS_PER_DECK
from pishti.engine.view import SeatView

SAMPLES = 128
"""Sampled decks per move of the ``expert`` level."""
MARGIN = 1.0
"""Standard errors by which a card must beat the standard policy's card."""
ENDGAME_LEAVES = 600
"""Solve exactly when the product of the hand sizes' factorials is at most this."""
ENDGAME_SAMPLES = 48
"""Sampled decks per move in an exact endgame."""
MODEL_ENDGAME: tuple[int, ...] = ()
"""Counts of players at which the exact endgame plays the other team by the
opponent model (module doc; none in the level, measured and not kept)."""
HORIZON: int | None = None
"""Playouts stop this many plays after the current deal (None: at the deck's end)."""
PROPOSALS = 4
"""Placements proposed per sampled deck, to be resampled by likelihood (module doc)."""
BATCH = 16
"""Sampled decks between two prunings of the cards clearly worse than the default."""
PRUNE = 2.5
"""Standard errors by which a card must trail the default to be dropped from the search."""
OBVIOUS = 5.0
"""Points by which the standard policy's card must lead every other for no search at all."""
MIN_SAMPLES = 8
"""Sampled decks played before a time limit may stop the search."""
ROUND = 32
"""Sampled decks drawn at a time when the search has a time limit (module doc)."""
TEMPERATURE: float | None = None
"""How the opponent model judges plays against the standard policy (points;
None: the exact rule, :func:`~pishti.bots.opponents.play_likelihoods`)."""

Clock = Literal["wall", "cpu"]
"""What a ``time_limit`` is measured on: elapsed time or the thread's CPU time."""
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
"""The clock function of each :data:`Clock` (seconds)."""


def _same_play(a: Card, b: Card) -> bool:
    """True when ``a`` and ``b`` have the same effect: same rank and card points."""
    return a >> 2 == b >> 2 and CARD_POINTS[a] == CARD_POINTS[b]


def _clearly_worse(values: Sequence[float], base: Sequence[float]) -> bool:
    """True when ``values`` trail ``base`` (paired) by more than :data:`PRUNE` standard errors."""
    n = len(values)
    diffs = [a - b for a, b in zip(values, base, strict=True)]
    gain = sum(diffs) / n
    return gain + PRUNE * statistics.stdev(diffs) / math.sqrt(n) < 0


def pick_card(
    values: dict[Card, list[float]], default: Card, margin: float
) -> tuple[Card, float, float]:
    """Pick the card to play from paired sample values.

    Args:
        values: for each candidate card, its value on each sampled deck, in
            the same sample order for every card; ``default`` among them.
        default: the standard policy's card.
        margin: standard errors by which another card's mean paired gain over
            ``default`` must exceed zero.
    Returns:
        ``(card, gain, standard_error)``: the card, its mean gain over the
        default per sampled deck (points), and that gain's standard error;
        ``(default, 0.0, 0.0)`` when no card qualifies.
    """
    base = values[default]
    n = len(base)
    best, best_gain, best_se = default, 0.0, 0.0
    if n == 0:
        return best, best_gain, best_se
    for card, vals in values.items():
        if card == default:
            continue
        diffs = [a - b for a, b in zip(vals, base, strict=True)]
        gain = sum(diffs) / n
        se = statistics.stdev(diffs) / math.sqrt(n) if n > 1 else 0.0
        if gain > 0 and gain > margin * se and gain > best_gain:
            best, best_gain, best_se = card, gain, se
    return best, best_gain, best_se


class ExpertBot:
    """Level ``expert``: determinized Monte Carlo over the standard policy (module doc).

    Attributes:
        seed: the seed of its choices (drawn at random when None is given).
        samples, time_limit, clock, margin, endgame_leaves, endgame_samples,
            proposals, horizon, obvious: the budget and rules of the search
            (module doc and the module constants of the same names, which are
            the defaults; ``time_limit`` in seconds on ``clock``, ``"wall"`` or
            ``"cpu"``).
        adaptive: whether it learns how the other seats play (module doc).
        model_endgame: the counts of players at which the exact endgame plays
            the other team by policies drawn from the model
            (:data:`MODEL_ENDGAME`; module doc); no effect with
            ``adaptive=False``.
        prior: the opponent model's prior weight of each policy
            (:data:`~pishti.bots.opponents.PRIOR` by default).
        temperature: how the model judges plays against the standard policy
            (points; None, :data:`TEMPERATURE`, the exact rule); it has no
            effect with ``adaptive=False``, which keeps no model.
        floor, opportunist_epsilon: the model's least weight of a policy and
            the share of the opportunist's captures that may be anything
            (:class:`~pishti.bots.opponents.OpponentModel`; the level keeps
            :data:`~pishti.bots.opponents.FLOOR` and
            :data:`~pishti.bots.opponents.EPSILON`; other values are for study).
        fast: whether playouts and endgames run on the fused loops of
            :mod:`pishti.bots.fastplay` (True) or on copies of the
            :class:`Deck` through :func:`~pishti.bots.playout.mixed_playout`
            and :func:`~pishti.bots.playout.solve`, the reference (False);
            both give the same values, so the same choices.
        model: the opponent model of the match in play, or None.
        last_search: ``(samples used, gain, standard error)`` of the last move
            searched, for study.
    """

    name = "expert"

    def __init__(
        self,
        seed: int | None = None,
        *,
        samples: int = SAMPLES,
        time_limit: float | None = None,
        clock: Clock = "wall",
        margin: float = MARGIN,
        endgame_leaves: int = ENDGAME_LEAVES,
        endgame_samples: int = ENDGAME_SAMPLES,
        proposals: int = PROPOSALS,
        horizon: int | None = HORIZON,
        obvious: float = OBVIOUS,
        adaptive: bool = True,
        model_endgame: Sequence[int] = MODEL_ENDGAME,
        prior: Sequence[float] = PRIOR,
        temperature: float | None = TEMPERATURE,
        floor: float = FLOOR,
        opportunist_epsilon: float = EPSILON,
        fast: bool = True,
    ) -> None:
        """Build an expert; the keyword arguments set its budget (module doc).

        Raises:
            ValueError: ``samples`` or ``endgame_samples`` below 1, a
                ``time_limit`` that is not positive, a ``clock`` other than
                ``"wall"`` and ``"cpu"``, a ``prior`` that does not give a
                weight of at least 0 to each policy, some above 0, a
                ``temperature`` that is neither None nor a finite number above 0,
                a ``floor`` outside [0, 1), an ``opportunist_epsilon`` outside (0, 1]
                or a ``model_endgame`` that is not a sequence of 2s and 4s.
        """
        if samples < 1 or endgame_samples < 1 or proposals < 1:
            raise ValueError("an expert needs at least one sample per move")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit must be positive seconds, not {time_limit!r}")
        if clock not in CLOCKS:
            raise ValueError(f"clock must be 'wall' or 'cpu', not {clock!r}")
        if not isinstance(model_endgame, Sequence) or any(
            type(n) is not int or n not in (2, 4) for n in model_endgame
        ):
            raise ValueError(
                f"model_endgame must be counts of players (2, 4), not {model_endgame!r}"
            )
        # Raises ValueError on a bad prior, temperature, floor or epsilon.
        OpponentModel(2, prior, temperature, floor, opportunist_epsilon)
        self.seed = seed if seed is not None else random.SystemRandom().getrandbits(63)
        self.samples = samples
        self.time_limit = time_limit
        self.clock: Clock = clock
        self.margin = margin
        self.endgame_leaves = endgame_leaves
        self.endgame_samples = endgame_samples
        self.proposals = proposals
        self.horizon = horizon
        self.obvious = obvious
        self.adaptive = adaptive
        self.model_endgame = tuple(model_endgame)
        self.prior = tuple(prior)
        self.temperature = temperature
        self.floor = floor
        self.opportunist_epsilon = opportunist_epsilon
        self.fast = fast
        self.model: OpponentModel | None = None
        self._seen = (-1, -1)
        self.last_search: tuple[int, float, float] = (0, 0.0, 0.0)

    def _follow(self, view: SeatView) -> OpponentModel | None:
        """The opponent model of this match (a new one when a new match began)."""
        if not self.adaptive:
            return None
        now = (view.deck, len(view.history))
        if self.model is None or self.model.players != view.players or now < self._seen:
            self.model = OpponentModel(
                view.players, self.prior, self.temperature, self.floor, self.opportunist_epsilon
            )
        self._seen = now
        return self.model

    def choose(self, view: SeatView) -> Card:
        """Return the card to play from ``view.legal_cards`` (R3.1, R7.7).

        Raises:
            ValueError: it is not this seat's turn (no legal card).
        """
        clock = CLOCKS[self.clock]
        start = clock()
        hand = view.legal_cards
        if not hand:
            raise ValueError(f"seat {view.seat} has no card to play now")
        knowledge = Knowledge.from_view(view)
        model = self._follow(view)
        default = standard_card(hand, view.seat, knowledge)
        candidates = [c for c in distinct_cards(hand) if not _same_play(c, default)]
        if not candidates or self._obvious(hand, view.seat, knowledge, default):
            self.last_search = (0, 0.0, 0.0)
            return default
        candidates.append(default)
        rng = random.Random(f"{self.seed}/{view.deck}/{len(view.history)}/{view.seat}")
        determinizer = Determinizer(view, knowledge, model)
        if not view.stock_size and _leaves(view.hand_sizes) <= self.endgame_leaves:
            return self._solve(view, determinizer, candidates, default, rng, start)
        team = view.team
        seat = view.seat
        values: dict[Card, list[float]] = {c: [] for c in candidates}
        active = list(candidates)
        limit = self.time_limit
        used = 0
        placements = self._placements(determinizer, rng, self.samples)
        stop = _playout_stop(len(view.history), view.players, self.horizon)
        fast = self.fast
        standard_seats = [STANDARD] * view.players
        for used, placement in enumerate(placements, start=1):
            deck = determinizer.build(placement)
            if model is not None:
                policies = [
                    STANDARD if s == seat else model.draw(s, rng) for s in range(view.players)
                ]
                sample_seed = rng.getrandbits(32)
            else:
                policies = standard_seats
                sample_seed = 0
            if fast:
                down = deck.middle[:3]
                for card in active:
                    # The same draws for every card: their values stay paired.
                    values[card].append(
                        fast_playout(
                            deck,
                            knowledge,
                            down,
                            card,
                            team,
                            policies,
                            random.Random(sample_seed),
                            stop,
                        )
                    )
            else:
                sample_knowledge = knowledge.copy()
                sample_knowledge.face_down = deck.middle[:3]
                for card in active:
                    child = clone_deck(deck)
                    child_knowledge = sample_knowledge.copy()
                    child_knowledge.observe(seat, card, child.play(card))
                    if model is None:
                        value = playout(child, child_knowledge, team, stop)
                    else:
                        value = mixed_playout(
                            child, child_knowledge, team, policies, random.Random(sample_seed), stop
                        )
                    values[card].append(value)
            if limit is not None and used >= MIN_SAMPLES and clock() - start > limit:
                break
            if used % BATCH == 0:
                base = values[default]
                active = [c for c in active if c == default or not _clearly_worse(values[c], base)]
                if len(active) == 1:
                    break
        card, gain, se = pick_card({c: values[c] for c in active}, default, self.margin)
        self.last_search = (used, gain, se)
        return card

    def _placements(
        self, determinizer: Determinizer, rng: random.Random, count: int
    ) -> Iterator[Placement]:
        """``count`` placements for the search (step 2): all proposed and weighed
        at once without a time limit, else in rounds of :data:`ROUND`, a round
        only when the search asks for its first placement."""
        if self.time_limit is None:
            yield from determinizer.resample(rng, count, self.proposals * count)
            return
        while count > 0:
            size = min(count, ROUND)
            yield from determinizer.resample(rng, size, self.proposals * size)
            count -= size

    def _obvious(
        self, hand: Sequence[Card], seat: int, knowledge: Knowledge, default: Card
    ) -> bool:
        """True when the standard policy values ``default`` at least
        ``obvious`` points above every card that plays differently."""
        values = card_values(hand, seat, knowledge)
        best = values[hand.index(default)]
        return all(
            best - value >= self.obvious
            for card, value in zip(hand, values, strict=True)
            if not _same_play(card, default)
        )

    def _solve(
        self,
        view: SeatView,
        determinizer: Determinizer,
        candidates: Sequence[Card],
        default: Card,
        rng: random.Random,
        start: float,
    ) -> Card:
        """Play the card with the best mean exact value over sampled decks
        (``endgame_samples`` of them, or fewer when the time limit, counted
        from ``start`` on the bot's clock, passes); the other team by the
        model's policies at a count of players in ``model_endgame``."""
        team = view.team
        model = self.model if view.players in self.model_endgame else None
        values: dict[Card, list[float]] = {c: [] for c in candidates}
        fast = self.fast
        limit = self.time_limit
        clock = CLOCKS[self.clock]
        used = 0
        for used, placement in enumerate(
            self._placements(determinizer, rng, self.endgame_samples), start=1
        ):
            deck = determinizer.build(placement)
            policies = None
            if model is not None:
                policies = [
                    STANDARD if s & 1 == team else model.draw(s, rng) for s in range(view.players)
                ]
            for card in candidates:
                if fast:
                    values[card].append(fast_solve(deck, card, team, policies))
                else:
                    child = clone_deck(deck)
                    child.play(card)
                    values[card].append(solve(child, team, policies=policies))
            if limit is not None and used >= MIN_SAMPLES and clock() - start > limit:
                break
        card, gain, se = pick_card(values, default, 0.0)
        self.last_search = (used, gain, se)
        return card


def _playout_stop(played: int, players: int, horizon: int | None) -> int:
    """Where playouts stop: ``horizon`` plays past the end of the current deal
    (at least a full round past this move), or the deck's end when None."""
    if horizon is None:
        return PLAYS_PER_DECK
    per_deal = CARDS_PER_HAND * players
    end_of_deal = (played // per_deal + 1) * per_deal
    return min(PLAYS_PER_DECK, max(end_of_deal, played + players + 1) + horizon)


def _leaves(hand_sizes: Sequence[int]) -> int:
    """How many ways the rest of a deal can be played: the product of ``n!`` over hands."""
    out = 1
    for n in hand_sizes:
        out *= math.factorial(n)
    return out
