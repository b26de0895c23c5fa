"""Fixtures that run the real server (``pishti serve``) on a loopback port, and the same
server as a cluster of nodes on PostgreSQL behind HAProxy (:class:`ThroughHAProxy`), so
that the same end-to-end tests run through both (the fixtures ``any_server``,
``any_fast_server``: ``[direct]`` and ``[haproxy]``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import pytest

from pishti.cluster.local import LocalCluster
from pishti.cluster.postgres import LocalPostgres
from serving import ServerProcess

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


def running(front: ServerProcess | ThroughHAProxy) -> Iterator[Any]:
    """Start ``front``, yield it to the fixture's tests, stop it after (``yield from``)."""
    front.start()
    yield front
    front.stop()


def direct_and_haproxy(direct: str, haproxy: str, doc: str) -> Any:
    """A fixture run twice: as the fixture named ``direct`` (one server), then as
    ``haproxy`` (through HAProxy to a cluster on PostgreSQL): the same test through both."""

    @pytest.fixture(params=["direct", "haproxy"])
    def either(request: pytest.FixtureRequest) -> Served:
        front: Served = request.getfixturevalue(direct if request.param == "direct" else haproxy)
        return front

    either.__doc__ = doc
    return either


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server at full time scale, bots without delay, a high rate limit (clients play
    as fast as the loopback allows)."""
    yield from running(ServerProcess(tmp_path_factory.mktemp("server") / "pishti.db", *SERVER_ARGS))


@pytest.fixture(scope="session")
def haproxy_server(postgres: LocalPostgres) -> Iterator[ThroughHAProxy]:
    """As :func:`server`, through HAProxy to a cluster on PostgreSQL (one for the session)."""
    yield from running(ThroughHAProxy(postgres, "through_haproxy", *SERVER_ARGS))


any_server = direct_and_haproxy(
    "server", "haproxy_server", ":func:`server`, then :func:`haproxy_server`."
)


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose clocks and holds run 50 times faster: a normal-tempo clock is
    0.6 s, the hold 1.2 s, the hold after ``closing`` 0.2 s."""
    yield from running(ServerProcess(tmp_path_factory.mktemp("fast") / "pishti.db", *FAST_ARGS))


@pytest.fixture(scope="module")
def haproxy_fast_server(postgres: LocalPostgres) -> Iterator[ThroughHAProxy]:
    """As :func:`fast_server`, through HAProxy to a cluster on PostgreSQL."""
    yield from running(ThroughHAProxy(postgres, "through_haproxy_fast", *FAST_ARGS))


any_fast_server = direct_and_haproxy(
    "fast_server", "haproxy_fast_server", ":func:`fast_server`, then :func:`haproxy_fast_server`."
)


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
