"""Soak of the table server: many paced tables for a long time, figures every minute.

Starts ``pishti serve`` on 127.0.0.1 (a fresh SQLite file in a temporary folder,
bots playing after ``--interval`` seconds) and ``--client-procs`` client
processes that share ``--tables`` tables.  Each table has two persons (seats 0
and 2, each a WebSocket of its own) and two standard bots; every seat plays
about ``--interval`` seconds after its turn begins, so each table moves about
once every ``--interval`` seconds.  Matches are played to 51 points; when one
is over the owner starts a rematch after ``--rematch-after`` seconds, so
matches keep finishing and starting.  Every minute each person drops its
connection with probability ``--drop`` (the socket is cut, as a lost network
would) and comes back after 1 to 5 s with its last event number.

Every minute it prints: the server's resident memory, the p50 and p99
latency of the minute's moves (from a person's ``play`` sent to its
``card_played`` received back), the moves, matches finished, drops and errors
of the minute, the server's open file descriptors, connections (``/healthz``),
the database and WAL file sizes, the server's CPU (cores, over the minute) and
the machine's load average (a p99 that rises with the load, at the same CPU per
move, is the machine's, not the server's).  At the end it prints the growth of
memory and p99 from the first minute after ``--warmup`` minutes to the last.

    .venv/bin/python bench/soak.py                               # 1,000 tables, 30 minutes
    .venv/bin/python bench/soak.py --tables 200 --minutes 10      # a smaller one

Every loop is bounded: it stops by itself after ``--minutes``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from server import PISHTI, cpu_seconds, free_port, rss_kib, wait_healthy

# -- one client process ------------------------------------------------------------


class Minute:
    """What the clients of one process saw in one minute."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.moves = 0
        self.matches = 0
        self.drops = 0
        self.errors = 0


