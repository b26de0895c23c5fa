"""Card counting and inference: what a seat knows about the deck in play.

:class:`Knowledge` holds the *public* part of a deck: what every seat has
watched happen (the cards played, the captures, the pile, the hand and stock
sizes) plus the three face-down cards for the team that took them (R3.6).  It
is built from a seat's :class:`~pishti.engine.view.SeatView` (R7.7) by
:meth:`Knowledge.from_view`, and kept up to date play by play with
:meth:`Knowledge.observe`, which is how the expert's playouts use it.

What a single seat knows on top of that is its own hand: :meth:`Knowledge.unseen_for`
subtracts it.  Inference from play is kept per seat in ``voids``: a seat that
laid a card on a top card it did not capture probably holds no card of that
rank for the rest of the deal (every sensible player captures a matching top
card, R3.2).
"""

from __future__ import annotations

from collections.abc import Sequence

from pishti.engine.cards import ALL_CARDS, CARD_POINTS, Card
from pishti.engine.deck import CARDS_PER_HAND, LAID, PLAYS_PER_DECK
from pishti.engine.view import SeatView

RANK_COUNT = 13
"""Ranks in the deck (R1.1)."""
TOTAL_CARD_POINTS = sum(CARD_POINTS)
"""Card points in a deck, most cards aside: 13 (R5.2, R5.4)."""


def unseen_cards(view: SeatView) -> list[Card]:
    """Return, in ascending order, the cards ``view``'s seat has not seen (R7.7).

    They lie in the other seats' hands, in the stock and, unless the seat's team
    took them, among the three face-down cards.  Every card played this deck,
    the face-up card of the middle and the seat's own hand are seen.
    """
    seen = [False] * 52
    for card in view.hand:
        seen[card] = True
    for play in view.history:
        seen[play.card] = True
    seen[view.face_up] = True
    if view.face_down is not None:
        for card in view.face_down:
            seen[card] = True
    return [card for card in ALL_CARDS if not seen[card]]


