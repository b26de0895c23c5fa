"""A table (R7): its actions, its log, and the driver around the reducer and the clocks.

A :class:`Table` is driven by calls (a person sits, plays, leaves, a connection
drops) and by its :class:`~pishti.server.turns.Turns` (clocks, timeouts,
autopilot, holds, bot moves).  Each action checks what it is asked, once, then
builds a typed change (:mod:`pishti.server.changes`, the table log's format)
and commits it: the reducer (:func:`pishti.server.reducer.apply`) applies it to
the state, the events are numbered, and the change goes to the injected
``sink`` as a :class:`Commit`.  The server commits each change to the database
and only then tells the seats; tests collect the commits in a list.

No I/O here, and no time but the injected scheduler's: a table rebuilt by
:meth:`Table.restore` from its persisted changes has the same state, the same
events and the same event numbers as before.  The seed, the deck layouts and
the match record are never sent to a seat before the match is over (R7.7).
"""

from __future__ import annotations

import hashlib
import logging
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pishti.engine import TARGETS, CardError, Match, card_text, parse_card
from pishti.records import MatchRecord, match_record
from pishti.server.changes import (
    LOG_VERSION,
    AddBot,
    Autopilot,
    Change,
    Connected,
    Deal,
    Free,
    LogFormatError,
    Play,
    Ready,
    Rematch,
    Replace,
    Resume,
    SeatSeed,
    ServerSeed,
    Sit,
    Start,
    Watching,
    decode,
)
from pishti.server.clock import Scheduler
from pishti.server.config import (
    CLOSING_HOLD_SECONDS,
    HOLD_SECONDS,
    PAUSE_RETURN_SECONDS,
    PAUSE_SECONDS,
    TEMPOS,
)
from pishti.server.events import PauseWaiting, Payload
from pishti.server.fairness import draw_seat_seed, draw_server_seed
from pishti.server.protocol import ErrorCode, name_key
from pishti.server.reducer import STANDARD, Outcome, SeatState, Status, TableState, apply
from pishti.server.turns import BotFactory, BotRunner, Turns, run_inline

log = logging.getLogger("pishti.server.table")

Numbered = tuple[int, Payload]
"""``(seq, payload)``: an event with its number, counted per table from 1."""

__all__ = [
    "STANDARD",
    "BotFactory",
    "BotRunner",
    "Commit",
    "CorruptLog",
    "Numbered",
    "Payload",
    "SeatState",
    "Status",
    "Table",
    "TableError",
    "TableSettings",
    "Timing",
    "hash_token",
    "run_inline",
]


class TableError(Exception):
    """An action the table refuses; nothing changed.

    Attributes:
        code: the protocol's error code (``not_your_turn``, ``stale`` ...).
        message: one line for people.
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class CorruptLog(Exception):
    """A persisted change that cannot be applied while rebuilding a table."""


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What the owner chose (R6.1, R7.1): ``players`` 4 or 2, ``target`` in points, ``tempo``.

    Raises:
        ValueError: a value out of range.
    """

    players: int = 4
    target: int = 101
    tempo: str = "normal"

    def __post_init__(self) -> None:
        if self.players not in (2, 4):
            raise ValueError(f"players must be 4 or 2, not {self.players!r}")
        if self.target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}, not {self.target!r}")
        if self.tempo not in TEMPOS:
            raise ValueError(f"tempo must be one of {sorted(TEMPOS)}, not {self.tempo!r}")


@dataclass(frozen=True, slots=True)
class Timing:
    """How long things take at a table, in seconds.

    Attributes:
        scale: multiplies the tempo clocks and the holds (1.0 in play).
        bot_delay: a bot's or the autopilot's pause before it plays.
        hold, closing_hold: the holds of R7.4 before scaling.
        pause: the longest pause between decks (R7.8) before scaling.
        pause_return: how long the pause still waits for a person whose connection
            dropped during it (a reload), before scaling.
    """

    scale: float = 1.0
    bot_delay: float = 0.7
    hold: float = HOLD_SECONDS
    closing_hold: float = CLOSING_HOLD_SECONDS
    pause: float = PAUSE_SECONDS
    pause_return: float = PAUSE_RETURN_SECONDS


