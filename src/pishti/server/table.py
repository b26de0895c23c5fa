"""The table state machine (R7): seats, owner, the match, turns, clocks, timeouts, autopilot, holds.

No I/O: a :class:`Table` is driven by calls (a person sits, plays, leaves, a
connection drops) and by timers of an injected :class:`~pishti.server.clock.Scheduler`,
and it hands every change it makes to an injected ``sink`` as a :class:`Commit`.
The server commits each change to the database and only then tells the seats
(the events of the commit); tests collect the commits in a list.

Every change is a small JSON-ready dict (``{"kind": "play", "seat": 2, "card":
"TD", "how": "player"}``).  :meth:`Table._apply` is a pure reducer from changes
to state and events, so a table rebuilt by :meth:`Table.restore` from its
persisted changes has the same state, the same events and the same event
numbers as before.  Changes that carry a choice (a bot's card, a timeout's
card) carry its outcome, never a random draw.

Deck ``n`` of match ``m`` is dealt from ``random.Random(f"{seed}:{m}:{n}")``
where ``seed`` is the table's secret seed: the seed and the match record are
never sent to a seat before the match is over (R7.7).
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from pishti.bots import Bot
from pishti.engine import (
    TARGETS,
    CardError,
    Deck,
    Event,
    Match,
    card_text,
    deal_deck,
    parse_card,
    seat_view,
    team_of,
)
from pishti.records import MatchRecord, match_record
from pishti.server.clock import Scheduler, Timer
from pishti.server.config import (
    CLOSING_HOLD_SECONDS,
    HOLD_SECONDS,
    PAUSE_SECONDS,
    TEMPOS,
    TIMEOUTS_TO_AUTOPILOT,
)
from pishti.server.protocol import name_key

log = logging.getLogger("pishti.server.table")

Status = Literal["waiting", "playing", "finished"]
Change = dict[str, Any]
"""A persisted change of a table, JSON-ready; ``change["kind"]`` names it."""
Payload = Event | dict[str, Any]
"""An event as the table keeps it: an engine event (filtered per seat when sent,
R7.7) or a public table event (a dict with a ``"type"``)."""
Numbered = tuple[int, Payload]
"""``(seq, payload)``: an event with its number, counted per table from 1."""

STANDARD = "standard"
"""The bot level that plays for a seat on timeout or autopilot (R7.2, R7.3) and
that fills empty seats and the seats of players who are gone (R7.5, R7.6)."""


class TableError(Exception):
    """An action the table refuses; nothing changed.

    Attributes:
        code: the protocol's error code (``not_your_turn``, ``stale`` ...).
        message: one line for people.
    """

    def __init__(self, code: str, message: str) -> None:
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
    """

    scale: float = 1.0
    bot_delay: float = 0.7
    hold: float = HOLD_SECONDS
    closing_hold: float = CLOSING_HOLD_SECONDS
    pause: float = PAUSE_SECONDS


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


@dataclass(frozen=True, slots=True)
class Commit:
    """One change of a table, handed to the sink to be committed, then told.

    Attributes:
        table: the table.  index: the change's position in the table's log, from 0.
        change: the change (JSON-ready).  events: the events it caused, numbered.
        status: the table's status after it.
        record: the finished match's record when this change ended a match, else None.
        match_no: the number of the match being played, from 1 (0 before the first).
        status_changed: whether the change changed the table's status.
    """

    table: Table
    index: int
    change: Change
    events: list[Numbered]
    status: Status
    record: MatchRecord | None
    match_no: int
    status_changed: bool = True


Sink = Callable[[Commit], None]
BotFactory = Callable[[str, int | None], Bot]
BotRunner = Callable[[str, Callable[[], int], Callable[[int], None]], None]
"""``runner(level, choose, done)``: call ``done(choose())``, now or later (a slow bot
level may think in a thread: ``choose`` reads only an immutable seat view)."""


