"""The hub: one server process's tables, writer and connections, and the fan-out between them.

A :class:`Hub` puts the pieces together:

- the :class:`~pishti.server.registry.Registry` of live tables (create, join,
  load, unload);
- the :class:`~pishti.server.writer.Writer`, to which every change a table makes
  goes; once a change is committed, the hub renders its events for each seat
  (R7.7) and queues them on that seat's :class:`~pishti.server.connection.Connection`;
- the connections of the seats, one per seat, each run by a
  :class:`~pishti.server.session.Session`;
- on PostgreSQL, this node's :class:`~pishti.server.leases.Leases`: renewed
  every ``lease_seconds / 5``; a table whose lease is lost is dropped and its
  sockets closed (1012), one another node asks for is handed over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Mapping
from functools import partial
from typing import Any

from pishti.bots import LEVELS, make_bot
from pishti.server.changes import Watching
from pishti.server.clock import AsyncioScheduler, Scheduler
from pishti.server.config import ServerConfig
from pishti.server.connection import Connection, Socket
from pishti.server.leases import Leases
from pishti.server.reactions import Reactions
from pishti.server.registry import Registry
from pishti.server.session import Session
from pishti.server.store import Store, sync_url
from pishti.server.table import BotFactory, Commit, Table, TableSettings
from pishti.server.views import BatchRenderer, watchers_message, welcome_message
from pishti.server.writer import Item, Writer

log = logging.getLogger("pishti.server.hub")

__all__ = ["Hub", "Socket"]


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
        if store is None:
            shared = sync_url(config.db_url).get_backend_name() != "sqlite"
            leases = (
                Leases(config.node or socket.gethostname(), config.lease_seconds)
                if shared
                else None
            )
            store = Store(
                config.db_url, sqlite_synchronous=config.sqlite_synchronous, leases=leases
            )
        self.store = store
        self.leases = store.leases
        self._scheduler = scheduler
        self.conns: dict[str, dict[int, Connection]] = {}
        """The connection of each seat, by table id and seat."""
        self.watchers: dict[str, set[Connection]] = {}
        """The spectators' connections, by table id (R7.7: they see what is public)."""
        self.writer = Writer(
            self.store,
            self._on_write_failure,
            leases=self.leases,
            on_lost=self._on_lease_lost,
            # PostgreSQL restarts and network cuts are waited out; SQLite is a local
            # file, whose errors (a full disk) are not worth a minute's wait.
            retry_for=config.db_retry if self.leases is not None else 0.0,
        )
        self.reactions = Reactions(lambda: self.scheduler.now())
        """Quick reactions: the rate limit per person, the relay (never in the log)."""
        self._renewer: asyncio.Task[None] | None = None
        self.handed_over = 0
        self.leases_lost = 0
        self.taken_up = 0
        self.registry = Registry(
            config,
            self.store,
            self.writer,
            lambda: self.scheduler,
            self._sink,
            bots,
            levels if levels is not None else LEVELS,
            lambda table_id: bool(self.conns.get(table_id) or self.watchers.get(table_id)),
            self.leases,
        )

    @property
    def scheduler(self) -> Scheduler:
        """The scheduler of the tables' clocks."""
        if self._scheduler is None:
            self._scheduler = AsyncioScheduler()
        return self._scheduler

    @property
    def tables(self) -> dict[str, Table]:
        """The tables in memory, by id (the registry's)."""
        return self.registry.tables

    @property
    def evicted(self) -> int:
        """Idle tables unloaded so far."""
        return self.registry.evicted

    # -- life --------------------------------------------------------------------

    async def start(self) -> None:
        """Open the database, start the writer and resume every table being played
        (their clocks start again).  Tables at rest (waiting or finished) are read
        from the database when someone asks for one."""
        await self.store.open()
        self.writer.start()
        resumed = await self.registry.resume_playing()
        if resumed:
            log.info("resumed %d tables being played", resumed)
        await self.writer.flush()
        self.registry.start_unloading()
        if self.leases is not None:
            self._renewer = asyncio.get_running_loop().create_task(
                self._renew_leases(self.leases), name="pishti-leases"
            )

    async def stop(self) -> None:
        """Stop every table's timers, commit what is queued and close the database
        (on PostgreSQL letting this node's leases go, so that other nodes take its
        tables at once)."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        self.registry.close()
        for conns in self.conns.values():
            for conn in conns.values():
                conn.close(1012, "server restarting")
        for watching in self.watchers.values():
            for conn in watching:
                conn.close(1012, "server restarting")
        await self.writer.stop()
        if self.leases is not None and self.leases.held:
            try:
                await self.store.release(dict(self.leases.held))
            except Exception as exc:  # they expire by themselves
                log.warning("letting the leases go failed: %s", exc)
        await self.store.close()

    # -- leases (PostgreSQL nodes) ---------------------------------------------------

    async def _renew_leases(self, leases: Leases) -> None:
        """Renew this node's leases every ``ttl / 5`` seconds (:meth:`renew_leases`),
        and every ``ttl`` seconds take up the tables no node plays
        (:meth:`take_up_orphans`)."""
        rounds = 0
        while True:
            await asyncio.sleep(leases.renew_every)
            await self.renew_leases()
            rounds += 1
            if rounds % 5 == 0:
                await self.take_up_orphans()

    async def take_up_orphans(self) -> None:
        """Take up the tables being played whose node died and that nobody asked for
        since (:meth:`Registry.take_up_orphans`), so that a match of bots alone
        finishes too.  A database error is logged."""
        try:
            taken = await self.registry.take_up_orphans()
        except Exception as exc:
            log.warning("looking for tables no node plays failed: %s", exc)
            return
        if taken:
            self.taken_up += taken
            log.info("took up %d tables no node played", taken)

    async def renew_leases(self) -> None:
        """Renew this node's leases once; drop the tables whose lease is lost, hand over
        those another node asks for.  (A table being made or handed over is left out:
        its lease row may not be committed yet.)  A database error is logged."""
        leases = self.leases
        if leases is None:
            return
        held = {t: e for t, e in leases.held.items() if t not in leases.releasing}
        if not held:
            return
        try:
            kept, wanted = await self.store.renew(held)
        except Exception as exc:
            log.warning("renewing %d leases failed: %s", len(held), exc)
            return
        lost = {t for t, epoch in held.items() if t not in kept and leases.held.get(t) == epoch}
        if lost:
            self._on_lease_lost(lost)
        for table_id in wanted:
            if leases.held.get(table_id) == held[table_id]:
                await self.hand_over(table_id)

    async def hand_over(self, table_id: str) -> None:
        """Give a table another node asked for (:mod:`pishti.server.leases`): close its
        sockets, seats' and spectators' (1012, the clients reconnect), stop it, commit
        what it queued, then let its lease go.  Requests for it meanwhile are answered
        "retry"."""
        leases = self.leases
        if leases is None or table_id not in leases.held:
            return
        leases.releasing.add(table_id)
        try:
            self._close_sockets(table_id, 1012, "the table moves to another node: reconnect")
            self.registry.unload(table_id)
            await self.writer.flush()
            epoch = leases.held.pop(table_id, None)
            if epoch is not None:
                await self.store.release({table_id: epoch})
                self.handed_over += 1
                log.info("table %s handed over", table_id)
        except Exception as exc:
            log.warning("handing table %s over failed: %s", table_id, exc)
        finally:
            leases.releasing.discard(table_id)

    def _on_lease_lost(self, table_ids: set[str]) -> None:
        """Another node holds these tables now: drop them (they write nothing more)
        and close their sockets, seats' and spectators' (1012); the clients reconnect
        to the new owner."""
        for table_id in table_ids:
            if table_id in self.tables:  # counted once, while it was played here
                self.leases_lost += 1
                log.warning("the lease of table %s is lost: dropping it", table_id)
            self.registry.drop(table_id)
            self._close_sockets(table_id, 1012, "the table moved to another node: reconnect")

    def _close_sockets(self, table_id: str, code: int, reason: str) -> None:
        """Close every socket of a table this node no longer plays, the seats' and the
        spectators' alike (``code``: 1012 when it moved to another node, 1011 after an
        error); their clients reconnect, to whichever node plays it then."""
        for conn in self.conns.pop(table_id, {}).values():
            conn.close(code, reason)
        for conn in self.watchers.pop(table_id, set()):
            conn.close(code, reason)

    # -- tables ------------------------------------------------------------------

    async def table(self, table_id: str) -> Table | None:
        """The table ``table_id`` (see :meth:`Registry.table`)."""
        return await self.registry.table(table_id)

    async def create_table(self, name: str, settings: TableSettings) -> tuple[Table, int, str]:
        """Make a table with ``name`` at seat 0 (see :meth:`Registry.create_table`)."""
        return await self.registry.create_table(name, settings)

    async def join(self, table: Table, name: str, seat: int | None) -> tuple[int, str]:
        """Seat ``name`` at ``table`` (see :meth:`Registry.join`).

        Raises:
            TableError: the match has started, the seat is taken, the table is full.
        """
        return await self.registry.join(table, name, seat)

    # -- committing and telling ----------------------------------------------------

    def _sink(self, commit: Commit) -> None:
        self.writer.submit(Item(commit=commit, after=partial(self._broadcast, commit)))

    def _broadcast(self, commit: Commit) -> None:
        table_id = commit.table_id
        watching = self.watchers.get(table_id, set())
        self._tell(commit, self.conns.get(table_id, {}), watching)
        if isinstance(commit.change, Watching) and not commit.change.on:
            for conn in list(watching):  # told that watching is off, then closed
                conn.close(4410, "the owner turned watching off")

    def _tell(
        self, commit: Commit, conns: dict[int, Connection], watching: set[Connection]
    ) -> None:
        """Queue the events of ``commit`` for each seat's connection and each spectator,
        each getting its own copy (R7.7)."""
        if not commit.events:
            return
        targets: list[tuple[int | None, Connection]] = [
            (seat, conn) for seat, conn in conns.items() if conn.ready
        ]
        targets += [(None, conn) for conn in watching if conn.ready]  # R7.7: public only
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
            self.registry.drop(table_id)
            self._close_sockets(table_id, 1011, "server error: reconnect")

    # -- connections -----------------------------------------------------------------

    async def serve(self, socket: Socket, table_id: str) -> None:
        """Run one accepted WebSocket of ``/ws/tables/{table_id}`` until it closes."""
        conn = Connection(socket, self.config, self.scheduler.now, self.writer.after)
        conn.start()
        try:
            await Session(self, conn, table_id).run()
        finally:
            self.detach(conn)
            await conn.finish()

    def attach(self, conn: Connection, table: Table, seat: int, last_seq: int | None) -> None:
        """Make ``conn`` the connection of ``seat`` (a connection it replaces is closed,
        4409), mark the seat connected (R7.4) and queue its ``welcome``: a snapshot,
        or with ``last_seq`` the events missed since, when all are still held."""
        if conn.closed:
            return
        conns = self.conns.setdefault(table.table_id, {})
        old = conns.get(seat)
        conns[seat] = conn
        conn.table = table
        conn.seat = seat
        if old is not None:
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
                conn.release(texts)

        self.writer.after(ready)

    def watch(self, conn: Connection, table: Table, last_seq: int | None) -> None:
        """Make ``conn`` a spectator of ``table``: it gets the ``welcome`` of no seat (what
        is public, R7.7) and every event as a spectator sees it.  It is no seat: holds,
        clocks and the pause never wait for it.  Everyone is told the new count."""
        if conn.closed:
            return
        watching = self.watchers.setdefault(table.table_id, set())
        watching.add(conn)
        conn.table = table
        conn.hold()
        missed = table.events_since(last_seq) if last_seq is not None else None
        texts = [welcome_message(table, None, resumed=missed is not None)]
        if missed:
            renderer = BatchRenderer(missed)
            texts.extend([renderer.batch(None)] if conn.batch else renderer.messages(None))

        def ready() -> None:
            if conn in watching and not conn.closed:
                conn.release(texts)
                self._count_watchers(table)

        self.writer.after(ready)

    def react(self, table: Table, seat: int, preset: str) -> None:
        """Relay the quick reaction ``preset`` of the person at ``seat`` to every seat and
        spectator of ``table`` (see :meth:`Reactions.send`).  Never committed or numbered.

        Raises:
            TableError: ``bad_state`` outside a match, ``rate_limited`` too soon after the
                person's last reaction.
        """
        targets = [
            *self.conns.get(table.table_id, {}).values(),
            *self.watchers.get(table.table_id, ()),
        ]
        self.reactions.send(table, seat, preset, targets)

    def _count_watchers(self, table: Table) -> None:
        """Set the table's count of spectators and tell every seat and spectator."""
        watching = self.watchers.get(table.table_id, set())
        table.watchers = len(watching)
        text = watchers_message(table.watchers)
        for conn in self.conns.get(table.table_id, {}).values():
            if conn.ready:
                conn.push(text)
        for conn in watching:
            if conn.ready:
                conn.push(text)

    def detach(self, conn: Connection) -> None:
        """Forget ``conn`` once its socket closed; its seat is marked disconnected and its
        hold starts (R7.4), unless a newer connection has the seat.  A spectator is
        just forgotten, and the new count told."""
        table, seat = conn.table, conn.seat
        if table is not None and seat is None:
            watching = self.watchers.get(table.table_id)
            if watching is not None and conn in watching:
                watching.discard(conn)
                if not watching:
                    del self.watchers[table.table_id]
                self._count_watchers(table)
            return
        if table is None or seat is None:
            return
        conns = self.conns.get(table.table_id)
        if conns is None or conns.get(seat) is not conn:
            return
        del conns[seat]
        if not conns:
            del self.conns[table.table_id]
        if self.tables.get(table.table_id) is table and not table.closed:
            table.disconnect(seat, conn.said_closing)

    # -- figures -------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counters for monitoring and benchmarks."""
        cluster = {}
        if self.leases is not None:
            cluster = {
                "node": self.leases.node,
                "leases": len(self.leases.held),
                "leases_lost": self.leases_lost,
                "handed_over": self.handed_over,
                "taken_up": self.taken_up,
                "writes_refused": self.leases.refused,
                "commit_retries": self.writer.retries,
            }
        return {
            **cluster,
            "tables": len(self.tables),
            "tables_evicted": self.evicted,
            "connections": sum(len(c) for c in self.conns.values()),
            "spectators": sum(len(w) for w in self.watchers.values()),
            "writer_queued": self.writer.queued,
            "transactions": self.writer.transactions,
            "items_written": self.writer.items_written,
            "commit_seconds": round(self.writer.commit_seconds, 3),
        }
