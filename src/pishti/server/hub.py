"""The hub: tables in memory, the connections of their seats, fan-out and rate limits.

A :class:`Hub` owns every live :class:`~pishti.server.table.Table`, the
:class:`~pishti.server.writer.Writer` that commits their changes, and one
:class:`Connection` per seated WebSocket.  Every change a table makes goes to
the writer; once committed, its events are rendered for each seat (R7.7) and
queued on that seat's connection.  A connection sends from its own queue, so
a slow client never holds up a table or other connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from pishti.bots import LEVELS, make_bot
from pishti.server.clock import AsyncioScheduler, Scheduler, Timer
from pishti.server.config import ServerConfig
from pishti.server.protocol import (
    AddBot,
    BadMessage,
    Closing,
    Continue,
    Hello,
    Leave,
    Ping,
    Play,
    Rematch,
    RemoveBot,
    Start,
    TakeOver,
    parse_message,
)
from pishti.server.ratelimit import TokenBucket
from pishti.server.store import Store, StoredTable
from pishti.server.table import (
    BotFactory,
    Commit,
    CorruptLog,
    Table,
    TableError,
    TableSettings,
    Timing,
    hash_token,
)
from pishti.server.views import (
    BatchRenderer,
    dumps,
    error_message,
    no_table,
    welcome_message,
)
from pishti.server.writer import Item, Writer

log = logging.getLogger("pishti.server.hub")

THREADED_LEVELS = frozenset({"expert"})
"""Bot levels that think for a long time (the expert: about 0.15 s a card); they
choose in a worker thread so that other tables never wait for them."""
HELLO_TIMEOUT = 15.0
"""Seconds a new connection has to send ``hello``."""
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{6,32}$")
PONG = dumps({"type": "pong"})


class Socket(Protocol):
    """What the hub needs of a WebSocket (:class:`pishti.server.asgi.AsgiSocket`, and
    Starlette's ``WebSocket``, have it)."""

    def receive(self) -> Awaitable[Mapping[str, Any]]:
        """The next ASGI message: ``websocket.receive`` (``text`` or ``bytes``) or
        ``websocket.disconnect``."""
        ...

    async def send_text(self, data: str) -> None:
        """Send one text frame."""
        ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close the connection with ``code``."""
        ...


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class Connection:
    """One WebSocket, and once it said ``hello``, the seat it plays.

    ``batch`` says the client asked for one ``events`` message per change
    instead of one ``event`` message per event.

    Outgoing messages queue in :attr:`outbox` and a task sends them in order;
    a connection whose queue passes ``outbox_limit`` is closed (code 4408) and
    can reconnect for a fresh snapshot.
    """

    def __init__(
        self,
        socket: Socket,
        config: ServerConfig,
        now: Callable[[], float],
        in_turn: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """Wrap ``socket``; ``now`` gives the time in seconds (for the rate limit);
        ``in_turn(callback)`` runs a reply once everything before it is committed and
        told (the writer's :meth:`~pishti.server.writer.Writer.after`; at once when
        None): so replies come in the order of the messages they answer, and an error
        never speaks of a move the seats have not been told of yet."""
        self.socket = socket
        self.in_turn = in_turn
        self.config = config
        self.now = now
        self.table: Table | None = None
        self.seat: int | None = None
        self.ready = False
        self.batch = False
        self.closing = False
        self.closed = False
        self.outbox: deque[str | _Close] = deque()
        self._held: list[str] | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.bucket = TokenBucket(config.rate, config.rate, now())
        self._refused = 0
        self._window = now()
        self._last_rate_error = -1e9
        self.sent = 0

    def start(self) -> None:
        """Start the sending task."""
        self._task = asyncio.get_running_loop().create_task(self._send_loop())

    def push(self, text: str) -> None:
        """Queue one message (JSON text) for sending (held back while :meth:`hold` is on)."""
        if self.closed:
            return
        if self._held is not None:
            self._held.append(text)
            if len(self._held) > self.config.outbox_limit:
                self._held = None
                self.close(4408, "too slow: reconnect for a snapshot")
            return
        self.outbox.append(text)
        if len(self.outbox) > self.config.outbox_limit:
            self.outbox.clear()
            self.close(4408, "too slow: reconnect for a snapshot")
            return
        self._wake.set()

    def reply(self, text: str) -> None:
        """Queue a reply to a client message, after the replies to the messages before
        it (through ``in_turn`` once the connection has its seat; at once before)."""
        if self.in_turn is not None and self.table is not None:
            self.in_turn(partial(self.push, text))
        else:
            self.push(text)

    def error(self, code: str, message: str, ref: str | None) -> None:
        """Reply with an ``error`` message (:meth:`reply`)."""
        self.reply(error_message(code, message, ref))

    def hold(self) -> None:
        """Hold back what is pushed from now on until :meth:`release` (the ``welcome``
        goes first, protocol.md)."""
        self._held = []

    def release(self, first: list[str]) -> None:
        """Queue ``first``, then what was held back, and stop holding."""
        held, self._held = self._held or [], None
        for text in first + held:
            self.push(text)

    def close(self, code: int, reason: str) -> None:
        """Send what is queued (and held back), then close the socket with ``code``."""
        if self.closed:
            return
        if self._held is not None:
            self.outbox.extend(self._held)
            self._held = None
        self.outbox.append(_Close(code, reason))
        self.closed = True
        self._wake.set()

    def admit(self) -> bool:
        """Count one incoming frame against the rate limit; False if it is refused.

        A refused frame gets a ``rate_limited`` error (at most one a second); a
        connection refused more than ``flood_close`` times within
        ``flood_window`` seconds is closed with code 4429.
        """
        now = self.now()
        if self.bucket.take(now):
            return True
        if now - self._window > self.config.flood_window:
            self._window = now
            self._refused = 0
        self._refused += 1
        if self._refused > self.config.flood_close:
            self.push(error_message("rate_limited", "too many messages: closing", None))
            self.close(4429, "flooding")
        elif now - self._last_rate_error >= 1.0:
            self._last_rate_error = now
            self.error(
                "rate_limited",
                f"more than {self.config.rate:g} messages a second: message refused",
                None,
            )
        return False

    async def finish(self) -> None:
        """Stop sending: wait briefly for a requested close, else cancel the task."""
        task = self._task
        if task is None:
            return
        if self.closed:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), 2.0)
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def _send_loop(self) -> None:
        socket = self.socket
        outbox = self.outbox
        try:
            while True:
                if not outbox:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                item = outbox.popleft()
                if isinstance(item, _Close):
                    await socket.close(item.code, item.reason)
                    return
                await socket.send_text(item)
                self.sent += 1
        except asyncio.CancelledError:
            raise
        except Exception:
            self.closed = True


class Hub:
    """Every live table of one server process, their connections and the writer.

    Args:
        config: the server's settings.
        store: the database (opened by :meth:`start`).
        scheduler: timers; the asyncio one (on the running loop) when None.
        bots: ``bots(level, seed)`` builds a bot.  levels: the levels the owner may pick.
    """

    def __init__(
        self,
        config: ServerConfig,
        store: Store | None = None,
        *,
        scheduler: Scheduler | None = None,
        bots: BotFactory = make_bot,
        levels: Mapping[str, Any] | None = None,
    ) -> None:
        self.config = config
        self.store = store or Store(config.db_url, sqlite_synchronous=config.sqlite_synchronous)
        self._scheduler = scheduler
        self.bots = bots
        self.levels = levels if levels is not None else LEVELS
        self.timing = Timing(scale=config.time_scale, bot_delay=config.bot_delay)
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, dict[int, Connection]] = {}
        self.writer = Writer(self.store, self._on_write_failure)
        self._loading: dict[str, asyncio.Future[Table | None]] = {}
        self._idle_since: dict[str, tuple[float, int]] = {}
        """For each table at rest: since when (``scheduler.now()`` seconds), at which log size."""
        self._evict_timer: Timer | None = None
        self.evicted = 0
        self.started_at = time.time()

    @property
    def scheduler(self) -> Scheduler:
        """The scheduler of the tables' clocks."""
        if self._scheduler is None:
            self._scheduler = AsyncioScheduler()
        return self._scheduler

    # -- life --------------------------------------------------------------------

    async def start(self) -> None:
        """Open the database, start the writer and resume every table being played
        (their clocks start again).  Tables at rest (waiting or finished) are read
        from the database when someone asks for one."""
        await self.store.open()
        self.writer.start()
        resumed = 0
        for stored in await self.store.playing():
            if self._restore(stored) is not None:
                resumed += 1
        if resumed:
            log.info("resumed %d tables being played", resumed)
        await self.writer.flush()
        self._schedule_eviction()

    async def stop(self) -> None:
        """Stop every table's timers, commit what is queued and close the database."""
        if self._evict_timer is not None:
            self._evict_timer.cancel()
            self._evict_timer = None
        for table in self.tables.values():
            table.close()
        for conns in self.conns.values():
            for conn in conns.values():
                conn.close(1012, "server restarting")
        await self.writer.stop()
        await self.store.close()

    # -- tables ------------------------------------------------------------------

    def _schedule_eviction(self) -> None:
        every = min(60.0, max(0.05, self.config.idle_unload / 2))
        self._evict_timer = self.scheduler.call_later(every, self._evict_idle)

    def _evict_idle(self) -> None:
        """Drop the tables at rest (waiting or finished) that nobody has been connected
        to, and that have not changed, for ``idle_unload`` seconds; :meth:`table`
        reads them back from the database when asked.  (A table being played keeps
        its clocks and holds, so it stays.)"""
        now = self.scheduler.now()
        for table_id, table in list(self.tables.items()):
            if table.status == "playing" or self.conns.get(table_id):
                self._idle_since.pop(table_id, None)
                continue
            since, size = self._idle_since.get(table_id, (now, table.log_size))
            if size != table.log_size:  # a join or a rematch over HTTP: idle from now
                since, size = now, table.log_size
            self._idle_since[table_id] = (since, size)
            if now - since >= self.config.idle_unload:
                del self.tables[table_id]
                del self._idle_since[table_id]
                table.close()
                self.evicted += 1
        self._schedule_eviction()

    def _new_table(self, table_id: str, settings: TableSettings, seed: str) -> Table:
        return Table(
            table_id,
            settings,
            seed,
            scheduler=self.scheduler,
            sink=self._sink,
            bots=self.bots,
            levels=self.levels,
            timing=self.timing,
            event_buffer=self.config.event_buffer,
            runner=self._run_bot,
        )

    def _run_bot(self, level: str, choose: Callable[[], int], done: Callable[[int], None]) -> None:
        """Run a bot's choice: slow levels in a worker thread, others at once."""
        if level not in THREADED_LEVELS:
            done(choose())
            return
        future = asyncio.get_running_loop().run_in_executor(None, choose)
        future.add_done_callback(lambda f: done(-1 if f.exception() else f.result()))

    def _restore(self, stored: StoredTable) -> Table | None:
        try:
            table = Table.restore(
                stored.table_id,
                stored.settings,
                stored.seed,
                stored.changes,
                scheduler=self.scheduler,
                sink=self._sink,
                bots=self.bots,
                levels=self.levels,
                timing=self.timing,
                event_buffer=self.config.event_buffer,
                runner=self._run_bot,
            )
        except CorruptLog:
            log.exception("table %s cannot be rebuilt", stored.table_id)
            return None
        self.tables[stored.table_id] = table
        table.resume()
        return table

    async def table(self, table_id: str) -> Table | None:
        """The table ``table_id``, loaded from the database if it is not in memory; None if none."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if not TABLE_ID.match(table_id):
            return None
        pending = self._loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = future
        try:
            stored = await self.store.load(table_id)
            table = self.tables.get(table_id)
            if table is None and stored is not None:
                table = self._restore(stored)
            future.set_result(table)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters get it through their await
            raise
        finally:
            del self._loading[table_id]
        return table

    async def create_table(self, name: str, settings: TableSettings) -> tuple[Table, int, str]:
        """Make a table whose owner ``name`` sits at seat 0; returns ``(table, 0, token)``
        once it is committed.  The seat token is the only copy: it is stored hashed."""
        table_id = secrets.token_urlsafe(9)
        seed = secrets.token_hex(16)
        table = self._new_table(table_id, settings, seed)
        now = time.time()
        self.writer.submit(
            Item(
                new_table={
                    "id": table_id,
                    "players": settings.players,
                    "target": settings.target,
                    "tempo": settings.tempo,
                    "seed": seed,
                    "status": "waiting",
                    "created": now,
                    "updated": now,
                }
            )
        )
        self.tables[table_id] = table
        token = secrets.token_urlsafe(24)
        seat = table.sit(name, hash_token(token), 0)
        await self.writer.flush()
        return table, seat, token

    async def join(self, table: Table, name: str, seat: int | None) -> tuple[int, str]:
        """Seat ``name`` at ``table`` (any free seat when ``seat`` is None); returns
        ``(seat, token)`` once committed.

        Raises:
            TableError: the match has started, the seat is taken, the table is full.
        """
        token = secrets.token_urlsafe(24)
        seat = table.sit(name, hash_token(token), seat)
        await self.writer.flush()
        return seat, token

    # -- committing and telling ----------------------------------------------------

    def _sink(self, commit: Commit) -> None:
        self.writer.submit(Item(commit=commit, after=partial(self._broadcast, commit)))

    def _broadcast(self, commit: Commit) -> None:
        conns = self.conns.get(commit.table.table_id)
        if not conns or not commit.events:
            return
        targets = [(seat, conn) for seat, conn in conns.items() if conn.ready]
        if not targets:
            return
        renderer = BatchRenderer(commit.events)
        for seat, conn in targets:
            if conn.batch:
                conn.push(renderer.batch(seat))
            else:
                for text in renderer.messages(seat):
                    conn.push(text)

    def _on_write_failure(self, table_ids: set[str], exc: BaseException) -> None:
        """Drop tables whose changes could not be committed; they reload from the database."""
        for table_id in table_ids:
            table = self.tables.pop(table_id, None)
            self._idle_since.pop(table_id, None)
            if table is not None:
                table.broken = True
                table.close()
            for conn in self.conns.pop(table_id, {}).values():
                conn.close(1011, "server error: reconnect")

    # -- connections -----------------------------------------------------------------

    async def serve(self, socket: Socket, table_id: str) -> None:
        """Run one accepted WebSocket of ``/ws/tables/{table_id}`` until it closes."""
        conn = Connection(socket, self.config, self.scheduler.now, self.writer.after)
        conn.start()
        try:
            await self._session(conn, table_id)
        finally:
            self._detach(conn)
            await conn.finish()

    async def _receive(self, conn: Connection, first: bool = False) -> str | None:
        """The next admitted text frame, or None once the socket is closed.  A
        ``first`` frame that is not text, or too large, closes the socket (4401)."""
        while True:
            message = await conn.socket.receive()
            if message["type"] == "websocket.disconnect":
                return None
            if not conn.admit():
                if conn.closed:
                    return None
                continue
            text = message.get("text")
            if text is None:
                conn.error("bad_message", "messages are JSON text frames", None)
            elif len(text) > self.config.max_frame or len(text.encode()) > self.config.max_frame:
                conn.error("too_large", f"a frame over {self.config.max_frame} bytes", None)
            else:
                return str(text)
            if first:
                conn.close(4401, "the first message must be hello")
                return None

    async def _session(self, conn: Connection, table_id: str) -> None:
        try:
            text = await asyncio.wait_for(self._receive(conn, first=True), HELLO_TIMEOUT)
        except TimeoutError:
            conn.error("unauthorized", "no hello", None)
            conn.close(4401, "no hello")
            return
        if text is None:
            return
        try:
            hello = parse_message(text)
        except BadMessage as exc:
            conn.error("bad_message", exc.message, exc.ref)
            conn.close(4401, "the first message must be a valid hello")
            return
        if not isinstance(hello, Hello):
            conn.error("unauthorized", "the first message must be hello", hello.type)
            conn.close(4401, "the first message must be hello")
            return
        table = await self.table(table_id)
        if table is None:
            conn.error("not_found", no_table(table_id), "hello")
            conn.close(4404, "no such table")
            return
        seat = table.seat_of_token(hello.token)
        if seat is None:
            conn.error("unauthorized", "this token holds no seat at this table", "hello")
            conn.close(4401, "unauthorized")
            return
        if table.seats[seat].kind != "human":
            conn.error("seat_gone", f"seat {seat} went to a bot for good (R7.4, R7.5)", "hello")
            conn.close(4403, "seat gone")
            return
        conn.batch = hello.batch
        self._attach(conn, table, seat, hello.last_seq)
        while not conn.closed:
            text = await self._receive(conn)
            if text is None:
                return
            self._handle(conn, table, seat, text)

    def _attach(self, conn: Connection, table: Table, seat: int, last_seq: int | None) -> None:
        conns = self.conns.setdefault(table.table_id, {})
        old = conns.get(seat)
        conns[seat] = conn
        conn.table = table
        conn.seat = seat
        if old is not None:
            old.ready = False
            old.close(4409, "replaced by a newer connection")
        conn.hold()  # replies to messages sent before the welcome come after it
        table.connect(seat)
        missed = table.events_since(last_seq) if last_seq is not None else None
        texts = [welcome_message(table, seat, resumed=missed is not None)]
        if missed:
            renderer = BatchRenderer(missed)
            if conn.batch:
                texts.append(renderer.batch(seat))
            else:
                texts.extend(renderer.messages(seat))

        def ready() -> None:
            if conns.get(seat) is conn and not conn.closed:
                conn.ready = True
                conn.release(texts)

        self.writer.after(ready)

    def _detach(self, conn: Connection) -> None:
        table, seat = conn.table, conn.seat
        if table is None or seat is None:
            return
        conns = self.conns.get(table.table_id)
        if conns is None or conns.get(seat) is not conn:
            return
        del conns[seat]
        if not conns:
            del self.conns[table.table_id]
        if self.tables.get(table.table_id) is table and not table.closed:
            table.disconnect(seat, conn.closing)

    def _handle(self, conn: Connection, table: Table, seat: int, text: str) -> None:
        try:
            message = parse_message(text)
        except BadMessage as exc:
            conn.error("bad_message", exc.message, exc.ref)
            return
        try:
            if isinstance(message, Play):
                table.play(seat, message.card, message.seq)
            elif isinstance(message, Ping):
                conn.reply(PONG)
            elif isinstance(message, TakeOver):
                table.take_over(seat)
            elif isinstance(message, Continue):
                table.continue_(seat, message.deck)
            elif isinstance(message, AddBot):
                table.add_bot(seat, message.seat, message.level)
            elif isinstance(message, RemoveBot):
                table.remove_bot(seat, message.seat)
            elif isinstance(message, Start):
                table.start(seat)
            elif isinstance(message, Rematch):
                table.rematch(seat)
            elif isinstance(message, Closing):
                conn.closing = True
            elif isinstance(message, Leave):
                table.leave(seat)
                self.writer.after(partial(conn.close, 1000, "left the table"))
            elif isinstance(message, Hello):
                raise TableError("bad_state", "hello was already said")
        except TableError as exc:
            conn.error(exc.code, exc.message, message.type)

    # -- figures -------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counters for monitoring and benchmarks."""
        return {
            "tables": len(self.tables),
            "tables_evicted": self.evicted,
            "connections": sum(len(c) for c in self.conns.values()),
            "writer_queued": self.writer.queued,
            "transactions": self.writer.transactions,
            "items_written": self.writer.items_written,
            "commit_seconds": round(self.writer.commit_seconds, 3),
        }