def run_inline(level: str, choose: Callable[[], int], done: Callable[[int], None]) -> None:
    """The default :data:`BotRunner`: choose at once, on the caller's thread."""
    done(choose())


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a seat token is kept (never the token itself)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _derived_seed(*parts: object) -> int:
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


class Table:
    """One table: its seats, owner, status, the match being played and its event log.

    Actions (:meth:`sit`, :meth:`add_bot`, :meth:`play` ...) either raise
    :class:`TableError` and change nothing, or make their changes and hand each
    one to the sink as a :class:`Commit`.

    Attributes (read them, never write them):
        table_id: the public id.  settings: players, target, tempo.
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
        self.bots = bots
        self.levels = frozenset(levels)
        self.timing = timing or Timing()
        self.runner = runner
        self.seats = [SeatState() for _ in range(settings.players)]
        self.owner: int | None = None
        self.status: Status = "waiting"
        self.match: Match | None = None
        self.match_no = 0
        self.seq = 0
        self.turn_seq = 0
        self.log_size = 0
        self.events: deque[Numbered] = deque(maxlen=event_buffer)
        self.live = True
        self.closed = False
        self.broken = False
        # Runtime only (never persisted): timers and per-seat helpers.
        self._turn_id = 0
        self._new_turn = False
        self._finished_now = False
        self._timed_turn = -1
        self._turn_started = 0.0
        self._deadline = 0.0
        self._turn_timer: Timer | None = None
        self._turn_key: tuple[int, str] | None = None
        self._holds: dict[int, Timer] = {}
        self._closing: dict[int, bool] = {}
        self._bot_cache: dict[tuple[int, int, str], Bot] = {}
        self.pause = DeckPause()
        self._pause_timer: Timer | None = None

    # -- building ------------------------------------------------------------

    @classmethod
    def restore(
        cls,
        table_id: str,
        settings: TableSettings,
        seed: str,
        changes: list[Change],
        **kwargs: Any,
    ) -> Table:
        """Rebuild a table from its persisted changes, in order, with no timers running.

        Call :meth:`resume` afterwards to restart its clocks.

        Raises:
            CorruptLog: a change that does not apply.
        """
        table = cls(table_id, settings, seed, **kwargs)
        table.live = False
        for n, change in enumerate(changes):
            try:
                table._record(change)
            except (TableError, CardError, ValueError, KeyError, TypeError) as exc:
                raise CorruptLog(f"table {table_id}: change {n} {change!r}: {exc}") from exc
            except Exception as exc:
                raise CorruptLog(f"table {table_id}: change {n} {change!r}: {exc!r}") from exc
        table.live = True
        return table

    def resume(self) -> None:
        """Restart a restored table: connections are gone, the clock restarts at the full tempo.

        Every seat marked connected is marked disconnected (its hold starts,
        R7.4), and the seat to play gets a fresh clock (R7.1).
        """
        if self.status == "playing" or any(s.connected for s in self.seats):
            self._commit({"kind": "resume"})
        else:
            self._after_commit()

    def close(self) -> None:
        """Stop every timer; the table makes no further change by itself."""
        self.closed = True
        if self._turn_timer is not None:
            self._turn_timer.cancel()
            self._turn_timer = None
        self._turn_key = None
        for timer in self._holds.values():
            timer.cancel()
        self._holds.clear()

    # -- reading ---------------------------------------------------------------

    @property
    def players(self) -> int:
        """4 or 2."""
        return self.settings.players

    @property
    def tempo_seconds(self) -> float:
        """Seconds per card (R7.1), scaled by :attr:`Timing.scale`."""
        return TEMPOS[self.settings.tempo] * self.timing.scale

    @property
    def to_play(self) -> int | None:
        """The seat to play, or None when no match is being played."""
        if self.status != "playing" or self.match is None:
            return None
        return self.match.to_play

    def seat_of_token(self, token: str) -> int | None:
        """The seat a person holds with ``token``, or None (a bot has it, or no such token)."""
        digest = hash_token(token)
        for seat, st in enumerate(self.seats):
            if st.token_hash is not None and st.token_hash == digest:
                return seat
        return None

    def clock(self) -> dict[str, Any] | None:
        """The running clock (R7.1): ``{"seat", "remaining", "tempo"}`` in seconds, or None."""
        seat = self.to_play
        if seat is None:
            return None
        remaining = max(0.0, self._deadline - self.scheduler.now())
        return {"seat": seat, "remaining": round(remaining, 3), "tempo": self.tempo_seconds}

    def events_since(self, last_seq: int) -> list[Numbered] | None:
        """The events after ``last_seq``, or None when they are no longer all held."""
        if last_seq == self.seq:
            return []
        if last_seq > self.seq or last_seq < 0:
            return None
        if not self.events or self.events[0][0] > last_seq + 1:
            return None
        return [e for e in self.events if e[0] > last_seq]

    def seat_json(self, seat: int) -> dict[str, Any]:
        """The public Seat object of the protocol."""
        st = self.seats[seat]
        return {
            "seat": seat,
            "team": team_of(seat),
            "name": st.name,
            "kind": st.kind,
            "level": st.level,
            "connected": st.connected,
            "autopilot": st.autopilot,
            "left": st.left,
        }

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
        self._commit({"kind": "sit", "seat": seat, "name": name, "token": token_hash})
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
        self._commit({"kind": "bot", "seat": seat, "level": level})

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
        self._commit({"kind": "free", "seat": seat})

    def start(self, by: int) -> None:
        """The owner starts the match; empty seats get standard bots (R7.6).

        Raises:
            TableError: ``not_owner``, ``bad_state`` (not waiting).
        """
        self._check_owner(by)
        self._check_waiting()
        self._commit({"kind": "start"})

    def rematch(self, by: int) -> None:
        """The owner starts a new match at the table once the last one is over.

        Raises:
            TableError: ``not_owner``, ``bad_state`` (the match is not over).
        """
        self._check_owner(by)
        if self.status != "finished":
            raise TableError("bad_state", "a rematch needs a finished match")
        self._commit({"kind": "rematch"})

    def play(self, seat: int, card: str, seq: int) -> None:
        """``seat``'s player plays ``card`` in answer to event ``seq`` (R3.1, R7.3).

        A play clears the seat's autopilot and its count of timeouts (R7.3).

        Raises:
            TableError: ``bad_state`` (no match being played), ``stale`` (``seq``
                older than the event that gave the turn, or newer than the last
                event), ``not_your_turn``, ``bad_message`` (not a card),
                ``card_not_held``.
        """
        match = self.match
        if self.status != "playing" or match is None:
            raise TableError("bad_state", "no match is being played")
        if seq > self.seq:
            raise TableError("stale", f"event {seq} has not happened (the last is {self.seq})")
        if seq < self.turn_seq:
            raise TableError(
                "stale",
                f"this play answers event {seq}, from before the turn to play "
                f"(it began at event {self.turn_seq})",
            )
        if match.to_play != seat:
            raise TableError("not_your_turn", f"it is seat {match.to_play}'s turn")
        if self.seats[seat].kind != "human":
            raise TableError("bad_state", f"seat {seat} is played by a bot")
        try:
            value = parse_card(card)
        except CardError:
            raise TableError("bad_message", f"not a card: {card!r}") from None
        if value not in match.deck.hands[seat]:
            raise TableError("card_not_held", f"seat {seat} does not hold {card_text(value)}")
        self._commit({"kind": "play", "seat": seat, "card": card_text(value), "how": "player"})

    def continue_(self, seat: int, deck: int) -> None:
        """The player has read the count of ``deck`` and pressed Continue (R7.8);
        the next deck comes when everyone the pause waits for has.

        Raises:
            TableError: ``bad_state`` (no pause is on), ``stale`` (the pause is
                for another deck).
        """
        match = self.match
        if self.status != "playing" or match is None or not match.between_decks:
            raise TableError("bad_state", "the table is not pausing between decks")
        if deck != match.deck_number:
            raise TableError("stale", f"the pause is after deck {match.deck_number}, not {deck}")
        if seat in self.pause.ready:
            return
        self._commit({"kind": "ready", "seat": seat})

    def pause_json(self) -> dict[str, Any] | None:
        """The pause between decks (R7.8): ``{"deck", "remaining", "waiting", "ready"}``
        (seconds; the seats it waits for and those that pressed Continue), or None."""
        match = self.match
        if self.status != "playing" or match is None or not match.between_decks:
            return None
        remaining = self.pause.remaining(self.scheduler.now())
        return {
            "deck": match.deck_number,
            "remaining": None if remaining is None else round(remaining, 3),
            "waiting": sorted(self._pause_waits_for()),
            "ready": sorted(self.pause.ready),
        }

    def take_over(self, seat: int) -> None:
        """The player presses Take over: the seat leaves autopilot (R7.3).

        Raises:
            TableError: ``bad_state`` (the seat is not on autopilot).
        """
        if not self.seats[seat].autopilot:
            raise TableError("bad_state", f"seat {seat} is not on autopilot")
        self._commit({"kind": "autopilot", "seat": seat, "on": False})

    def leave(self, seat: int) -> None:
        """The player leaves for good (R7.5): before the start the seat is freed,
        afterwards a standard bot takes it and the match plays on.

        Raises:
            TableError: ``bad_state`` (the seat is not a person's).
        """
        if self.seats[seat].kind != "human":
            raise TableError("bad_state", f"seat {seat} is not held by a person")
        if self.status == "waiting":
            self._commit({"kind": "free", "seat": seat})
        else:
            self._commit({"kind": "replace", "seat": seat, "reason": "left"})

    def connect(self, seat: int) -> None:
        """A connection for ``seat`` opened (or came back within the hold, R7.4)."""
        st = self.seats[seat]
        if st.kind == "human" and not st.connected:
            self._closing.pop(seat, None)
            self._commit({"kind": "connected", "seat": seat, "on": True})

    def disconnect(self, seat: int, closing: bool = False) -> None:
        """``seat``'s connection was lost; ``closing`` says the client said the player
        closed the game, so the hold is 10 s instead of 60 s (R7.4)."""
        st = self.seats[seat]
        if st.kind == "human" and st.connected:
            self._closing[seat] = closing
            self._commit({"kind": "connected", "seat": seat, "on": False})

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

    def _record(self, change: Change) -> Commit:
        """Apply ``change``, number its events and remember them."""
        self._new_turn = False
        self._finished_now = False
        status_before = self.status
        events = self._apply(change)
        first = self.seq + 1
        numbered: list[Numbered] = []
        for payload in events:
            self.seq += 1
            item = (self.seq, payload)
            numbered.append(item)
            self.events.append(item)
        if self._new_turn:
            self.turn_seq = first
        index = self.log_size
        self.log_size += 1
        record = None
        if self._finished_now and self.match is not None:
            record = match_record(self.match)
        return Commit(
            self,
            index,
            change,
            numbered,
            self.status,
            record,
            self.match_no,
            status_changed=self.status != status_before,
        )

    def _commit(self, change: Change) -> None:
        commit = self._record(change)
        self.sink(commit)
        self._after_commit()

    # -- the reducer ---------------------------------------------------------------

    def _apply(self, change: Change) -> list[Payload]:
        """Apply one change to the state and return its events (pure: no timers)."""
        kind = change["kind"]
        handler = getattr(self, f"_apply_{kind}", None)
        if handler is None:
            raise KeyError(f"unknown change {kind!r}")
        events: list[Payload] = handler(change)
        return events

    def _seat_event(self, seat: int) -> dict[str, Any]:
        return {"type": "seat_changed", "seat": self.seat_json(seat)}

    def _pass_owner(self, gone: int) -> list[Payload]:
        if self.owner != gone:
            return []
        humans = [s for s, st in enumerate(self.seats) if st.kind == "human" and not st.left]
        self.owner = humans[0] if humans else None
        return [{"type": "owner_changed", "owner_seat": self.owner}]

    def _apply_sit(self, change: Change) -> list[Payload]:
        seat = change["seat"]
        self.seats[seat] = SeatState(kind="human", name=change["name"], token_hash=change["token"])
        events: list[Payload] = [self._seat_event(seat)]
        if self.owner is None:
            self.owner = seat
            events.append({"type": "owner_changed", "owner_seat": seat})
        return events

    def _apply_bot(self, change: Change) -> list[Payload]:
        seat = change["seat"]
        self.seats[seat] = SeatState(
            kind="bot", name=f"bot ({change['level']})", level=change["level"]
        )
        return [self._seat_event(seat)]

    def _apply_free(self, change: Change) -> list[Payload]:
        seat = change["seat"]
        self.seats[seat] = SeatState()
        return [self._seat_event(seat), *self._pass_owner(seat)]

    def _pause_waits_for(self) -> set[int]:
        """The seats the pause between decks waits for: people seated and connected;
        bots, seats on autopilot and disconnected seats do not hold it up (R7.8)."""
        return {
            s
            for s, st in enumerate(self.seats)
            if st.kind == "human" and st.connected and not st.autopilot and not st.left
        }

    def _new_match(self) -> Match:
        seed = self.seed
        m = self.match_no
        players = self.players

        def source(number: int, dealer: int) -> Deck:
            return deal_deck(random.Random(f"{seed}:{m}:{number}"), players, dealer)

        first = random.Random(f"{seed}:{m}:dealer").randrange(players)
        return Match(
            players,
            self.settings.target,
            rng=random.Random(0),
            first_dealer=first,
            deck_source=source,
            pause_between_decks=True,  # the table deals on (R7.8)
        )

    def _begin_match(self) -> list[Payload]:
        self.match_no += 1
        self.status = "playing"
        for st in self.seats:
            st.autopilot = False
            st.timeouts = 0
        self.match = self._new_match()
        self._new_turn = True
        self._turn_id += 1
        s = self.settings
        return [
            {
                "type": "match_started",
                "match": self.match_no,
                "players": s.players,
                "target": s.target,
                "tempo": s.tempo,
            },
            *self.match.events,
            self._clock_event(),
        ]

    def _clock_event(self) -> dict[str, Any]:
        seat = self.to_play
        return {
            "type": "clock",
            "seat": seat,
            "remaining": self.tempo_seconds,
            "tempo": self.tempo_seconds,
        }

    def _apply_start(self, change: Change) -> list[Payload]:
        events: list[Payload] = []
        for seat, st in enumerate(self.seats):
            if st.kind == "empty":
                self.seats[seat] = SeatState(kind="bot", name=f"bot ({STANDARD})", level=STANDARD)
                events.append(self._seat_event(seat))
        return events + self._begin_match()

    def _apply_rematch(self, change: Change) -> list[Payload]:
        events: list[Payload] = [{"type": "rematch", "match": self.match_no + 1}]
        changed = [s for s, st in enumerate(self.seats) if st.autopilot]
        begun = self._begin_match()
        return events + [self._seat_event(s) for s in changed] + begun

    def _apply_play(self, change: Change) -> list[Payload]:
        seat: int = change["seat"]
        how: str = change["how"]
        match = self.match
        if match is None or self.status != "playing":
            raise TableError("bad_state", "no match is being played")
        st = self.seats[seat]
        events: list[Payload] = []
        if match.between_decks:
            # A log written before the pause existed plays on into the next deck.
            events.extend(self._deal_next())
        if how == "timeout":
            events.append({"type": "timeout", "seat": seat})
        elif how == "player":
            st.timeouts = 0
            if st.autopilot:
                st.autopilot = False
                events.append({"type": "autopilot", "seat": seat, "on": False})
                events.append(self._seat_event(seat))
        events.extend(match.play(parse_card(change["card"]), seat))
        if how == "timeout":
            st.timeouts += 1
            if st.timeouts >= TIMEOUTS_TO_AUTOPILOT and not st.autopilot:
                st.autopilot = True
                events.append({"type": "autopilot", "seat": seat, "on": True})
                events.append(self._seat_event(seat))
        if match.finished:
            self.status = "finished"
            self._finished_now = True
        elif match.between_decks:
            # No clock runs during the pause (R7.8).
            self.pause = DeckPause(started=None)
            events.append(
                {
                    "type": "pause",
                    "deck": match.deck_number,
                    "seconds": self.timing.pause * self.timing.scale,
                    "waiting": sorted(self._pause_waits_for()),
                }
            )
        else:
            self._new_turn = True
            self._turn_id += 1
            events.append(self._clock_event())
        return events

    def _deal_next(self) -> list[Payload]:
        assert self.match is not None
        self.pause = DeckPause()
        self._new_turn = True
        self._turn_id += 1
        return [*self.match.deal_next(), self._clock_event()]

    def _apply_ready(self, change: Change) -> list[Payload]:
        seat = change["seat"]
        self.pause.ready.add(seat)
        return [{"type": "ready", "seat": seat}]

    def _apply_deal(self, change: Change) -> list[Payload]:
        if self.match is None or not self.match.between_decks:
            raise TableError("bad_state", "no deck is waiting to be dealt")
        return self._deal_next()

    def _apply_autopilot(self, change: Change) -> list[Payload]:
        seat = change["seat"]
        st = self.seats[seat]
        st.autopilot = bool(change["on"])
        st.timeouts = 0
        return [{"type": "autopilot", "seat": seat, "on": st.autopilot}, self._seat_event(seat)]

    def _apply_connected(self, change: Change) -> list[Payload]:
        seat = change["seat"]
        self.seats[seat].connected = bool(change["on"])
        return [self._seat_event(seat)]

    def _apply_replace(self, change: Change) -> list[Payload]:
        seat = change["seat"]
        old = self.seats[seat]
        # The token hash stays, so that the person is told the seat is gone (R7.5).
        self.seats[seat] = SeatState(
            kind="bot", name=old.name, level=STANDARD, left=True, token_hash=old.token_hash
        )
        return [self._seat_event(seat), *self._pass_owner(seat)]

    def _apply_resume(self, change: Change) -> list[Payload]:
        events: list[Payload] = []
        for seat, st in enumerate(self.seats):
            if st.connected:
                st.connected = False
                events.append(self._seat_event(seat))
        if self.status == "playing":
            self._turn_id += 1
            events.append(self._clock_event())
        return events

    # -- timers (live only) --------------------------------------------------------

    def _after_commit(self) -> None:
        if not self.live or self.closed:
            return
        self._arm_turn()
        self._arm_holds()
        self._arm_pause()

    def _arm_pause(self) -> None:
        """Deal the next deck once everyone the pause waits for pressed Continue,
        or when its time is up (R7.8)."""
        match = self.match
        paused = self.status == "playing" and match is not None and match.between_decks
        if not paused:
            if self._pause_timer is not None:
                self._pause_timer.cancel()
            self._pause_timer = None
            return
        if not self._pause_waits_for() - self.pause.ready:
            if self._pause_timer is not None:
                self._pause_timer.cancel()
            self._pause_timer = None
            self._commit({"kind": "deal", "reason": "ready"})
            return
        if self._pause_timer is None:
            seconds = self.timing.pause * self.timing.scale
            self.pause.started = self.scheduler.now()
            self.pause.seconds = seconds
            self._pause_timer = self.scheduler.call_later(seconds, self._on_pause_timer)

    def _on_pause_timer(self) -> None:
        self._pause_timer = None
        match = self.match
        if self.closed or match is None or not match.between_decks:
            return
        self._commit({"kind": "deal", "reason": "time"})

    def _arm_turn(self) -> None:
        seat = self.to_play
        if seat is None:
            if self._turn_timer is not None:
                self._turn_timer.cancel()
            self._turn_timer = None
            self._turn_key = None
            return
        now = self.scheduler.now()
        if self._timed_turn != self._turn_id:
            self._timed_turn = self._turn_id
            self._turn_started = now
            self._deadline = now + self.tempo_seconds
        st = self.seats[seat]
        mode = "bot" if st.kind == "bot" or st.autopilot else "clock"
        key = (self._turn_id, mode)
        if key == self._turn_key:
            return
        if self._turn_timer is not None:
            self._turn_timer.cancel()
        delay = self.timing.bot_delay if mode == "bot" else self._deadline - now
        self._turn_key = key
        self._turn_timer = self.scheduler.call_later(delay, partial(self._on_turn_timer, key))

    def _on_turn_timer(self, key: tuple[int, str]) -> None:
        if key != self._turn_key or self.closed:
            return
        # The key stays while the bot thinks, so no second timer is armed for this
        # turn; a take over or a play changes it and the bot's card is then dropped.
        self._turn_timer = None
        seat = self.to_play
        if seat is None or self.match is None:
            return
        st = self.seats[seat]
        if key[1] == "bot":
            level = st.level if st.kind == "bot" and st.level else STANDARD
            how = "bot" if st.kind == "bot" else "autopilot"
        else:
            level = STANDARD
            how = "timeout"
        view = seat_view(self.match, seat)
        bot = self._bot(seat, level)

        def choose() -> int:
            try:
                return bot.choose(view)
            except Exception:
                log.exception("table %s: the %s bot failed at seat %d", self.table_id, level, seat)
                return -1

        def done(card: int) -> None:
            if self.closed or key != self._turn_key or self.to_play != seat:
                return
            if card not in view.legal_cards:
                log.error("table %s: the %s bot chose no legal card", self.table_id, level)
                card = view.legal_cards[0]
            self._turn_key = None
            self._commit({"kind": "play", "seat": seat, "card": card_text(card), "how": how})

        self.runner(level, choose, done)

    def _bot(self, seat: int, level: str) -> Bot:
        """The bot of ``level`` that plays for ``seat`` in this match (from its view only, R7.7)."""
        key = (self.match_no, seat, level)
        bot = self._bot_cache.get(key)
        if bot is None:
            bot = self.bots(level, _derived_seed(self.seed, self.match_no, seat, level))
            self._bot_cache[key] = bot
        return bot

    def _arm_holds(self) -> None:
        for seat, st in enumerate(self.seats):
            needs = self.status == "playing" and st.kind == "human" and not st.connected
            timer = self._holds.get(seat)
            if needs and timer is None:
                base = self.timing.closing_hold if self._closing.get(seat) else self.timing.hold
                self._holds[seat] = self.scheduler.call_later(
                    base * self.timing.scale, partial(self._on_hold_expired, seat)
                )
            elif not needs and timer is not None:
                timer.cancel()
                del self._holds[seat]

    def _on_hold_expired(self, seat: int) -> None:
        self._holds.pop(seat, None)
        if self.closed:
            return
        st = self.seats[seat]
        if self.status == "playing" and st.kind == "human" and not st.connected:
            self._commit({"kind": "replace", "seat": seat, "reason": "hold"})


@dataclass(slots=True)
class DeckPause:
    """The pause between decks (R7.8): who pressed Continue, and since when it runs
    (``started``, scheduler seconds; None until its timer is armed)."""

    ready: set[int] = field(default_factory=set)
    started: float | None = None
    seconds: float = 0.0

    def remaining(self, now: float) -> float | None:
        """Seconds until the next deal at the latest, or None before the timer runs."""
        if self.started is None:
            return None
        return max(0.0, self.started + self.seconds - now)


@dataclass(slots=True)
class CollectingSink:
    """A sink that keeps every :class:`Commit` in a list (for tests and tools)."""

    commits: list[Commit] = field(default_factory=list)

    def __call__(self, commit: Commit) -> None:
        """Keep ``commit``."""
        self.commits.append(commit)
