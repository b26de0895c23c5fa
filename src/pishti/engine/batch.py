"""Many decks played in step on numpy arrays: the fast core for simulation and learning.

:class:`DeckBatch` holds ``size`` decks of one player count and plays one card in
every deck per call of :meth:`DeckBatch.play`, with the rules of
:class:`~pishti.engine.deck.Deck` (R2-R5, R8.1) written as array operations.
:class:`Deck` stays the reference: the match, records, server and bots play
through it, and this module is checked against it card by card
(``tests/engine/test_batch.py`` on thousands of decks, ``bench/engine_equivalence.py``
on 100,000 and more).

Every deck of a batch is at the same play (all decks have played ``plays``
cards), so the deals come at the same time in all of them; the seat to play
differs by dealer.  The pile is kept as what the count needs (its size, top
card and the aces, jacks, two of clubs and ten of diamonds in it), not as a
list of cards.

Needs numpy (the ``research`` extra: ``pip install pishti[research]``).
"""

from __future__ import annotations

try:
    import numpy as np
    from numpy.typing import NDArray
except ImportError as exc:  # the core install has no numpy
    raise ImportError("pishti.engine.batch needs numpy: pip install 'pishti[research]'") from exc

from pishti.engine.cards import ACE, CARD_POINTS, JACK, TEN_OF_DIAMONDS, TWO_OF_CLUBS, Card
from pishti.engine.deck import (
    CARDS_PER_HAND,
    MOST_CARDS,
    PLAYS_PER_DECK,
    Deck,
    TeamCount,
)
from pishti.engine.errors import DealError, IllegalPlay

Ints = NDArray[np.int64]
"""An array of ints (cards, seats, counts)."""

FEATURES = ("cards", "aces", "jacks", "two_of_clubs", "ten_of_diamonds")
"""What a pile and a team's taken cards are counted by (R5.2, R5.3), in this order."""

_FEATURE_OF_CARD: Ints = np.array(
    [
        [1, c >> 2 == ACE, c >> 2 == JACK, c == TWO_OF_CLUBS, c == TEN_OF_DIAMONDS]
        for c in range(52)
    ],
    dtype=np.int64,
)
"""``_FEATURE_OF_CARD[card]``: the card's contribution to each of :data:`FEATURES`."""

POINTS_OF_CARD: Ints = np.array(CARD_POINTS, dtype=np.int64)
"""Card points of each card (R5.2), as an array."""


