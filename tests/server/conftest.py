"""Fixtures that run the real server (``pishti serve``) on a loopback port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

PISHTI = str(Path(sys.executable).with_name("pishti"))


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


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server at full time scale, bots without delay, a high rate limit (clients play
    as fast as the loopback allows)."""
    db = tmp_path_factory.mktemp("server") / "pishti.db"
    proc = ServerProcess(db, "--bot-delay", "0", "--rate", "1000", "--log-level", "warning")
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose clocks and holds run 50 times faster: a normal-tempo clock is
    0.6 s, the hold 1.2 s, the hold after ``closing`` 0.2 s."""
    db = tmp_path_factory.mktemp("fast") / "pishti.db"
    proc = ServerProcess(
        db, "--bot-delay", "0", "--time-scale", "0.02", "--rate", "1000", "--log-level", "warning"
    )
    proc.start()
    yield proc
    proc.stop()


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
