"""The table's reducer: one change applied to a table's state gives its events (R7).

:func:`apply` is the only code that changes a :class:`TableState`.  It does no
I/O, reads no clock and starts no timer: the same changes applied in the same
order to a fresh state give the same state and the same events, which is how a
table is rebuilt from its log.  What the driver (:class:`~pishti.server.table.Table`)
must do next comes back in the :class:`Outcome`: whether a seat got a new turn
(its clock restarts), whether the match ended (its record is kept), and the
layouts of the decks dealt (kept in the log).

The change is trusted to be valid: the table's actions check it first (once; a
play in :meth:`~pishti.server.table.Table.check_play`),
and a replayed log is checked by the engine (a card not held, a play out of
turn raise) and by :mod:`pishti.server.changes` (the row's shape).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pishti.engine import Deck, Match, deal_deck, parse_card
from pishti.engine.fair import FairSeeds, commitment, fair_deck, fair_first_dealer
from pishti.server.changes import (
    AddBot,
    Autopilot,
    Change,
    Connected,
    Deal,
    DeckLayout,
    Free,
    Play,
    Ready,
    Rematch,
    Replace,
    Resume,
    SeatSeed,
    ServerSeed,
    Sit,
    Start,
    StopWaiting,
    Watching,
)
from pishti.server.config import TIMEOUTS_TO_AUTOPILOT
from pishti.server.events import (
    AutopilotSwitched,
    ClockStarted,
    MatchStarted,
    OwnerChanged,
    Paused,
    PauseWaiting,
    Payload,
    ReadyPressed,
    RematchStarted,
    SeatChanged,
    SeatInfo,
    TimedOut,
    WatchingSwitched,
)
from pishti.server.fairness import derived_server_seed

Status = Literal["waiting", "playing", "finished"]
STANDARD = "standard"
"""The bot level that plays for a seat on timeout or autopilot (R7.2, R7.3) and
that fills empty seats and the seats of players who are gone (R7.5, R7.6)."""


@dataclass(slots=True)
class SeatState:
    """One seat (R1.3): who holds it and how.

    ``kind`` is ``"empty"``, ``"human"`` or ``"bot"``; ``level`` is a bot's level;
    ``token_hash`` the SHA-256 of a person's seat token; ``connected`` says a
    person's connection is open (always False for bots); ``autopilot`` (R7.3);
    ``left`` says the person left or lost the seat and a bot has it for good
    (R7.4, R7.5); ``timeouts`` counts this seat's timeouts in a row (R7.3).
    """

    kind: str = "empty"
    name: str | None = None
    level: str | None = None
    token_hash: str | None = None
    connected: bool = False
    autopilot: bool = False
    left: bool = False
    timeouts: int = 0


@dataclass(slots=True)
class TableState:
    """Everything a table's log decides: seats, owner, status and the match.

    Attributes:
        players: 4 or 2.  target: points (R6.1).  tempo_seconds: seconds a card (R7.1),
            scaled.  seed: the secret seed of the deals (R7.7).
        seats, owner, status: as their names say.  match: the match being played
            (or the last one).  match_no: matches started, from 1.
    """

    players: int
    target: int
    tempo: str
    tempo_seconds: float
    seed: str
    seats: list[SeatState] = field(default_factory=list)
    owner: int | None = None
    status: Status = "waiting"
    match: Match | None = None
    match_no: int = 0
    pause_seconds: float = 15.0
    """The longest pause between decks (R7.8), scaled like the clocks."""
    ready: set[int] = field(default_factory=set)
    """The seats that pressed Continue during the pause between decks (R7.8)."""
    watching: bool = True
    """Whether spectators may watch the table (the owner may turn it off)."""
    fair: FairSeeds | None = field(default=None, repr=False)
    """The seeds of the match being played (or the last one) when it is dealt by R11;
    None before the first match and for matches started before R11.  Secret (the
    server seed) until the match is over (R7.7)."""
    next_server_seed: bytes | None = field(default=None, repr=False)
    """The server seed of the next match (``match_no + 1``), drawn fresh and kept in
    the log (R11.1); None when the log holds none (a table made before the seeds
    were stored: :meth:`next_seed` derives it).  Secret until that match is over."""
    seat_seeds: dict[int, str] = field(default_factory=dict, repr=False)
    """The seeds people sent for the next match (R11.1), by seat, in hex; emptied
    when a match starts, and a seat's when its person goes."""
    away: set[int] = field(default_factory=set)
    """The persons the pause between decks still waits for though their connection
    is gone (R7.8), until they come back: those whose connection dropped during
    it (until a :class:`StopWaiting`, ``pause_return`` seconds later), and those
    connected when the server restarted during it (the restart, not they,
    dropped their connections: until the pause ends)."""
    dealing: _Dealer | None = field(default=None, repr=False, compare=False)
    """The decks of the change being applied (set by :func:`apply` only): the match's
    deck source asks it for each new deck."""

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [SeatState() for _ in range(self.players)]

    @property
    def to_play(self) -> int | None:
        """The seat to play, or None when no match is being played."""
        if self.status != "playing" or self.match is None:
            return None
        return self.match.to_play

    def next_seed(self) -> bytes:
        """The server seed of the next match (R11.1): the one the log holds, else (a
        table made before the seeds were stored) derived from the table's secret."""
        if self.next_server_seed is not None:
            return self.next_server_seed
        return derived_server_seed(self.seed, self.match_no + 1)

    @property
    def pausing(self) -> bool:
        """Whether the table pauses between decks (R7.8)."""
        return self.status == "playing" and self.match is not None and self.match.between_decks

    def pause_waits_for(self) -> set[int]:
        """The seats the pause between decks waits for: people seated and connected,
        or :attr:`away` for a while; bots, seats on autopilot and disconnected
        seats never hold it up (R7.8)."""
        return {
            s
            for s, st in enumerate(self.seats)
            if st.kind == "human"
            and (st.connected or s in self.away)
            and not st.autopilot
            and not st.left
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one change did, beyond the state it changed.

    Attributes:
        events: its events, in order (not yet numbered).
        new_turn: a seat got its turn to play (a new match, or a play that did not end it).
        new_clock: the clock of the seat to play starts again from the full tempo
            (a new turn, or a restart).
        finished: the change ended the match.
        dealt: the layouts of the decks it dealt, in order.
    """

    events: list[Payload]
    new_turn: bool = False
    new_clock: bool = False
    finished: bool = False
    dealt: tuple[DeckLayout, ...] = ()


def seat_info(seats: list[SeatState], seat: int) -> SeatInfo:
    """The public state of ``seat`` now (a copy: later changes do not alter it)."""
    st = seats[seat]
    return SeatInfo(seat, st.name, st.kind, st.level, st.connected, st.autopilot, st.left)


class _Dealer:
    """The decks of one change: the layouts it gives (version 2), else dealt from the
    seed (version 1, and live: ``random.Random(f"{seed}:{m}:{n}")``); each dealt
    layout is kept."""

    def __init__(self, state: TableState, given: tuple[DeckLayout, ...]) -> None:
        self.state = state
        self.given = list(given)
        self.dealt: list[DeckLayout] = []

    def first_dealer(self) -> int:
        """The first deck's dealer: the given layout's, else drawn from the match's
        seeds (R11.7), else (before R11) from the table's seed."""
        if self.given:
            return self.given[0].dealer
        s = self.state
        if s.fair is not None:
            return fair_first_dealer(s.fair, s.players)
        return random.Random(f"{s.seed}:{s.match_no}:dealer").randrange(s.players)

    def deck(self, match_no: int, number: int, dealer: int) -> Deck:
        """Deck ``number`` of match ``match_no``, dealt by ``dealer``.

        Raises:
            ValueError: a given layout with another dealer, or that breaks R2 (DealError).
        """
        players = self.state.players
        if self.given:
            layout = self.given.pop(0)
            if layout.dealer != dealer:
                raise ValueError(f"deck {number} is dealt by seat {dealer}, not {layout.dealer}")
            deck = layout.deck(players)
        elif self.state.fair is not None:
            deck = fair_deck(self.state.fair, number + 1, players, dealer)
            layout = DeckLayout.of(deck)
        else:
            deck = deal_deck(
                random.Random(f"{self.state.seed}:{match_no}:{number}"), players, dealer
            )
            layout = DeckLayout.of(deck)
        self.dealt.append(layout)
        return deck


def apply(state: TableState, change: Change) -> Outcome:
    """Apply ``change`` to ``state`` (in place) and return what it did.

    Raises:
        ValueError, CardError, KeyError, IndexError ...: the change does not apply
            to this state (only a corrupt log gets here; see the module).
    """
    dealer = _Dealer(state, getattr(change, "decks", ()))
    state.dealing = dealer
    before = _pause_list(state)
    try:
        outcome = _apply(state, change, dealer)
    finally:
        state.dealing = None
    after = _pause_list(state)
    if (
        before is not None
        and after is not None
        and before != after
        and not isinstance(change, Ready)
    ):
        # The pause goes on, and whom it waits for changed: say so (R7.8).
        outcome = replace(outcome, events=[*outcome.events, PauseWaiting(*after)])
    if dealer.given:
        raise ValueError(f"{len(dealer.given)} deck layouts that no deal used")
    if dealer.dealt:
        outcome = Outcome(
            outcome.events,
            outcome.new_turn,
            outcome.new_clock,
            outcome.finished,
            tuple(dealer.dealt),
        )
    return outcome


def _pause_list(state: TableState) -> tuple[int, tuple[int, ...], tuple[int, ...]] | None:
    """During the pause between decks: its deck, the seats it waits for and those
    ready; else None."""
    if not state.pausing or state.match is None:
        return None
    return (
        state.match.deck_number,
        tuple(sorted(state.pause_waits_for())),
        tuple(sorted(state.ready)),
    )


def _apply(state: TableState, change: Change, dealer: _Dealer) -> Outcome:
    match change:
        case Sit():
            state.seat_seeds.pop(change.seat, None)
            outcome = _sit(state, change)
        case AddBot():
            state.seats[change.seat] = SeatState(
                kind="bot", name=f"bot ({change.level})", level=change.level
            )
            outcome = Outcome([_seat_event(state, change.seat)])
        case Free():
            state.seat_seeds.pop(change.seat, None)
            state.seats[change.seat] = SeatState()
            outcome = Outcome([_seat_event(state, change.seat), *_pass_owner(state, change.seat)])
        case Start():
            outcome = _start(state, dealer, change.seeds, change.next_seed)
        case Rematch():
            outcome = _rematch(state, dealer, change.seeds, change.next_seed)
        case Play():
            outcome = _play(state, change, dealer)
        case Autopilot():
            st = state.seats[change.seat]
            st.autopilot = change.on
            st.timeouts = 0
            outcome = Outcome(
                [AutopilotSwitched(change.seat, st.autopilot), _seat_event(state, change.seat)]
            )
        case Connected():
            waited = state.pausing and change.seat in state.pause_waits_for()
            state.seats[change.seat].connected = change.on
            state.away.discard(change.seat)
            if change.on:
                # Back during the pause: the person is waited for again, to read
                # the count once more (R7.8).
                state.ready.discard(change.seat)
            elif waited and change.keeps_waiting:
                # Dropped during the pause: still waited for (a reloaded page comes
                # back), as one who has not pressed Continue, until StopWaiting.
                state.away.add(change.seat)
                state.ready.discard(change.seat)
            outcome = Outcome([_seat_event(state, change.seat)])
        case Replace():
            state.seat_seeds.pop(change.seat, None)
            outcome = _replace(state, change)
        case Resume():
            outcome = _resume(state)
        case Ready():
            state.ready.add(change.seat)
            outcome = Outcome([ReadyPressed(change.seat)])
        case StopWaiting():
            # The pause_waiting event that says so is added by apply (R7.8).
            state.away.discard(change.seat)
            outcome = Outcome([])
        case Deal():
            outcome = _deal_next(state)
        case Watching():
            state.watching = change.on
            outcome = Outcome([WatchingSwitched(change.on)])
        case ServerSeed():
            if change.match != state.match_no + 1:
                raise ValueError(f"a server seed for match {change.match} after {state.match_no}")
            state.next_server_seed = bytes.fromhex(change.seed)
            outcome = Outcome([])
        case SeatSeed():
            state.seat_seeds[change.seat] = change.seed
            outcome = Outcome([])
    return outcome


# -- the changes -----------------------------------------------------------------


def _seat_event(state: TableState, seat: int) -> SeatChanged:
    return SeatChanged(seat_info(state.seats, seat))


def _clock_event(state: TableState) -> ClockStarted:
    return ClockStarted(state.to_play, state.tempo_seconds, state.tempo_seconds)


def _pass_owner(state: TableState, gone: int) -> list[Payload]:
    if state.owner != gone:
        return []
    humans = [s for s, st in enumerate(state.seats) if st.kind == "human" and not st.left]
    state.owner = humans[0] if humans else None
    return [OwnerChanged(state.owner)]


def _sit(state: TableState, change: Sit) -> Outcome:
    seat = change.seat
    state.seats[seat] = SeatState(kind="human", name=change.name, token_hash=change.token)
    events: list[Payload] = [_seat_event(state, seat)]
    if state.owner is None:
        state.owner = seat
        events.append(OwnerChanged(seat))
    return Outcome(events)


def _begin_match(
    state: TableState, dealer: _Dealer, seeds: tuple[str, ...], next_seed: str
) -> list[Payload]:
    secret = state.next_seed()
    state.next_server_seed = bytes.fromhex(next_seed) if next_seed else None
    state.seat_seeds = {}
    state.match_no += 1
    state.status = "playing"
    for st in state.seats:
        st.autopilot = False
        st.timeouts = 0
    m = state.match_no
    state.fair = None
    announced: dict[str, Any] = {}  # R11.1: what MatchStarted announces
    if seeds:  # R11: every deck from the server seed and these seat seeds
        if len(seeds) != state.players:
            raise ValueError(f"{len(seeds)} seat seeds for {state.players} seats")
        state.fair = FairSeeds(secret, tuple(bytes.fromhex(s) for s in seeds), m)
        announced = {
            "commitment": state.fair.commitment,
            "seat_seeds": seeds,
            "next_commitment": commitment(state.next_seed()),
        }
    state.match = Match(
        state.players,
        state.target,
        rng=random.Random(0),
        first_dealer=dealer.first_dealer(),
        deck_source=lambda number, first: _deal(state, m, number, first),
        pause_between_decks=True,  # the table deals on after the pause (R7.8)
    )
    return [
        MatchStarted(state.match_no, state.players, state.target, state.tempo, **announced),
        *state.match.events,
        _clock_event(state),
    ]


def _deal(state: TableState, match_no: int, number: int, dealer: int) -> Deck:
    """The match's deck source: the deck the change being applied deals."""
    if state.dealing is None:
        raise RuntimeError("a deck is dealt only while a change is applied")
    return state.dealing.deck(match_no, number, dealer)


def _start(state: TableState, dealer: _Dealer, seeds: tuple[str, ...], next_seed: str) -> Outcome:
    events: list[Payload] = []
    for seat, st in enumerate(state.seats):
        if st.kind == "empty":
            state.seats[seat] = SeatState(kind="bot", name=f"bot ({STANDARD})", level=STANDARD)
            events.append(_seat_event(state, seat))
    events += _begin_match(state, dealer, seeds, next_seed)
    return Outcome(events, new_turn=True, new_clock=True)


def _rematch(state: TableState, dealer: _Dealer, seeds: tuple[str, ...], next_seed: str) -> Outcome:
    events: list[Payload] = [RematchStarted(state.match_no + 1)]
    changed = [s for s, st in enumerate(state.seats) if st.autopilot]
    begun = _begin_match(state, dealer, seeds, next_seed)
    events += [_seat_event(state, s) for s in changed] + begun
    return Outcome(events, new_turn=True, new_clock=True)


def _play(state: TableState, change: Play, dealer: _Dealer) -> Outcome:
    # Checked once before it was committed (Table.check_play); a replayed log's
    # play is checked by the engine (a card not held, a play out of turn raise).
    seat, how, match = change.seat, change.how, state.match
    if match is None:
        raise ValueError("no match is being played")
    st = state.seats[seat]
    events: list[Payload] = []
    if how == "timeout":
        events.append(TimedOut(seat))
    elif how == "player":
        st.timeouts = 0
        if st.autopilot:
            st.autopilot = False
            events.append(AutopilotSwitched(seat, False))
            events.append(_seat_event(state, seat))
    events.extend(match.play(parse_card(change.card), seat))
    if how == "timeout":
        st.timeouts += 1
        if st.timeouts >= TIMEOUTS_TO_AUTOPILOT and not st.autopilot:
            st.autopilot = True
            events.append(AutopilotSwitched(seat, True))
            events.append(_seat_event(state, seat))
    if match.finished:
        state.status = "finished"
        return Outcome(events, finished=True)
    if match.between_decks and change.deals_on:
        # A row from before the pause (version 1 or 2): the play that ended the
        # deck dealt the next one (from its layout, or from the seed).
        events.extend(match.deal_next())
    if match.between_decks:
        # Everyone reads the count; no clock runs (R7.8).
        state.ready = set()
        state.away = set()
        events.append(
            Paused(match.deck_number, state.pause_seconds, tuple(sorted(state.pause_waits_for())))
        )
        return Outcome(events)
    events.append(_clock_event(state))
    return Outcome(events, new_turn=True, new_clock=True)


def _deal_next(state: TableState) -> Outcome:
    if not state.pausing or state.match is None:
        raise ValueError("no deck is waiting to be dealt")
    state.ready = set()
    state.away = set()
    events: list[Payload] = [*state.match.deal_next(), _clock_event(state)]
    return Outcome(events, new_turn=True, new_clock=True)


def _replace(state: TableState, change: Replace) -> Outcome:
    seat = change.seat
    old = state.seats[seat]
    # The token hash stays, so that the person is told the seat is gone (R7.5).
    state.seats[seat] = SeatState(
        kind="bot", name=old.name, level=STANDARD, left=True, token_hash=old.token_hash
    )
    return Outcome([_seat_event(state, seat), *_pass_owner(state, seat)])


def _resume(state: TableState) -> Outcome:
    events: list[Payload] = []
    if state.pausing:
        # The pause is restored: those it waited for get their time to come back
        # and press Continue (R7.8), and no clock runs meanwhile.
        state.away |= {s for s, st in enumerate(state.seats) if st.connected}
    for seat, st in enumerate(state.seats):
        if st.connected:
            st.connected = False
            events.append(_seat_event(state, seat))
    if state.status == "playing" and not state.pausing:
        events.append(_clock_event(state))
        return Outcome(events, new_clock=True)
    return Outcome(events)
