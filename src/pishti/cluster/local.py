"""A whole cluster on one machine's loopback: PostgreSQL, table server nodes, HAProxy.

:class:`LocalCluster` is what ``pishti cluster`` runs, and what the cluster tests
and ``bench/cluster.py`` drive (they kill, pause and restart its processes).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx

from pishti.cluster.haproxy import Backend, haproxy_config
from pishti.cluster.postgres import LocalPostgres

SERVE = [sys.executable, "-c", "from pishti.cli import main; main()", "serve"]
"""``pishti serve`` in this Python."""


class ClusterError(Exception):
    """A process of the cluster would not start."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_healthy(url: str, timeout: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until ``GET url/healthz`` answers 200.

    Raises:
        ClusterError: ``proc`` exited, or ``timeout`` seconds passed.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise ClusterError(f"{url}: the process exited ({proc.returncode})")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise ClusterError(f"{url} did not answer in {timeout:.0f} s")


class Node:
    """One ``pishti serve`` process of the cluster (``--node NAME``) on 127.0.0.1."""

    def __init__(self, name: str, db_url: str, folder: Path, args: Sequence[str]) -> None:
        self.name = name
        self.port = free_port()
        self.db_url = db_url
        self.args = list(args)
        self.log = folder / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The node's own address (not through HAProxy)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> None:
        """Start the process and wait until it answers.

        Raises:
            ClusterError: it exited or did not answer in ``timeout`` seconds.
        """
        self.launch()
        self.wait(timeout)

    def launch(self) -> None:
        """Start the process, not waiting for it (:meth:`wait`)."""
        cmd = [*SERVE, "--port", str(self.port), "--db", self.db_url, "--node", self.name]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([*cmd, *self.args], stdout=log, stderr=subprocess.STDOUT)

    def wait(self, timeout: float = 90.0) -> None:
        """Wait until the launched process answers.

        Raises:
            ClusterError: it exited or did not answer in ``timeout`` seconds.
        """
        try:
            wait_healthy(self.url, timeout, self.proc)
        except ClusterError:
            self.stop()
            raise ClusterError(f"node {self.name}: {self.log.read_text()[-1500:]}") from None

    def signal(self, signum: int) -> None:
        """Send ``signum`` (SIGKILL, SIGSTOP, SIGCONT ...) to the process."""
        assert self.proc is not None
        os.kill(self.proc.pid, signum)
        if signum == signal.SIGKILL:
            self.proc.wait(10)

    def stop(self) -> None:
        """Stop the process (SIGTERM: it commits, lets its leases go and exits)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)  # a paused process cannot stop
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class LocalCluster:
    """PostgreSQL, ``nodes`` table server nodes and HAProxy in front, on 127.0.0.1.

    Args:
        nodes: how many nodes (``n1``, ``n2`` ...).
        port: HAProxy's port (0: any free port).
        folder: where the logs and ``haproxy.cfg`` go (a new temporary folder when
            None, removed by :meth:`stop`).  PostgreSQL's data of a cluster that
            starts its own are in a temporary folder, removed by :meth:`stop`.
        node_args: more ``pishti serve`` options for every node.  Every node is
            also given ``--forwarded-allow-ips 127.0.0.1`` (HAProxy's address: the
            nodes count a client by the address HAProxy forwards, as on several
            machines, docs/deploy.md) and ``--header-timeout header_timeout``.
        postgres: a running PostgreSQL to use (a new database is made on it); None
            starts one of its own.
        check_every_ms: HAProxy's health check interval.
        header_timeout: seconds a client has to send a request's head, through HAProxy
            and to a node alike.
    """

    def __init__(
        self,
        nodes: int = 3,
        *,
        port: int = 0,
        folder: Path | None = None,
        node_args: Sequence[str] = (),
        postgres: LocalPostgres | None = None,
        check_every_ms: int = 500,
        database: str = "pishti",
        header_timeout: float = 10.0,
    ) -> None:
        self._own_folder = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="pishti-cluster-")) if folder is None else folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self._own_postgres = postgres is None
        # PostgreSQL's data go in a folder of their own that its user can reach (as root
        # it runs as the postgres user, who may not enter ``folder``'s parents).
        self.postgres = postgres or LocalPostgres(free_port())
        self.database = database
        self.node_count = nodes
        self.header_timeout = header_timeout
        self.node_args = [
            *("--forwarded-allow-ips", "127.0.0.1", "--header-timeout", str(header_timeout)),
            *node_args,
        ]
        self.check_every_ms = check_every_ms
        self.nodes: list[Node] = []
        self.haproxy: subprocess.Popen[bytes] | None = None
        self.config = self.folder / "haproxy.cfg"

    @property
    def url(self) -> str:
        """The cluster's address: HAProxy's."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, say: Callable[[str], None] = lambda _: None) -> None:
        """Start PostgreSQL (unless given), the first node (it makes the schema), the
        others together, then HAProxy; return once HAProxy answers.  ``say`` is told
        each step as it begins (a line of text), for a person waiting.

        Raises:
            ClusterError: a process would not start.  PostgresError: PostgreSQL would not.
        """
        if self._own_postgres:
            say(f"PostgreSQL: making its data folder in {self.postgres.folder} (initdb) ...")
            self.postgres.init()
            say(f"PostgreSQL: starting on 127.0.0.1:{self.postgres.port} ...")
            self.postgres.start()
        db_url = self.postgres.create_database(self.database)
        self.nodes = [
            Node(f"n{i + 1}", db_url, self.folder, self.node_args) for i in range(self.node_count)
        ]
        first, *others = self.nodes
        say(f"node {first.name}: starting on {first.url}, making the schema ...")
        first.start()
        if others:
            say(f"nodes {', '.join(n.name for n in others)}: starting ...")
        for node in others:
            node.launch()
        try:
            for node in others:
                node.wait()
        except ClusterError:
            for node in others:
                node.stop()
            raise
        say(f"HAProxy: starting on {self.url} ...")
        self.start_haproxy()

    def start_haproxy(self, timeout: float = 30.0) -> None:
        """Write ``haproxy.cfg`` and start HAProxy (Debian's ``haproxy``) in the foreground.

        Raises:
            ClusterError: HAProxy is not installed, or did not answer.
        """
        haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(haproxy).is_file():
            raise ClusterError("haproxy not found: install it (apt-get install haproxy)")
        backends = [Backend(n.name, f"127.0.0.1:{n.port}") for n in self.nodes]
        self.config.write_text(
            haproxy_config(
                f"127.0.0.1:{self.port}",
                backends,
                check_every_ms=self.check_every_ms,
                header_timeout=self.header_timeout,
            )
        )
        with open(self.folder / "haproxy.log", "ab") as log:
            self.haproxy = subprocess.Popen(
                [haproxy, "-db", "-f", str(self.config)], stdout=log, stderr=subprocess.STDOUT
            )
        wait_healthy(self.url, timeout, self.haproxy)

    def stop_haproxy(self) -> None:
        """Stop HAProxy."""
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.terminate()
            try:
                self.haproxy.wait(10)
            except subprocess.TimeoutExpired:
                self.haproxy.kill()
                self.haproxy.wait(10)

    def stop(self) -> None:
        """Stop HAProxy, the nodes and PostgreSQL (if started here); remove the folder
        if made here."""
        self.stop_haproxy()
        for node in self.nodes:
            node.stop()
        if self._own_postgres:
            self.postgres.remove()
        if self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)
