"""The real table server (``pishti serve``) in a subprocess on a loopback port, with a
SQLite file of its own: shared by the server tests and the browser tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from pishti.cluster.local import ClusterError, free_port, wait_healthy

PISHTI = str(Path(sys.executable).with_name("pishti"))
"""The ``pishti`` command of this interpreter's environment."""


class ServerProcess:
    """``pishti serve`` in a subprocess on 127.0.0.1, with a SQLite file of its own,
    which a test may kill and start again on the same port and file.  Its output
    goes to ``db`` with the suffix ``.log``."""

    def __init__(self, db: Path, *args: str) -> None:
        """A server on a free port with the database ``db`` and more ``args`` for
        ``pishti serve`` (not started yet)."""
        self.db = db
        # Tests create tables quickly from one address; a test of the limit passes its own.
        self.args = ["--http-rate", "1000", *args]
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = db.with_suffix(".log")

    @property
    def http(self) -> str:
        """Its base URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        """Its base WebSocket URL."""
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it and wait until it answers ``/healthz``.

        Raises:
            RuntimeError: it exited, or did not answer within 90 s (it is stopped).
        """
        cmd = [PISHTI, "serve", "--port", str(self.port), "--db", str(self.db), *self.args]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        # Generous: on a loaded machine a start (imports, coverage's tracing) took over 30 s.
        try:
            wait_healthy(self.http, 90.0, self.proc)
        except ClusterError as exc:
            self.stop()  # not left running behind the failed test
            raise RuntimeError(f"{exc}: {self.log.read_text()[-2000:]}") from None

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to clean up."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """Terminate it (SIGTERM, then SIGKILL after 10 s), if it runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
