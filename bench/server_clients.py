"""One client process of ``bench/server.py``: plays the four seats of its tables.

The parent writes one JSON job line on stdin::

    {"ws": "ws://127.0.0.1:PORT", "tables": [[table_id, [token x4]], ...],
     "interval": seconds, "jitter": fraction, "batch": bool, "seed": int, "out": path}

The process opens one WebSocket per seat (the ``websockets`` asyncio client),
says ``hello`` and prints ``{"ready": ...}``.  The parent then writes
``{"record": t0, "stop": t1}`` (``time.monotonic()`` seconds, the same clock in
every process): the process starts its tables at once, records moves whose
``card_played`` reached all four seats between ``t0`` and ``t1``, stops at
``t1``, writes its figures as JSON to the file ``out`` and prints ``{"done": true}``.

Clients stay lean: a frame is searched as bytes for its last ``"seq":``, for
``card_played`` and for the seat's own ``clock``; only ``cards_dealt`` frames
(one per deal) are decoded as JSON, for the hand.  A seat removes a card from
its hand when it plays it.  When a match is over, seat 0 (the owner) asks for a
rematch, so tables keep moving however long the run.

Paced tables (``interval`` above 0) move on a schedule of their own: the first
move at a random moment of the first interval, each next one ``interval``
seconds after the last *scheduled* one (times ``1 ± jitter``, at random).  A
seat whose turn comes after its table's moment has passed plays at the next
moment on the schedule, not at once.  So the tables' moves stay spread over
each second as a thousand independent players' would.  (Timing each move from
the last one *sent* let the tables bunch up: after any delay, every table whose
moment had passed played at the same instant, and kept doing so each second
after, in waves of three times the mean rate.)
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus


class Figures:
    """What one client process measured in the recording window."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors = 0
        self.timeouts = 0
        self.dropped = 0
        """Seats whose connection the server (or a proxy between) closed during the run."""
        self.frames = 0
        self.bytes = 0
        self.record_at = 0.0
        self.stop_at = float("inf")


class Table:
    """The shared state of the four seats of one table.

    Moves are told apart by their place in the table's sequence of
    ``card_played`` events: ``played[seat]`` counts those the seat has seen, and
    ``pending[n]`` is ``[sent at, seats that saw it]`` for the move that will be
    the ``n``-th.  (At full speed the next move is sent before every seat has
    seen the last one, so one shared counter would mix them up.)
    """

    __slots__ = (
        "conns",
        "hands",
        "interval",
        "jitter",
        "next_move",
        "pending",
        "played",
        "table_id",
    )

    def __init__(self, table_id: str, interval: float, jitter: float = 0.0) -> None:
        self.table_id = table_id
        self.interval = interval
        self.jitter = jitter
        self.conns: list[ClientConnection] = []
        self.hands: list[list[str]] = [[], [], [], []]
        self.played = [0, 0, 0, 0]
        self.pending: dict[int, list[float]] = {}
        self.next_move = 0.0
        """The moment (``time.monotonic()`` seconds) of the table's next scheduled move."""

    def schedule(self, now: float, rng: random.Random) -> float:
        """Seconds to wait before the move of a seat whose turn came at ``now``: until
        the table's next scheduled moment, or the first one after ``now`` if that has
        passed (see the module's docstring); 0 at full speed."""
        if self.interval <= 0:
            return 0.0
        moment = self.next_move
        if moment < now:
            moment += math.ceil((now - moment) / self.interval) * self.interval
        gap = self.interval * (1.0 + self.jitter * (2.0 * rng.random() - 1.0))
        self.next_move = moment + gap
        return moment - now


def dealt_hand(frame: bytes, seat: int) -> list[str] | None:
    """The seat's hand from the last ``cards_dealt`` of a frame (an ``event`` or ``events``)."""
    message = json.loads(frame)
    items = [message] if message["type"] == "event" else message["events"]
    hand = None
    for item in items:
        event = item["event"]
        if event["type"] == "cards_dealt":
            hand = list(event["hands"][seat])
    return hand


async def seat_loop(
    table: Table, seat: int, figures: Figures, rng: random.Random, clock: Any
) -> None:
    """Read one seat's frames until cancelled; play when the seat's clock starts."""
    ws = table.conns[seat]
    hand = table.hands[seat]
    my_clock = b'"type":"clock","seat":%d,' % seat
    seq = 0
    while True:
        try:
            frame = await ws.recv(decode=False)
        except ConnectionClosed:
            figures.dropped += 1  # the seat is not reconnected: its table stops
            return
        figures.frames += 1
        figures.bytes += len(frame)
        if frame.startswith(b'{"type":"error"'):
            figures.errors += 1
            continue
        at = frame.rfind(b'"seq":')
        if at < 0:
            continue
        seq = int(frame[at + 6 : frame.index(b",", at)])
        if b'"cards_dealt"' in frame:
            dealt = dealt_hand(frame, seat)
            if dealt is not None:
                hand[:] = dealt
        for _ in range(frame.count(b'"card_played"')):
            n = table.played[seat]
            table.played[seat] = n + 1
            move = table.pending.get(n)
            if move is not None:
                move[1] += 1
                if move[1] == 4:
                    del table.pending[n]
                    now = clock()
                    if figures.record_at <= now < figures.stop_at:
                        figures.latencies.append(now - move[0])
        if seat == 0 and b'"type":"timeout"' in frame:
            figures.timeouts += 1
        if seat == 0 and b'"match_over"' in frame:
            await ws.send('{"type":"rematch"}')
        pause = frame.find(b'"type":"pause","deck":')
        if pause >= 0:
            # Every seat has read the count at once: the next deal comes (R7.8).
            start = pause + len(b'"type":"pause","deck":')
            deck = int(frame[start : frame.index(b",", start)])
            await ws.send(b'{"type":"continue","deck":%d}' % deck, text=True)
        if my_clock in frame and hand:
            wait = table.schedule(clock(), rng)
            if wait > 0:
                await asyncio.sleep(wait)
            card = hand.pop(rng.randrange(len(hand)))
            now = clock()
            table.pending[table.played[seat]] = [now, 0]
            await ws.send(b'{"type":"play","card":"%s","seq":%d}' % (card.encode(), seq), text=True)