class Knowledge:
    """The public state of one deck, kept play by play (R7.7).

    Attributes (cards are ints, points are match points, R5.2):
        players: 4 or 2.
        pile: the pile's cards that every seat has seen, bottom first; ``pile[-1]``
            is the top card.  Before the deck's first capture the pile also
            holds ``pile_hidden`` face-down cards underneath (R3.6).
        pile_hidden: 3 until the first capture of the deck, then 0.
        pile_points: card points of ``pile`` (the hidden cards aside).
        unseen: by rank, how many cards of that rank nobody has seen played or
            face up; a seat subtracts its own hand (:meth:`unseen_for`).
        unseen_count, unseen_points: the same cards' number and card points.
        hand_sizes: cards held, by seat.  stock_size: cards still to be dealt.
        plays_left: cards still to be played this deck (48 at the start).
        voids: by seat, a bit mask of ranks (``1 << rank``) the seat showed it
            probably lacks since the last deal: it laid a card on a top card
            of that rank instead of capturing it.
        taken_counts: cards taken by each team this deck.
        last_capture_team: the team that captured last this deck, or None.
        face_down: the three face-down cards when known (to ``face_down_team``), else None.
        face_down_team: the team that took the face-down cards, or None.
    """

    __slots__ = (
        "face_down",
        "face_down_team",
        "hand_sizes",
        "last_capture_team",
        "pile",
        "pile_hidden",
        "pile_points",
        "players",
        "plays_left",
        "stock_size",
        "taken_counts",
        "unseen",
        "unseen_count",
        "unseen_points",
        "voids",
    )

    def __init__(self, players: int, face_up: Card) -> None:
        """The knowledge at the start of a deck: ``face_up`` on three hidden cards (R2.2)."""
        self.players = players
        self.pile: list[Card] = [face_up]
        self.pile_hidden = 3
        self.pile_points = CARD_POINTS[face_up]
        self.unseen = [4] * RANK_COUNT
        self.unseen[face_up >> 2] -= 1
        self.unseen_count = 51
        self.unseen_points = TOTAL_CARD_POINTS - CARD_POINTS[face_up]
        self.hand_sizes = [CARDS_PER_HAND] * players
        self.stock_size = 52 - 4 - CARDS_PER_HAND * players
        self.plays_left = PLAYS_PER_DECK
        self.voids = [0] * players
        self.taken_counts = [0, 0]
        self.last_capture_team: int | None = None
        self.face_down: tuple[Card, ...] | None = None
        self.face_down_team: int | None = None

    @classmethod
    def from_view(cls, view: SeatView) -> Knowledge:
        """Rebuild the deck's public knowledge from ``view`` and its history (R7.7).

        ``face_down`` is set only when ``view``'s team took the face-down cards.

        Raises:
            ValueError: the view's history does not agree with its sizes.
        """
        k = cls(view.players, view.face_up)
        for play in view.history:
            k.observe(play.seat, play.card, play.outcome)
        if (
            tuple(k.hand_sizes) != tuple(view.hand_sizes)
            or k.stock_size != view.stock_size
            or len(k.pile) + k.pile_hidden != view.pile_size
        ):
            raise ValueError("the view's history does not agree with its hand and stock sizes")
        k.face_down = view.face_down
        k.face_down_team = view.face_down_team
        return k

    def copy(self) -> Knowledge:
        """Return an independent copy (for a playout)."""
        k = Knowledge.__new__(Knowledge)
        k.players = self.players
        k.pile = self.pile[:]
        k.pile_hidden = self.pile_hidden
        k.pile_points = self.pile_points
        k.unseen = self.unseen[:]
        k.unseen_count = self.unseen_count
        k.unseen_points = self.unseen_points
        k.hand_sizes = self.hand_sizes[:]
        k.stock_size = self.stock_size
        k.plays_left = self.plays_left
        k.voids = self.voids[:]
        k.taken_counts = self.taken_counts[:]
        k.last_capture_team = self.last_capture_team
        k.face_down = self.face_down
        k.face_down_team = self.face_down_team
        return k

    def observe(self, seat: int, card: Card, outcome: int) -> None:
        """Record that ``seat`` played ``card`` with ``outcome`` (a Deck.play result).

        Only bookkeeping: the outcome itself comes from :meth:`Deck.play`.  A
        laid card on a top card marks the top card's rank as a void of
        ``seat``; new hands after the deal's last card clear the voids (R2.3).
        """
        self.unseen[card >> 2] -= 1
        self.unseen_count -= 1
        self.unseen_points -= CARD_POINTS[card]
        sizes = self.hand_sizes
        sizes[seat] -= 1
        self.plays_left -= 1
        pile = self.pile
        if outcome == LAID:
            if pile:
                self.voids[seat] |= 1 << (pile[-1] >> 2)
            pile.append(card)
            self.pile_points += CARD_POINTS[card]
        else:
            team = seat & 1
            self.taken_counts[team] += len(pile) + self.pile_hidden + 1
            if self.face_down_team is None:
                self.face_down_team = team
            self.pile = []
            self.pile_hidden = 0
            self.pile_points = 0
            self.last_capture_team = team
        if self.stock_size and not any(sizes):
            self.hand_sizes = [CARDS_PER_HAND] * self.players
            self.stock_size -= CARDS_PER_HAND * self.players
            self.voids = [0] * self.players

    @property
    def pile_size(self) -> int:
        """How many cards the pile holds, hidden ones included."""
        return len(self.pile) + self.pile_hidden

    def unseen_for(self, seat: int, hand: Sequence[Card]) -> tuple[list[int], int, int]:
        """What ``seat`` holding ``hand`` has not seen.

        Returns:
            ``(by_rank, count, points)``: unseen cards by rank, how many, and
            their card points.  The face-down cards count as seen for the team
            that took them (R3.6).
        """
        by_rank = self.unseen[:]
        count = self.unseen_count - len(hand)
        points = self.unseen_points
        for card in hand:
            by_rank[card >> 2] -= 1
            points -= CARD_POINTS[card]
        down = self.face_down
        if down is not None and self.face_down_team == seat & 1:
            for card in down:
                by_rank[card >> 2] -= 1
                points -= CARD_POINTS[card]
            count -= len(down)
        return by_rank, count, points


def chance_to_hold(hand_size: int, pool: int, wanted: int) -> float:
    """Chance that ``hand_size`` cards drawn from ``pool`` unseen cards hold at
    least one of ``wanted`` given cards (hypergeometric), from 0.0 to 1.0."""
    if wanted <= 0 or hand_size <= 0 or pool <= 0:
        return 0.0
    others = pool - wanted
    none = 1.0
    for i in range(hand_size):
        if others - i <= 0:
            return 1.0
        none *= (others - i) / (pool - i)
    return 1.0 - none
