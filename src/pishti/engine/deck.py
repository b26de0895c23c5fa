"""One deck of play: the deal, the plays, the captures and the count (R2-R5, R8).

:class:`Deck` is the engine's lean core.  Every other part of the package (the
match, records, bots, the server) plays cards through :meth:`Deck.play`, so the
rules live in this one place.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import repeat, starmap
from operator import itemgetter
from typing import cast

from pishti.engine.cards import (
    ACE,
    ALL_CARDS,
    JACK,
    TEN_OF_DIAMONDS,
    TWO_OF_CLUBS,
    Card,
    card_text,
)
from pishti.engine.errors import DealError, IllegalPlay

LAID = 0
"""Outcome of a play that stays on the pile (R3.4)."""
CAPTURE = 1
"""Outcome of a plain capture (R3.2, R3.3, R4.3, R4.5)."""
PISHTI = 2
"""Outcome of a pishti (R4.1): 10 points."""
JACK_PISHTI = 3
"""Outcome of a jack pishti (R4.2): 20 points."""

CARDS_PER_HAND = 4
"""Cards each seat receives per deal (R2.3)."""
PLAYS_PER_DECK = 48
"""Cards played in every deck: 52 less the four middle cards (R2.3, R8.1)."""

_NEXT_SEAT = {4: (1, 2, 3, 0), 2: (1, 0)}
"""The seat after each seat, in the order of play (R1.3, R8.1)."""

MOST_CARDS = 27
"""A team holding at least this many cards scores 3 for most cards (R5.3)."""


def team_of(seat: int) -> int:
    """Return the team of ``seat``: seats 0 and 2 are team 0, 1 and 3 team 1 (R1.3).

    In the two-player game each seat is its own team (R1.4): seat 0 team 0, seat 1 team 1.
    """
    return seat & 1


@dataclass(frozen=True, slots=True)
class TeamCount:
    """One team's count of one deck (R5.2, R5.3, R5.5).

    ``cards``, ``aces``, ``jacks``, ``pishtis`` and ``jack_pishtis`` are counts;
    ``two_of_clubs``, ``ten_of_diamonds`` and ``most_cards`` say whether the team
    took them; ``points`` is the team's score for the deck.
    """

    cards: int
    aces: int
    jacks: int
    two_of_clubs: bool
    ten_of_diamonds: bool
    most_cards: bool
    pishtis: int
    jack_pishtis: int
    points: int

    def as_json(self) -> dict[str, int | bool]:
        """Return the R10 JSON form of this count."""
        return {
            "cards": self.cards,
            "aces": self.aces,
            "jacks": self.jacks,
            "two_of_clubs": self.two_of_clubs,
            "ten_of_diamonds": self.ten_of_diamonds,
            "most_cards": self.most_cards,
            "pishtis": self.pishtis,
            "jack_pishtis": self.jack_pishtis,
            "points": self.points,
        }


def count_team(taken: Sequence[Card], pishtis: int, jack_pishtis: int) -> TeamCount:
    """Count the cards a team took in a deck (R5.2, R5.3).

    Args:
        taken: every card the team took, the pile left at the end included (R5.1).
        pishtis, jack_pishtis: how many the team made in the deck.
    Returns:
        The team's :class:`TeamCount`; ``points`` in points.
    """
    aces = jacks = 0
    for card in taken:
        rank = card >> 2
        if rank == ACE:
            aces += 1
        elif rank == JACK:
            jacks += 1
    two = TWO_OF_CLUBS in taken
    ten = TEN_OF_DIAMONDS in taken
    most = len(taken) >= MOST_CARDS
    points = aces + jacks + 2 * two + 3 * ten + 3 * most + 10 * pishtis + 20 * jack_pishtis
    return TeamCount(len(taken), aces, jacks, two, ten, most, pishtis, jack_pishtis, points)


class Deck:
    """The state of one deck being played (R2-R5; R8 for two players).

    Cards are ints (see :mod:`pishti.engine.cards`).  Build one with
    :func:`deal_deck` (a random deal) or :meth:`Deck.from_layout` (a given deal,
    as a record holds it), then call :meth:`play` 48 times.

    Attributes (read them, never write them):
        players: 4 or 2.
        dealer: the dealer's seat.
        middle: the three face-down cards, then the face-up top card (R2.2).
        deals: ``deals[k][s]`` is the tuple of four cards seat ``s`` gets in deal ``k``.
        deal_index: how many deals have been handed out (1 after the first).
        hands: each seat's hand, a list of cards.
        pile: the cards on the table, bottom first; ``pile[-1]`` is the top card.
        to_play: the seat to play next.
        plays: the cards played so far, in order.
        taken: ``taken[t]``, the cards team ``t`` has captured in this deck.
        pishtis, jack_pishtis: per team counts (R4.1, R4.2).
        pishti_cards: ``pishti_cards[t]``, the capturing cards of team ``t``'s
            pishtis and jack pishtis, face up for everyone (R4.6).
        face_down_team: the team that took the three face-down cards (R3.6), or None.
        last_capture_team: the team that captured last, or None.
        counts: the two :class:`TeamCount` once the deck is over, else None.
    """

    __slots__ = (
        "_next_seat",
        "_per_deal",
        "counts",
        "deal_index",
        "dealer",
        "deals",
        "face_down_team",
        "final_pile",
        "hands",
        "jack_pishtis",
        "last_capture_team",
        "middle",
        "pile",
        "pishti_cards",
        "pishtis",
        "players",
        "plays",
        "taken",
        "to_play",
    )

    def __init__(
        self,
        players: int,
        dealer: int,
        middle: Sequence[Card],
        deals: Sequence[Sequence[Sequence[Card]]],
    ) -> None:
        """Lay out a deck without checking it; use :meth:`from_layout` for untrusted input."""
        self.players = players
        self.dealer = dealer
        self.middle: tuple[Card, ...] = tuple(middle)
        self.deals: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
            tuple(tuple(hand) for hand in deal) for deal in deals
        )
        self._reset()

    def _reset(self) -> None:
        players = self.players
        self.deal_index = 1
        self.hands: list[list[Card]] = list(map(list, self.deals[0]))
        self.pile: list[Card] = list(self.middle)
        self.to_play = (self.dealer + 1) % players
        self._next_seat = _NEXT_SEAT[players]
        self._per_deal = CARDS_PER_HAND * players
        self.plays: list[Card] = []
        self.taken: list[list[Card]] = [[], []]
        self.pishtis = [0, 0]
        self.jack_pishtis = [0, 0]
        self.pishti_cards: list[list[Card]] = [[], []]
        self.face_down_team: int | None = None
        self.last_capture_team: int | None = None
        self.counts: tuple[TeamCount, TeamCount] | None = None
        self.final_pile: tuple[Card, ...] = ()

    @classmethod
    def _laid(
        cls,
        players: int,
        dealer: int,
        middle: tuple[Card, ...],
        deals: tuple[tuple[tuple[Card, ...], ...], ...],
    ) -> Deck:
        """Lay out a deck from tuples already in shape, skipping the copies of ``__init__``."""
        self = cls.__new__(cls)
        self.players = players
        self.dealer = dealer
        self.middle = middle
        self.deals = deals
        self._reset()
        return self

    @classmethod
    def from_layout(
        cls,
        players: int,
        dealer: int,
        middle: Sequence[Card],
        deals: Sequence[Sequence[Sequence[Card]]],
    ) -> Deck:
        """Check a given deal against R2 and R8.1, then lay it out.

        Args:
            players: 4 or 2.
            dealer: the dealer's seat, 0..players-1.
            middle: four cards, the face-up top card last (R2.2).
            deals: ``deals[k][s]``, the four cards seat ``s`` receives in deal
                ``k``: 3 deals with 4 players (R2.3), 6 with 2 (R8.1).
        Returns:
            The deck, ready for its first play by seat ``dealer + 1`` (R2.4).
        Raises:
            DealError: wrong player count or dealer, wrong counts, cards that
                are not 52 distinct cards, or a jack on top of the middle (R2.2).
        """
        if players not in (2, 4):
            raise DealError(f"players must be 4 or 2, not {players!r}")
        if not isinstance(dealer, int) or not 0 <= dealer < players:
            raise DealError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
        if len(middle) != 4:
            raise DealError(f"the middle must hold 4 cards, not {len(middle)}")
        n_deals = PLAYS_PER_DECK // (CARDS_PER_HAND * players)
        if len(deals) != n_deals:
            raise DealError(f"a {players}-player deck has {n_deals} deals, not {len(deals)}")
        seen: list[Card] = list(middle)
        for k, deal in enumerate(deals):
            if len(deal) != players:
                raise DealError(f"deal {k + 1} must give cards to {players} seats, not {len(deal)}")
            for seat, hand in enumerate(deal):
                if len(hand) != CARDS_PER_HAND:
                    raise DealError(
                        f"deal {k + 1} gives seat {seat} {len(hand)} cards, not {CARDS_PER_HAND}"
                    )
                seen.extend(hand)
        if sorted(seen) != list(ALL_CARDS):
            missing = sorted(set(ALL_CARDS) - set(seen))
            dup = sorted({c for c in seen if seen.count(c) > 1})
            parts = []
            if dup:
                parts.append("twice: " + " ".join(card_text(c) for c in dup))
            if missing:
                parts.append("missing: " + " ".join(card_text(c) for c in missing))
            raise DealError("the deal is not 52 distinct cards (" + "; ".join(parts) + ")")
        if middle[3] >> 2 == JACK:
            raise DealError(f"a jack ({card_text(middle[3])}) is face up on top of the middle")
        return cls(players, dealer, middle, deals)

    @property
    def stock_size(self) -> int:
        """How many cards are still to be dealt (R7.7)."""
        return (len(self.deals) - self.deal_index) * CARDS_PER_HAND * self.players

    @property
    def over(self) -> bool:
        """True once all 48 cards have been played and the deck counted (R5.1)."""
        return self.counts is not None

    @property
    def top_card(self) -> Card | None:
        """The pile's top card, or None when the table is empty (R3.5)."""
        return self.pile[-1] if self.pile else None

    def play(self, card: Card) -> int:
        """Play ``card`` from the hand of the seat to play (R3).

        The card captures the pile when it matches the top card's rank (R3.2) or
        is a jack on a non-empty pile (R3.3); a pile of exactly one card taken by
        the same rank is a pishti (R4.1) or, jack on jack, a jack pishti (R4.2),
        except with the deck's last card (R4.5).  The first capture takes the
        face-down cards (R3.6).  Empty hands get the next deal (R2.3); after the
        48th card the pile goes to the last team to capture (R5.1) and the deck
        is counted (R5.2).

        Returns:
            ``LAID``, ``CAPTURE``, ``PISHTI`` or ``JACK_PISHTI``.
        Raises:
            IllegalPlay: the deck is over or the card is not in the hand of the
                seat to play; nothing changes.
        """
        # The hot path of every simulation: 10 is the jack's rank (JACK) and 48
        # is PLAYS_PER_DECK, written as literals to save global look-ups.
        seat = self.to_play
        hand = self.hands[seat]
        try:
            hand.remove(card)
        except ValueError:
            raise self._refusal(card) from None
        plays = self.plays
        plays.append(card)
        self.to_play = self._next_seat[seat]
        pile = self.pile
        if pile:
            rank = card >> 2
            if rank == 10 or pile[-1] >> 2 == rank:  # R3.3 a jack, R3.2 the same rank
                team = seat & 1
                # R4.1, R4.2: one card of the same rank; R4.5: never with the 48th card.
                if len(pile) == 1 and pile[0] >> 2 == rank and len(plays) != 48:
                    if rank == 10:
                        outcome = JACK_PISHTI
                        self.jack_pishtis[team] += 1
                    else:
                        outcome = PISHTI
                        self.pishtis[team] += 1
                    self.pishti_cards[team].append(card)
                else:
                    outcome = CAPTURE
                pile.append(card)
                self.taken[team] += pile
                self.pile = []
                if self.face_down_team is None:  # R3.6
                    self.face_down_team = team
                self.last_capture_team = team
                if not hand and not len(plays) % self._per_deal:
                    self._next_deal()
                return outcome
        pile.append(card)  # R3.4, and R3.3 a jack on an empty table
        if not hand and not len(plays) % self._per_deal:
            self._next_deal()
        return LAID

    def _refusal(self, card: Card) -> IllegalPlay:
        """The error for a card the seat to play does not hold, or for any card once over."""
        if self.counts is not None:
            return IllegalPlay("the deck is over")
        text = card_text(card) if type(card) is int and 0 <= card < 52 else repr(card)
        return IllegalPlay(f"seat {self.to_play} does not hold {text}")

    def _next_deal(self) -> None:
        """Every hand is empty: deal again (R2.3), or count the deck after its last card (R5)."""
        if self.deal_index < len(self.deals):
            self.hands = list(map(list, self.deals[self.deal_index]))
            self.deal_index += 1
        else:
            self._count()

    def _count(self) -> None:
        """Give the pile to the last team to capture (R5.1) and count the deck (R5.2)."""
        last = self.last_capture_team
        assert last is not None  # R5.1: a jack played before any capture finds a pile
        self.final_pile = tuple(self.pile)
        self.taken[last] += self.pile
        self.pile = []
        self.counts = (
            count_team(self.taken[0], self.pishtis[0], self.jack_pishtis[0]),
            count_team(self.taken[1], self.pishtis[1], self.jack_pishtis[1]),
        )


