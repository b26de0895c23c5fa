"""The database layer: URLs, the database thread, status rows, checkpoints; and the
garbage collector's settings of a server process."""

from __future__ import annotations

import asyncio
import gc
import re
import sqlite3
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from pishti.cluster.postgres import LocalPostgres
from pishti.server.checkpointer import WRITER_AUTOCHECKPOINT, Checkpointer
from pishti.server.collector import YOUNG_THRESHOLD, Collector
from pishti.server.config import database_url
from pishti.server.store import DatabaseError, Store, WriteBatch, check_database, sync_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite+aiosqlite:///data/p.db", "sqlite:///data/p.db"),
        ("sqlite:///data/p.db", "sqlite:///data/p.db"),
        ("postgresql+asyncpg://u:pw@db:5432/pishti", "postgresql+psycopg://u:***@db:5432/pishti"),
        ("postgresql://u@db/pishti", "postgresql+psycopg://u@db/pishti"),
        ("postgresql+psycopg://u@db/pishti", "postgresql+psycopg://u@db/pishti"),
        ("postgresql+psycopg2://u@db/pishti", "postgresql+psycopg2://u@db/pishti"),
    ],
)
def test_an_async_driver_in_a_url_is_replaced_by_the_dialects_default(
    url: str, expected: str
) -> None:
    assert str(sync_url(url)) == expected


def test_db_option_turns_a_path_into_a_sqlite_url() -> None:
    assert database_url("/var/lib/pishti/p.db") == "sqlite:////var/lib/pishti/p.db"
    assert database_url("postgresql://db/pishti") == "postgresql://db/pishti"


def new_table(table_id: str, status: str = "waiting") -> dict[str, object]:
    return {
        "id": table_id,
        "players": 4,
        "target": 101,
        "tempo": "normal",
        "seed": "00" * 16,
        "status": status,
        "created": 1000.0,
        "updated": 1000.0,
    }


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


async def test_a_table_is_written_and_read_back_through_the_database_thread(db_url: str) -> None:
    store = Store(db_url)
    await store.open()
    try:
        batch = WriteBatch(new_tables=[new_table("table-one")])
        batch.log = [
            {"table_id": "table-one", "n": 0, "seq": 1, "change": '{"kind":"sit","seat":0}'},
            {"table_id": "table-one", "n": 1, "seq": 3, "change": '{"kind":"start"}'},
        ]
        batch.statuses = {"table-one": "playing"}
        await store.write(batch)
        stored = await store.load("table-one")
        assert stored is not None
        assert stored.status == "playing"
        assert stored.changes == [{"kind": "sit", "seat": 0}, {"kind": "start"}]
        assert [t.table_id for t in await store.playing()] == ["table-one"]
        assert await store.load("no-such-table") is None
        assert await store.record("table-one") is None
    finally:
        await store.close()
    with pytest.raises(RuntimeError, match="not open"):
        await store.load("table-one")


async def test_a_failed_transaction_writes_nothing(db_url: str) -> None:
    store = Store(db_url)
    await store.open()
    try:
        await store.write(WriteBatch(new_tables=[new_table("table-two", "playing")]))
        duplicate = WriteBatch(
            new_tables=[new_table("table-three", "playing"), new_table("table-two")]
        )
        with pytest.raises(sa.exc.IntegrityError):
            await store.write(duplicate)
        assert await store.load("table-three") is None
        assert [t.table_id for t in await store.playing()] == ["table-two"]
    finally:
        await store.close()


async def test_match_records_and_statuses_are_kept(db_url: str) -> None:
    store = Store(db_url)
    await store.open()
    try:
        await store.write(WriteBatch(new_tables=[new_table("table-r", "playing")]))
        for match in (1, 2):
            batch = WriteBatch(statuses={"table-r": "finished"})
            batch.records = [
                {
                    "table_id": "table-r",
                    "match": match,
                    "record": f'{{"m":{match}}}',
                    "finished": 1.5,
                }
            ]
            await store.write(batch)
        assert await store.record("table-r") == (2, '{"m":2}')
        assert await store.record("table-r", 1) == (1, '{"m":1}')
        assert await store.record("table-r", 3) is None
        stored = await store.load("table-r")
        assert stored is not None and stored.status == "finished"
        assert await store.playing() == []
        with pytest.raises(sa.exc.IntegrityError):  # a match's record is written once
            await store.write(
                WriteBatch(
                    records=[{"table_id": "table-r", "match": 1, "record": "{}", "finished": 2.0}]
                )
            )
    finally:
        await store.close()


async def test_the_store_reconnects_after_postgresql_restarts(
    postgres: LocalPostgres, pg_url: str
) -> None:
    store = Store(pg_url)
    await store.open()
    try:
        await store.write(WriteBatch(new_tables=[new_table("before")]))
        await asyncio.to_thread(postgres.stop)
        with pytest.raises(sa.exc.OperationalError):
            await store.write(WriteBatch(new_tables=[new_table("while-down")]))
        await asyncio.to_thread(postgres.start)
        await store.write(WriteBatch(new_tables=[new_table("after")]))
        assert (await store.load("before")) is not None
        assert (await store.load("while-down")) is None
        assert (await store.load("after")) is not None
    finally:
        await store.close()


