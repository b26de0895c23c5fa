"""Group commit: every change is committed to the database before anyone is told of it.

Tables hand their changes to one :class:`Writer`.  Its task takes whatever has
queued up, writes it in a single transaction, and only after the commit runs
each item's ``after`` callback (which sends the events to the seats) and
resolves its future.  While one transaction commits, the next batch gathers,
so the number of transactions per second stays small at any move rate.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from pishti.server.people import SeatHolder
from pishti.server.store import FinishedMatch, NewTable, Store, WriteBatch
from pishti.server.table import Commit

log = logging.getLogger("pishti.server.writer")


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
    """

    def __init__(
        self,
        store: Store,
        on_failure: Callable[[set[str], BaseException], None],
        max_batch: int = 2000,
    ) -> None:
        self.store = store
        self.on_failure = on_failure
        self.max_batch = max_batch
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
        for item in items:
            if item.new_table is not None:
                out.add_table(item.new_table)
            commit = item.commit
            if commit is None:
                continue
            table_id = commit.table_id
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
        try:
            await self.store.write(self._batch(batch))
        except Exception as exc:
            log.exception("a commit of %d items failed", len(batch))
            ids = {i.commit.table_id for i in batch if i.commit is not None}
            ids |= {i.new_table.table_id for i in batch if i.new_table is not None}
            for item in batch:
                if item.future is not None and not item.future.done():
                    item.future.set_exception(exc)
            self._drop_queued(ids)
            self.on_failure(ids, exc)
            return
        self.commit_seconds += time.perf_counter() - started
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
