"""Benchmark of a cluster: the paced load of ``bench/server.py`` through HAProxy on
PostgreSQL over 1, 2 and 3 nodes, and the time a failover takes.

Starts one PostgreSQL (Debian's, as its own user) for the whole run; each run of a
phase gets a new database and a new cluster (``pishti.cluster.local.LocalCluster``:
the nodes and HAProxy on 127.0.0.1).

1. **Paced** (``--nodes 1 2 3``): ``--tables`` tables of four seats, each moving
   once every ``--interval`` seconds, played by ``bench/server_clients.py``
   processes through HAProxy, for ``--duration`` seconds.  Prints moves per second,
   p50/p99 from a move sent to its ``card_played`` received by all four seats,
   and CPU: of the nodes together, of PostgreSQL, of HAProxy (in cores), and the
   nodes' CPU milliseconds per move.  The node counts alternate within each of
   ``--repeat`` rounds, and the medians are printed.
2. **Failover** (``--failover-tables``, 0 to skip): that many tables of four
   reconnecting clients (as the browser client: ``hello`` with ``last_seq``,
   retried on 1013) on 3 nodes, each table moving once a second; after
   ``--failover-after`` seconds the node with most tables is killed (SIGKILL).
   Prints, for its tables, the seconds from the kill until each had its next
   move (the last of them is the failover time), and checks that every seat's
   events stayed gap-free.

    .venv/bin/python bench/cluster.py                                # the defaults
    .venv/bin/python bench/cluster.py --tables 1000 --nodes 3 --duration 30
    .venv/bin/python bench/cluster.py --tables 0 --failover-tables 30 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from pishti.cluster.local import LocalCluster, free_port
from pishti.cluster.postgres import LocalPostgres
from server import CLIENT, cpu_seconds, make_tables, percentile, read_json, send_json

NODE_ARGS = ["--bot-delay", "0", "--http-rate", "100000", "--log-level", "warning"]


def marked_down(log: Path) -> int:
    """How many times HAProxy marked a node down (its log's ``Server tables/nK is DOWN``):
    in a paced run with no node killed, each is a live node that answered its health
    check too slowly, and its sessions were cut (``dropped`` seats)."""
    text = log.read_text() if log.is_file() else ""
    return sum(1 for line in text.splitlines() if "Server tables/" in line and " is DOWN" in line)


def postgres_pids(pg: LocalPostgres) -> list[int]:
    """The postmaster of ``pg`` and its children (the backends, the writer ...)."""
    main = int((pg.data / "postmaster.pid").read_text().split()[0])
    children = Path(f"/proc/{main}/task/{main}/children").read_text().split()
    return [main, *(int(c) for c in children)]


def cpu_of(pids: list[int]) -> float:
    """CPU seconds of ``pids`` together (those that still run)."""
    return sum(cpu_seconds(pid) for pid in pids if Path(f"/proc/{pid}").exists())


async def paced(
    args: argparse.Namespace, pg: LocalPostgres, nodes: int, run: int
) -> dict[str, Any]:
    """One paced run on a new cluster of ``nodes`` nodes; returns its figures."""
    folder = Path(tempfile.mkdtemp(prefix="pishti-bench-cluster-"))
    cluster = LocalCluster(
        nodes, folder=folder, postgres=pg, database=f"bench_{nodes}_{run}", node_args=NODE_ARGS
    )
    cluster.start()
    try:
        print(f"{nodes} nodes: creating {args.tables} tables ...", flush=True)
        tables = await make_tables(cluster.url, args.tables)
        procs_n = max(1, min(args.client_procs, args.tables))
        procs = [
            await asyncio.create_subprocess_exec(
                sys.executable, CLIENT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
            for _ in range(procs_n)
        ]
        try:
            for k, proc in enumerate(procs):
                send_json(
                    proc,
                    {
                        "ws": cluster.url.replace("http://", "ws://"),
                        "tables": tables[k::procs_n],
                        "interval": args.interval,
                        "jitter": 0.1,
                        "batch": False,
                        "seed": k,
                        "out": str(folder / f"clients-{k}.json"),
                    },
                )
            await asyncio.gather(*(read_json(proc, 600) for proc in procs))
            node_pids = [n.proc.pid for n in cluster.nodes if n.proc is not None]
            pg_pids = postgres_pids(pg)
            assert cluster.haproxy is not None
            record = time.monotonic() + 5.0
            stop = record + args.duration
            for proc in procs:
                send_json(proc, {"record": record, "stop": stop})
            await asyncio.sleep(max(0.0, record - time.monotonic()))
            c0 = (cpu_of(node_pids), cpu_of(pg_pids), cpu_seconds(cluster.haproxy.pid))
            await asyncio.sleep(max(0.0, stop - time.monotonic()))
            c1 = (cpu_of(node_pids), cpu_of(pg_pids), cpu_seconds(cluster.haproxy.pid))
            load = os.getloadavg()[0]
            await asyncio.gather(*(read_json(proc, 120) for proc in procs))
            results = [
                json.loads((folder / f"clients-{k}.json").read_text()) for k in range(procs_n)
            ]
        finally:
            for proc in procs:
                if proc.returncode is None:
                    proc.kill()
                await proc.wait()
    except BaseException:
        # What HAProxy saw (nodes marked down, sessions cut), to tell why it failed.
        print((folder / "haproxy.log").read_text()[-4000:], file=sys.stderr, flush=True)
        raise
    finally:
        cluster.stop()
        downs = marked_down(folder / "haproxy.log")
        shutil.rmtree(folder, ignore_errors=True)
    lat = sorted(x for r in results for x in r["latencies"])
    moves = len(lat)
    duration = args.duration
    out = {
        "nodes": nodes,
        "tables": args.tables,
        "moves_per_second": round(moves / duration, 1),
        "p50_ms": round(percentile(lat, 0.50), 1),
        "p99_ms": round(percentile(lat, 0.99), 1),
        "nodes_cpu": round((c1[0] - c0[0]) / duration, 2),
        "postgres_cpu": round((c1[1] - c0[1]) / duration, 2),
        "haproxy_cpu": round((c1[2] - c0[2]) / duration, 2),
        "node_ms_per_move": round(1000 * (c1[0] - c0[0]) / moves, 3) if moves else None,
        "all_ms_per_move": round(1000 * (sum(c1) - sum(c0)) / moves, 3) if moves else None,
        "client_cpu": round(sum(r["cpu_seconds"] for r in results) / duration, 2),
        "load": round(load, 1),
        "errors": sum(r["errors"] for r in results),
        "dropped": sum(r["dropped"] for r in results),
        "marked_down": downs,
    }
    print(json.dumps(out), flush=True)
    return out


class Seat:
    """One reconnecting seat of the failover phase: plays a random card of its hand
    a second after its turn comes; reconnects through HAProxy with ``last_seq``."""

    def __init__(self, ws: str, table_id: str, token: str, seed: int) -> None:
        self.url = f"{ws}/ws/tables/{table_id}"
        self.table_id = table_id
        self.token = token
        self.rng = random.Random(seed)
        self.seq = 0
        self.seat = -1
        self.hand: list[str] = []
        self.to_play: int | None = None
        self.over = False
        self.gaps = 0
        self.moves: list[float] = []  # monotonic seconds of each card_played received
        self.reconnects = 0
        self.retries = 0
        self.starts = False

    def apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "welcome":
            if not message["resumed"]:
                self.seq = message["seq"]
                view, table = message["view"], message["table"]
                self.hand = list(view["hand"]) if view else []
                clock = table["clock"]
                self.to_play = None if clock is None else clock["seat"]
            self.seat = message["seat"]
        elif kind == "event":
            if message["seq"] != self.seq + 1:
                self.gaps += 1
            self.seq = message["seq"]
            event = message["event"]
            if event["type"] == "cards_dealt":
                self.hand = list(event["hands"][self.seat] or [])
            elif event["type"] == "card_played":
                self.moves.append(time.monotonic())
                self.to_play = None
                if event["seat"] == self.seat and event["card"] in self.hand:
                    self.hand.remove(event["card"])
            elif event["type"] == "clock":
                self.to_play = event["seat"]
            elif event["type"] == "match_over":
                self.over = True

    async def run(self, until: float) -> None:
        while time.monotonic() < until and not self.over:
            try:
                async with connect(self.url, open_timeout=5) as ws:
                    await ws.send(
                        json.dumps({"type": "hello", "token": self.token, "last_seq": self.seq})
                    )
                    first = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if first["type"] == "error":
                        self.retries += 1
                        await asyncio.sleep(0.3)
                        continue
                    self.reconnects += 1
                    self.apply(first)
                    if self.starts:
                        self.starts = False
                        await ws.send('{"type":"start"}')
                    await self._play(ws, until)
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                self.retries += 1
                await asyncio.sleep(0.3)

    async def _play(self, ws: Any, until: float) -> None:
        while time.monotonic() < until and not self.over:
            if self.to_play == self.seat and self.hand:
                await asyncio.sleep(1.0)  # a move a second at each table
                if self.to_play == self.seat and self.hand:
                    card = self.rng.choice(self.hand)
                    await ws.send(json.dumps({"type": "play", "card": card, "seq": self.seq}))
                    self.to_play = None
            try:
                text = await asyncio.wait_for(ws.recv(), 2.0)
            except TimeoutError:
                continue
            message = json.loads(text)
            self.apply(message)
            if message["type"] == "event" and message["event"]["type"] == "pause":
                await ws.send(json.dumps({"type": "continue", "deck": message["event"]["deck"]}))


async def failover(args: argparse.Namespace, pg: LocalPostgres, run: int) -> dict[str, Any]:
    """Kill the node with most tables while ``--failover-tables`` tables play; return how
    long each of its tables took to move again."""
    cluster = LocalCluster(
        3, postgres=pg, database=f"failover_{run}", node_args=[*NODE_ARGS, "--rate", "1000"]
    )
    cluster.start()
    try:
        tables = await make_tables(cluster.url, args.failover_tables)
        ws = cluster.url.replace("http://", "ws://")
        seats = [
            [Seat(ws, t, token, 1000 * run + 4 * n + k) for k, token in enumerate(tokens)]
            for n, (t, tokens) in enumerate(tables)
        ]
        for table in seats:
            table[0].starts = True  # the owner starts the match once connected
        until = time.monotonic() + args.failover_after + 60
        tasks = [asyncio.ensure_future(s.run(until)) for table in seats for s in table]
        await asyncio.sleep(args.failover_after)
        owners = await asyncio.to_thread(_owners, pg, cluster.database)
        counts: dict[str, int] = {}
        for t, _ in tables:
            counts[owners[t]] = counts.get(owners[t], 0) + 1
        victim_name = max(counts, key=lambda name: counts[name])
        victim = next(n for n in cluster.nodes if n.name == victim_name)
        moved = [n for n, (t, _) in enumerate(tables) if owners[t] == victim_name]
        killed = time.monotonic()
        victim.signal(signal.SIGKILL)
        await asyncio.sleep(args.failover_watch)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        cluster.stop()
    again = []
    for n in moved:
        after = [t for s in seats[n] for t in s.moves if t > killed]
        again.append(min(after) - killed if after else float("inf"))
    gaps = sum(s.gaps for table in seats for s in table)
    out = {
        "tables": len(tables),
        "killed": victim_name,
        "its_tables": len(moved),
        "first_table_s": round(min(again), 2),
        "median_s": round(statistics.median(again), 2),
        "failover_s": round(max(again), 2),
        "gaps": gaps,
    }
    print(json.dumps(out), flush=True)
    return out


def _owners(pg: LocalPostgres, database: str) -> dict[str, str]:
    with psycopg.connect(pg.url(database)) as conn:
        rows = conn.execute("SELECT table_id, owner FROM leases").fetchall()
    return {str(r[0]): str(r[1]) for r in rows}


def medians(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The median of every figure of the rows with the same ``key``."""
    out = []
    for value in sorted({r[key] for r in rows}):
        group = [r for r in rows if r[key] == value]
        out.append(
            {
                k: statistics.median(r[k] for r in group)
                if isinstance(group[0][k], int | float)
                else group[0][k]
                for k in group[0]
            }
        )
    return out


async def main() -> None:
    """Parse the options, start PostgreSQL, run the phases and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tables", type=int, default=300, help="tables of the paced phase (0: skip)")
    ap.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 3], help="node counts")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between moves")
    ap.add_argument("--duration", type=float, default=20.0, help="measured seconds, paced")
    ap.add_argument("--client-procs", type=int, default=2, help="client processes")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of every phase")
    ap.add_argument("--failover-tables", type=int, default=30, help="tables (0: skip)")
    ap.add_argument("--failover-after", type=float, default=10.0, help="seconds before the kill")
    ap.add_argument("--failover-watch", type=float, default=20.0, help="seconds after the kill")
    args = ap.parse_args()
    pg = LocalPostgres(free_port())
    pg.init()
    pg.start()
    try:
        rows: list[dict[str, Any]] = []
        fails: list[dict[str, Any]] = []
        for run in range(args.repeat):
            if args.tables:
                for nodes in args.nodes:
                    rows.append(await paced(args, pg, nodes, run))
            if args.failover_tables:
                fails.append(await failover(args, pg, run))
        if rows:
            print("\npaced, medians of", args.repeat, "runs:")
            for r in medians(rows, "nodes"):
                print(json.dumps(r))
        if fails:
            print("\nfailover, medians of", args.repeat, "runs:")
            print(json.dumps(medians(fails, "tables")[0]))
    finally:
        pg.remove()


if __name__ == "__main__":
    asyncio.run(main())