class DeckBatch:
    """``size`` decks of ``players`` players, played in step (R2-R5, R8.1).

    Build one with :func:`deal_batch` (random deals) or :meth:`from_layout`
    (given deals, checked as :meth:`Deck.from_layout` checks them), then call
    :meth:`play` 48 times with one card per deck.

    Attributes (arrays indexed by deck first; read them, never write them):
        players: 4 or 2.
        size: how many decks.
        dealer: ``(size,)`` the dealer of each deck.
        middle: ``(size, 4)`` the three face-down cards, then the face-up card.
        deals: ``(size, deals, players, 4)``: ``deals[i, k, s]`` is seat ``s``'s
            cards in deal ``k`` of deck ``i`` (3 deals with 4 players, 6 with 2).
        plays: how many cards each deck has played (the same for all).
        hands: ``(size, players, 4)`` each seat's cards in the order dealt, -1
            for a card already played.
        to_play: ``(size,)`` the seat to play.
        top: ``(size,)`` the pile's top card, -1 when the table is empty (R3.5).
        pile: ``(size, 5)`` the pile counted by :data:`FEATURES` (``pile[:, 0]``
            is its size).
        taken: ``(size, 2, 5)`` the cards each team took, counted by :data:`FEATURES`.
        pishtis, jack_pishtis: ``(size, 2)`` per team (R4.1, R4.2).
        face_down_team: ``(size,)`` the team that took the face-down cards, -1 before (R3.6).
        last_capture_team: ``(size,)`` the team that captured last, -1 before.
        points: ``(size, 2)`` each team's points for the deck once over (R5.2), else None.
    """

    def __init__(self, players: int, dealer: Ints, middle: Ints, deals: Ints) -> None:
        """Lay out decks without checking them; use :meth:`from_layout` for untrusted input."""
        self.players = players
        self.size = len(dealer)
        self.dealer = np.asarray(dealer, dtype=np.int64)
        self.middle = np.asarray(middle, dtype=np.int64)
        self.deals = np.asarray(deals, dtype=np.int64)
        self._rows = np.arange(self.size)
        self._per_deal = CARDS_PER_HAND * players
        self.plays = 0
        self.hands: Ints = self.deals[:, 0].copy()
        self.to_play: Ints = (self.dealer + 1) % players
        self.top: Ints = self.middle[:, 3].copy()
        self.pile: Ints = _FEATURE_OF_CARD[self.middle].sum(axis=1)
        self.taken: Ints = np.zeros((self.size, 2, len(FEATURES)), dtype=np.int64)
        self.pishtis: Ints = np.zeros((self.size, 2), dtype=np.int64)
        self.jack_pishtis: Ints = np.zeros((self.size, 2), dtype=np.int64)
        self.face_down_team: Ints = np.full(self.size, -1, dtype=np.int64)
        self.last_capture_team: Ints = np.full(self.size, -1, dtype=np.int64)
        self.points: Ints | None = None

    @classmethod
    def from_layout(
        cls, players: int, dealer: Ints | list[int], middle: Ints, deals: Ints
    ) -> DeckBatch:
        """Check each deal as :meth:`Deck.from_layout` does (R2, R8.1), then lay them out.

        Args:
            players: 4 or 2.
            dealer: one dealer seat per deck.
            middle: ``(size, 4)`` cards, the face-up card last.
            deals: ``(size, deals, players, 4)`` cards.
        Raises:
            DealError: a deal that :meth:`Deck.from_layout` refuses; the message
                names the deck (from 0).
        """
        dealer = np.asarray(dealer, dtype=np.int64)
        middle = np.asarray(middle, dtype=np.int64)
        deals = np.asarray(deals, dtype=np.int64)
        if middle.shape[0] != len(dealer) or deals.shape[0] != len(dealer):
            raise DealError("dealer, middle and deals must describe the same number of decks")
        for i in range(len(dealer)):
            try:
                Deck.from_layout(players, int(dealer[i]), middle[i].tolist(), deals[i].tolist())
            except DealError as exc:
                raise DealError(f"deck {i}: {exc}") from None
        return cls(players, dealer, middle, deals)

    @classmethod
    def from_decks(cls, decks: list[Deck]) -> DeckBatch:
        """The batch of the given decks' deals (each at its start), all of one player count.

        Raises:
            DealError: no decks, or decks of different player counts.
        """
        if not decks or len({d.players for d in decks}) != 1:
            raise DealError("from_decks needs decks of one player count")
        return cls(
            decks[0].players,
            np.array([d.dealer for d in decks]),
            np.array([d.middle for d in decks]),
            np.array([d.deals for d in decks]),
        )

    def deck(self, index: int) -> Deck:
        """The reference :class:`Deck` of deck ``index``'s deal, at its start."""
        return Deck(
            self.players,
            int(self.dealer[index]),
            self.middle[index].tolist(),
            self.deals[index].tolist(),
        )

    @property
    def over(self) -> bool:
        """True once all 48 cards have been played and the decks counted (R5.1)."""
        return self.points is not None

    def legal_mask(self) -> NDArray[np.bool_]:
        """``(size, 52)``: True for each card the seat to play holds (R3.1)."""
        mask = np.zeros((self.size, 52), dtype=np.bool_)
        if self.points is None:
            hand = self.hands[self._rows, self.to_play]
            held = hand >= 0
            rows = np.broadcast_to(self._rows[:, None], hand.shape)
            mask[rows[held], hand[held]] = True
        return mask

    def play(self, cards: Ints) -> Ints:
        """Play ``cards[i]`` in deck ``i`` for its seat to play (R3, R4, R2.3, R5).

        Returns:
            ``(size,)`` outcomes: ``LAID``, ``CAPTURE``, ``PISHTI`` or
            ``JACK_PISHTI`` (0 to 3) as :meth:`Deck.play` returns them.
        Raises:
            IllegalPlay: the decks are over or a seat does not hold its card;
                nothing changes.
        """
        if self.points is not None:
            raise IllegalPlay("the deck is over")
        cards = np.asarray(cards, dtype=np.int64)
        rows = self._rows
        seat = self.to_play
        hand = self.hands[rows, seat]
        found = hand == cards[:, None]
        held = found.any(axis=1)
        if not held.all():
            i = int(np.argmin(held))
            raise IllegalPlay(f"deck {i}: seat {int(seat[i])} does not hold card {int(cards[i])}")
        self.hands[rows, seat, found.argmax(axis=1)] = -1
        self.plays += 1
        rank = cards >> 2
        top = self.top
        top_rank = np.where(top >= 0, top >> 2, -1)
        pile = self.pile
        # R3.2 the same rank, R3.3 a jack; only on a pile that is not empty.
        capture = (top >= 0) & ((rank == JACK) | (top_rank == rank))
        # R4.1, R4.2: a pile of one card taken by its rank; R4.5: never with the 48th card.
        pishti = capture & (pile[:, 0] == 1) & (top_rank == rank)
        if self.plays == PLAYS_PER_DECK:
            pishti[:] = False
        jack_pishti = pishti & (rank == JACK)
        team = seat & 1
        pile += _FEATURE_OF_CARD[cards]
        taker = capture[:, None]
        self.taken[rows, team] += pile * taker
        pile *= ~taker
        self.pishtis[rows, team] += pishti & ~jack_pishti
        self.jack_pishtis[rows, team] += jack_pishti
        first = capture & (self.face_down_team < 0)  # R3.6
        self.face_down_team[first] = team[first]
        self.last_capture_team[capture] = team[capture]
        self.top = np.where(capture, -1, cards)
        self.to_play = (seat + 1) % self.players
        if self.plays % self._per_deal == 0:
            if self.plays < PLAYS_PER_DECK:
                self.hands = self.deals[:, self.plays // self._per_deal].copy()  # R2.3
            else:
                self._count()
        outcomes: Ints = capture.astype(np.int64) + pishti + jack_pishti
        return outcomes

    def _count(self) -> None:
        """Give the pile to the last team to capture (R5.1) and count the decks (R5.2, R5.3)."""
        last = self.last_capture_team
        self.taken[self._rows, last] += self.pile
        self.pile = np.zeros_like(self.pile)
        self.top = np.full(self.size, -1, dtype=np.int64)
        taken = self.taken
        most = taken[:, :, 0] >= MOST_CARDS
        self.points = (
            taken[:, :, 1]
            + taken[:, :, 2]
            + 2 * taken[:, :, 3]
            + 3 * taken[:, :, 4]
            + 3 * most
            + 10 * self.pishtis
            + 20 * self.jack_pishtis
        )

    def counts(self, index: int) -> tuple[TeamCount, TeamCount]:
        """Deck ``index``'s two :class:`TeamCount`, as :attr:`Deck.counts` gives them (R5.5).

        Raises:
            ValueError: the decks are not over.
        """
        if self.points is None:
            raise ValueError("the decks are not over")
        out = []
        for team in (0, 1):
            cards, aces, jacks, two, ten = (int(x) for x in self.taken[index, team])
            out.append(
                TeamCount(
                    cards,
                    aces,
                    jacks,
                    bool(two),
                    bool(ten),
                    cards >= MOST_CARDS,
                    int(self.pishtis[index, team]),
                    int(self.jack_pishtis[index, team]),
                    int(self.points[index, team]),
                )
            )
        return out[0], out[1]


def shuffled_batch(rng: np.random.Generator, size: int) -> Ints:
    """``(size, 52)``: each row the 52 cards in a uniformly random order (R2.1)."""
    return np.argsort(rng.random((size, 52)), axis=1).astype(np.int64)


def deal_batch(
    rng: np.random.Generator, size: int, players: int, dealer: Ints | int | None = None
) -> DeckBatch:
    """Shuffle and deal ``size`` new decks (R2.1-R2.4, R8.1).

    As :func:`~pishti.engine.deck.deal_deck` does: four cards go to the middle,
    the fourth face up; a jack turned up goes back into the stock at a
    uniformly random place and the next card is turned up, as often as needed
    (R2.2); deal ``k`` gives each seat four consecutive cards of the stock, the
    seat after the dealer first.  The random numbers come from ``rng`` (a numpy
    generator), so the decks differ from ``deal_deck``'s for the same seed.

    Args:
        dealer: one seat for all, one per deck, or None for ``i % players`` in deck ``i``.
    Raises:
        ValueError: ``players`` is not 4 or 2.
    """
    if players not in (2, 4):
        raise ValueError(f"players must be 4 or 2, not {players!r}")
    cards = shuffled_batch(rng, size)
    for i in np.nonzero(cards[:, 3] >> 2 == JACK)[0]:
        stock: list[Card] = cards[i, 3:].tolist()
        top = stock.pop(0)
        while top >> 2 == JACK:
            stock.insert(int(rng.integers(len(stock) + 1)), top)
            top = stock.pop(0)
        cards[i, 3] = top
        cards[i, 4:] = stock
    if dealer is None:
        dealers = np.arange(size, dtype=np.int64) % players
    else:
        dealers = np.broadcast_to(np.asarray(dealer, dtype=np.int64), (size,)).copy()
    first = (dealers + 1) % players
    n_deals = PLAYS_PER_DECK // (CARDS_PER_HAND * players)
    packets = cards[:, 4:].reshape(size, PLAYS_PER_DECK // CARDS_PER_HAND, CARDS_PER_HAND)
    k = np.arange(n_deals)[None, :, None]
    seat = np.arange(players)[None, None, :]
    index = k * players + (seat - first[:, None, None]) % players
    deals = packets[np.arange(size)[:, None, None], index]
    return DeckBatch(players, dealers, cards[:, :4].copy(), deals)


def random_cards(batch: DeckBatch, rng: np.random.Generator) -> Ints:
    """``(size,)``: for each deck a card drawn uniformly from the hand of its seat to play."""
    hand = batch.hands[batch._rows, batch.to_play]
    priority = np.where(hand >= 0, rng.random(hand.shape), -1.0)
    chosen: Ints = hand[batch._rows, priority.argmax(axis=1)]
    return chosen


def reference_differences(batch: DeckBatch, rng: np.random.Generator, limit: int = 10) -> list[str]:
    """Play ``batch`` (at its start) and the reference :class:`Deck` of each of its deals
    side by side, with the same random cards, and list where they differ.

    Each play's outcome, and at the end each deck's two counts (every field of
    :class:`TeamCount`), the team that took the face-down cards and the last
    team to capture are compared.  Each deal is first checked with
    :meth:`Deck.from_layout` (R2, R8.1).

    Returns:
        Up to ``limit`` lines, one per difference found; empty when the batch
        plays exactly as the reference.
    Raises:
        ValueError: the batch has already been played.
        DealError: a deal of the batch breaks R2.
    """
    if batch.plays:
        raise ValueError("the batch must be at its start")
    decks = [
        Deck.from_layout(
            batch.players,
            int(batch.dealer[i]),
            batch.middle[i].tolist(),
            batch.deals[i].tolist(),
        )
        for i in range(batch.size)
    ]
    found: list[str] = []
    for play in range(PLAYS_PER_DECK):
        cards = random_cards(batch, rng)
        outcomes = batch.play(cards).tolist()
        for i, (deck, card) in enumerate(zip(decks, cards.tolist(), strict=True)):
            outcome = deck.play(card)
            if outcome != outcomes[i] and len(found) < limit:
                found.append(f"deck {i}, play {play + 1}: outcome {outcomes[i]}, not {outcome}")
    for i, deck in enumerate(decks):
        if len(found) >= limit:
            break
        mine = (batch.counts(i), int(batch.face_down_team[i]), int(batch.last_capture_team[i]))
        theirs = (deck.counts, deck.face_down_team, deck.last_capture_team)
        if mine != theirs:
            found.append(f"deck {i}: counts, face-down and last capture {mine}, not {theirs}")
    return found
