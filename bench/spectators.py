"""Benchmark: do spectators slow the seats down?  Move-to-event latency of one table's
four seats with no spectators and with ``--spectators`` (100) watching it.

Starts ``pishti serve`` on 127.0.0.1 (a fresh SQLite file in a temporary folder),
creates one four-person table over HTTP and opens one WebSocket per seat (the
``websockets`` client).  Each seat plays the first card of its hand
``--think`` seconds after its clock starts, and presses Continue at each pause
between decks.  A move's latency runs from the play sent to its ``card_played``
event received by all four seats.  Rounds alternate: ``--moves`` moves with no
spectator, then the same with the spectators connected (each reads every
message), ``--rounds`` times each, on the same server and table; it prints
p50/p99 per round and the medians of each side, and their ratio.  The
spectators run in a process of their own (this script with ``--watch``), so
that reading their messages does not slow the seats' client down.

    .venv/bin/python bench/spectators.py                   # 100 spectators, 3 rounds each
    .venv/bin/python bench/spectators.py --spectators 200 --moves 300
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

PISHTI = str(Path(sys.executable).with_name("pishti"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Seat:
    """One seat's connection: keeps its hand, plays on its clock, times the moves."""

    def __init__(self, ws: Any, seat: int, bench: Bench) -> None:
        self.ws = ws
        self.seat = seat
        self.bench = bench
        self.hand: list[str] = []
        self.seq = 0

    async def run(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            kind = message["type"]
            if kind == "welcome" and message["view"] is not None:
                self.hand = list(message["view"]["hand"])
                self.seq = message["seq"]
            if kind != "event":
                continue
            self.seq = message["seq"]
            event = message["event"]
            etype = event["type"]
            if etype == "cards_dealt":
                self.hand = list(event["hands"][self.seat])
            elif etype == "card_played":
                self.bench.received(event["seat"], event["card"], self.seat)
                if event["seat"] == self.seat and event["card"] in self.hand:
                    self.hand.remove(event["card"])
            elif etype == "pause":
                await self.ws.send(json.dumps({"type": "continue", "deck": event["deck"]}))
            elif etype == "clock" and event["seat"] == self.seat and self.hand:
                asyncio.get_running_loop().call_later(self.bench.think, self._play, self.seq)
            elif etype == "match_over" and self.seat == 0:
                await self.ws.send(json.dumps({"type": "rematch"}))

    def _play(self, seq: int) -> None:
        if not self.hand:
            return
        card = self.hand[0]
        self.bench.sent(self.seat, card)
        task = asyncio.ensure_future(
            self.ws.send(json.dumps({"type": "play", "card": card, "seq": seq}))
        )
        self.bench.sending.add(task)
        task.add_done_callback(self.bench.sending.discard)


class Bench:
    """The moves in flight and the latencies measured."""

    def __init__(self, think: float) -> None:
        self.think = think
        self.pending: dict[tuple[int, str], tuple[float, set[int]]] = {}
        self.latencies: list[float] = []
        self.moves = 0
        self.sending: set[asyncio.Future[None]] = set()

    def sent(self, seat: int, card: str) -> None:
        self.pending[(seat, card)] = (time.perf_counter(), set())

    def received(self, seat: int, card: str, by: int) -> None:
        item = self.pending.get((seat, card))
        if item is None:
            return
        item[1].add(by)
        if len(item[1]) == 4:
            del self.pending[(seat, card)]
            self.latencies.append(time.perf_counter() - item[0])
            self.moves += 1


async def _watch(url: str, count: int) -> None:
    """The spectators' process: ``count`` connections that watch and read every message
    until stdin closes."""
    sockets = [await websockets.connect(url, max_queue=None) for _ in range(count)]
    for ws in sockets:
        await ws.send(json.dumps({"type": "watch"}))

    async def read(ws: Any) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for _ in ws:
                pass

    readers = [asyncio.ensure_future(read(ws)) for ws in sockets]
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for ws in sockets:
        await ws.close()
    await asyncio.gather(*readers, return_exceptions=True)


async def _round(bench: Bench, moves: int) -> dict[str, float]:
    bench.latencies = []
    start = bench.moves
    deadline = time.monotonic() + 600
    while bench.moves - start < moves and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    lat = sorted(bench.latencies)
    return {
        "moves": len(lat),
        "p50_ms": 1000 * lat[len(lat) // 2],
        "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
    }


async def main(args: argparse.Namespace) -> None:
    port = _free_port()
    folder = tempfile.mkdtemp(prefix="pishti-watch-")
    db = Path(folder) / "bench.db"
    server = subprocess.Popen(
        [PISHTI, "serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base) as http:
            for _ in range(300):
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/healthz")).status_code == 200:
                        break
                await asyncio.sleep(0.1)
            made = (
                await http.post("/api/tables", json={"name": "p0", "target": 151, "tempo": "fast"})
            ).json()
            table_id, tokens = made["table_id"], [made["token"]]
            for seat in (1, 2, 3):
                joined = await http.post(
                    f"/api/tables/{table_id}/join", json={"name": f"p{seat}", "seat": seat}
                )
                tokens.append(joined.json()["token"])
        url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}"
        bench = Bench(args.think)
        sockets = [await websockets.connect(url, max_queue=None) for _ in tokens]
        seats = []
        for seat, (ws, token) in enumerate(zip(sockets, tokens, strict=True)):
            await ws.send(json.dumps({"type": "hello", "token": token}))
            seats.append(Seat(ws, seat, bench))
        tasks = [asyncio.ensure_future(s.run()) for s in seats]
        await sockets[0].send(json.dumps({"type": "start"}))
        await _round(bench, 20)  # warm up
        results: dict[str, list[dict[str, float]]] = {"without": [], "with": []}
        for n in range(args.rounds):
            for side in ("without", "with"):
                watchers = None
                if side == "with":
                    watchers = await asyncio.create_subprocess_exec(
                        sys.executable,
                        __file__,
                        "--watch",
                        url,
                        "--spectators",
                        str(args.spectators),
                        stdin=asyncio.subprocess.PIPE,
                        stdout=asyncio.subprocess.PIPE,
                    )
                    assert watchers.stdout is not None
                    await watchers.stdout.readline()  # "ready"
                    await asyncio.sleep(0.5)
                figures = await _round(bench, args.moves)
                results[side].append(figures)
                if watchers is not None:
                    assert watchers.stdin is not None
                    watchers.stdin.close()
                    await watchers.wait()
                print(
                    f"round {n + 1} {side:>7} {args.spectators if side == 'with' else 0:>4} "
                    f"spectators: {figures['moves']:>4} moves  p50 {figures['p50_ms']:7.2f} ms"
                    f"  p99 {figures['p99_ms']:7.2f} ms",
                    flush=True,
                )
        med = {
            side: {key: statistics.median(r[key] for r in rounds) for key in ("p50_ms", "p99_ms")}
            for side, rounds in results.items()
        }
        for side in ("without", "with"):
            p50, p99 = med[side]["p50_ms"], med[side]["p99_ms"]
            print(f"median {side:>7}: p50 {p50:.2f} ms  p99 {p99:.2f} ms")
        print(f"p99 ratio with/without: {med['with']['p99_ms'] / med['without']['p99_ms']:.2f}")
        for t in tasks:
            t.cancel()
        for ws in sockets:
            await ws.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=100)
    parser.add_argument("--moves", type=int, default=200, help="moves measured per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each side")
    parser.add_argument("--think", type=float, default=0.02, help="seconds before each play")
    parser.add_argument("--watch", metavar="URL", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.watch:
        asyncio.run(_watch(options.watch, options.spectators))
    else:
        asyncio.run(main(options))
