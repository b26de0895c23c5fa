"""Events: everything that happens at a match, in order (deal, play, capture ...).

Events hold every card, hidden ones included.  Never send an event to a seat
as it is: :func:`pishti.engine.view.event_for_seat` gives what a seat may see
of it (R7.7).  Every event has ``as_json()`` for logs and the wire, with cards
in their text form (R1.2) and a ``"type"`` field.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from pishti.engine.cards import Card, card_text
from pishti.engine.deck import TeamCount


def _json_value(value: Any, name: str) -> Any:
    if isinstance(value, TeamCount):
        return value.as_json()
    if name in _CARD_FIELDS:
        if value is None:
            return None
        if isinstance(value, tuple):
            if value and isinstance(value[0], tuple):
                return [[card_text(c) for c in inner] for inner in value]
            return [card_text(c) for c in value]
        return card_text(value)
    if isinstance(value, tuple):
        return [_json_value(v, "") for v in value]
    return value


_CARD_FIELDS = frozenset({"card", "top_card", "middle", "hands", "face_down", "cards"})


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of events.  ``deck`` is the deck number, counted from 0."""

    type: ClassVar[str] = "event"
    deck: int

    def as_json(self) -> dict[str, Any]:
        """Return the event as a JSON-ready dict, cards as text (R1.2)."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = _json_value(getattr(self, f.name), f.name)
        return out


@dataclass(frozen=True, slots=True)
class DeckStarted(Event):
    """A deck is laid out (R2.1, R2.2).

    ``middle`` holds the three face-down cards then the face-up ``top_card``;
    a seat's copy has ``middle`` = None (R7.7).  ``first_seat`` plays first (R2.4).
    """

    type: ClassVar[str] = "deck_started"
    dealer: int
    first_seat: int
    top_card: Card
    middle: tuple[Card, ...] | None
    stock_size: int


@dataclass(frozen=True, slots=True)
class CardsDealt(Event):
    """Each seat receives four cards (R2.3).  ``deal`` counts from 0.

    ``hands[s]`` is what seat ``s`` got; in a seat's copy every other hand is
    empty and ``hand_sizes`` tells their sizes.
    """

    type: ClassVar[str] = "cards_dealt"
    deal: int
    hands: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    stock_size: int


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """``seat`` played ``card`` onto the pile (R3.1).

    ``pile_size`` is the pile's size after the play, and 0 after a capture.
    """

    type: ClassVar[str] = "card_played"
    seat: int
    card: Card
    pile_size: int


@dataclass(frozen=True, slots=True)
class PileCaptured(Event):
    """``seat``'s team took the pile with ``card`` (R3.2, R3.3).

    ``count`` is how many cards the team took, the capturing card included.
    ``face_down`` holds the three face-down cards when this capture took them
    (R3.6); in the other team's copy it is None and ``took_face_down`` still
    says that they were taken.
    """

    type: ClassVar[str] = "pile_captured"
    seat: int
    team: int
    card: Card
    count: int
    took_face_down: bool
    face_down: tuple[Card, ...] | None


@dataclass(frozen=True, slots=True)
class Pishti(Event):
    """``seat`` made a pishti with ``card``: 10 points (R4.1).  Follows its PileCaptured."""

    type: ClassVar[str] = "pishti"
    seat: int
    team: int
    card: Card


@dataclass(frozen=True, slots=True)
class JackPishti(Event):
    """``seat`` made a jack pishti with ``card``: 20 points (R4.2).  Follows its PileCaptured."""

    type: ClassVar[str] = "jack_pishti"
    seat: int
    team: int
    card: Card


@dataclass(frozen=True, slots=True)
class DeckCounted(Event):
    """The deck is over and counted (R5).

    ``last_pile`` is how many cards were left on the pile and went to
    ``last_capture_team`` (R5.1).  ``counts`` are the two teams' counts and
    ``totals`` the match score after this deck, in points (R5.5).
    """

    type: ClassVar[str] = "deck_counted"
    last_capture_team: int
    last_pile: int
    counts: tuple[TeamCount, TeamCount]
    totals: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchOver(Event):
    """The match is over (R6.3, R6.4).  ``winner`` is a team, or None for a draw at the cap."""

    type: ClassVar[str] = "match_over"
    winner: int | None
    totals: tuple[int, int]
    decks: int
