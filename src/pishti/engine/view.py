"""What a seat may see (R7.7): the one place where hidden cards are filtered.

:func:`seat_view` gives a seat's view of a match; :func:`event_for_seat` gives
a seat's copy of an event.  The server, the bots and the research environments
use these two and nothing else to learn about a match they take part in.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from pishti.engine.cards import Card
from pishti.engine.deck import team_of
from pishti.engine.events import CardsDealt, DeckStarted, Event, PileCaptured
from pishti.engine.match import Match, Play


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat may know of a match in play (R7.7).

    Attributes:
        seat, team: whose view this is (R1.3, R1.4).
        players: 4 or 2.  target: points to reach (R6.1).
        deck: the deck number, from 0.  dealer: the deck's dealer.
        hand: this seat's cards.
        face_up: the card turned face up on the middle when the deck was laid (R2.2).
        top_card: the pile's top card, or None on an empty table.
        pile_size: how many cards the pile holds (the face-down ones included).
        hand_sizes: how many cards each seat holds, by seat.
        stock_size: how many cards are still to be dealt.
        to_play: the seat to play, or None once the match is over.
        pishti_cards: per team, the capturing cards of its pishtis (R4.6).
        face_down: the three face-down cards once this seat's team took them, else None.
        face_down_team: the team that took the face-down cards, or None (public).
        taken_counts: per team, how many cards it has taken this deck.
        history: the deck's plays so far (public: every card is played face up).
        totals: match points per team.  finished, winner: as in :class:`Match`.
    """

    seat: int
    team: int
    players: int
    target: int
    deck: int
    dealer: int
    hand: tuple[Card, ...]
    face_up: Card
    top_card: Card | None
    pile_size: int
    hand_sizes: tuple[int, ...]
    stock_size: int
    to_play: int | None
    pishti_cards: tuple[tuple[Card, ...], tuple[Card, ...]]
    face_down: tuple[Card, ...] | None
    face_down_team: int | None
    taken_counts: tuple[int, int]
    history: tuple[Play, ...]
    totals: tuple[int, int]
    finished: bool
    winner: int | None

    @property
    def legal_cards(self) -> tuple[Card, ...]:
        """The cards this seat may play now: its hand on its turn (R3.1), else ()."""
        return self.hand if self.to_play == self.seat else ()


def seat_view(match: Match, seat: int) -> SeatView:
    """Return what ``seat`` may see of ``match`` now (R7.7).

    Raises:
        ValueError: ``seat`` is not a seat of this match.
    """
    if not isinstance(seat, int) or not 0 <= seat < match.players:
        raise ValueError(f"no seat {seat!r} at a {match.players}-player match")
    deck = match.deck
    team = team_of(seat)
    return SeatView(
        seat=seat,
        team=team,
        players=match.players,
        target=match.target,
        deck=match.deck_number,
        dealer=deck.dealer,
        hand=tuple(deck.hands[seat]),
        face_up=deck.middle[3],
        top_card=deck.pile[-1] if deck.pile else None,
        pile_size=len(deck.pile),
        hand_sizes=tuple(len(h) for h in deck.hands),
        stock_size=deck.stock_size,
        to_play=match.to_play,
        pishti_cards=(tuple(deck.pishti_cards[0]), tuple(deck.pishti_cards[1])),
        face_down=deck.middle[:3] if deck.face_down_team == team else None,
        face_down_team=deck.face_down_team,
        taken_counts=(len(deck.taken[0]), len(deck.taken[1])),
        history=match.history,
        totals=(match.totals[0], match.totals[1]),
        finished=match.finished,
        winner=match.winner,
    )


def event_for_seat(event: Event, seat: int | None) -> Event:
    """Return ``seat``'s copy of ``event``, without the cards it may not see (R7.7).

    DeckStarted loses the face-down cards; CardsDealt keeps only the seat's own
    hand; PileCaptured keeps the face-down cards only for the team that took
    them.  Other events are public and come back unchanged.  ``seat`` None is a
    spectator (R7.7): no hand at all, and never the face-down cards.
    """
    if isinstance(event, DeckStarted):
        return dataclasses.replace(event, middle=None)
    if isinstance(event, CardsDealt):
        hands = tuple(h if s == seat else () for s, h in enumerate(event.hands))
        return dataclasses.replace(event, hands=hands)
    if isinstance(event, PileCaptured) and (seat is None or event.team != team_of(seat)):
        return dataclasses.replace(event, face_down=None)
    return event
