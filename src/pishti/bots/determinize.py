"""Determinization: deals that agree with everything a seat has seen (R7.7).

A :class:`Determinizer` is built from one :class:`~pishti.engine.view.SeatView`.
:meth:`Determinizer.propose` places the cards the seat has not seen (in the
other hands, in the stock and, unless its team took them, among the three
face-down cards) at random; :meth:`Determinizer.build` lays out a whole deck
with the seat's own hand, the face-up card and every card already played where
they were, and replays the deck's history through :meth:`Deck.play`: the
result is a :class:`Deck` at the very position the seat sees, with the hidden
cards filled in.

Inference from play, in two steps:

- the proposal respects voids: a seat that laid a card on a top card it did
  not take (:attr:`Knowledge.voids`) gets a card of that rank only with
  probability :data:`VOID_KEEP` per card, in this deal;
- :meth:`Determinizer.resample` weighs many proposals by how well they explain
  the plays the other seats made this deal: each play the standard policy
  would not have made from the hand the placement gives that seat multiplies
  the weight by :data:`MISMATCH`; the placements kept are drawn in proportion.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from pishti.bots.knowledge import Knowledge, unseen_cards
from pishti.bots.opponents import EPSILON, POLICIES, RANDOM, OpponentModel, play_likelihoods
from pishti.bots.standard import standard_card
from pishti.engine.cards import CARD_POINTS, Card
from pishti.engine.deck import CARDS_PER_HAND, PLAYS_PER_DECK, Deck
from pishti.engine.view import SeatView

T = TypeVar("T")

VOID_KEEP = 0.1
"""Chance to keep a card of a rank its seat passed on, when dealing it to that seat."""
MISMATCH = 0.1
"""Likelihood factor of a play this deal that the standard policy would not have made."""


@dataclass(slots=True)
class Placement:
    """Where the unseen cards lie in one sample.

    Attributes:
        hands: by seat, the cards held now (the seat's own hand included).
        down: the three face-down cards.
        stock: the cards still to be dealt, in dealing order.
    """

    hands: list[list[Card]]
    down: tuple[Card, ...]
    stock: list[Card]


Check = tuple[int, Card, Knowledge, list[Card]]
"""``(seat, card, knowledge before the play, the seat's later plays this deal)``."""


def _policy_checks(view: SeatView, per_deal: int) -> list[Check]:
    """The plays of this deal by other seats holding two cards or more, with the
    public knowledge just before each, for :meth:`Determinizer.likelihood`."""
    history = view.history
    start = len(history) // per_deal * per_deal
    k = Knowledge(view.players, view.face_up)
    checks: list[Check] = []
    for i, play in enumerate(history):
        if i >= start and play.seat != view.seat and k.hand_sizes[play.seat] >= 2:
            later = [p.card for p in history[i:] if p.seat == play.seat]
            checks.append((play.seat, play.card, k.copy(), later))
        k.observe(play.seat, play.card, play.outcome)
    return checks


class Determinizer:
    """Samples full decks that agree with one seat's view (see the module doc).

    Attributes:
        view: the seat's view.  unseen: the cards it has not seen, ascending.
        knowledge: the deck's public knowledge, voids included.
        use_voids: whether proposals respect the voids (True; False places
            the unseen cards uniformly, for study).
    """

    def __init__(
        self,
        view: SeatView,
        knowledge: Knowledge | None = None,
        model: OpponentModel | None = None,
    ) -> None:
        """Prepare the placement of ``view``'s unseen cards.

        With an opponent ``model`` (:mod:`pishti.bots.opponents`) the plays
        are weighed under each seat's mixture of policies instead of the
        standard policy alone, voids are trusted as much as the seat does not
        play at random, and :meth:`resample` records this deal's evidence in
        the model.

        Raises:
            ValueError: the view is not consistent (sizes against history).
        """
        self.view = view
        self.knowledge = knowledge if knowledge is not None else Knowledge.from_view(view)
        self.unseen = unseen_cards(view)
        players = view.players
        per_deal = CARDS_PER_HAND * players
        self._current = len(view.history) // per_deal
        self._deals = PLAYS_PER_DECK // per_deal
        played: list[list[list[Card]]] = [
            [[] for _ in range(players)] for _ in range(self._current + 1)
        ]
        for i, play in enumerate(view.history):
            played[i // per_deal][play.seat].append(play.card)
        self._played = played
        self._others = [s for s in range(players) if s != view.seat]
        self.use_voids = True
        self.model = model
        self._keep = [VOID_KEEP] * players
        if model is not None:
            for s in self._others:
                self._keep[s] = VOID_KEEP + (1.0 - VOID_KEEP) * model.weights(s)[RANDOM]
        # Seats that showed a void are placed first (module doc).
        voids = self.knowledge.voids
        self._order = sorted(self._others, key=lambda s: voids[s] == 0)
        self._checks = _policy_checks(view, per_deal)
        down = 0 if view.face_down is not None else 3
        slots = sum(view.hand_sizes[s] for s in self._others) + down + view.stock_size
        if slots != len(self.unseen):
            raise ValueError(
                f"{len(self.unseen)} unseen cards for {slots} hidden places: "
                "the view is inconsistent"
            )

    def set_void_keep(self, keep: float) -> None:
        """From now on, deal every other seat a card of a rank it passed on with
        chance ``keep`` (0: its voids are certain; 1: they are ignored), in place
        of :data:`VOID_KEEP` or what the opponent model gave; call it after
        changing ``knowledge.voids`` too, so the seats that showed a void are
        placed first again.

        Raises:
            ValueError: ``keep`` is not a number from 0 to 1.
        """
        if isinstance(keep, bool) or not isinstance(keep, int | float) or not 0 <= keep <= 1:
            raise ValueError(f"a chance to keep a card must be from 0 to 1, not {keep!r}")
        for seat in self._others:
            self._keep[seat] = keep
        voids = self.knowledge.voids
        self._order = sorted(self._others, key=lambda s: voids[s] == 0)

    @property
    def checks(self) -> list[Check]:
        """The plays of this deal that :meth:`likelihood` judges (:data:`Check`),
        in play order; the determinizer's own list, to read, not to change."""
        return self._checks

    def propose(self, rng: random.Random) -> Placement:
        """Place the unseen cards at random, biased by the voids (module doc)."""
        view = self.view
        players = view.players
        pool = self.unseen[:]
        rng.shuffle(pool)
        hands: list[list[Card]] = [[] for _ in range(players)]
        hands[view.seat] = list(view.hand)
        voids = self.knowledge.voids
        # Seats that showed a void first, each from the cards not yet placed.
        for seat in self._order:
            need = view.hand_sizes[seat]
            mask = voids[seat]
            keep = self._keep[seat]
            if not need:
                continue
            if not mask or not self.use_voids:
                hands[seat] = pool[-need:]
                del pool[-need:]
                continue
            chosen: list[Card] = []
            rest: list[Card] = []
            for i, card in enumerate(pool):
                if len(chosen) == need:
                    rest.extend(pool[i:])
                    break
                if not mask >> (card >> 2) & 1 or rng.random() < keep:
                    chosen.append(card)
                else:
                    rest.append(card)
            while len(chosen) < need:  # too few cards outside the voids
                chosen.append(rest.pop())
            hands[seat] = chosen
            pool = rest
        if view.face_down is not None:
            down = tuple(view.face_down)
        else:
            down = tuple(pool[-3:])
            del pool[-3:]
        return Placement(hands, down, pool)

    def likelihood(self, placement: Placement) -> float:
        """How well ``placement`` explains this deal's plays by the other seats.

        Each play a seat made this deal, with two cards or more in hand, is
        compared with the card the standard policy would have played from the
        hand the placement gives it then: a different card multiplies the
        likelihood by :data:`MISMATCH`.  Returns a value in (0, 1].
        """
        out = 1.0
        down = placement.down
        for seat, card, before, later in self._checks:
            hand = later + placement.hands[seat]
            before.face_down = down
            choice = standard_card(hand, seat, before)
            if choice >> 2 != card >> 2 or CARD_POINTS[choice] != CARD_POINTS[card]:
                out *= MISMATCH
        return out

    def policy_products(self, placement: Placement) -> dict[int, list[float]]:
        """Per seat with plays to judge, the likelihood of its plays this deal
        under each policy of :data:`~pishti.bots.opponents.POLICIES`."""
        out: dict[int, list[float]] = {}
        down = placement.down
        model = self.model
        temperature = model.temperature if model is not None else None
        strict = model.opportunist_epsilon if model is not None else EPSILON
        for seat, card, before, later in self._checks:
            hand = later + placement.hands[seat]
            before.face_down = down
            std, greedy, rand, opportunist = play_likelihoods(
                hand, card, seat, before, temperature, strict
            )
            row = out.get(seat)
            if row is None:
                out[seat] = [std, greedy, rand, opportunist]
            else:
                row[0] *= std
                row[1] *= greedy
                row[2] *= rand
                row[3] *= opportunist
        return out

    def mixture_weight(self, products: dict[int, list[float]]) -> float:
        """A placement's weight: per seat, its policies' likelihoods mixed by the
        model's weights, multiplied over seats."""
        model = self.model
        assert model is not None
        out = 1.0
        for seat, row in products.items():
            w = model.weights(seat)
            out *= w[0] * row[0] + w[1] * row[1] + w[2] * row[2] + w[3] * row[3]
        return out

    def build(self, placement: Placement) -> Deck:
        """Lay out the whole deck of ``placement`` and replay the history on it.

        Returns the deck at the seat's turn; ``deck.middle[:3]`` are the
        face-down cards of this placement.
        """
        view = self.view
        players = view.players
        hands = placement.hands
        stock = placement.stock
        middle = (*placement.down, view.face_up)
        deals: list[tuple[tuple[Card, ...], ...]] = []
        at = 0
        for k in range(self._deals):
            if k < self._current:
                deals.append(tuple(tuple(cards) for cards in self._played[k]))
            elif k == self._current:
                deals.append(tuple(tuple(self._played[k][s] + hands[s]) for s in range(players)))
            else:
                row = []
                for _ in range(players):
                    row.append(tuple(stock[at : at + CARDS_PER_HAND]))
                    at += CARDS_PER_HAND
                deals.append(tuple(row))
        deck = Deck._laid(players, view.dealer, middle, tuple(deals))
        for play in view.history:
            deck.play(play.card)
        return deck

    def sample(self, rng: random.Random) -> Deck:
        """One deck from one proposal, unweighted (:meth:`propose` then :meth:`build`)."""
        return self.build(self.propose(rng))

    def draw(self, rng: random.Random, count: int, proposals: int) -> list[Deck]:
        """``count`` decks built from :meth:`resample` (see there)."""
        return [self.build(p) for p in self.resample(rng, count, proposals)]

    def resample(self, rng: random.Random, count: int, proposals: int) -> list[Placement]:
        """``count`` placements resampled in proportion to :meth:`likelihood`.

        ``proposals`` placements (at least ``count``) are proposed and weighed;
        ``count`` of them are drawn by systematic resampling (a likely
        placement may come more than once, an unlikely one not at all).
        """
        proposals = max(proposals, count)
        placed = [self.propose(rng) for _ in range(proposals)]
        if not self._checks:
            return placed[:count]
        model = self.model
        if model is None:
            weights = [self.likelihood(p) for p in placed]
        else:
            view = self.view
            key = (view.deck, self._current)
            # This deal's plays are judged under the weights learnt before it.
            many = len(POLICIES)
            model.record(key[0], key[1], [[0.0] * many for _ in range(view.players)])
            products = [self.policy_products(p) for p in placed]
            weights = [self.mixture_weight(row) for row in products]
            sums = [[0.0] * many for _ in range(view.players)]
            for row in products:
                for seat, values in row.items():
                    for i in range(many):
                        sums[seat][i] += values[i]
            logs = [
                [math.log(v / len(placed)) if v > 0 else -50.0 for v in per_seat]
                if any(per_seat)
                else [0.0] * many
                for per_seat in sums
            ]
            model.record(key[0], key[1], logs)
        return systematic_resample(placed, weights, count, rng)


def systematic_resample(
    items: Sequence[T], weights: Sequence[float], count: int, rng: random.Random
) -> list[T]:
    """``count`` of ``items`` drawn in proportion to ``weights`` (each >= 0, some > 0)
    by systematic resampling: one draw from ``rng``, then evenly spaced points, so
    an item of weight share ``w`` comes ``count * w`` times, rounded up or down."""
    step = sum(weights) / count
    point = rng.random() * step
    chosen: list[T] = []
    running = 0.0
    for item, w in zip(items, weights, strict=True):
        running += w
        while point < running and len(chosen) < count:
            chosen.append(item)
            point += step
    while len(chosen) < count:  # rounding at the very end
        chosen.append(items[-1])
    return chosen
