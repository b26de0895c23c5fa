"""The writer takes table ids and typed changes, and the store builds the rows from them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pishti.server.changes import AddBot, Sit
from pishti.server.store import NewTable, Store, WriteBatch
from pishti.server.table import Commit, TableSettings
from pishti.server.writer import Item, Writer


def commit(table_id: str, index: int, change: Sit | AddBot) -> Commit:
    return Commit(table_id, index, change, [], "waiting", None, 0, status_changed=False, seq=index)


class FailingOnce(Store):
    """A store whose first write fails, as a full disk would."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.failed = False

    async def write(self, batch: WriteBatch) -> None:
        if not self.failed:
            self.failed = True
            raise OSError("disk full")
        await super().write(batch)


async def test_the_store_builds_rows_from_ids_and_changes_and_a_failed_table_is_dropped(
    tmp_path: Path,
) -> None:
    store = FailingOnce(f"sqlite:///{tmp_path / 'w.db'}")
    await store.open()
    failures: list[set[str]] = []
    writer = Writer(store, lambda ids, exc: failures.append(ids))
    writer.start()
    try:
        settings = TableSettings(players=2, target=51, tempo="fast")
        # The first batch fails: the table's row and its first change are not written.
        writer.submit(Item(new_table=NewTable("t1", settings, "seed", 1.0)))
        writer.submit(Item(commit=commit("t1", 0, Sit(0, "Ann", "h" * 64))))
        with pytest.raises(OSError, match="disk full"):
            await writer.flush()
        # Another table's row and changes are built by the store from its id and changes.
        writer.submit(Item(new_table=NewTable("t2", settings, "seed2", 2.0)))
        writer.submit(Item(commit=commit("t2", 0, Sit(0, "Bob", "b" * 64))))
        writer.submit(Item(commit=commit("t2", 1, AddBot(1, "standard"))))
        await writer.flush()
    finally:
        await writer.stop()
    assert failures == [{"t1"}]
    assert await store.load("t1") is None
    stored = await store.load("t2")
    await store.close()
    assert stored is not None
    assert (stored.settings, stored.seed, stored.status) == (settings, "seed2", "waiting")
    assert stored.changes == [
        {"kind": "sit", "seat": 0, "name": "Bob", "token": "b" * 64},
        {"kind": "bot", "seat": 1, "level": "standard"},
    ]
    assert stored.versions == [5, 5]


async def test_changes_queued_behind_a_failed_one_of_their_table_are_dropped() -> None:
    written: list[WriteBatch] = []

    class Slow(Store):
        async def write(self, batch: WriteBatch) -> None:
            written.append(batch)
            await asyncio.sleep(0.05)
            if len(written) == 1:
                raise OSError("disk full")

    writer = Writer(Slow("sqlite://"), lambda ids, exc: None)
    writer.start()
    try:
        writer.submit(Item(commit=commit("t1", 0, Sit(0, "Ann", "a" * 64))))
        await asyncio.sleep(0.01)  # the first batch is being written
        later = asyncio.get_running_loop().create_future()
        writer.submit(Item(commit=commit("t1", 1, AddBot(1, "standard")), future=later))
        writer.submit(Item(commit=commit("t3", 0, Sit(0, "Cem", "c" * 64))))
        with pytest.raises(RuntimeError, match="reloaded"):
            await later
        await writer.flush()
    finally:
        await writer.stop()
    logged = [[row["table_id"] for row in batch.log] for batch in written if batch.log]
    assert logged == [["t1"], ["t3"]]
