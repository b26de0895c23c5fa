"""The tables in memory: creating, joining, loading from the database, and unloading idle ones.

A :class:`Registry` keeps every live :class:`~pishti.server.table.Table` of a
server process.  Tables being played stay in memory (their clocks run); a table
at rest (waiting or finished) that nobody is connected to and that has not
changed for ``idle_unload`` seconds is dropped, and read back from the database
(its log replayed) when someone asks for it again.

On PostgreSQL shared by several nodes a table is loaded only with its lease
(:mod:`pishti.server.leases`): reading it back takes the lease in the same
transaction, and a table another node plays raises
:class:`~pishti.server.leases.NotOwner`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Callable, Collection
from typing import Any

from pishti.server.botrunner import ThreadedRunner
from pishti.server.clock import Scheduler, Timer
from pishti.server.config import ServerConfig
from pishti.server.leases import Leases, NotOwner
from pishti.server.store import NewTable, Store, StoredTable
from pishti.server.table import (
    BotFactory,
    CorruptLog,
    Sink,
    Table,
    TableSettings,
    Timing,
    hash_token,
)
from pishti.server.writer import Item, Writer

log = logging.getLogger("pishti.server.registry")

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{6,32}$")
"""The form of a table id (:func:`secrets.token_urlsafe` of 9 bytes makes 12 characters)."""


class Registry:
    """Every live table of one server process.

    Args:
        config: the server's settings.  store: the database.  writer: commits changes.
        scheduler: returns the tables' scheduler (made on first use, on the running loop).
        sink: receives every change of every table.
        bots: ``bots(level, seed)`` builds a bot.  levels: the levels the owner may pick.
        in_use: whether a table has a connection (such a table is never unloaded).
        leases: this node's leases (PostgreSQL nodes), None on SQLite.
    """

    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        writer: Writer,
        scheduler: Callable[[], Scheduler],
        sink: Sink,
        bots: BotFactory,
        levels: Collection[str],
        in_use: Callable[[str], bool],
        leases: Leases | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.writer = writer
        self._scheduler = scheduler
        self.sink = sink
        self.bots = bots
        self.levels = levels
        self.in_use = in_use
        self.leases = leases
        self.timing = Timing(
            scale=config.time_scale, bot_delay=config.bot_delay, pause=config.pause
        )
        self.runner = ThreadedRunner(config.bot_deadline)
        self.tables: dict[str, Table] = {}
        self.evicted = 0
        self._loading: dict[str, asyncio.Future[Table | None]] = {}
        self._idle_since: dict[str, tuple[float, int]] = {}
        """For each table at rest: since when (``scheduler.now()`` seconds), at which log size."""
        self._evict_timer: Timer | None = None

    # -- life --------------------------------------------------------------------

    async def resume_playing(self) -> int:
        """Rebuild every table being played from the database and restart its clocks;
        returns how many were resumed (a log that cannot be replayed is logged and skipped)."""
        resumed = 0
        if self.leases is not None:
            # A node resumes only the tables an earlier run of it held; the others
            # come back when their requests reach the node that then holds them.
            for table_id in await self.store.owned_playing():
                try:
                    if await self.table(table_id) is not None:
                        resumed += 1
                except NotOwner:
                    pass  # taken by another node meanwhile
            return resumed
        for stored in await self.store.playing():
            if self._restore(stored) is not None:
                resumed += 1
        return resumed

    async def take_up_orphans(self, limit: int = 100) -> int:
        """Take up the tables being played that no node plays and nobody asked for
        (PostgreSQL nodes: their lease expired over ``orphan_after`` seconds ago, say
        their node died while only bots sat there) and restore them as a restart does
        (clocks, holds, bots resume); returns how many.  A person who asks another
        node for one later gets it handed over there (:mod:`pishti.server.leases`)."""
        if self.leases is None:
            return 0
        taken = 0
        for table_id in await self.store.orphans(self.leases.orphan_after, limit):
            if table_id in self.tables or table_id in self.leases.releasing:
                continue
            try:
                if await self.table(table_id, ask=False) is not None:
                    taken += 1
            except NotOwner:
                pass  # another node took it first
        return taken

    def start_unloading(self) -> None:
        """Start the timer that unloads idle tables."""
        every = min(60.0, max(0.05, self.config.idle_unload / 2))
        self._evict_timer = self._scheduler().call_later(every, self._evict_idle)

    def close(self) -> None:
        """Stop unloading and stop every table's timers."""
        if self._evict_timer is not None:
            self._evict_timer.cancel()
            self._evict_timer = None
        for table in self.tables.values():
            table.close()

    def drop(self, table_id: str) -> None:
        """Forget a table whose changes could not be committed: it is marked broken (it
        hands no further change to its sink) and closed, and read back from the
        database when asked for again."""
        table = self.tables.pop(table_id, None)
        self._idle_since.pop(table_id, None)
        if self.leases is not None:
            self.leases.held.pop(table_id, None)
        if table is not None:
            table.broken = True
            table.close()

    def unload(self, table_id: str) -> None:
        """Stop a table and forget it (its queued changes are still committed); it is
        read back from the database when asked for again."""
        table = self.tables.pop(table_id, None)
        self._idle_since.pop(table_id, None)
        if table is not None:
            table.close()

    def _evict_idle(self) -> None:
        """Drop the tables at rest (waiting or finished) that nobody has been connected
        to, and that have not changed, for ``idle_unload`` seconds; :meth:`table`
        reads them back from the database when asked.  (A table being played keeps
        its clocks and holds, so it stays.)"""
        now = self._scheduler().now()
        released: dict[str, int] = {}
        for table_id, table in list(self.tables.items()):
            if table.status == "playing" or self.in_use(table_id):
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
                if self.leases is not None and table_id in self.leases.held:
                    released[table_id] = self.leases.held.pop(table_id)
        if released:
            self.writer.after(lambda: self._release(released))
        self.start_unloading()

    def _release(self, held: dict[str, int]) -> None:
        """Let the leases of unloaded tables go (once their last changes are committed)."""
        task = asyncio.get_running_loop().create_task(self.store.release(held))
        task.add_done_callback(_log_failure)

    # -- tables ------------------------------------------------------------------

    def _options(self) -> dict[str, Any]:
        """The keyword arguments of every :class:`Table` of this server."""
        return {
            "scheduler": self._scheduler(),
            "sink": self.sink,
            "bots": self.bots,
            "levels": self.levels,
            "timing": self.timing,
            "event_buffer": self.config.event_buffer,
            "runner": self.runner,
        }

    def _restore(self, stored: StoredTable) -> Table | None:
        try:
            table = Table.restore(
                stored.table_id,
                stored.settings,
                stored.seed,
                stored.changes,
                stored.versions,
                seqs=stored.seqs,
                **self._options(),
            )
        except CorruptLog:
            log.exception("table %s cannot be rebuilt", stored.table_id)
            return None
        self.tables[stored.table_id] = table
        table.resume()
        return table

    async def table(self, table_id: str, *, ask: bool = True) -> Table | None:
        """The table ``table_id``, loaded from the database if it is not in memory; None if none.

        Args:
            ask: on PostgreSQL nodes, ask the node that holds the table to hand it
                over (a request for it came here); False leaves it be.

        Raises:
            NotOwner: another node plays it (PostgreSQL nodes), or this node is
                handing it over.
        """
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if not TABLE_ID.match(table_id):
            return None
        if self.leases is not None and table_id in self.leases.releasing:
            raise NotOwner(table_id, "the next one")
        pending = self._loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = future
        try:
            table = self.tables.get(table_id)
            if table is None:
                table = await self._load(table_id, ask)
            future.set_result(table)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters get it through their await
            raise
        finally:
            del self._loading[table_id]
        return table

    async def _load(self, table_id: str, ask: bool) -> Table | None:
        if self.leases is None:
            stored = await self.store.load(table_id)
            return None if stored is None else self._restore(stored)
        found = await self.store.acquire(table_id, ask=ask)
        if found is None:
            return None
        stored, epoch = found
        self.leases.held[table_id] = epoch
        table = self._restore(stored)
        if table is None:  # a log that cannot be replayed: let the lease go
            self.leases.held.pop(table_id, None)
            await self.store.release({table_id: epoch})
        return table

    async def create_table(self, name: str, settings: TableSettings) -> tuple[Table, int, str]:
        """Make a table whose owner ``name`` sits at seat 0; returns ``(table, 0, token)``
        once it is committed.  The seat token is the only copy: it is stored hashed.
        On PostgreSQL nodes the table's lease is let go at once (the node the load
        balancer sends the table's requests to takes it when first asked)."""
        table_id = secrets.token_urlsafe(9)
        seed = secrets.token_hex(16)
        table = Table(table_id, settings, seed, **self._options())
        self.writer.submit(Item(new_table=NewTable(table_id, settings, seed, time.time())))
        self.tables[table_id] = table
        if self.leases is not None:
            self.leases.held[table_id] = 1  # the lease is made with the table's row
            # Not renewed before its row is committed (a renewal would find no row and
            # take the lease for lost), and let go right after.
            self.leases.releasing.add(table_id)
        table.draw_first_seed()  # R11.1: committed to before any seat seed is sent
        token = secrets.token_urlsafe(24)
        seat = table.sit(name, hash_token(token), 0)
        try:
            await self.writer.flush()
            if self.leases is not None:
                # Any node makes a table, but the load balancer sends its requests to one
                # node by its id: let it go, for that node to take when first asked.
                self.unload(table_id)
                epoch = self.leases.held.pop(table_id, None)
                if epoch is not None:
                    await self.store.release({table_id: epoch})
        finally:
            if self.leases is not None:
                self.leases.releasing.discard(table_id)
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


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("letting leases go failed: %s", task.exception())