async def open_seat(ws_base: str, table: Table, token: str, batch: bool) -> ClientConnection:
    """Connect one seat and say ``hello``; returns the connection after its ``welcome``.

    Through a cluster (``bench/cluster.py``) a table may be moving between nodes
    while the seats connect (HAProxy answering 502/503, a node ``other_node``): that
    is retried a second later, for a minute at most, as the browser client does."""
    hello: dict[str, Any] = {"type": "hello", "token": token}
    if batch:
        hello["batch"] = True
    for _ in range(60):
        try:
            ws = await connect(
                f"{ws_base}/ws/tables/{table.table_id}",
                max_size=2**20,
                compression=None,
                ping_interval=None,
                close_timeout=2,
            )
        except InvalidStatus as exc:
            if exc.response.status_code not in (502, 503):
                raise
            await asyncio.sleep(1.0)
            continue
        await ws.send(json.dumps(hello))
        welcome = json.loads(await ws.recv())
        if welcome["type"] == "welcome":
            return ws
        if welcome.get("code") != "other_node":
            raise RuntimeError(f"expected a welcome, got {welcome}")
        await ws.close()
        await asyncio.sleep(1.0)
    raise RuntimeError(f"table {table.table_id}: no node took the seat in a minute")


async def run(job: dict[str, Any]) -> dict[str, Any]:
    """Connect, wait for the parent's go, play, and return the figures."""
    loop = asyncio.get_running_loop()
    tables = [Table(t, job["interval"], job.get("jitter", 0.0)) for t, _ in job["tables"]]
    tokens = [t for _, t in job["tables"]]
    started = time.monotonic()
    for first in range(0, len(tables), 25):
        chunk = range(first, min(len(tables), first + 25))
        opened = await asyncio.gather(
            *(
                open_seat(job["ws"], tables[n], tokens[n][seat], job["batch"])
                for n in chunk
                for seat in range(4)
            )
        )
        for k, n in enumerate(chunk):
            tables[n].conns = list(opened[4 * k : 4 * k + 4])
    # The connections live to the end: keep the collector from walking them again and
    # again (its pauses would count as server latency).
    gc.collect()
    gc.freeze()
    print(json.dumps({"ready": True, "connect_seconds": time.monotonic() - started}), flush=True)
    go = json.loads(await loop.run_in_executor(None, sys.stdin.readline))
    figures = Figures()
    figures.record_at, figures.stop_at = go["record"], go["stop"]
    rng = random.Random(job["seed"])
    clock = time.monotonic
    now = clock()
    for table in tables:
        table.next_move = now + rng.random() * table.interval
    tasks = [
        loop.create_task(seat_loop(table, seat, figures, random.Random(rng.random()), clock))
        for table in tables
        for seat in range(4)
    ]
    for table in tables:
        await table.conns[0].send('{"type":"start"}')
    usage: dict[str, float] = {}

    def mark(name: str) -> None:
        r = resource.getrusage(resource.RUSAGE_SELF)
        usage[name] = r.ru_utime + r.ru_stime
        usage[name + "_frames"] = figures.frames

    loop.call_at(loop.time() + max(0.0, figures.record_at - clock()), mark, "start")
    await asyncio.sleep(max(0.0, figures.stop_at - clock()))
    mark("stop")
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.wait_for(
        asyncio.gather(*(ws.close() for t in tables for ws in t.conns), return_exceptions=True),
        10,
    )
    return {
        "latencies": figures.latencies,
        "errors": figures.errors,
        "timeouts": figures.timeouts,
        "dropped": figures.dropped,
        "frames": usage["stop_frames"] - usage.get("start_frames", 0),
        "cpu_seconds": usage["stop"] - usage.get("start", usage["stop"]),
    }


def main() -> None:
    """Read the job from stdin, run it, write the figures to the job's ``out`` file."""
    job = json.loads(sys.stdin.readline())
    try:
        import uvloop

        result = uvloop.run(run(job))
    except ImportError:
        result = asyncio.run(run(job))
    Path(job["out"]).write_text(json.dumps(result))
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    main()
