"""Benchmark of the table server: moves per second, latency, memory per connection.

Starts ``pishti serve`` on 127.0.0.1 (a fresh SQLite file in a temporary
folder), creates tables of four persons over HTTP, and spreads them over
``--client-procs`` client processes (``bench/server_clients.py``), each of which
opens one WebSocket per seat of its tables and plays them.  Two phases:

1. **Paced**: ``--tables`` tables (1,000: 4,000 connections), each moving once
   every ``--interval`` seconds (1 s), for ``--duration`` seconds.  Each table
   keeps a schedule of its own, its first move at a random moment of the first
   interval (``--jitter`` varies each gap at random), so the moves stay spread
   over the second (``bench/server_clients.py`` says why).
2. **Full speed**: ``--fast-tables`` tables whose seats play as soon as their
   clock starts, for ``--fast-duration`` seconds.

For each phase it prints moves per second, the p50/p99 latency from a move
sent to its ``card_played`` event received by all four seats, the server's
memory per connection (resident memory after the connections opened, less
before, divided by the connections), and the CPU (in cores) of the server and
of all client processes together over the measured seconds.  ``--repeat N``
runs each phase N times, each on a fresh server and database, and also prints
the medians.  Every loop is bounded; it
stops by itself.

    .venv/bin/python bench/server.py                  # both phases, the goal's sizes
    .venv/bin/python bench/server.py --tables 100 --duration 10 --fast-tables 50
    .venv/bin/python bench/server.py --batch          # one frame per move and seat
    .venv/bin/python bench/server.py --talk 0.1 --repeat 3 --fast-tables 0
        # each run twice, alternating: without and with voice and video signalling
        # at 10% of the tables; prints the p99 of both and their ratio
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from pishti.arena.stats import percentile as nearest_rank

PISHTI = str(Path(sys.executable).with_name("pishti"))
CLIENT = str(Path(__file__).with_name("server_clients.py"))
COLUMNS = (
    ("tables", "tables", 6),
    ("moves_per_second", "moves/s", 8),
    ("p50_ms", "p50 ms", 8),
    ("p99_ms", "p99 ms", 8),
    ("server_cpu", "server CPU", 10),
    ("server_cpu_wait", "srv wait", 8),
    ("commits_per_second", "commits/s", 9),
    ("commit_ms", "commit ms", 9),
    ("client_cpu", "client CPU", 10),
    ("server_kib_per_connection", "KiB/conn", 8),
    ("load", "load", 5),
    ("errors", "errors", 6),
)


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid``, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def queue_wait_seconds(pid: int) -> float:
    """Seconds the main thread of process ``pid`` has spent ready to run but waiting
    for a CPU (other processes had them), from ``/proc/PID/schedstat``; 0 if unknown."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


