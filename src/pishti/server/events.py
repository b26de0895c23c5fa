"""The table's own events (R7): what a table tells its seats besides the match's events.

Each is a frozen typed class holding plain values taken when it happened (a
seat's state is copied into :class:`SeatInfo`, never referenced).  None holds a
card, a token or the seed.  What a seat may see of each, and its protocol JSON,
is decided in :mod:`pishti.server.views` alone; an event type that does not
declare its visibility there is refused (R7.7).

The engine's events (:mod:`pishti.engine.events`: deals, plays, captures,
counts) come through the same channel; :data:`Payload` is either kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pishti.engine import Event


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """The public state of one seat at the moment of an event (R1.3, R7.3-R7.5).

    ``kind`` is ``"empty"``, ``"human"`` or ``"bot"``; ``level`` a bot's level;
    ``connected`` a person's connection is open; ``autopilot`` (R7.3); ``left``
    a bot has the seat of a person for good (R7.5).
    """

    seat: int
    name: str | None
    kind: str
    level: str | None
    connected: bool
    autopilot: bool
    left: bool


@dataclass(frozen=True, slots=True)
class TableEvent:
    """Base class of the table's events; ``type`` is the protocol's event type."""

    type: ClassVar[str] = "table_event"


@dataclass(frozen=True, slots=True)
class SeatChanged(TableEvent):
    """A seat was taken, freed, filled by a bot, connected, lost, put on autopilot ..."""

    type: ClassVar[str] = "seat_changed"
    seat: SeatInfo


@dataclass(frozen=True, slots=True)
class OwnerChanged(TableEvent):
    """The table's owner is now ``owner_seat`` (None: no person is left to own it)."""

    type: ClassVar[str] = "owner_changed"
    owner_seat: int | None


@dataclass(frozen=True, slots=True)
class MatchStarted(TableEvent):
    """Match number ``match`` (from 1) began: ``players`` 4 or 2, ``target`` points
    (R6.1), ``tempo`` the clock's name (R7.1).  A match dealt by R11 announces its
    ``commitment`` (published before), its ``seat_seeds`` (hex, by seat) and the
    ``next_commitment`` of the next match (R11.1); None for a match dealt before R11."""

    type: ClassVar[str] = "match_started"
    match: int
    players: int
    target: int
    tempo: str
    commitment: str | None = None
    seat_seeds: tuple[str, ...] = ()
    next_commitment: str | None = None


@dataclass(frozen=True, slots=True)
class ClockStarted(TableEvent):
    """The clock of ``seat`` runs: ``remaining`` of ``tempo`` seconds (R7.1)."""

    type: ClassVar[str] = "clock"
    seat: int | None
    remaining: float
    tempo: float


@dataclass(frozen=True, slots=True)
class TimedOut(TableEvent):
    """``seat``'s clock ran out; the standard bot's card is played for it (R7.2)."""

    type: ClassVar[str] = "timeout"
    seat: int


@dataclass(frozen=True, slots=True)
class AutopilotSwitched(TableEvent):
    """``seat``'s autopilot was switched ``on`` or off (R7.3)."""

    type: ClassVar[str] = "autopilot"
    seat: int
    on: bool


@dataclass(frozen=True, slots=True)
class RematchStarted(TableEvent):
    """The owner started match number ``match`` at the same table."""

    type: ClassVar[str] = "rematch"
    match: int


@dataclass(frozen=True, slots=True)
class Paused(TableEvent):
    """The table pauses after deck ``deck``'s count (R7.8): at most ``seconds``,
    until every seat in ``waiting`` has pressed Continue."""

    type: ClassVar[str] = "pause"
    deck: int
    seconds: float
    waiting: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ReadyPressed(TableEvent):
    """``seat`` pressed Continue during the pause (R7.8)."""

    type: ClassVar[str] = "ready"
    seat: int


@dataclass(frozen=True, slots=True)
class WatchingSwitched(TableEvent):
    """The owner allowed (``on``) or stopped spectators watching the table (R7.7)."""

    type: ClassVar[str] = "watching"
    on: bool


@dataclass(frozen=True, slots=True)
class PauseWaiting(TableEvent):
    """During the pause after deck ``deck`` (R7.8), the seats it waits for changed
    (a person dropped, came back, a bot took a seat ...): it now waits for
    ``waiting``, of which ``ready`` have pressed Continue.  A person who comes back
    is waited for again, Continue or not before."""

    type: ClassVar[str] = "pause_waiting"
    deck: int
    waiting: tuple[int, ...]
    ready: tuple[int, ...]


Payload = Event | TableEvent
"""An event as the table keeps it: an engine event (filtered per seat when sent,
R7.7) or one of the table's own events."""
