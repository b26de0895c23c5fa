"""``pishti cluster``: it starts PostgreSQL, the nodes and HAProxy, prints the URL, and
Ctrl-C stops them all."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from pishti.cluster.local import free_port

PISHTI = str(Path(sys.executable).with_name("pishti"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nodes", "0"], "pishti: --nodes must be from 1 to 16\n"),
        (["--port", "70000"], "pishti: --port must be from 0 to 65535\n"),
    ],
)
def test_bad_options_are_refused_with_one_line(args: list[str], message: str) -> None:
    out = subprocess.run([PISHTI, "cluster", *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr == message


def test_the_cluster_serves_through_haproxy_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    port = free_port()
    folder = tmp_path / "cluster"
    proc = subprocess.Popen(
        [PISHTI, "cluster", "--nodes", "2", "--port", str(port), "--folder", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # Ctrl-C as at a terminal: a test run started in the background (`cmd &` in a
        # script) passes SIGINT on ignored, and Python then never raises KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout is not None
        # Each step is told as it begins (a first start takes a minute on a busy machine).
        steps = [proc.stdout.readline() for _ in range(6)]
        assert [line.split(":")[0] for line in steps[:5]] == [
            "PostgreSQL",
            "PostgreSQL",
            "node n1",
            "nodes n2",
            "HAProxy",
        ], "".join(steps) + proc.stdout.read()
        assert steps[4] == f"HAProxy: starting on http://127.0.0.1:{port} ...\n"
        assert steps[5] == f"Pishti cluster: http://127.0.0.1:{port}  (Ctrl-C stops it)\n"
        nodes = {
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()["node"]
            for _ in range(4)
        }
        assert nodes == {"n1", "n2"}  # requests without a table go to every live node
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=90)
    assert proc.returncode == 0
    assert out.endswith("stopping the cluster\n")
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
    assert (folder / "haproxy.cfg").is_file() and (folder / "n2.log").is_file()