async def make_tables(base: str, count: int) -> list[tuple[str, list[str]]]:
    """Create ``count`` tables of four persons; returns ``(table_id, [token x4])`` each."""
    # Idle connections are dropped before the server's 5 s keep-alive ends, so that no
    # request goes out on a connection the server is closing.
    limits = httpx.Limits(max_connections=50, keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as http:

        async def one(n: int) -> tuple[str, list[str]]:
            r = await http.post(
                "/api/tables",
                json={"name": f"b{n}", "players": 4, "target": 151, "tempo": "relaxed"},
            )
            r.raise_for_status()
            body = r.json()
            tokens = [body["token"]]
            for seat in (1, 2, 3):
                for _ in range(60):  # 503 other_node: a table moving between cluster nodes
                    j = await http.post(
                        f"/api/tables/{body['table_id']}/join", json={"name": f"b{n}s{seat}"}
                    )
                    if j.status_code != 503:
                        break
                    await asyncio.sleep(1.0)
                j.raise_for_status()
                tokens.append(j.json()["token"])
            return body["table_id"], tokens

        out: list[tuple[str, list[str]]] = []
        for start in range(0, count, 100):
            out += await asyncio.gather(*(one(n) for n in range(start, min(count, start + 100))))
        return out


async def writer_figures(base: str) -> dict[str, float]:
    """The server's writer counters (``/healthz``): transactions, items, commit seconds."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        body: dict[str, float] = (await http.get("/healthz")).json()
    return body


def commit_figures(
    before: dict[str, float], after: dict[str, float], duration: float
) -> dict[str, float | None]:
    """Transactions a second, items a transaction and mean commit milliseconds between
    two readings of :func:`writer_figures`."""
    transactions = after["transactions"] - before["transactions"]
    items = after["items_written"] - before["items_written"]
    seconds = after["commit_seconds"] - before["commit_seconds"]
    return {
        "commits_per_second": round(transactions / duration, 1),
        "items_per_commit": round(items / transactions, 1) if transactions else None,
        "commit_ms": round(1000 * seconds / transactions, 1) if transactions else None,
    }


async def read_json(proc: asyncio.subprocess.Process, timeout: float) -> dict[str, Any]:
    """The next JSON line a client process prints, within ``timeout`` seconds."""
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), timeout)
    if not line:
        raise RuntimeError("a client process exited early")
    result: dict[str, Any] = json.loads(line)
    return result


def send_json(proc: asyncio.subprocess.Process, message: dict[str, Any]) -> None:
    """Write one JSON line to a client process."""
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")


def percentile(values: list[float], p: float) -> float:
    """The ``p`` quantile (0..1) of ``values`` (seconds), in milliseconds (nan if
    none): the nearest rank, as ``pishti arena`` reports its percentiles."""
    if not values:
        return float("nan")
    return 1000 * nearest_rank(values, p)


async def phase(
    name: str,
    args: argparse.Namespace,
    base: str,
    pid: int,
    count: int,
    interval: float,
    folder: Path,
    talk: float = 0.0,
) -> dict[str, Any]:
    """Run one phase of ``count`` tables and return its figures; ``talk``: the fraction
    of the tables that also carry the table talk's signalling."""
    duration = args.duration if name == "paced" else args.fast_duration
    print(f"{name}: creating {count} tables ...", flush=True)
    tables = await make_tables(base, count)
    before = rss_kib(pid)
    procs_n = max(1, min(args.client_procs, count))
    print(f"{name}: opening {4 * count} connections from {procs_n} processes ...", flush=True)
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable, CLIENT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        for _ in range(procs_n)
    ]
    try:
        ws_base = base.replace("http://", "ws://")
        for k, proc in enumerate(procs):
            job = {
                "ws": ws_base,
                "tables": tables[k::procs_n],
                "interval": interval,
                "jitter": args.jitter,
                "batch": args.batch,
                "seed": k,
                "talk": talk,
                "out": str(folder / f"clients-{name}-{k}.json"),
            }
            send_json(proc, job)
        ready = await asyncio.gather(*(read_json(proc, 300) for proc in procs))
        after = rss_kib(pid)
        warmup = min(5.0, duration / 3)
        record = time.monotonic() + warmup
        stop = record + duration
        for proc in procs:
            send_json(proc, {"record": record, "stop": stop})
        await asyncio.sleep(max(0.0, record - time.monotonic()))
        cpu0, wait0 = cpu_seconds(pid), queue_wait_seconds(pid)
        writer0 = await writer_figures(base)
        await asyncio.sleep(max(0.0, stop - time.monotonic()))
        cpu1, wait1 = cpu_seconds(pid), queue_wait_seconds(pid)
        writer1 = await writer_figures(base)
        load = os.getloadavg()[0]
        await asyncio.gather(*(read_json(proc, 60) for proc in procs))
        results = [
            json.loads((folder / f"clients-{name}-{k}.json").read_text()) for k in range(procs_n)
        ]
        for proc in procs:
            await asyncio.wait_for(proc.wait(), 30)
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    lat = sorted(x for r in results for x in r["latencies"])
    moves = len(lat)
    out = {
        "phase": name,
        "tables": count,
        "connections": 4 * count,
        "client_procs": procs_n,
        "seconds": round(duration, 1),
        "moves_per_second": round(moves / duration, 1),
        "p50_ms": round(percentile(lat, 0.50), 1),
        "p90_ms": round(percentile(lat, 0.90), 1),
        "p99_ms": round(percentile(lat, 0.99), 1),
        "p999_ms": round(percentile(lat, 0.999), 1),
        "mean_ms": round(1000 * statistics.fmean(lat), 1) if lat else None,
        "server_cpu": round((cpu1 - cpu0) / duration, 2),
        "server_ms_per_move": round(1000 * (cpu1 - cpu0) / moves, 3) if moves else None,
        "server_cpu_wait": round((wait1 - wait0) / duration, 2),
        **commit_figures(writer0, writer1, duration),
        "client_cpu": round(sum(r["cpu_seconds"] for r in results) / duration, 2),
        "frames_per_move": round(sum(r["frames"] for r in results) / moves, 1) if moves else None,
        "server_kib_per_connection": round((after - before) / (4 * count), 1),
        "server_rss_mib": round(after / 1024, 1),
        "connect_seconds": round(max(r["connect_seconds"] for r in ready), 1),
        "load": round(load, 1),
        "errors": sum(r["errors"] for r in results),
        "timeouts": sum(r["timeouts"] for r in results),
        "dropped": sum(r.get("dropped", 0) for r in results),
    }
    print(json.dumps(out), flush=True)
    return out


