"""Benchmark of the table talk's signalling relay: server CPU and bytes per exchange.

Starts ``pishti serve`` (a fresh SQLite file), creates ``--tables`` tables of four
persons and connects every seat.  Then, ``--rounds`` times, seats 0 and 1 and seats
2 and 3 of every table go through one signalling exchange each
(:func:`server_clients.signalling_exchange`: both ``media``, an offer and an
answer of Chromium's size, four ICE candidates each way), and every relayed
message is awaited at the seats it goes to.  It prints the exchanges, the
server's CPU per exchange (the CPU of the same time spent idle subtracted), and
the bytes per exchange from the browsers to the server and from the server to the
browsers (the messages' text; WebSocket framing adds 2 to 8 bytes a message).
``--repeat`` runs it again on fresh servers and prints the medians.

    .venv/bin/python bench/talk.py
    .venv/bin/python bench/talk.py --tables 200 --rounds 5 --repeat 5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from server import cpu_seconds, make_tables, serving
from server_clients import signalling_exchange


async def open_seat(ws: str, table_id: str, token: str) -> ClientConnection:
    """One seat's connection, after its ``welcome``."""
    conn = await connect(f"{ws}/ws/tables/{table_id}", compression=None, ping_interval=None)
    await conn.send(json.dumps({"type": "hello", "token": token}))
    welcome = json.loads(await conn.recv())
    assert welcome["type"] == "welcome", welcome
    return conn


async def drain(conn: ClientConnection, count: int) -> int:
    """Read ``count`` relayed messages on ``conn``; returns their characters.

    Raises:
        RuntimeError: an ``error`` came (a refused message: the figures would be wrong).
    """
    chars = 0
    for _ in range(count):
        text = await asyncio.wait_for(conn.recv(), 30)
        if str(text).startswith('{"type":"error"'):
            raise RuntimeError(f"refused: {text}")
        chars += len(text)
    return chars


async def settle(conn: ClientConnection) -> None:
    """Read what the table told the seat so far (its mates' ``seat_changed``) and drop it."""
    with contextlib.suppress(TimeoutError):
        while True:
            await asyncio.wait_for(conn.recv(), 0.5)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """One run on a fresh server; returns its figures."""
    async with serving(args) as (base, pid, _folder):
        tables = await make_tables(base, args.tables)
        ws = base.replace("http://", "ws://")
        conns = [
            await asyncio.gather(*(open_seat(ws, table_id, t) for t in tokens))
            for table_id, tokens in tables
        ]
        exchange = [signalling_exchange(0, 1), signalling_exchange(2, 3)]
        # Relayed per exchange: each seat's media to its 3 table mates, the offer, the
        # answer and the two ice messages to one seat each.
        per_seat = {0: 3 + 1 + 1, 1: 3 + 1 + 1, 2: 3 + 1 + 1, 3: 3 + 1 + 1}
        await asyncio.gather(*(settle(c) for seats in conns for c in seats))
        idle0 = cpu_seconds(pid)
        await asyncio.sleep(2.0)
        idle = (cpu_seconds(pid) - idle0) / 2.0  # seconds of CPU a second, idle
        sent = received = exchanges = 0
        started, cpu0 = time.monotonic(), cpu_seconds(pid)
        for _ in range(args.rounds):
            readers = [
                asyncio.ensure_future(drain(seats[s], per_seat[s]))
                for seats in conns
                for s in range(4)
            ]
            for seats in conns:
                for pair in exchange:
                    for seat, text in pair:
                        await seats[seat].send(text)
                        sent += len(text)
                    exchanges += 1
            received += sum(await asyncio.gather(*readers))
            await asyncio.sleep(args.pause)  # the talk's own rate limit refills
        elapsed = time.monotonic() - started
        cpu = cpu_seconds(pid) - cpu0 - idle * elapsed
        for seats in conns:
            await asyncio.gather(*(c.close() for c in seats))
    return {
        "exchanges": exchanges,
        "server_us_per_exchange": round(1e6 * cpu / exchanges, 1),
        "bytes_in_per_exchange": round(sent / exchanges),
        "bytes_out_per_exchange": round(received / exchanges),
    }


async def main() -> None:
    """Parse the options, run, print the figures (and the medians of several runs)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tables", type=int, default=100, help="tables of four persons")
    ap.add_argument("--rounds", type=int, default=5, help="exchanges per pair of seats")
    ap.add_argument("--pause", type=float, default=1.0, help="seconds between rounds")
    ap.add_argument("--repeat", type=int, default=3, help="runs, each on a fresh server")
    args = ap.parse_args()
    args.synchronous, args.serve_arg = "NORMAL", []
    rows = []
    for _ in range(args.repeat):
        row = await run(args)
        print(json.dumps(row), flush=True)
        rows.append(row)
    print(
        "median: " + json.dumps({key: statistics.median(r[key] for r in rows) for key in rows[0]})
    )


if __name__ == "__main__":
    asyncio.run(main())
