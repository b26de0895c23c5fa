"""The database: tables, their change logs and finished match records (SQLAlchemy 2).

The tables, in plain SQLAlchemy Core so that PostgreSQL can follow SQLite:

- ``tables``: one row per table: settings, the secret seed of its deals, status.
- ``table_log``: every change of every table, in order (``n`` from 0), as JSON,
  with the table's event number after it (``seq``) and the version of the log
  format it was written in (``version``, see :mod:`pishti.server.changes`; rows
  of a database made before the column existed read as version 1).  Replaying
  a table's log rebuilds it exactly (:meth:`pishti.server.table.Table.restore`).
- ``match_records``: the R10 record of every finished match.
- ``identities``, ``seat_identities``, ``match_players``, ``ratings``: people's
  history and everyone's rating (:mod:`pishti.server.people`).
- ``match_analyses``: the expert's analysis of a finished match, once asked for
  and computed (:mod:`pishti.server.analyses`; its JSON form is in docs/bots.md).

The same code runs on SQLite (the embedded default) and on PostgreSQL (through
psycopg 3, for several nodes on one database: docs/deploy.md).  SQLite runs in
WAL mode, checkpointed by a :class:`~pishti.server.checkpointer.Checkpointer`;
each :meth:`Store.write` is one transaction.

The engine is SQLAlchemy's ordinary (synchronous) one, and every database
call runs in the store's one database thread: a whole transaction is a single
hand-over between the event loop and that thread.  (Through an async driver
each statement, cursor and commit is a hand-over of its own; at a thousand
moves a second those waits, each behind everything else the busy event loop
had to do, made a commit take several times longer.)
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import filelock
import sqlalchemy as sa

from pishti.records import MatchRecord, dumps_record
from pishti.server.changes import LOG_VERSION, Change
from pishti.server.checkpointer import WRITER_AUTOCHECKPOINT, Checkpointer
from pishti.server.leases import LeaseLost, Leases, NotOwner
from pishti.server.people import People, SeatHolder
from pishti.server.table import TableSettings

logger = logging.getLogger(__name__)

metadata = sa.MetaData()

tables_t = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("target", sa.Integer, nullable=False),
    sa.Column("tempo", sa.String(16), nullable=False),
    sa.Column("seed", sa.String(64), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),  # when the status last changed
)
sa.Index("tables_status", tables_t.c.status)

log_t = sa.Table(
    "table_log",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("change", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False, server_default="1"),
)

leases_t = sa.Table(
    "leases",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("owner", sa.String(64), nullable=False),
    sa.Column("epoch", sa.BigInteger, nullable=False),
    sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    sa.Column("wanted_by", sa.String(64), nullable=True),
)
"""Which node plays each table, on PostgreSQL (:mod:`pishti.server.leases`); unused on SQLite."""

records_t = sa.Table(
    "match_records",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("match", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("finished", sa.Float, nullable=False),
)

people = People(metadata)
"""The identities, finished matches' players and ratings (:mod:`pishti.server.people`)."""

