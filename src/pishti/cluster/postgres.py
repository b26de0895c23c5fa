"""A throwaway PostgreSQL server on loopback, from the machine's own PostgreSQL
(Debian's ``postgresql`` package), for a local cluster and the tests.

PostgreSQL refuses to run as root: as root, ``initdb`` and ``postgres`` run as the
``postgres`` user (``runuser``), and the data folder is made theirs.  Clients
connect over TCP on ``127.0.0.1:PORT`` as the database superuser ``postgres``,
trusted without a password (loopback only; never expose it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

PG_BIN_DIRS = (
    "/usr/lib/postgresql/17/bin",
    "/usr/lib/postgresql/16/bin",
    "/usr/lib/postgresql/15/bin",
)
"""Where Debian puts the server's programs (newest first); ``PATH`` is searched too."""


class PostgresError(Exception):
    """PostgreSQL is not installed, or its server would not start or stop."""


def pg_bin(name: str) -> str:
    """The path of the PostgreSQL program ``name`` (``initdb``, ``pg_ctl`` ...).

    Raises:
        PostgresError: the program is not installed.
    """
    for folder in PG_BIN_DIRS:
        path = Path(folder) / name
        if path.is_file():
            return str(path)
    found = shutil.which(name)
    if found is None:
        raise PostgresError(f"{name} not found: install PostgreSQL (apt-get install postgresql)")
    return found


class LocalPostgres:
    """One PostgreSQL server with a data folder of its own.

    Args:
        port: the TCP port on 127.0.0.1.
        folder: the data folder's parent (a new temporary folder when None; removed
            by :meth:`remove` only when made here).
        durable: False turns ``fsync`` off (tests: a killed server process loses
            nothing, only a crash of the machine would).
    """

    def __init__(self, port: int, folder: Path | None = None, *, durable: bool = True) -> None:
        self.port = port
        self._own = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="pishti-pg-")) if folder is None else folder
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self.durable = durable
        self._as_root = os.geteuid() == 0

    def _run(self, *cmd: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self._as_root else []
        done = subprocess.run([*prefix, *cmd], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise PostgresError(
                f"{Path(cmd[0]).name} failed: {(done.stderr or done.stdout)[-800:]}"
            )

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def init(self) -> None:
        """Make the data folder (``initdb``), owned by the ``postgres`` user as root."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._as_root:
            shutil.chown(self.folder, "postgres", "postgres")
            self.folder.chmod(0o700)
        if not (self.data / "PG_VERSION").is_file():
            self._run(
                pg_bin("initdb"),
                *("-D", str(self.data), "-U", "postgres", "--auth=trust"),
                *("--encoding=UTF8", "--locale=C.UTF-8"),
            )

    def start(self, timeout: float = 60.0) -> None:
        """Start the server and wait until it takes connections.

        Raises:
            PostgresError: it did not start within ``timeout`` seconds.
        """
        options = [
            f"-p {self.port}",
            "-c listen_addresses=127.0.0.1",
            f"-c unix_socket_directories={self.folder}",
            "-c max_connections=200",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c full_page_writes=off"]
        self._run(
            pg_bin("pg_ctl"),
            *("-D", str(self.data), "-l", str(self.log), "-o", " ".join(options)),
            *("-w", "-t", str(int(timeout)), "start"),
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                psycopg.connect(self.url()).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise PostgresError("PostgreSQL did not take connections") from None
                time.sleep(0.05)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: clients are disconnected, every commit kept)."""
        if (self.data / "postmaster.pid").is_file():
            self._run(pg_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self, name: str) -> str:
        """Create the database ``name`` (empty) and return its URL."""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def remove(self) -> None:
        """Stop the server and delete its folder if it was made here."""
        try:
            self.stop("immediate")
        finally:
            if self._own:
                shutil.rmtree(self.folder, ignore_errors=True)