async def test_the_writer_connection_checkpoints_only_a_large_log(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    await store.open()
    try:

        def pragma() -> int:
            with store.engine.connect() as conn:
                return int(conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one())

        assert await store._run(pragma) == WRITER_AUTOCHECKPOINT
        assert store.checkpointer is not None
    finally:
        await store.close()
    assert store.checkpointer is None


async def test_a_checkpoint_copies_the_whole_log_into_the_database_file(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    store = Store(f"sqlite:///{db}")
    await store.open()
    try:
        await store.write(WriteBatch(new_tables=[new_table(f"table-{n}") for n in range(50)]))
        checkpointer = store.checkpointer
        assert checkpointer is not None
        busy, pages, copied = checkpointer.checkpoint()
        assert busy == 0
        assert pages > 0
        assert copied == pages
    finally:
        await store.close()
    assert rows(db, "select count(*) from tables") == [(50,)]


def test_a_checkpointer_needs_a_positive_interval(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'e.db'}")
    with pytest.raises(ValueError, match="above 0"):
        Checkpointer(engine, interval=0)
    engine.dispose()


def test_the_checkpoint_thread_runs_until_stopped(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'f.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("PRAGMA journal_mode=WAL")
        conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    checkpointer = Checkpointer(engine, interval=0.01)
    checkpointer.start()
    for _ in range(500):
        if checkpointer.checkpoints >= 3:
            break
        with engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO t VALUES (1)")
    checkpointer.stop()
    done = checkpointer.checkpoints
    assert done >= 3
    assert not checkpointer._thread.is_alive()
    engine.dispose()


@pytest.fixture
def collector_settings() -> Iterator[None]:
    """Put Python's collector back as it was after the test."""
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


async def test_the_collector_freezes_the_heap_and_puts_it_back_when_stopped(
    collector_settings: None,
) -> None:
    gc.set_threshold(700, 10, 10)
    collector = Collector(freeze_every=0.01, sweep_every=3600)
    collector.start()
    try:
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        assert collector.sweeps == 1  # one sweep at the start, then a frozen heap
        assert gc.get_freeze_count() > 0
        gc.unfreeze()
        fresh = [[n] for n in range(1000)]
        await asyncio.sleep(0.05)  # a few freezes
        assert gc.get_count()[0] < len(fresh)
        assert gc.get_freeze_count() >= len(fresh)
    finally:
        collector.stop()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == (700, 10, 10)


async def test_a_sweep_frees_the_cycles_that_died_while_frozen(collector_settings: None) -> None:
    collector = Collector(freeze_every=3600, sweep_every=3600)
    collector.start()
    try:

        class Node:
            def __init__(self) -> None:
                self.me = self

        cycles = [Node() for _ in range(500)]
        collector.freeze()
        probe = weakref.ref(cycles[0])
        del cycles
        assert probe() is not None  # frozen: no collection looks at it
        gc.collect()
        assert probe() is not None
        assert collector.sweep() >= 500
        assert probe() is None
        assert collector.sweeps == 2 and collector.freed >= 500
    finally:
        collector.stop()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"freeze_every": 0}, "above 0"),
        ({"sweep_every": -1}, "above 0"),
        ({"young": 0}, "at least 1"),
    ],
)
def test_the_collector_refuses_bad_settings(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Collector(**kwargs)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("nonsense://x", "cannot use 'nonsense://x': Can't load plugin"),
        ("sqlite:///", "'sqlite:///' is an in-memory database: nothing would be kept"),
        ("sqlite+aiosqlite:///:memory:", "is an in-memory database: nothing would be kept"),
    ],
)
def test_a_database_the_server_cannot_use_is_refused_before_serving(url: str, message: str) -> None:
    with pytest.raises(DatabaseError, match=re.escape(message)):
        check_database(url)


def test_a_folder_is_not_a_database_file(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="is a folder, not a database file"):
        check_database(f"sqlite:///{tmp_path}")
    assert str(check_database(f"sqlite+aiosqlite:///{tmp_path / 'new' / 'p.db'}")) == (
        f"sqlite:///{tmp_path / 'new' / 'p.db'}"
    )


async def test_one_server_process_at_a_time_serves_a_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = Store(url)
    await first.open()
    second = Store(url)
    try:
        with pytest.raises(DatabaseError, match="is in use by another server process"):
            await second.open()
        with pytest.raises(DatabaseError, match="is in use by another server process"):
            check_database(url)
    finally:
        await first.close()
    await second.open()  # free again once the first let go
    await second.close()


def test_serve_refuses_a_bad_database_with_one_line(tmp_path: Path) -> None:
    pishti = str(Path(sys.executable).with_name("pishti"))
    out = subprocess.run(
        [pishti, "serve", "--port", "0", "--db", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr == f"pishti: --db: {str(tmp_path)!r} is a folder, not a database file\n"


def test_serve_refuses_an_unknown_log_level_without_a_traceback(tmp_path: Path) -> None:
    # Found by a new-user trial: --log-level loud ended in a traceback.
    pishti = str(Path(sys.executable).with_name("pishti"))
    out = subprocess.run(
        [pishti, "serve", "--port", "0", "--db", str(tmp_path / "x.db"), "--log-level", "loud"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    # Typer checks the choice: a usage error naming the option and its values.
    assert "Traceback" not in out.stderr
    said = " ".join(out.stderr.replace("│", " ").split())
    assert "Invalid value for '--log-level'" in said and "'loud' is not one of" in said
    assert "'debug', 'info', 'warning', 'error', 'critical'" in said
    assert not (tmp_path / "x.db").exists()
