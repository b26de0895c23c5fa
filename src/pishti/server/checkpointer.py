"""SQLite checkpoints in a thread of their own, so that commits never wait for one.

In WAL mode a commit appends pages to the write-ahead log; a *checkpoint*
copies them back into the database file.  By default the connection that
commits runs one whenever the log passes 1,000 pages, inside that commit: at a
thousand moves a second that was every fraction of a second, and those
commits took tens to over a hundred milliseconds instead of one or two, while
every move behind them waited.

A :class:`Checkpointer` runs ``PRAGMA wal_checkpoint(PASSIVE)`` on its own
connection every ``interval`` seconds; a passive checkpoint never blocks the
writer.  The writer's own automatic checkpoint stays on at a far larger log
size (:data:`WRITER_AUTOCHECKPOINT`): by then this thread has copied nearly
every page, so it is short, and as it runs between two commits it finishes
the log, which the next commit then starts again from its beginning.  The
log file so stays below about that size.
"""

from __future__ import annotations

import logging
import threading

import sqlalchemy as sa

log = logging.getLogger("pishti.server.checkpointer")

CHECKPOINT_INTERVAL = 5.0
"""Seconds between two checkpoints.  (Every checkpoint syncs the database file to
disk, and while it does, the file system may hold up the commits' writes to the
log: one every 5 s held up fewer moves than four a second did.)"""
WRITER_AUTOCHECKPOINT = 16_000
"""Log pages (4 KiB each: 64 MiB) after which the committing connection checkpoints
by itself; SQLite's default is 1,000."""


class Checkpointer:
    """A thread that checkpoints a SQLite database's write-ahead log.

    Args:
        engine: an engine on the SQLite file (its pool gives the thread its own connection).
        interval: seconds between checkpoints (above 0).

    Raises:
        ValueError: ``interval`` is not above 0.
    """

    def __init__(self, engine: sa.Engine, interval: float = CHECKPOINT_INTERVAL) -> None:
        if interval <= 0:
            raise ValueError("the checkpoint interval must be above 0 seconds")
        self.engine = engine
        self.interval = interval
        self.checkpoints = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pishti-checkpoint", daemon=True)

    def start(self) -> None:
        """Start the thread."""
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (after the checkpoint it may be running) and wait for it."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def checkpoint(self) -> tuple[int, int, int]:
        """Run one passive checkpoint now; returns SQLite's ``(busy, log pages,
        pages checkpointed)``."""
        with self.engine.connect() as conn:
            row = conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
        self.checkpoints += 1
        return int(row[0]), int(row[1]), int(row[2])

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.checkpoint()
            except Exception:
                log.exception("a checkpoint failed; the next one will try again")