def shuffled_cards(rng: random.Random) -> list[Card]:
    """Return the 52 cards in a uniformly random order drawn from ``rng`` (R2.1).

    Each card gets an independent uniform float and the cards are sorted by
    them: every order is equally likely (a tie between two 53-bit floats, about
    one chance in 10**13 per deck, keeps the two cards in their natural order).
    The floats are drawn in card order, 52 calls of ``rng.random()``.

    Tables kept by the server depend on the exact output for a given ``rng``
    (their logs are replayed by dealing again): pinned by
    ``tests/engine/test_golden_deal.py``; change it only together with a new
    version of the table log.
    """
    keys = list(starmap(rng.random, repeat((), 52)))
    return sorted(ALL_CARDS, key=keys.__getitem__)


_DealGetter = Callable[[tuple[Card, ...]], tuple[tuple[Card, ...], ...]]


def _deal_getters(players: int, first: int) -> tuple[_DealGetter, ...]:
    """For each deal, a getter taking every seat's four cards out of the whole shuffled deck.

    Deal ``k`` hands out the four-card packets ``k * players`` to ``k * players +
    players - 1`` of the stock (which starts at card 4), the seat ``first`` taking
    the first packet and the others following in the order of play; the getter
    returns them by seat.
    """
    getters: list[_DealGetter] = []
    for k in range(0, PLAYS_PER_DECK // CARDS_PER_HAND, players):
        packets = [4 + CARDS_PER_HAND * (k + (seat - first) % players) for seat in range(players)]
        get = itemgetter(*(slice(i, i + CARDS_PER_HAND) for i in packets))
        getters.append(cast(_DealGetter, get))
    return tuple(getters)


_DEAL_GETTERS = {p: tuple(_deal_getters(p, first) for first in range(p)) for p in (2, 4)}
"""``_DEAL_GETTERS[players][first]``: the deal getters when seat ``first`` plays first."""


def deal_deck(rng: random.Random, players: int, dealer: int) -> Deck:
    """Shuffle and deal a new deck (R2.1-R2.3, R8.1).

    The 52 cards are shuffled uniformly (:func:`shuffled_cards`); four go to the
    middle, the fourth face up.  A jack turned up is returned to the stock at a
    uniformly random position (``rng.randrange``) and the next card is turned
    up, as often as needed (R2.2).  Deal ``k`` then gives each seat four
    consecutive cards of the stock, the seat after the dealer first (R2.3, R2.4).

    Args:
        rng: the random generator; the same state gives the same deck.
        players: 4 or 2.
        dealer: the dealer's seat, 0..players-1.

    Tables kept by the server depend on the exact deck dealt for a given ``rng``
    (pinned by ``tests/engine/test_golden_deal.py``), as with :func:`shuffled_cards`.

    Returns:
        The new :class:`Deck`, ready for its first play.
    Raises:
        KeyError or IndexError: ``players`` is not 4 or 2, or ``dealer`` not one of its seats.
    """
    cards = shuffled_cards(rng)
    if cards[3] >> 2 == JACK:
        stock = cards[3:]
        top = stock.pop(0)
        while top >> 2 == JACK:
            stock.insert(rng.randrange(len(stock) + 1), top)
            top = stock.pop(0)
        cards[3] = top
        cards[4:] = stock
    whole = tuple(cards)
    getters = _DEAL_GETTERS[players][(dealer + 1) % players]
    return Deck._laid(players, dealer, whole[:4], tuple([get(whole) for get in getters]))
