"""Group commit: every change is committed to the database before anyone is told of it.

Tables hand their changes to one :class:`Writer`.  Its task takes whatever has
queued up, writes it in a single transaction, and only after the commit runs
each item's ``after`` callback (which sends the events to the seats) and
resolves its future.  While one transaction commits, the next batch gathers,
so the number of transactions per second stays small at any move rate.

On PostgreSQL shared by several nodes every batch is fenced by the epochs of
its tables' leases (:mod:`pishti.server.leases`): when some of them are lost the
database writes nothing, the writer drops those tables' items (``on_lost``) and
writes the rest again.  A batch that fails because the database cannot be
reached (a restart) is written again, every :data:`RETRY_EVERY` seconds for up
to ``retry_for`` seconds, before it counts as failed: nothing is told before it
is committed, so the players only wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa

from pishti.server.leases import LeaseLost, Leases
from pishti.server.people import SeatHolder
from pishti.server.store import FinishedMatch, NewTable, Store, WriteBatch
from pishti.server.table import Commit

log = logging.getLogger("pishti.server.writer")

RETRY_EVERY = 0.5
"""Seconds between two tries of a batch the database could not be reached for."""


@dataclass(slots=True)
class Item:
    """One thing to commit, then tell.

    Attributes:
        commit: a table change, or None.
        new_table: a new table, or None.
        after: called once the item is committed (sends its events), or None.
        future: resolved once the item is committed (and failed if it could not be).
    """

    commit: Commit | None = None
    new_table: NewTable | None = None
    after: Callable[[], None] | None = None
    future: asyncio.Future[None] | None = None


class Writer:
    """The single writer task of a server.

    Args:
        store: the database.
        on_failure: called with the table ids of a batch that could not be
            committed (their in-memory state is now ahead of the database).
        max_batch: items per transaction at most.
        leases: this node's leases (PostgreSQL nodes): every batch is fenced by them.
        on_lost: called with the tables whose lease was lost (their items were dropped).
        retry_for: seconds a batch is tried again while the database cannot be reached.
    """

    def __init__(
        self,
        store: Store,
        on_failure: Callable[[set[str], BaseException], None],
        max_batch: int = 2000,
        *,
        leases: Leases | None = None,
        on_lost: Callable[[set[str]], None] | None = None,
        retry_for: float = 0.0,
    ) -> None:
        self.store = store
        self.on_failure = on_failure
        self.max_batch = max_batch
        self.leases = leases
        self.on_lost = on_lost
        self.retry_for = retry_for
        self.retries = 0
        self._items: deque[Item] = deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.transactions = 0
        self.items_written = 0
        self.commit_seconds = 0.0

    def start(self) -> None:
        """Start the writer task on the running loop."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name="pishti-writer")

    async def stop(self) -> None:
        """Write what is queued, then stop the task."""
        await self.flush()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def submit(self, item: Item) -> None:
        """Queue ``item``; items are committed and told in the order submitted."""
        self._items.append(item)
        self._wake.set()

    def after(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once everything submitted so far is committed (and told)."""
        self.submit(Item(after=callback))

    async def flush(self) -> None:
        """Wait until everything submitted so far is committed (and told).

        Raises:
            Exception: the database refused the batch holding the barrier.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.submit(Item(future=future))
        await future

    @property
    def queued(self) -> int:
        """Items waiting to be committed."""
        return len(self._items)

    async def _run(self) -> None:
        while True:
            if not self._items:
                self._wake.clear()
                await self._wake.wait()
            batch: list[Item] = []
            while self._items and len(batch) < self.max_batch:
                batch.append(self._items.popleft())
            await self._write(batch)

    def _batch(self, items: list[Item]) -> WriteBatch:
        out = WriteBatch()
        held = self.leases.held if self.leases is not None else None
        for item in items:
            if item.new_table is not None:
                out.add_table(item.new_table)
            commit = item.commit
            if commit is None:
                continue
            table_id = commit.table_id
            if held is not None:
                out.fences[table_id] = held.get(table_id, 0)  # 0: not held, refused
            out.add_change(table_id, commit.index, commit.seq, commit.change)
            if commit.status_changed:
                out.statuses[table_id] = commit.status
            if commit.record is not None:
                now = time.time()
                out.add_record(table_id, commit.match_no, commit.record, now)
                holders = [SeatHolder(*holder) for holder in commit.holders]
                out.finished.append(
                    FinishedMatch(table_id, commit.match_no, commit.record, holders, now)
                )
        return out

    def _drop_queued(self, table_ids: set[str]) -> None:
        """Drop the queued changes of tables whose earlier change failed to commit:
        those tables are read back from the database (their later changes were
        made on top of one the database does not have)."""
        kept: deque[Item] = deque()
        for item in self._items:
            if item.commit is not None and item.commit.table_id in table_ids:
                if item.future is not None and not item.future.done():
                    item.future.set_exception(RuntimeError("the table was reloaded"))
                continue
            kept.append(item)
        self._items = kept

    async def _write(self, batch: list[Item]) -> None:
        started = time.perf_counter()
        give_up = time.monotonic() + self.retry_for
        while True:
            try:
                await self.store.write(self._batch(batch))
            except LeaseLost as lost:
                batch = self._refuse(batch, lost)
                continue
            except sa.exc.DBAPIError as exc:
                # Unreachable, or the connection ended by the server (a restart, or a
                # transaction that stalled past a lease): the next try reconnects.
                if not isinstance(exc, sa.exc.OperationalError) and not exc.connection_invalidated:
                    self._fail(batch, exc)
                    return
                if time.monotonic() >= give_up:
                    self._fail(batch, exc)
                    return
                self.retries += 1
                log.warning("the database cannot be reached (%s): trying again", exc.orig)
                await asyncio.sleep(RETRY_EVERY)
                continue
            except Exception as exc:
                self._fail(batch, exc)
                return
            break
        self._told(batch, time.perf_counter() - started)

    def _refuse(self, batch: list[Item], lost: LeaseLost) -> list[Item]:
        """Drop the items of tables whose lease is lost (nothing of them is written,
        nothing told) and return the others, to be written again."""
        assert self.leases is not None
        ids = lost.table_ids
        self.leases.refused += sum(
            1 for i in batch if i.commit is not None and i.commit.table_id in ids
        )
        log.warning("writes refused: the leases of %d tables are lost", len(ids))
        kept = []
        for item in batch:
            if item.commit is not None and item.commit.table_id in ids:
                if item.future is not None and not item.future.done():
                    item.future.set_exception(lost)
                continue
            kept.append(item)
        if self.on_lost is not None:
            self.on_lost(ids)
        return kept

    def _fail(self, batch: list[Item], exc: Exception) -> None:
        log.error("a commit of %d items failed", len(batch), exc_info=exc)
        ids = {i.commit.table_id for i in batch if i.commit is not None}
        ids |= {i.new_table.table_id for i in batch if i.new_table is not None}
        for item in batch:
            if item.future is not None and not item.future.done():
                item.future.set_exception(exc)
        self._drop_queued(ids)
        self.on_failure(ids, exc)

    def _told(self, batch: list[Item], seconds: float) -> None:
        self.commit_seconds += seconds
        self.transactions += 1
        self.items_written += len(batch)
        for item in batch:
            if item.after is not None:
                try:
                    item.after()
                except Exception:
                    log.exception("telling a committed change failed")
            if item.future is not None and not item.future.done():
                item.future.set_result(None)
