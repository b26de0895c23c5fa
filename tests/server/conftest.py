"""Fixtures that run the real server (``pishti serve``) on a loopback port, and the same
server as a cluster of nodes on PostgreSQL behind HAProxy (:class:`ThroughHAProxy`), so
that the same end-to-end tests run through both (the fixtures ``any_server``,
``any_fast_server``: ``[direct]`` and ``[haproxy]``)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import httpx
import pytest

from pishti.cluster.local import LocalCluster
from pishti.cluster.postgres import LocalPostgres

PISHTI = str(Path(sys.executable).with_name("pishti"))

SERVER_ARGS = ("--bot-delay", "0", "--rate", "1000", "--log-level", "warning")
"""The options of :func:`server`: bots without delay, a high rate limit."""
FAST_ARGS = ("--time-scale", "0.02", *SERVER_ARGS)
"""The options of :func:`fast_server`: clocks and holds 50 times faster."""
HAPROXY_NODES = 2
"""Nodes of the clusters the same tests run through (two: a table is made by any node
and played by the one the hash of its id picks)."""


class Served(Protocol):
    """A table server the tests talk to: one ``pishti serve`` (:class:`ServerProcess`) or
    a cluster behind HAProxy (:class:`ThroughHAProxy`)."""

    @property
    def http(self) -> str: ...

    @property
    def ws(self) -> str: ...

    @property
    def port(self) -> int: ...


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """``pishti serve`` in a subprocess on 127.0.0.1, with a SQLite file of its own."""

    def __init__(self, db: Path, *args: str) -> None:
        self.db = db
        # Tests create tables quickly from one address; a test of the limit passes its own.
        self.args = ["--http-rate", "1000", *args]
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = db.with_suffix(".log")

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        cmd = [PISHTI, "serve", "--port", str(self.port), "--db", str(self.db), *self.args]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        # Generous: on a loaded machine a start (imports, coverage's tracing) took over 30 s.
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.http + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()  # not left running behind the failed test
        raise RuntimeError("the server did not start in 90 s")

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to clean up."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class ThroughHAProxy:
    """:data:`HAPROXY_NODES` ``pishti serve`` nodes on a database of the session's
    PostgreSQL, HAProxy in front (:class:`LocalCluster`), seen as a
    :class:`ServerProcess` is: ``http``, ``ws`` and ``port`` are HAProxy's.

    Each node gets ``--http-rate 1000`` and ``args``, as a :class:`ServerProcess`.
    """

    def __init__(
        self, postgres: LocalPostgres, database: str, *args: str, header_timeout: float = 10.0
    ) -> None:
        self.cluster = LocalCluster(
            HAPROXY_NODES,
            postgres=postgres,
            database=database,
            node_args=["--http-rate", "1000", *args],
            header_timeout=header_timeout,
        )

    @property
    def http(self) -> str:
        return self.cluster.url

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.cluster.port}"

    @property
    def port(self) -> int:
        return self.cluster.port

    def start(self) -> None:
        try:
            self.cluster.start()
        except BaseException:
            self.cluster.stop()  # not left running behind the failed test
            raise

    def stop(self) -> None:
        self.cluster.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server at full time scale, bots without delay, a high rate limit (clients play
    as fast as the loopback allows)."""
    db = tmp_path_factory.mktemp("server") / "pishti.db"
    proc = ServerProcess(db, *SERVER_ARGS)
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def haproxy_server(postgres: LocalPostgres) -> Iterator[ThroughHAProxy]:
    """As :func:`server`, through HAProxy to a cluster on PostgreSQL (one for the session)."""
    front = ThroughHAProxy(postgres, "through_haproxy", *SERVER_ARGS)
    front.start()
    yield front
    front.stop()


@pytest.fixture(params=["direct", "haproxy"])
def any_server(request: pytest.FixtureRequest) -> Served:
    """:func:`server`, then :func:`haproxy_server`: the same test through both."""
    front: Served = request.getfixturevalue(
        "server" if request.param == "direct" else "haproxy_server"
    )
    return front


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose clocks and holds run 50 times faster: a normal-tempo clock is
    0.6 s, the hold 1.2 s, the hold after ``closing`` 0.2 s."""
    db = tmp_path_factory.mktemp("fast") / "pishti.db"
    proc = ServerProcess(db, *FAST_ARGS)
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def haproxy_fast_server(postgres: LocalPostgres) -> Iterator[ThroughHAProxy]:
    """As :func:`fast_server`, through HAProxy to a cluster on PostgreSQL."""
    front = ThroughHAProxy(postgres, "through_haproxy_fast", *FAST_ARGS)
    front.start()
    yield front
    front.stop()


@pytest.fixture(params=["direct", "haproxy"])
def any_fast_server(request: pytest.FixtureRequest) -> Served:
    """:func:`fast_server`, then :func:`haproxy_fast_server`: the same test through both."""
    front: Served = request.getfixturevalue(
        "fast_server" if request.param == "direct" else "haproxy_fast_server"
    )
    return front


@pytest.fixture(scope="module")
def unpaused_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """As :func:`fast_server`, with no pause between decks (R7.8): the table deals on
    at once, so it makes events as fast as it can, whoever has read the count."""
    db = tmp_path_factory.mktemp("unpaused") / "pishti.db"
    proc = ServerProcess(
        db,
        *("--bot-delay", "0", "--time-scale", "0.02", "--pause", "0"),
        *("--rate", "1000", "--log-level", "warning"),
    )
    proc.start()
    yield proc
    proc.stop()