@dataclass(frozen=True, slots=True)
class Commit:
    """One change of a table, handed to the sink to be committed, then told.

    Attributes:
        table_id: the table's id.  index: the change's position in the table's log,
            from 0.
        change: the change (stored in version :data:`~pishti.server.changes.LOG_VERSION`,
            with the layouts of the decks it dealt).
        events: the events it caused, numbered.
        status: the table's status after it.
        record: the finished match's record when this change ended a match, else None.
        match_no: the number of the match being played, from 1 (0 before the first).
        status_changed: whether the change changed the table's status.
        seq: the number of the table's last event after the change.
        holders: with a record, who held each seat when the match ended, by seat:
            ``(kind, name, level, left)`` (for the players' history, docs/server.md).
    """

    table_id: str
    index: int
    change: Change
    events: list[Numbered]
    status: Status
    record: MatchRecord | None
    match_no: int
    status_changed: bool = True
    seq: int = 0
    holders: tuple[tuple[str, str | None, str | None, bool], ...] = ()


Sink = Callable[[Commit], None]


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a seat token is kept (never the token itself)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Table:
    """One table: its seats, owner, status, the match being played and its event log.

    Actions (:meth:`sit`, :meth:`add_bot`, :meth:`play` ...) either raise
    :class:`TableError` and change nothing, or make their changes and hand each
    one to the sink as a :class:`Commit`.

    Attributes (read them, never write them):
        table_id: the public id.  settings: players, target, tempo.
        state: the :class:`~pishti.server.reducer.TableState` (only the reducer changes it);
            ``seats``, ``owner``, ``status``, ``match`` and ``match_no`` read it.
        turns: the table's :class:`~pishti.server.turns.Turns` (clocks, holds, bots).
        seats: one :class:`SeatState` per seat.  owner: the owner's seat or None.
        status: ``"waiting"``, ``"playing"`` or ``"finished"``.
        match: the match being played (or the last one), or None before the first.
        match_no: matches started at this table, counted from 1.
        seq: the number of the last event.  turn_seq: the number of the first
            event of the change that gave the seat to play its turn.
        log_size: how many changes the table has made.
        events: the last events, for reconnecting clients.
    """

    def __init__(
        self,
        table_id: str,
        settings: TableSettings,
        seed: str,
        *,
        scheduler: Scheduler,
        sink: Sink,
        bots: BotFactory,
        levels: Collection[str],
        timing: Timing | None = None,
        event_buffer: int = 256,
        runner: BotRunner = run_inline,
    ) -> None:
        """Make an empty table in the waiting status.

        Args:
            table_id: its public id.  settings: see :class:`TableSettings`.
            seed: the secret seed of its deals; never sent to a seat.
            scheduler: time and timers.  sink: receives every :class:`Commit`.
            bots: ``bots(level, seed)`` builds a bot (``pishti.bots.make_bot``).
            levels: the bot levels the owner may choose.
            timing: clock scale, bot delay and holds.  event_buffer: events kept.
            runner: how bots' choices are run (see :data:`BotRunner`).
        """
        self.table_id = table_id
        self.settings = settings
        self.seed = seed
        self.scheduler = scheduler
        self.sink = sink
        self.levels = frozenset(levels)
        self.timing = timing or Timing()
        self.state = TableState(
            settings.players,
            settings.target,
            settings.tempo,
            TEMPOS[settings.tempo] * self.timing.scale,
            seed,
            pause_seconds=self.timing.pause * self.timing.scale,
        )
        self.turns = Turns(self, scheduler, self.timing, bots, runner)
        self.seq = 0
        self.turn_seq = 0
        self.log_size = 0
        self.events: deque[Numbered] = deque(maxlen=event_buffer)
        self.watchers = 0
        """How many spectators watch the table now (kept by the hub, not in the log)."""
        self.live = True
        self.closed = False
        self.broken = False

    # -- building ------------------------------------------------------------

    @classmethod
    def restore(
        cls,
        table_id: str,
        settings: TableSettings,
        seed: str,
        changes: Sequence[Mapping[str, Any]],
        versions: Sequence[int] | None = None,
        *,
        seqs: Sequence[int] | None = None,
        **kwargs: Any,
    ) -> Table:
        """Rebuild a table from its persisted changes (their stored JSON), in order,
        with no timers running.  Call :meth:`resume` afterwards to restart its clocks.

        The events keep the numbers the seats were told.  ``pause_waiting`` came after
        the log's version 3: a version 3 row written before it (a person dropping or
        coming back during the pause) told no such event, and replaying it now would
        make one, so every later event would get a number one higher than the one
        told and a client reconnecting with its ``last_seq`` would get events it has
        seen as new ones.  With ``seqs`` (each row's stored last event number) the
        ``pause_waiting`` events a row did not tell are left out.

        Args:
            changes: the stored changes.  versions: each change's log version
                (:mod:`pishti.server.changes`); None: all of the current one.
            seqs: each change's stored last event number (``table_log.seq``); None:
                number the events as the current code makes them.
            kwargs: as for the constructor.

        Raises:
            CorruptLog: a change that cannot be read or does not apply, naming
                the table and the row.
        """
        table = cls(table_id, settings, seed, **kwargs)
        table.live = False
        for n, data in enumerate(changes):
            version = LOG_VERSION if versions is None else versions[n]
            where = f"table {table_id}: row {n} (version {version}) {dict(data)!r}"
            try:
                told = None if seqs is None else seqs[n]
                table._record(decode(data, version), told)
            except LogFormatError as exc:
                raise CorruptLog(f"{where}: {exc}") from exc
            except (TableError, CardError, ValueError, KeyError, TypeError) as exc:
                raise CorruptLog(f"{where}: {exc}") from exc
            except Exception as exc:
                raise CorruptLog(f"{where}: {exc!r}") from exc
        table.live = True
        return table

    def draw_first_seed(self) -> None:
        """Draw the first match's server seed (R11.1) and keep it in the log: the first
        change of a table just made, before anyone can send a seat seed.

        Raises:
            TableError: ``bad_state`` (the table has made changes already).
        """
        if self.log_size:
            raise TableError("bad_state", "the first server seed is drawn by a new table")
        self.commit(ServerSeed(1, draw_server_seed()))

    def resume(self) -> None:
        """Restart a restored table: connections are gone, the clock restarts at the full tempo.

        Every seat marked connected is marked disconnected (its hold starts,
        R7.4), and the seat to play gets a fresh clock (R7.1).
        """
        if self.status == "playing" or any(s.connected for s in self.seats):
            self.commit(Resume())
        else:
            self._after_commit()

    def close(self) -> None:
        """Stop every timer; the table makes no further change by itself."""
        self.closed = True
        self.turns.close()

    # -- reading ---------------------------------------------------------------

    @property
    def seats(self) -> list[SeatState]:
        """One :class:`SeatState` per seat."""
        return self.state.seats

    @property
    def owner(self) -> int | None:
        """The owner's seat, or None."""
        return self.state.owner

    @property
    def status(self) -> Status:
        """``"waiting"``, ``"playing"`` or ``"finished"``."""
        return self.state.status

    @property
    def match(self) -> Match | None:
        """The match being played (or the last one), or None before the first."""
        return self.state.match

    @property
    def match_no(self) -> int:
        """Matches started at this table, counted from 1."""
        return self.state.match_no

    @property
    def players(self) -> int:
        """4 or 2."""
        return self.settings.players

    @property
    def tempo_seconds(self) -> float:
        """Seconds per card (R7.1), scaled by :attr:`Timing.scale`."""
        return self.state.tempo_seconds

    @property
    def to_play(self) -> int | None:
        """The seat to play, or None when no match is being played."""
        return self.state.to_play

    def seat_of_token(self, token: str) -> int | None:
        """The seat a person holds with ``token``, or None (a bot has it, or no such token)."""
        digest = hash_token(token)
        for seat, st in enumerate(self.seats):
            if st.token_hash is not None and st.token_hash == digest:
                return seat
        return None

    def events_since(self, last_seq: int) -> list[Numbered] | None:
        """The events after ``last_seq``, or None when they are no longer all held."""
        if last_seq == self.seq:
            return []
        if last_seq > self.seq or last_seq < 0:
            return None
        if not self.events or self.events[0][0] > last_seq + 1:
            return None
        return [e for e in self.events if e[0] > last_seq]

    # -- actions (raise TableError, or change the table) -------------------------

    def sit(self, name: str, token_hash: str, seat: int | None = None) -> int:
        """A person takes a free seat before the match starts (R7.6); returns the seat.

        The first person to sit at a table with no owner becomes its owner.

        Raises:
            TableError: ``bad_state`` once the match has started, ``table_full``,
                ``seat_taken``, ``bad_message`` (no such seat) or ``name_taken``
                (a person at the table has a name that looks the same:
                :func:`~pishti.server.protocol.name_key`).
        """
        if self.status != "waiting":
            raise TableError("bad_state", "the match has started: no seat is free")
        key = name_key(name)
        for other in self.seats:
            if (other.kind == "human" or other.left) and other.name and name_key(other.name) == key:
                raise TableError("name_taken", f"someone at this table is called {other.name}")
        if seat is None:
            free = [s for s, st in enumerate(self.seats) if st.kind == "empty"]
            if not free:
                raise TableError("table_full", "every seat is taken")
            seat = free[0]
        self._check_seat(seat)
        if self.seats[seat].kind != "empty":
            raise TableError("seat_taken", f"seat {seat} is taken")
        self.commit(Sit(seat, name, token_hash))
        return seat

    def add_bot(self, by: int, seat: int, level: str) -> None:
        """The owner puts a bot of ``level`` in an empty seat before the start (R7.6).

        Raises:
            TableError: ``not_owner``, ``bad_state``, ``bad_message`` (no such
                seat or level), ``seat_taken``.
        """
        self._check_owner(by)
        self._check_waiting()
        self._check_seat(seat)
        if level not in self.levels:
            raise TableError(
                "bad_message",
                f"unknown bot level {level!r}; known: {', '.join(sorted(self.levels))}",
            )
        if self.seats[seat].kind != "empty":
            raise TableError("seat_taken", f"seat {seat} is taken")
        self.commit(AddBot(seat, level))

    def remove_bot(self, by: int, seat: int) -> None:
        """The owner takes a bot out of its seat before the start.

        Raises:
            TableError: ``not_owner``, ``bad_state`` (started, or no bot there), ``bad_message``.
        """
        self._check_owner(by)
        self._check_waiting()
        self._check_seat(seat)
        if self.seats[seat].kind != "bot":
            raise TableError("bad_state", f"seat {seat} holds no bot")
        self.commit(Free(seat))

    def start(self, by: int) -> None:
        """The owner starts the match; empty seats get standard bots (R7.6).

        Raises:
            TableError: ``not_owner``, ``bad_state`` (not waiting).
        """
        self._check_owner(by)
        self._check_waiting()
        self.commit(Start(seeds=self._match_seeds(), next_seed=draw_server_seed()))

    def rematch(self, by: int) -> None:
        """The owner starts a new match at the table once the last one is over.

        Raises:
            TableError: ``not_owner``, ``bad_state`` (the match is not over).
        """
        self._check_owner(by)
        if self.status != "finished":
            raise TableError("bad_state", "a rematch needs a finished match")
        self.commit(Rematch(seeds=self._match_seeds(), next_seed=draw_server_seed()))

    def play(self, seat: int, card: str, seq: int) -> None:
        """``seat``'s player plays ``card`` in answer to event ``seq`` (R3.1, R7.3).

        A play clears the seat's autopilot and its count of timeouts (R7.3).

        Raises:
            TableError: ``bad_state`` (no match being played), ``stale`` (``seq``
                older than the event that gave the turn, or newer than the last
                event), ``not_your_turn``, ``bad_message`` (not a card),
                ``card_not_held``.
        """
        value = self.check_play(seat, card, seq)
        self.commit(Play(seat, card_text(value), "player"))

    def may_play(self, seat: int, card: object) -> bool:
        """Whether a bot's card (``card``, whatever it chose) may be played for
        ``seat`` now (:meth:`check_play`)."""
        try:
            self.check_play(seat, card)
        except TableError:
            return False
        return True

    def check_play(self, seat: int, card: object, seq: int | None = None) -> int:
        """Whether ``seat`` may play ``card`` now; returns the card (R3.1, R7.3).

        The one check of a play, for a person's (``card`` as text, ``seq`` the event
        it answers) and for a bot's, a timeout's or the autopilot's (``card`` an int,
        ``seq`` None), in the order docs/protocol.md gives.  The reducer applies a
        checked play (the engine's own checks guard only a replayed log).

        Raises:
            TableError: ``bad_state`` (no match being played; a person's play for a
                seat a bot plays), ``stale`` (``seq`` older than the event that gave
                the turn, or newer than the last event), ``not_your_turn``,
                ``bad_message`` (not a card), ``card_not_held``.
        """
        match = self.match
        if self.status != "playing" or match is None:
            raise TableError("bad_state", "no match is being played")
        if seq is not None and seq > self.seq:
            raise TableError("stale", f"event {seq} has not happened (the last is {self.seq})")
        if seq is not None and seq < self.turn_seq:
            raise TableError(
                "stale",
                f"this play answers event {seq}, from before the turn to play "
                f"(it began at event {self.turn_seq})",
            )
        if match.to_play is None:  # between decks (R7.8): nobody's turn
            raise TableError(
                "not_your_turn", "it is nobody's turn: the table is paused between decks"
            )
        if match.to_play != seat:
            raise TableError("not_your_turn", f"it is seat {match.to_play}'s turn")
        if seq is not None and self.seats[seat].kind != "human":
            raise TableError("bad_state", f"seat {seat} is played by a bot")
        if isinstance(card, str):
            try:
                value = parse_card(card)
            except CardError:
                raise TableError("bad_message", f"not a card: {card!r}") from None
        elif type(card) is int:  # True, or a numpy integer, is not a card (R1.1)
            value = card
        else:
            raise TableError("bad_message", f"not a card: {card!r}")
        if value not in match.deck.hands[seat]:
            shown = card_text(value) if 0 <= value < 52 else repr(value)
            raise TableError("card_not_held", f"seat {seat} does not hold {shown}")
        return value

    def continue_(self, seat: int, deck: int) -> None:
        """The player has read the count of ``deck`` and pressed Continue (R7.8); the
        next deck comes when everyone the pause waits for has (a second press
        changes nothing).

        Raises:
            TableError: ``bad_state`` (no pause is on), ``stale`` (the pause is
                after another deck).
        """
        match = self.match
        if not self.state.pausing or match is None:
            raise TableError("bad_state", "the table is not pausing between decks")
        if deck != match.deck_number:
            raise TableError("stale", f"the pause is after deck {match.deck_number}, not {deck}")
        if seat not in self.state.ready:
            self.commit(Ready(seat))

    def set_watching(self, by: int, on: bool) -> None:
        """The owner allows spectators (``on``) or stops them; stopping closes the
        connections of those watching (the hub does).

        Raises:
            TableError: ``not_owner``.
        """
        self._check_owner(by)
        if on != self.state.watching:
            self.commit(Watching(on))

    def give_seed(self, seat: int, seed: str) -> None:
        """``seat``'s player contributes its seed (16 bytes, 32 lower-case hex digits) to
        the next match's deals (R11.1); a later seed replaces an earlier one.  It is
        kept in the log (:class:`SeatSeed`), so a restart before the start keeps it.

        Raises:
            TableError: ``bad_state`` (a match is being played: its seeds are fixed),
                ``bad_message`` (not 32 lower-case hex digits).
        """
        if self.status == "playing":
            raise TableError("bad_state", "the seeds of the match being played are fixed")
        if len(seed) != 32 or any(c not in "0123456789abcdef" for c in seed):
            raise TableError("bad_message", "a seat seed is 16 bytes as 32 lower-case hex digits")
        if self.state.seat_seeds.get(seat) != seed:
            self.commit(SeatSeed(seat, seed))

    def _match_seeds(self) -> tuple[str, ...]:
        """The seat seeds of the match about to start: each person's own, else drawn
        by the server (bots, and people who sent none) (R11.1)."""
        sent = self.state.seat_seeds
        return tuple(
            sent[seat] if seat in sent and self.seats[seat].kind == "human" else draw_seat_seed()
            for seat in range(self.players)
        )

    def take_over(self, seat: int) -> None:
        """The player presses Take over: the seat leaves autopilot (R7.3).

        Raises:
            TableError: ``bad_state`` (the seat is not on autopilot).
        """
        if not self.seats[seat].autopilot:
            raise TableError("bad_state", f"seat {seat} is not on autopilot")
        self.commit(Autopilot(seat, False))

    def leave(self, seat: int) -> None:
        """The player leaves for good (R7.5): before the start the seat is freed,
        afterwards a standard bot takes it and the match plays on.

        Raises:
            TableError: ``bad_state`` (the seat is not a person's).
        """
        if self.seats[seat].kind != "human":
            raise TableError("bad_state", f"seat {seat} is not held by a person")
        if self.status == "waiting":
            self.commit(Free(seat))
        else:
            self.commit(Replace(seat, "left"))

    def connect(self, seat: int) -> None:
        """A connection for ``seat`` opened (or came back within the hold, R7.4).

        During the pause between decks a person whose page came back (a reload whose
        new connection replaced the old one) is waited for again, Continue or not
        before, and sees the count again (R7.8)."""
        st = self.seats[seat]
        returning = st.connected and self.state.pausing and seat in self.state.ready
        if st.kind == "human" and (not st.connected or returning):
            self.turns.said_closing(seat, None)
            self.commit(Connected(seat, True))

    def disconnect(self, seat: int, closing: bool = False) -> None:
        """``seat``'s connection was lost; ``closing`` says the client said the player
        closed the game, so the hold is 10 s instead of 60 s (R7.4)."""
        st = self.seats[seat]
        if st.kind == "human" and st.connected:
            self.turns.said_closing(seat, closing)
            self.commit(Connected(seat, False))
            self.turns.dropped(seat)

    # -- checks ------------------------------------------------------------------

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise TableError("bad_message", f"no seat {seat!r} at a {self.players}-player table")

    def _check_owner(self, by: int) -> None:
        if by != self.owner:
            raise TableError("not_owner", "only the table's owner may do that")

    def _check_waiting(self) -> None:
        if self.status != "waiting":
            raise TableError("bad_state", "the match has already started")

    # -- commits -------------------------------------------------------------------

    def _record(self, change: Change, told: int | None = None) -> Commit:
        """Apply ``change`` through the reducer, number its events and remember them.
        ``told``: when rebuilding, the number of the table's last event after the change
        as stored; ``pause_waiting`` events past it were never told and are left out
        (see :meth:`restore`)."""
        status_before = self.status
        outcome = apply(self.state, change)
        if told is not None and self.seq + len(outcome.events) > told:
            outcome = _untold_pause_waiting(outcome, self.seq + len(outcome.events) - told)
        if outcome.dealt and isinstance(change, Start | Rematch | Play | Deal) and not change.decks:
            change = replace(change, decks=outcome.dealt)
        self.turns.changed(outcome)
        first = self.seq + 1
        numbered: list[Numbered] = []
        for payload in outcome.events:
            self.seq += 1
            item = (self.seq, payload)
            numbered.append(item)
            self.events.append(item)
        if outcome.new_turn:
            self.turn_seq = first
        index = self.log_size
        self.log_size += 1
        record = None
        holders: tuple[tuple[str, str | None, str | None, bool], ...] = ()
        if outcome.finished and self.match is not None:
            record = match_record(self.match, self.state.fair)
            holders = tuple((s.kind, s.name, s.level, s.left) for s in self.seats)
        return Commit(
            self.table_id,
            index,
            change,
            numbered,
            self.status,
            record,
            self.match_no,
            status_changed=self.status != status_before,
            seq=self.seq,
            holders=holders,
        )

    def commit(self, change: Change) -> None:
        """Apply ``change`` (checked already), hand it to the sink, re-arm the clocks.
        The table's actions and its :class:`~pishti.server.turns.Turns` call this."""
        commit = self._record(change)
        if self.broken:
            return  # dropped after a failed commit: the database's copy is read back
        self.sink(commit)
        self._after_commit()

    def _after_commit(self) -> None:
        if self.live and not self.closed:
            self.turns.arm()


def _untold_pause_waiting(outcome: Outcome, extra: int) -> Outcome:
    """``outcome`` without up to ``extra`` of its ``pause_waiting`` events: a row of the
    log written before that event existed told none (:meth:`Table.restore`)."""
    kept: list[Payload] = []
    for event in reversed(outcome.events):
        if extra and isinstance(event, PauseWaiting):
            extra -= 1
            continue
        kept.append(event)
    return replace(outcome, events=kept[::-1])


@dataclass(slots=True)
class CollectingSink:
    """A sink that keeps every :class:`Commit` in a list (for tests and tools)."""

    commits: list[Commit] = field(default_factory=list)

    def __call__(self, commit: Commit) -> None:
        """Keep ``commit``."""
        self.commits.append(commit)
