"""Benchmark of the table server: moves per second, latency, memory per connection.

Starts ``pishti serve`` on 127.0.0.1 (a fresh SQLite file in a temporary
folder), creates tables of four persons over HTTP, connects one WebSocket per
seat from this process, and plays:

1. **Paced**: ``--tables`` tables (1,000: 4,000 connections), each moving once
   every ``--interval`` seconds (1 s), for ``--duration`` seconds.
2. **Full speed**: ``--fast-tables`` tables whose seats play as soon as their
   clock starts, for ``--fast-duration`` seconds.

For each phase it prints moves per second and the p50/p99 latency from a move
sent to its ``card_played`` event received by all four seats; and the server's
memory per connection (resident memory after the connections opened, less
before, divided by the connections).  Every loop is bounded; it stops by itself.

    .venv/bin/python bench/server.py                  # both phases, the goal's sizes
    .venv/bin/python bench/server.py --tables 100 --duration 10 --fast-tables 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

PISHTI = str(Path(sys.executable).with_name("pishti"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Table:
    table_id: str
    tokens: list[str]
    interval: float
    conns: list[ClientConnection] = field(default_factory=list)
    hands: list[list[str]] = field(default_factory=lambda: [[], [], [], []])
    seq: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    sent_at: float = 0.0
    received: int = 0
    next_move: float = 0.0
    moves: int = 0


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    recording: bool = False


async def make_tables(base: str, count: int, interval: float) -> list[Table]:
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as http:

        async def one(n: int) -> Table:
            r = await http.post(
                "/api/tables",
                json={"name": f"b{n}", "players": 4, "target": 151, "tempo": "relaxed"},
            )
            r.raise_for_status()
            body = r.json()
            tokens = [body["token"]]
            for seat in (1, 2, 3):
                j = await http.post(
                    f"/api/tables/{body['table_id']}/join", json={"name": f"b{n}s{seat}"}
                )
                j.raise_for_status()
                tokens.append(j.json()["token"])
            return Table(body["table_id"], tokens, interval)

        out: list[Table] = []
        for start in range(0, count, 100):
            out += await asyncio.gather(*(one(n) for n in range(start, min(count, start + 100))))
        return out


async def seat_loop(table: Table, seat: int, figures: Figures, stop: float) -> None:
    ws = table.conns[seat]
    loop = asyncio.get_running_loop()
    while loop.time() < stop:
        try:
            text = await asyncio.wait_for(ws.recv(), max(0.01, stop - loop.time()))
        except TimeoutError:
            return
        except Exception:
            figures.errors += 1
            return
        message: dict[str, Any] = json.loads(text)
        kind = message["type"]
        if kind == "error":
            figures.errors += 1
            continue
        if kind != "event":
            continue
        table.seq[seat] = message["seq"]
        event = message["event"]
        etype = event["type"]
        if etype == "cards_dealt":
            table.hands[seat] = list(event["hands"][seat])
        elif etype == "card_played":
            if event["seat"] == seat:
                table.hands[seat].remove(event["card"])
            table.received += 1
            if table.received == 4 and table.sent_at:
                if figures.recording:
                    figures.latencies.append(time.perf_counter() - table.sent_at)
                    figures.moves += 1
                table.sent_at = 0.0
        elif etype == "clock" and event["seat"] == seat and table.hands[seat]:
            wait = table.next_move - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            card = random.choice(table.hands[seat])
            table.received = 0
            table.next_move = loop.time() + table.interval
            table.sent_at = time.perf_counter()
            await ws.send(json.dumps({"type": "play", "card": card, "seq": table.seq[seat]}))


async def connect_all(ws_base: str, tables: list[Table]) -> None:
    async def one(table: Table) -> None:
        for token in table.tokens:
            ws = await connect(f"{ws_base}/ws/tables/{table.table_id}", max_size=2**20)
            await ws.send(json.dumps({"type": "hello", "token": token}))
            welcome = json.loads(await ws.recv())
            assert welcome["type"] == "welcome", welcome
            table.conns.append(ws)

    for start in range(0, len(tables), 50):
        await asyncio.gather(*(one(t) for t in tables[start : start + 50]))


async def phase(
    name: str, base: str, ws_base: str, pid: int, count: int, interval: float, duration: float
) -> dict[str, Any]:
    print(f"{name}: creating {count} tables ...", flush=True)
    tables = await make_tables(base, count, interval)
    before = rss_kib(pid)
    print(f"{name}: opening {4 * count} connections ...", flush=True)
    t0 = time.perf_counter()
    await connect_all(ws_base, tables)
    opened = time.perf_counter() - t0
    after = rss_kib(pid)
    per_conn = (after - before) / (4 * count)
    figures = Figures()
    loop = asyncio.get_running_loop()
    warmup = min(5.0, duration / 3)
    stop = loop.time() + warmup + duration
    rng = random.Random(1)
    for table in tables:
        table.next_move = loop.time() + rng.random() * interval
    tasks = [
        asyncio.create_task(seat_loop(table, seat, figures, stop))
        for table in tables
        for seat in range(4)
    ]
    for table in tables:
        await table.conns[0].send(json.dumps({"type": "start"}))
    await asyncio.sleep(warmup)
    figures.recording = True
    cpu0, w0 = cpu_seconds(pid), time.perf_counter()
    await asyncio.sleep(duration)
    figures.recording = False
    cpu1, w1 = cpu_seconds(pid), time.perf_counter()
    await asyncio.gather(*tasks)
    for table in tables:
        for ws in table.conns:
            await ws.close()
    lat = sorted(figures.latencies)

    def pct(p: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")

    result = {
        "phase": name,
        "tables": count,
        "connections": 4 * count,
        "seconds": round(w1 - w0, 1),
        "moves_per_second": round(figures.moves / (w1 - w0), 1),
        "p50_ms": round(pct(0.50), 1),
        "p99_ms": round(pct(0.99), 1),
        "mean_ms": round(1000 * statistics.fmean(lat), 1) if lat else None,
        "server_cpu": round((cpu1 - cpu0) / (w1 - w0), 2),
        "server_kib_per_connection": round(per_conn, 1),
        "server_rss_mib": round(after / 1024, 1),
        "connect_seconds": round(opened, 1),
        "errors": figures.errors,
    }
    print(json.dumps(result), flush=True)
    return result


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between moves")
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--fast-tables", type=int, default=100)
    ap.add_argument("--fast-duration", type=float, default=20.0)
    ap.add_argument("--synchronous", default="NORMAL", help="SQLite synchronous: FULL or NORMAL")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pishti-bench-"))
    port = free_port()
    cmd = [PISHTI, "serve", "--port", str(port), "--db", str(folder / "bench.db")]
    cmd += ["--bot-delay", "0", "--log-level", "warning", "--sqlite-synchronous", args.synchronous]
    server = subprocess.Popen(cmd)
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                await asyncio.sleep(0.1)
        results = []
        if args.tables:
            results.append(
                await phase(
                    "paced", base, ws_base, server.pid, args.tables, args.interval, args.duration
                )
            )
        if args.fast_tables:
            results.append(
                await phase(
                    "full-speed",
                    base,
                    ws_base,
                    server.pid,
                    args.fast_tables,
                    0.0,
                    args.fast_duration,
                )
            )
        print("\nphase       tables  moves/s  p50 ms  p99 ms  server CPU  KiB/conn  errors")
        for r in results:
            print(
                f"{r['phase']:<11} {r['tables']:>6} {r['moves_per_second']:>8} {r['p50_ms']:>7} "
                f"{r['p99_ms']:>7} {r['server_cpu']:>11} {r['server_kib_per_connection']:>9} "
                f"{r['errors']:>7}"
            )
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    try:
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())
