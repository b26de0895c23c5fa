"""A whole match: decks one after another until a team wins (R2.1, R6).

:class:`Match` deals each deck (from a seeded random generator, or from given
layouts when a record is replayed), plays cards through :meth:`Deck.play`, and
turns what happens into events.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pishti.engine.cards import Card, card_text
from pishti.engine.deck import (
    JACK_PISHTI,
    LAID,
    PISHTI,
    Deck,
    deal_deck,
    team_of,
)
from pishti.engine.errors import IllegalPlay
from pishti.engine.events import (
    CardPlayed,
    CardsDealt,
    DeckCounted,
    DeckStarted,
    Event,
    JackPishti,
    MatchOver,
    PileCaptured,
    Pishti,
)

TARGETS = (51, 101, 151)
"""The targets a table may choose (R6.1)."""
DEFAULT_TARGET = 101
MAX_DECKS = 99
"""The safety cap on decks in a match (R6.4)."""

DeckSource = Callable[[int, int], Deck]
"""``source(deck_number, dealer) -> Deck``: where a match gets each new deck.

A source that has no further deck (a record cut short) raises :class:`NoMoreDecks`.
"""


class NoMoreDecks(Exception):
    """Raised by a deck source that holds no further deck; the match then stops."""


@dataclass(frozen=True, slots=True)
class Play:
    """One card played, as everyone saw it: ``seat``, ``card`` and ``outcome``
    (``LAID``, ``CAPTURE``, ``PISHTI`` or ``JACK_PISHTI`` from :mod:`pishti.engine.deck`)."""

    seat: int
    card: Card
    outcome: int


class Match:
    """A match of Pishti, four players in two teams (R1.3) or two players (R1.4, R8).

    ``Match(players=4, target=101, seed=7)`` deals the first deck at once, with
    a first dealer drawn at random (R2.1); the same seed gives the same match,
    card for card, as long as the same cards are played.

    Attributes (read them, never write them):
        players: 4 or 2.  target: points to reach (R6.1).
        decks: every deck so far; ``decks[-1]`` is the one being played.
        totals: ``[team0, team1]``, match points after the decks counted so far.
        between_decks: True while a counted deck waits for :meth:`deal_next`
            (only with ``pause_between_decks``, R7.8).
        finished: True once a team has won or the cap was reached (R6.3, R6.4).
        winner: the winning team, or None (unfinished, or level at the cap).
        events: every event so far, in order.
    """

    def __init__(
        self,
        players: int = 4,
        target: int = DEFAULT_TARGET,
        seed: int | None = None,
        *,
        rng: random.Random | None = None,
        first_dealer: int | None = None,
        deck_source: DeckSource | None = None,
        pause_between_decks: bool = False,
    ) -> None:
        """Start a match and deal its first deck.

        Args:
            players: 4 (the default) or 2.
            target: 51, 101 or 151 points (R6.1); other positive targets are
                accepted for study and tests.
            seed: seeds a fresh ``random.Random``; ignored when ``rng`` is given.
            rng: the random generator for the shuffles and the first dealer.
            first_dealer: the first deck's dealer; drawn from ``rng`` if None.
            deck_source: gives each deck instead of shuffling (used to replay records).
            pause_between_decks: when True, a counted deck does not deal the next
                one: the match waits in :attr:`between_decks` until
                :meth:`deal_next` (the table's pause, R7.8).  The decks and the
                events are the same either way.
        Raises:
            ValueError: players not 4 or 2, or target not a positive int.
        """
        if players not in (2, 4):
            raise ValueError(f"players must be 4 or 2, not {players!r}")
        if not isinstance(target, int) or isinstance(target, bool) or target <= 0:
            raise ValueError(f"target must be a positive number of points, not {target!r}")
        self.players = players
        self.target = target
        self.rng = rng if rng is not None else random.Random(seed)
        self._source = deck_source
        if first_dealer is None:
            first_dealer = self.rng.randrange(players)
        self.decks: list[Deck] = []
        self.totals = [0, 0]
        self.finished = False
        self.winner: int | None = None
        self.events: list[Event] = []
        self._history: list[Play] = []
        self._pause_between_decks = pause_between_decks
        self.between_decks = False
        self.events.extend(self._start_deck(first_dealer))

    # -- reading the state -------------------------------------------------

    @property
    def deck(self) -> Deck:
        """The deck being played (or the last one, once the match is over)."""
        return self.decks[-1]

    @property
    def deck_number(self) -> int:
        """The number of the current deck, counted from 0."""
        return len(self.decks) - 1

    @property
    def to_play(self) -> int | None:
        """The seat to play, or None once the match is over (or its source ran dry)."""
        deck = self.deck
        return None if self.finished or deck.counts is not None else deck.to_play

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds now (hidden from the other seats, R7.7).

        Raises:
            ValueError: ``seat`` is not a seat of this match.
        """
        if type(seat) is not int or not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat!r} at a {self.players}-player match")
        return tuple(self.deck.hands[seat])

    def legal_cards(self) -> tuple[Card, ...]:
        """The cards the seat to play may play: its whole hand (R3.1); () once over."""
        seat = self.to_play
        return () if seat is None else tuple(self.deck.hands[seat])

    @property
    def history(self) -> tuple[Play, ...]:
        """The current deck's plays, in order: public to every seat (R7.7)."""
        return tuple(self._history)

    # -- playing -----------------------------------------------------------

    def play(self, card: Card, seat: int | None = None) -> list[Event]:
        """Play ``card`` for the seat to play, and return the events it caused.

        Args:
            card: the card (an int, see :mod:`pishti.engine.cards`).
            seat: when given, the play is refused unless this seat is to play.
        Returns:
            The new events: CardPlayed, then PileCaptured and Pishti/JackPishti
            when it captured, then CardsDealt, or DeckCounted and DeckStarted
            and CardsDealt for the next deck, or DeckCounted and MatchOver.
        Raises:
            IllegalPlay: the match is over, it is not ``seat``'s turn, or the
                card is not in the hand of the seat to play.  Nothing changes.
        """
        if self.finished:
            raise IllegalPlay("the match is over")
        if type(card) is not int:  # True would otherwise pass for the card 1 (R1.1)
            raise IllegalPlay(f"not a card: {card!r}")
        deck = self.deck
        if deck.counts is not None:
            raise IllegalPlay("no further deck was dealt")
        player = deck.to_play
        if seat is not None and seat != player:
            raise IllegalPlay(f"it is seat {player}'s turn, not seat {seat}'s")
        pile_before = len(deck.pile)
        face_down_before = deck.face_down_team
        deal_before = deck.deal_index
        outcome = deck.play(card)
        number = len(self.decks) - 1
        self._history.append(Play(player, card, outcome))
        new: list[Event] = [CardPlayed(number, player, card, len(deck.pile))]
        if outcome != LAID:
            team = team_of(player)
            took = face_down_before is None
            new.append(
                PileCaptured(
                    number,
                    player,
                    team,
                    card,
                    pile_before + 1,
                    took,
                    deck.middle[:3] if took else None,
                )
            )
            if outcome == PISHTI:
                new.append(Pishti(number, player, team, card))
            elif outcome == JACK_PISHTI:
                new.append(JackPishti(number, player, team, card))
        if deck.deal_index != deal_before:
            new.append(self._dealt_event(deck))
        elif deck.over:
            new.extend(self._finish_deck(deck))
        self.events.extend(new)
        return new

    def deal_next(self) -> list[Event]:
        """Deal the next deck after the pause between decks (R7.8) and return its
        events (DeckStarted, CardsDealt); the deal moves one seat on (R2.1).

        Raises:
            IllegalPlay: no counted deck is waiting (the match was not made with
                ``pause_between_decks``, a deck is being played, or it is over).
        """
        if not self.between_decks:
            raise IllegalPlay("no deck is waiting to be dealt")
        self.between_decks = False
        new = self._start_deck((self.deck.dealer + 1) % self.players)
        self.events.extend(new)
        return new

    def play_text(self, card: str, seat: int | None = None) -> list[Event]:
        """Like :meth:`play` with the card's text, e.g. ``"10d"`` (R1.2).

        Raises:
            CardError: the text is not a card.  IllegalPlay: as :meth:`play`.
        """
        from pishti.engine.cards import parse_card

        return self.play(parse_card(card), seat)

    # -- internals ---------------------------------------------------------

    def _start_deck(self, dealer: int) -> list[Event]:
        number = len(self.decks)
        if self._source is not None:
            try:
                deck = self._source(number, dealer)
            except NoMoreDecks:
                return []
        else:
            deck = deal_deck(self.rng, self.players, dealer)
        self.decks.append(deck)
        self._history = []
        first = (dealer + 1) % self.players
        started = DeckStarted(number, dealer, first, deck.middle[3], deck.middle, 52 - 4)
        return [started, self._dealt_event(deck)]

    def _dealt_event(self, deck: Deck) -> CardsDealt:
        k = deck.deal_index - 1
        hands = deck.deals[k]
        return CardsDealt(
            len(self.decks) - 1, k, hands, tuple(len(h) for h in hands), deck.stock_size
        )

    def _finish_deck(self, deck: Deck) -> Iterator[Event]:
        counts = deck.counts
        assert counts is not None and deck.last_capture_team is not None
        self.totals[0] += counts[0].points
        self.totals[1] += counts[1].points
        number = len(self.decks) - 1
        totals = (self.totals[0], self.totals[1])
        yield DeckCounted(number, deck.last_capture_team, len(deck.final_pile), counts, totals)
        winner, finished = decide(totals, self.target, len(self.decks))
        if finished:
            self.finished = True
            self.winner = winner
            yield MatchOver(number, winner, totals, len(self.decks))
            return
        if self._pause_between_decks:
            self.between_decks = True
            return
        yield from self._start_deck((deck.dealer + 1) % self.players)

    def __repr__(self) -> str:
        deck = self.deck
        top = card_text(deck.pile[-1]) if deck.pile else "--"
        return (
            f"<Match players={self.players} target={self.target} deck={self.deck_number} "
            f"totals={self.totals} to_play={self.to_play} top={top}>"
        )


def decide(totals: tuple[int, int], target: int, decks_played: int) -> tuple[int | None, bool]:
    """Decide the match after a deck (R6.3, R6.4).

    Args:
        totals: both teams' match points.  target: points to reach.
        decks_played: decks counted so far, this one included.
    Returns:
        ``(winner, finished)``: winner is a team or None; finished says the match
        is over.  Exactly one team at or past the target wins; both past, the
        higher wins and level scores play another deck (R6.3); after
        ``MAX_DECKS`` decks the higher wins and level is a draw (R6.4).
    """
    a, b = totals
    if (a >= target or b >= target) and a != b:
        return (0 if a > b else 1), True
    if decks_played >= MAX_DECKS:
        return (None if a == b else 0 if a > b else 1), True
    return None, False