class Soak:
    """The tables of one client process, and their figures per minute."""

    def __init__(self, args: argparse.Namespace, base: str, started: float) -> None:
        self.args = args
        self.base = base
        self.ws_base = base.replace("http://", "ws://")
        self.started = started
        self.end = started + 60 * args.minutes + 20  # past the parent's last sample
        self.minutes: dict[int, Minute] = {}
        self.rng = random.Random(args.part)

    def minute(self) -> Minute:
        m = int((time.time() - self.started) // 60)
        return self.minutes.setdefault(m, Minute())

    async def table(self, http: httpx.AsyncClient, n: int) -> None:
        """Create one table, seat two persons, start it and play until the end."""
        r = await http.post("/api/tables", json={"name": f"s{n}", "target": 51, "tempo": "relaxed"})
        r.raise_for_status()
        body = r.json()
        table_id, owner = body["table_id"], body["token"]
        j = await http.post(f"/api/tables/{table_id}/join", json={"name": f"s{n}b", "seat": 2})
        j.raise_for_status()
        persons = [Person(self, table_id, owner, True), Person(self, table_id, j.json()["token"])]
        await asyncio.gather(*(p.run() for p in persons))

    async def run(self) -> None:
        limits = httpx.Limits(max_connections=20, keepalive_expiry=2.0)
        async with httpx.AsyncClient(base_url=self.base, limits=limits, timeout=60) as http:
            tasks = []
            for n in range(self.args.part, self.args.tables, self.args.parts):
                tasks.append(asyncio.create_task(self.table(http, n)))
                await asyncio.sleep(self.args.interval * self.args.parts / self.args.tables)
            reporter = asyncio.create_task(self.report())
            await asyncio.gather(*tasks, return_exceptions=True)
            await reporter

    async def report(self) -> None:
        """Print each finished minute as one JSON line (read by the parent process)."""
        done = 0
        while True:
            now = time.time()
            current = int((now - self.started) // 60)
            while done < current:
                m = self.minutes.pop(done, Minute())
                line = {"minute": done, "latencies": m.latencies, "moves": m.moves}
                line |= {"matches": m.matches, "drops": m.drops, "errors": m.errors}
                print(json.dumps(line), flush=True)
                done += 1
            if now >= self.end:
                return
            await asyncio.sleep(min(1.0, self.end - now))


class Person:
    """One person's seat: plays a random card ``interval`` seconds into each turn."""

    def __init__(self, soak: Soak, table_id: str, token: str, owner: bool = False) -> None:
        self.soak = soak
        self.table_id = table_id
        self.token = token
        self.owner = owner
        self.seat: int | None = None
        self.seq: int | None = None
        self.hand: list[str] = []
        self.to_play: int | None = None
        self.sent: dict[str, float] = {}
        self.turn: asyncio.Task[None] | None = None
        self.rematch: asyncio.Task[None] | None = None
        self.ws: ClientConnection | None = None
        """The connection of the moment (None between two)."""
        self.rematch_due = False
        """The owner owes the table a rematch: its match is over and the ``rematch``
        has not gone out on an open connection yet."""

    async def run(self) -> None:
        soak = self.soak
        while time.time() < soak.end:
            try:
                async with connect(f"{soak.ws_base}/ws/tables/{self.table_id}") as ws:
                    self.ws = ws
                    try:
                        await self.session(ws)
                    finally:
                        self.ws = None
            except Exception as exc:  # a dropped or refused connection: count it, come back
                soak.minute().errors += 1
                if soak.args.verbose:
                    print(f"connection: {exc!r}", file=sys.stderr)
            if time.time() < soak.end:
                await asyncio.sleep(soak.rng.uniform(1, 5))

    async def session(self, ws: ClientConnection) -> None:
        soak = self.soak
        hello = {"type": "hello", "token": self.token, "last_seq": self.seq, "batch": True}
        await ws.send(json.dumps(hello))
        drop_at = time.time() + soak.rng.expovariate(max(soak.args.drop, 1e-9) / 60)
        started = False
        while time.time() < soak.end:
            timeout = min(soak.end, drop_at) - time.time()
            try:
                text = await asyncio.wait_for(ws.recv(), max(timeout, 0.01))
            except TimeoutError:
                if time.time() >= drop_at:  # lose the network: no close frame
                    soak.minute().drops += 1
                    ws.transport.abort()
                return
            message = json.loads(text)
            kind = message["type"]
            if kind == "welcome":
                self.seat = message["seat"]
                if not message["resumed"]:
                    self.seq = message["seq"]
                    view = message["view"]
                    self.hand = list(view["hand"]) if view else []
                    self.to_play = view["to_play"] if view else None
                if self.to_play == self.seat:  # a later clock event plays instead
                    self.my_turn(ws)
                waiting = message["table"] and message["table"]["status"] == "waiting"
                if self.owner and message["table"] and message["table"]["status"] == "finished":
                    self.rematch_due = True  # over while away, told by a snapshot
                if self.owner and not started and waiting:
                    started = True
                    await ws.send(json.dumps({"type": "start"}))
                elif self.rematch_due and (self.rematch is None or self.rematch.done()):
                    # The match ended while this owner was away, or its rematch was
                    # lost with the connection: without it the table would stop for
                    # good (a run once lost 9% of its tables so in an hour).
                    self.rematch = asyncio.create_task(self.ask_rematch(0.0))
            elif kind == "events":
                for item in message["events"]:
                    self.seq = item["seq"]
                    self.event(ws, item["event"])
            elif kind == "error" and message["code"] not in ("stale", "not_your_turn"):
                soak.minute().errors += 1
                if soak.args.verbose:
                    print(f"error: {message}", file=sys.stderr)

    def event(self, ws: ClientConnection, event: dict[str, Any]) -> None:
        kind = event["type"]
        soak = self.soak
        if kind == "cards_dealt" and self.seat is not None:
            self.hand = list(event["hands"][self.seat])
        elif kind == "card_played" and event["seat"] == self.seat:
            card = event["card"]
            if card in self.hand:
                self.hand.remove(card)
            sent = self.sent.pop(card, None)
            minute = soak.minute()
            minute.moves += 1
            if sent is not None:
                minute.latencies.append(time.monotonic() - sent)
        elif kind == "clock":
            self.to_play = event["seat"]
            if event["seat"] == self.seat:
                self.my_turn(ws)
        elif kind == "match_over":
            self.to_play = None
            soak.minute().matches += self.owner
            if self.owner:
                self.rematch_due = True
                self.rematch = asyncio.create_task(self.ask_rematch(self.soak.args.rematch_after))
        elif kind == "match_started":
            self.rematch_due = False

    async def ask_rematch(self, after: float) -> None:
        """Ask for the rematch ``after`` seconds, on the connection of that moment;
        ``rematch_due`` stays set when there is none, or the send fails, for the next
        connection's welcome to ask again."""
        await asyncio.sleep(after)
        ws = self.ws
        if not self.rematch_due or ws is None:
            return
        with contextlib.suppress(Exception):
            await ws.send(json.dumps({"type": "rematch"}))
            self.rematch_due = False

    def my_turn(self, ws: ClientConnection) -> None:
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()
        self.turn = asyncio.create_task(self.play(ws, self.seq))

    async def play(self, ws: ClientConnection, seq: int | None) -> None:
        await asyncio.sleep(self.soak.args.interval * self.soak.rng.uniform(0.5, 1.5))
        if not self.hand or seq is None:
            return
        card = self.soak.rng.choice(self.hand)
        self.sent[card] = time.monotonic()
        with contextlib.suppress(Exception):
            await ws.send(json.dumps({"type": "play", "card": card, "seq": seq}))


# -- the parent: server, client processes, figures ---------------------------------


def fds(pid: int) -> int:
    """Open file descriptors of process ``pid``."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def size_mib(path: Path) -> float:
    return path.stat().st_size / 2**20 if path.exists() else 0.0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def parent(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pishti-soak-"))
    db = folder / "soak.db"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [PISHTI, "serve", "--port", str(port), "--db", str(db), "--log-level", "warning"]
    cmd += ["--bot-delay", str(args.interval), "--http-rate", "100000"]
    server = subprocess.Popen(cmd)
    clients: list[subprocess.Popen[bytes]] = []
    try:
        await wait_healthy(base, server)
        started = time.time()
        for part in range(args.client_procs):
            ccmd = [sys.executable, __file__, "--client", base, "--started", str(started)]
            ccmd += ["--part", str(part), "--parts", str(args.client_procs)]
            ccmd += ["--tables", str(args.tables), "--minutes", str(args.minutes)]
            ccmd += ["--interval", str(args.interval), "--drop", str(args.drop)]
            ccmd += ["--rematch-after", str(args.rematch_after)]
            ccmd += ["--verbose"] if args.verbose else []
            clients.append(subprocess.Popen(ccmd, stdout=subprocess.PIPE))
        lines: dict[int, list[dict[str, Any]]] = {}
        readers = [asyncio.create_task(read_lines(c, lines)) for c in clients]
        header = (
            "minute  RSS MiB  p50 ms  p99 ms  moves  matches  drops  errors  fds  conns"
            "  DB MiB  WAL MiB  srv CPU  load"
        )
        cpu = cpu_seconds(server.pid)
        print(header, flush=True)
        rows = []
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for minute in range(args.minutes):
                await asyncio.sleep(max(0.0, started + 60 * (minute + 1) - time.time()))
                rss = rss_kib(server.pid) / 1024
                health = (await http.get("/healthz")).json()
                row = {"minute": minute + 1, "rss": rss, "fds": fds(server.pid)}
                used = cpu_seconds(server.pid)
                row["cpu"], cpu = (used - cpu) / 60, used
                row["load"] = os.getloadavg()[0]
                row |= {"conns": health["connections"], "db": size_mib(db)}
                row["wal"] = size_mib(db.with_name(db.name + "-wal"))
                for _ in range(100):  # the clients' report of the minute, once all came
                    if len(lines.get(minute, [])) == len(clients):
                        break
                    await asyncio.sleep(0.1)
                parts = lines.pop(minute, [])
                lat = [x for p in parts for x in p["latencies"]]
                row |= {"p50": pct(lat, 0.5), "p99": pct(lat, 0.99)}
                for key in ("moves", "matches", "drops", "errors"):
                    row[key] = sum(p[key] for p in parts)
                rows.append(row)
                print(
                    f"{row['minute']:6d}  {rss:7.1f}  {row['p50']:6.1f}  {row['p99']:6.1f}"
                    f"  {row['moves']:5d}  {row['matches']:7d}  {row['drops']:5d}"
                    f"  {row['errors']:6d}  {row['fds']:3d}  {row['conns']:5d}"
                    f"  {row['db']:6.1f}  {row['wal']:7.1f}  {row['cpu']:7.2f}  {row['load']:4.1f}",
                    flush=True,
                )
        for reader in readers:
            reader.cancel()
        summary(rows, args.warmup)
    finally:
        for c in clients:
            with contextlib.suppress(ProcessLookupError):
                c.terminate()
        for c in clients:
            with contextlib.suppress(subprocess.TimeoutExpired):
                c.wait(10)
        server.send_signal(signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        if args.keep:
            print(f"database kept in {folder}")
        else:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)


async def read_lines(proc: subprocess.Popen[bytes], lines: dict[int, list[dict[str, Any]]]) -> None:
    assert proc.stdout is not None
    stdout = proc.stdout
    while True:
        raw = await asyncio.to_thread(stdout.readline)
        if not raw:
            return
        item = json.loads(raw)
        lines.setdefault(item["minute"], []).append(item)


def summary(rows: list[dict[str, Any]], warmup: int) -> None:
    """Print the growth of memory and p99 after the warm-up minutes."""
    steady = rows[warmup:]
    if len(steady) < 2:
        print("too few minutes after the warm-up for a trend")
        return
    first, last = steady[0], steady[-1]
    growth = 100 * (last["rss"] - first["rss"]) / first["rss"]
    p99s = [r["p99"] for r in steady]
    half = len(p99s) // 2
    early, late = statistics.median(p99s[:half] or p99s), statistics.median(p99s[half:])
    print(
        f"after {warmup} warm-up minutes: memory {first['rss']:.1f} -> {last['rss']:.1f} MiB"
        f" ({growth:+.1f}%), max {max(r['rss'] for r in steady):.1f} MiB;"
        f" p99 median {early:.1f} ms in the first half, {late:.1f} ms in the second"
        f" ({100 * (late - early) / early:+.1f}%); fds {first['fds']} -> {last['fds']};"
        f" DB {last['db']:.1f} MiB, WAL {last['wal']:.1f} MiB"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tables", type=int, default=1000, help="tables (two persons, two bots)")
    ap.add_argument("--minutes", type=int, default=30, help="minutes to run")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds a seat takes to play")
    ap.add_argument("--drop", type=float, default=0.1, help="drops per person and minute")
    ap.add_argument("--rematch-after", type=float, default=5.0, help="seconds before a rematch")
    ap.add_argument("--warmup", type=int, default=3, help="minutes left out of the trend")
    ap.add_argument("--client-procs", type=int, default=2, help="client processes")
    ap.add_argument("--keep", action="store_true", help="keep the database folder")
    ap.add_argument("--verbose", action="store_true", help="print every error to stderr")
    ap.add_argument("--client", help=argparse.SUPPRESS)  # a client process: the server's URL
    ap.add_argument("--started", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--part", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--parts", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.client:
        asyncio.run(Soak(args, args.client, args.started).run())
    else:
        asyncio.run(parent(args))


if __name__ == "__main__":
    main()