analyses_t = sa.Table(
    "match_analyses",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("match", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("analysis", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)


_set_status = (
    sa.update(tables_t)
    .where(tables_t.c.id == sa.bindparam("b_id"))
    .values(status=sa.bindparam("b_status"), updated=sa.bindparam("b_updated"))
)
"""One ``UPDATE`` of a table's status, run for every table of a batch at once
(an executemany: one statement per transaction, not one per table)."""

_TAKE = sa.text(
    """
    INSERT INTO leases (table_id, owner, epoch, expires)
    VALUES (:id, :node, 1, clock_timestamp() + make_interval(secs => :ttl))
    ON CONFLICT (table_id) DO UPDATE
        SET owner = EXCLUDED.owner, epoch = leases.epoch + 1,
            expires = EXCLUDED.expires, wanted_by = NULL
        WHERE leases.expires < clock_timestamp() OR leases.owner = EXCLUDED.owner
    RETURNING epoch
    """
)
"""Take a table's lease: a new row, or an expired one (on the database's clock), or
one this node's name already holds (an earlier run of it); the epoch goes up by 1."""
_WANT = sa.text(
    "UPDATE leases SET wanted_by = :node WHERE table_id = :id AND owner <> :node RETURNING owner"
)
"""Ask the owner of a table's lease to hand it over; returns the owner."""
_NEW_LEASES = sa.text(
    """
    INSERT INTO leases (table_id, owner, epoch, expires)
    SELECT id, :node, 1, clock_timestamp() + make_interval(secs => :ttl)
    FROM unnest(CAST(:ids AS text[])) AS v(id)
    """
)
"""The leases of tables made by this node, epoch 1, in their first transaction."""
_FENCE = sa.text(
    """
    UPDATE leases AS l SET expires = clock_timestamp() + make_interval(secs => :ttl)
    FROM unnest(CAST(:ids AS text[]), CAST(:epochs AS bigint[])) AS v(id, epoch)
    WHERE l.table_id = v.id AND l.owner = :node AND l.epoch = v.epoch
    RETURNING l.table_id, l.wanted_by
    """
)
"""The fence of a write (and a renewal): the leases this node holds at the epochs it
holds them, renewed and locked until the commit; the rows it returns are the tables
still held (with a node that wants one)."""
_RELEASE = sa.text(
    """
    UPDATE leases AS l SET expires = clock_timestamp(), wanted_by = NULL
    FROM unnest(CAST(:ids AS text[]), CAST(:epochs AS bigint[])) AS v(id, epoch)
    WHERE l.table_id = v.id AND l.owner = :node AND l.epoch = v.epoch
    """
)
"""Let a lease go at once (it is expired from the database's next instant on)."""

T = TypeVar("T")
_compact = json.JSONEncoder(separators=(",", ":")).encode

ASYNC_DRIVERS = frozenset({"aiosqlite", "asyncpg", "aiomysql", "asyncmy", "psycopg_async"})
"""Async drivers that a URL may name; the store uses its dialect's default driver instead."""
DEFAULT_DRIVERS = {"postgresql": "postgresql+psycopg"}
"""The driver of a dialect when the URL names none: PostgreSQL through psycopg 3 (a
dependency), not SQLAlchemy's default psycopg2."""


def sync_url(url: str) -> sa.URL:
    """The SQLAlchemy URL the store connects with: ``url`` with an async driver
    (``sqlite+aiosqlite:///x.db``) replaced by its dialect's default one (``sqlite:///x.db``),
    and PostgreSQL without a driver, or with an async one, through psycopg 3
    (``postgresql+psycopg://...``).

    Raises:
        sqlalchemy.exc.ArgumentError: ``url`` is not a database URL.
    """
    parsed = sa.make_url(url)
    backend = parsed.get_backend_name()
    if parsed.get_driver_name() in ASYNC_DRIVERS or parsed.drivername == backend:
        parsed = parsed.set(drivername=DEFAULT_DRIVERS.get(backend, backend))
    return parsed


def _add_version_column(conn: sa.Connection) -> None:
    """Give the ``table_log`` of a database made before log versions its ``version``
    column; its rows are of version 1."""
    columns = {c["name"] for c in sa.inspect(conn).get_columns("table_log")}
    if "version" not in columns:
        conn.execute(sa.text("ALTER TABLE table_log ADD COLUMN version INTEGER NOT NULL DEFAULT 1"))


class DatabaseError(Exception):
    """A database the server cannot use: a bad URL, a missing driver, a folder,
    an in-memory database, or a SQLite file another server process holds."""


def sqlite_file(url: sa.URL) -> Path | None:
    """The file of a SQLite URL; None for another database, or an in-memory one."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(str(url.database))


def check_database(url: str) -> sa.URL:
    """Check, before serving, that the server can use the database at ``url``.

    Returns:
        The URL the store will connect with (:func:`sync_url`).

    Raises:
        DatabaseError: the URL is not a database URL, its driver is not
            installed, it is an in-memory SQLite database (nothing would be
            kept), its file is a folder, or another server process holds it.
    """
    try:
        parsed = sync_url(url)
        sa.create_engine(parsed).dispose()  # imports the driver
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as exc:
        raise DatabaseError(f"cannot use {url!r}: {exc}") from None
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_file(parsed)
        if path is None:
            raise DatabaseError(f"{url!r} is an in-memory database: nothing would be kept")
        if path.is_dir():
            raise DatabaseError(f"{str(path)!r} is a folder, not a database file")
        path.parent.mkdir(parents=True, exist_ok=True)
        lock_database(path).release()
    return parsed


def lock_database(database: Path) -> filelock.BaseFileLock:
    """Take the exclusive lock on ``<database>.lock`` next to a SQLite file, so that only
    one server process at a time serves it (two would both write every table's log).

    Returns:
        The held lock; ``release()`` lets it go.

    Raises:
        DatabaseError: another process holds it, or the lock file cannot be made.
    """
    lock = filelock.FileLock(database.with_name(database.name + ".lock"), timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise DatabaseError(f"{str(database)!r} is in use by another server process") from None
    except OSError as exc:
        raise DatabaseError(f"cannot open {lock.lock_file!r}: {exc.strerror}") from None
    return lock


@dataclass(slots=True)
class StoredTable:
    """A table as the database holds it: ``settings``, the secret ``seed``, its ``status``,
    its ``changes`` in order (their stored JSON), the log ``versions`` they were
    written in and each one's ``seqs``: the number of the table's last event after it,
    as the seats were told."""

    table_id: str
    settings: TableSettings
    seed: str
    status: str
    changes: list[dict[str, Any]]
    versions: list[int]
    seqs: list[int] | None = None


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """A match that ended in a batch: its table, number, record and who held each seat."""

    table_id: str
    match: int
    record: MatchRecord
    holders: list[SeatHolder]
    finished: float


@dataclass(frozen=True, slots=True)
class NewTable:
    """A table just created: its id, settings, secret seed and creation time
    (seconds since the epoch)."""

    table_id: str
    settings: TableSettings
    seed: str
    created: float


@dataclass(slots=True)
class WriteBatch:
    """What one transaction writes.

    ``new_tables``: rows of ``tables`` (:meth:`add_table` builds them); ``log``:
    rows of ``table_log`` (:meth:`add_change`); ``statuses``: the new status of
    each table whose status changed (a table's row is written only then, not on
    every move); ``records``: rows of ``match_records`` (:meth:`add_record`).
    The store builds its rows from table ids, typed changes and records: the
    writer hands it no live table.  ``finished``: the matches those records end,
    with who held each seat, for the players' history and ratings
    (:mod:`pishti.server.people`).
    """

    new_tables: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    statuses: dict[str, str] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    fences: dict[str, int] = field(default_factory=dict)
    """The epoch this node holds for each table the batch writes (PostgreSQL nodes)."""
    finished: list[FinishedMatch] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.new_tables or self.log or self.statuses or self.records)

    def add_table(self, table: NewTable) -> None:
        """Add the row of a new table, in the ``waiting`` status."""
        s = table.settings
        self.new_tables.append(
            {
                "id": table.table_id,
                "players": s.players,
                "target": s.target,
                "tempo": s.tempo,
                "seed": table.seed,
                "status": "waiting",
                "created": table.created,
                "updated": table.created,
            }
        )

    def add_change(self, table_id: str, n: int, seq: int, change: Change) -> None:
        """Add the row of change ``n`` of a table (``seq``: its last event number after
        the change), stored in the current log version (:mod:`pishti.server.changes`)."""
        self.log.append(
            {
                "table_id": table_id,
                "n": n,
                "seq": seq,
                "change": _compact(change.as_json()),
                "version": LOG_VERSION,
            }
        )

    def add_record(self, table_id: str, match: int, record: MatchRecord, finished: float) -> None:
        """Add the R10 record of match number ``match`` (from 1) of a table, finished
        at ``finished`` (seconds since the epoch)."""
        self.records.append(
            {
                "table_id": table_id,
                "match": match,
                "record": dumps_record(record),
                "finished": finished,
            }
        )


class Store:
    """The repository over one database URL (``sqlite:///data/pishti.db`` ...).

    Every method runs its work in the store's database thread and waits for it
    without blocking the event loop; the work is done in the order called.
    """

    def __init__(
        self, url: str, *, sqlite_synchronous: str = "NORMAL", leases: Leases | None = None
    ) -> None:
        """Remember ``url``; :meth:`open` connects.

        Args:
            url: an SQLAlchemy URL; an async driver in it is replaced (:func:`sync_url`).
            sqlite_synchronous: SQLite's ``synchronous`` pragma, ``FULL`` or ``NORMAL``.
            leases: this node's leases, on PostgreSQL shared by several nodes (every
                write is then fenced by them); None on SQLite.
        """
        self.url = url
        self.sqlite_synchronous = sqlite_synchronous
        self.leases = leases
        self._engine: sa.Engine | None = None
        self._thread: ThreadPoolExecutor | None = None
        self.checkpointer: Checkpointer | None = None
        self.lock: filelock.BaseFileLock | None = None

    @property
    def engine(self) -> sa.Engine:
        """The open engine (use it in the database thread only).

        Raises:
            RuntimeError: :meth:`open` was not called.
        """
        if self._engine is None:
            raise RuntimeError("the store is not open")
        return self._engine

    async def _run(self, work: Callable[[], T]) -> T:
        """Run ``work`` in the database thread and return its result (or raise its error).

        Raises:
            RuntimeError: :meth:`open` was not called.
        """
        if self._thread is None:
            raise RuntimeError("the store is not open")
        return await asyncio.get_running_loop().run_in_executor(self._thread, work)

    async def open(self) -> None:
        """Connect, set SQLite up (WAL) and create the schema if missing.

        Raises:
            DatabaseError: another server process holds the SQLite file.
        """
        url = sync_url(self.url)
        path = sqlite_file(url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.lock = lock_database(path)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pishti-db")
        try:
            self._engine = await self._run(lambda: self._connect(url))
        except BaseException:
            self._thread.shutdown(wait=False)
            self._thread = None
            if self.lock is not None:
                self.lock.release()
                self.lock = None
            raise
        if path is not None:
            self.checkpointer = Checkpointer(self._engine)
            self.checkpointer.start()

    def _connect(self, url: sa.URL) -> sa.Engine:
        # A connection that PostgreSQL dropped (a restart) is found before use and replaced.
        connect_args: dict[str, Any] = {}
        if url.get_backend_name() == "postgresql" and self.leases is not None:
            # A node paused or cut off in the middle of a transaction would hold the
            # row locks of its leases' fence until it woke up (a take waits for them):
            # PostgreSQL ends such a transaction once it has waited a whole lease, and
            # the node, which holds no lease by then, writes nothing of it.
            stalled = max(1, round(1000 * self.leases.ttl))
            connect_args["options"] = f"-c idle_in_transaction_session_timeout={stalled}"
        engine = sa.create_engine(
            url, pool_pre_ping=url.get_backend_name() != "sqlite", connect_args=connect_args
        )
        if engine.dialect.name == "sqlite":
            synchronous = self.sqlite_synchronous

            @sa.event.listens_for(engine, "connect")
            def _pragmas(dbapi_connection: Any, _record: Any) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute(f"PRAGMA synchronous={synchronous}")
                cursor.execute("PRAGMA busy_timeout=10000")
                cursor.execute(f"PRAGMA wal_autocheckpoint={WRITER_AUTOCHECKPOINT}")
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.close()

        with engine.begin() as conn:
            metadata.create_all(conn)
            _add_version_column(conn)
        return engine

    async def close(self) -> None:
        """Stop the checkpoints, close every connection and stop the database thread."""
        if self.checkpointer is not None:
            await asyncio.to_thread(self.checkpointer.stop)
            self.checkpointer = None
        if self._engine is not None:
            await self._run(self._engine.dispose)
            self._engine = None
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    async def write(self, batch: WriteBatch) -> None:
        """Write ``batch`` in one transaction and commit it.

        Raises:
            sqlalchemy.exc.SQLAlchemyError: nothing of the batch was written.
        """
        if batch:
            await self._run(lambda: self._write(batch))

    def _write(self, batch: WriteBatch) -> None:
        now = time.time()
        leases = self.leases
        with self.engine.begin() as conn:
            if batch.new_tables:
                conn.execute(sa.insert(tables_t), batch.new_tables)
                if leases is not None:
                    ids = [str(row["id"]) for row in batch.new_tables]
                    conn.execute(_NEW_LEASES, {"ids": ids, "node": leases.node, "ttl": leases.ttl})
            if leases is not None and batch.fences:
                held = self._fence(conn, leases, batch.fences)
                lost = set(batch.fences) - held
                if lost:
                    raise LeaseLost(lost)  # the transaction rolls back: nothing written
            if batch.log:
                conn.execute(sa.insert(log_t), batch.log)
            if batch.statuses:
                conn.execute(
                    _set_status,
                    [
                        {"b_id": table_id, "b_status": status, "b_updated": now}
                        for table_id, status in batch.statuses.items()
                    ],
                )
            if batch.records:
                conn.execute(sa.insert(records_t), batch.records)
        for done in batch.finished:
            # Its own transaction: history and ratings never hold up or undo a record.
            try:
                with self.engine.begin() as conn:
                    people.finish_match(
                        conn, done.table_id, done.match, done.record, done.holders, done.finished
                    )
            except Exception:
                logger.exception("the history of match %s of table %s", done.match, done.table_id)

    @staticmethod
    def _fence(conn: sa.Connection, leases: Leases, fences: dict[str, int]) -> set[str]:
        rows = conn.execute(
            _FENCE,
            {
                "ids": list(fences),
                "epochs": list(fences.values()),
                "node": leases.node,
                "ttl": leases.ttl,
            },
        ).all()
        return {row.table_id for row in rows}

    def _leases(self) -> Leases:
        if self.leases is None:
            raise RuntimeError("this store has no leases")
        return self.leases

    async def acquire(self, table_id: str, *, ask: bool = True) -> tuple[StoredTable, int] | None:
        """Take the lease of ``table_id`` and read the table, in one transaction
        (:mod:`pishti.server.leases`); returns the table and the epoch now held, or
        None if there is no such table.

        Args:
            ask: when another node holds the lease, ask it to hand the table over
                (a request for the table came here); False leaves it be (a table
                taken up by :meth:`orphans`).

        Raises:
            NotOwner: another node holds the lease.
        """
        leases = self._leases()

        def take() -> tuple[StoredTable, int] | str | None:
            with self.engine.begin() as conn:
                row = conn.execute(sa.select(tables_t).where(tables_t.c.id == table_id)).first()
                if row is None:
                    return None
                args = {"id": table_id, "node": leases.node, "ttl": leases.ttl}
                epoch = conn.execute(_TAKE, args).scalar()
                if epoch is None:  # held elsewhere: ask for it (committed with the block)
                    if not ask:
                        return "another node"
                    return str(conn.execute(_WANT, args).scalar())
                return self._stored(conn, row), int(epoch)

        found = await self._run(take)
        if isinstance(found, str):
            raise NotOwner(table_id, found)
        return found

    async def renew(self, held: dict[str, int]) -> tuple[set[str], set[str]]:
        """Renew the leases ``held`` (epoch by table); returns the tables still held and,
        among them, those another node asked for."""
        leases = self._leases()

        def renew() -> tuple[set[str], set[str]]:
            with self.engine.begin() as conn:
                rows = conn.execute(
                    _FENCE,
                    {
                        "ids": list(held),
                        "epochs": list(held.values()),
                        "node": leases.node,
                        "ttl": leases.ttl,
                    },
                ).all()
            kept = {row.table_id for row in rows}
            wanted = {row.table_id for row in rows if row.wanted_by not in (None, leases.node)}
            return kept, wanted

        return await self._run(renew)

    async def release(self, held: dict[str, int]) -> None:
        """Let the leases ``held`` (epoch by table) go, those this node still holds at
        those epochs."""
        leases = self._leases()
        args = {"ids": list(held), "epochs": list(held.values()), "node": leases.node}

        def release() -> None:
            with self.engine.begin() as conn:
                conn.execute(_RELEASE, args)

        await self._run(release)

    async def owned_playing(self) -> list[str]:
        """The tables being played whose lease names this node (an earlier run of it)."""
        leases = self._leases()

        def owned() -> list[str]:
            with self.engine.connect() as conn:
                rows = conn.execute(
                    sa.select(tables_t.c.id)
                    .join(leases_t, leases_t.c.table_id == tables_t.c.id)
                    .where(tables_t.c.status == "playing", leases_t.c.owner == leases.node)
                    .order_by(tables_t.c.created)
                ).all()
            return [row.id for row in rows]

        return await self._run(owned)

    async def orphans(self, grace: float, limit: int) -> list[str]:
        """Up to ``limit`` tables being played whose lease expired over ``grace``
        seconds ago (on the database's clock), oldest expiry first: tables no node
        plays (their node died or was cut off) and that nobody asked for since, such
        as a match of bots alone.  (A table a person asks for is taken at once by the
        node the request reaches.)"""

        before = sa.func.clock_timestamp() - sa.func.make_interval(0, 0, 0, 0, 0, 0, grace)

        def find() -> list[str]:
            with self.engine.connect() as conn:
                rows = conn.execute(
                    sa.select(tables_t.c.id)
                    .join(leases_t, leases_t.c.table_id == tables_t.c.id)
                    .where(tables_t.c.status == "playing", leases_t.c.expires < before)
                    .order_by(leases_t.c.expires)
                    .limit(limit)
                ).all()
            return [row.id for row in rows]

        return await self._run(find)

    async def load(self, table_id: str) -> StoredTable | None:
        """The table ``table_id`` with its changes, or None if there is none."""
        return await self._run(lambda: self._load(table_id))

    def _load(self, table_id: str) -> StoredTable | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(tables_t).where(tables_t.c.id == table_id)).first()
            return None if row is None else self._stored(conn, row)

    async def playing(self) -> list[StoredTable]:
        """Every table whose match is being played, with its changes (oldest first)."""
        return await self._run(self._playing)

    def _playing(self) -> list[StoredTable]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(tables_t)
                .where(tables_t.c.status == "playing")
                .order_by(tables_t.c.created)
            ).all()
            return [self._stored(conn, row) for row in rows]

    def _stored(self, conn: sa.Connection, row: Any) -> StoredTable:
        rows = conn.execute(
            sa.select(log_t.c.change, log_t.c.version, log_t.c.seq)
            .where(log_t.c.table_id == row.id)
            .order_by(log_t.c.n)
        ).all()
        return StoredTable(
            table_id=row.id,
            settings=TableSettings(row.players, row.target, row.tempo),
            seed=row.seed,
            status=row.status,
            changes=[json.loads(r.change) for r in rows],
            versions=[r.version for r in rows],
            seqs=[r.seq for r in rows],
        )

    async def record(self, table_id: str, match: int | None = None) -> tuple[int, str] | None:
        """``(match, record JSON)`` of the finished match ``match`` of a table (the
        latest finished one when None), or None."""
        query = sa.select(records_t.c.match, records_t.c.record).where(
            records_t.c.table_id == table_id
        )
        if match is None:
            query = query.order_by(records_t.c.match.desc()).limit(1)
        else:
            query = query.where(records_t.c.match == match)

        def find() -> tuple[int, str] | None:
            with self.engine.connect() as conn:
                row = conn.execute(query).first()
            return None if row is None else (row.match, row.record)

        return await self._run(find)

    async def analysis(self, table_id: str, match: int) -> str | None:
        """The stored analysis JSON of finished match ``match`` of a table, or None."""
        query = sa.select(analyses_t.c.analysis).where(
            analyses_t.c.table_id == table_id, analyses_t.c.match == match
        )

        def find() -> str | None:
            with self.engine.connect() as conn:
                return conn.execute(query).scalar()

        return await self._run(find)

    async def save_analysis(self, table_id: str, match: int, analysis: str) -> None:
        """Store the analysis JSON of a finished match (kept when one is already stored:
        the same record, samples and seed give the same analysis)."""

        def save() -> None:
            try:
                with self.engine.begin() as conn:
                    conn.execute(
                        sa.insert(analyses_t).values(
                            table_id=table_id, match=match, analysis=analysis, created=time.time()
                        )
                    )
            except sa.exc.IntegrityError:
                pass  # another server process stored it first

        await self._run(save)

    async def claim_seat(
        self, identity: str, name: str, table_id: str, seat: int, since_match: int
    ) -> None:
        """Remember that the identity hash ``identity`` took ``seat`` of a table under
        ``name``, for its matches after the first ``since_match``."""

        def claim() -> None:
            with self.engine.begin() as conn:
                people.claim_seat(conn, identity, name, table_id, seat, since_match)

        await self._run(claim)

    async def history(self, identity: str) -> dict[str, Any] | None:
        """The page of an identity hash (:meth:`People.history`), or None when unknown."""

        def read() -> dict[str, Any] | None:
            with self.engine.connect() as conn:
                return people.history(conn, identity)

        return await self._run(read)

    async def leaderboard(self, min_matches: int) -> list[dict[str, Any]]:
        """Bot levels and people with at least ``min_matches`` rated matches, best first."""

        def read() -> list[dict[str, Any]]:
            with self.engine.connect() as conn:
                return people.leaderboard(conn, min_matches)

        return await self._run(read)

    async def records_of(self, identity: str) -> list[dict[str, Any]]:
        """Every finished match of an identity hash with its R10 record, oldest first."""

        def read() -> list[dict[str, Any]]:
            with self.engine.connect() as conn:
                return people.records(conn, identity, records_t)

        return await self._run(read)

    async def forget(self, identity: str) -> bool:
        """Delete an identity hash and its history (:meth:`People.forget`), and its
        name from the table logs (:func:`forget_names`), in one transaction."""

        def forget() -> bool:
            with self.engine.begin() as conn:
                forget_names(conn, identity)
                return people.forget(conn, identity)

        return await self._run(forget)


FORGOTTEN_NAME = ""
"""The name a deleted identity's seats are given in the table logs: empty, which
the clients show as they show a seat with no name ("Seat 2", "someone")."""


def forget_names(conn: sa.Connection, identity: str) -> int:
    """Replace the name of ``identity`` in the table logs by :data:`FORGOTTEN_NAME`;
    returns the rows changed.

    The rows are the ``sit`` changes of the seats the identity took (its
    ``seat_identities``) under a name it is known by (the name it last used, or
    one of its finished matches' rows): a seat that another person took before
    or after it keeps that person's name.  A sit row stays a valid change of the
    same version (``name`` is text), so the table restores as before, the seat
    nameless.  Call it before :meth:`People.forget` deletes the seats.
    """
    seats = conn.execute(
        sa.select(people.seat_identities.c.table_id, people.seat_identities.c.seat).where(
            people.seat_identities.c.identity == identity
        )
    ).all()
    names = set(
        conn.execute(
            sa.select(people.identities.c.name).where(people.identities.c.identity == identity)
        ).scalars()
    )
    names |= set(
        conn.execute(
            sa.select(people.players.c.name).where(people.players.c.identity == identity)
        ).scalars()
    )
    names.discard(None)
    by_table: dict[str, set[int]] = {}
    for table_id, seat in seats:
        by_table.setdefault(table_id, set()).add(seat)
    changed = 0
    for table_id, seat_numbers in by_table.items():
        rows = conn.execute(
            sa.select(log_t.c.n, log_t.c.change).where(
                (log_t.c.table_id == table_id) & log_t.c.change.contains('"sit"')
            )
        ).all()
        for n, text in rows:
            data = json.loads(text)
            if (
                data.get("kind") == "sit"
                and data.get("seat") in seat_numbers
                and data.get("name") in names
            ):
                data["name"] = FORGOTTEN_NAME
                conn.execute(
                    sa.update(log_t)
                    .where((log_t.c.table_id == table_id) & (log_t.c.n == n))
                    .values(change=_compact(data))
                )
                changed += 1
    return changed