def table_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The figures as an aligned text table."""
    head = f"{'phase':<16}" + "".join(f" {title:>{w}}" for _, title, w in COLUMNS)
    lines = [head]
    for r in rows:
        lines.append(f"{r['phase']:<16}" + "".join(f" {r[k]!s:>{w}}" for k, _, w in COLUMNS))
    return lines


def medians(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of every figure of several runs of one phase."""
    out: dict[str, Any] = {"phase": f"{name} median"}
    for key, _, _ in COLUMNS:
        values = [r[key] for r in rows if r[key] is not None]
        out[key] = round(statistics.median(values), 1) if values else None
    return out


async def wait_healthy(base: str, server: subprocess.Popen[bytes]) -> None:
    """Wait (60 s at most) until the server answers ``/healthz``."""
    async with httpx.AsyncClient(base_url=base, timeout=1) as http:
        for _ in range(600):
            if server.poll() is not None:
                raise RuntimeError("the server exited")
            try:
                if (await http.get("/healthz")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError("the server did not start in 60 s")


async def main() -> None:
    """Parse the options, start the server, run the phases and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tables", type=int, default=1000, help="tables of the paced phase")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between moves")
    ap.add_argument(
        "--jitter",
        type=float,
        default=0.0,
        help="paced gaps vary at random by this fraction of --interval (0 to 1)",
    )
    ap.add_argument("--duration", type=float, default=30.0, help="measured seconds, paced")
    ap.add_argument("--fast-tables", type=int, default=100, help="tables of the full-speed phase")
    ap.add_argument("--fast-duration", type=float, default=20.0, help="measured seconds")
    ap.add_argument("--client-procs", type=int, default=2, help="client processes")
    ap.add_argument("--batch", action="store_true", help='clients say hello with "batch": true')
    ap.add_argument("--repeat", type=int, default=1, help="runs of each phase")
    ap.add_argument(
        "--talk",
        type=float,
        default=0.0,
        help="run each phase twice, alternating: without, then with voice and video "
        "signalling at this fraction of the tables (0.1); prints the p99 ratio",
    )
    ap.add_argument("--synchronous", default="NORMAL", help="SQLite synchronous: FULL or NORMAL")
    ap.add_argument(
        "--serve-arg", action="append", default=[], help="one more argument of pishti serve"
    )
    args = ap.parse_args()
    if not 0 <= args.jitter <= 1:
        ap.error("--jitter must be from 0 to 1")
    runs: list[tuple[str, int, float]] = []
    if args.tables:
        runs.append(("paced", args.tables, args.interval))
    if args.fast_tables:
        runs.append(("full-speed", args.fast_tables, 0.0))
    rows: list[dict[str, Any]] = []
    ratios: list[str] = []
    talks = [0.0, args.talk] if args.talk else [0.0]
    for name, count, interval in runs:
        done: dict[float, list[dict[str, Any]]] = {talk: [] for talk in talks}
        for _ in range(args.repeat):
            for talk in talks:  # alternating, so a slower moment of the machine hits both
                # A fresh server and database for every run: the tables of a run that ended
                # would go to bots once their holds expire and play on, loading the next run.
                async with serving(args) as (base, pid, folder):
                    label = f"{name}+talk" if talk else name
                    row = await phase(label, args, base, pid, count, interval, folder, talk)
                    done[talk].append(row)
        for talk in talks:
            rows += done[talk]
            if args.repeat > 1:
                rows.append(medians(f"{name}+talk" if talk else name, done[talk]))
        if args.talk:
            pairs = [
                w["p99_ms"] / wo["p99_ms"]
                for wo, w in zip(done[0.0], done[args.talk], strict=True)
                if wo["p99_ms"]
            ]
            if pairs:
                ratios.append(
                    f"{name}: p99 with talk / without, run by run: "
                    + ", ".join(f"{r:.2f}" for r in pairs)
                    + f"; median {statistics.median(pairs):.2f}"
                )
    print()
    print("\n".join(table_lines(rows)))
    for line in ratios:
        print(line)


@contextlib.asynccontextmanager
async def serving(args: argparse.Namespace) -> AsyncIterator[tuple[str, int, Path]]:
    """Start ``pishti serve`` on a free port with a fresh SQLite file in a new folder;
    yields ``(base URL, server pid, folder)`` and stops the server afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="pishti-bench-"))
    port = free_port()
    cmd = [PISHTI, "serve", "--port", str(port), "--db", str(folder / "bench.db")]
    cmd += ["--bot-delay", "0", "--log-level", "warning", "--sqlite-synchronous", args.synchronous]
    cmd += ["--http-rate", "100000"]  # the bench creates its tables from one address
    cmd += args.serve_arg
    server = subprocess.Popen(cmd)
    base = f"http://127.0.0.1:{port}"
    try:
        await wait_healthy(base, server)
        yield base, server.pid, folder
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
