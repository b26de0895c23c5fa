"""A client that stops reading is closed with 4408 (docs/server.md), counting what the
server's socket still holds for it, while its table plays on."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from pishti.server.asgi import CLOSE_LINGER
from server.players import Player
from server.test_e2e import create, join, player
from serving import ServerProcess


@pytest.fixture
def fast_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server whose table plays as fast as it can (no bot delay, no pause between
    decks, R7.8) and whose keepalive waits 60 s, so only 4408 drops the slow client.

    With the usual keepalive (a ping every 5 s, lost after 7 more) a loaded machine
    (a CI run; the tests in two processes) played too slowly to fill the slow
    client's queue in those 12 s, and the keepalive dropped it first, without a
    close frame."""
    proc = ServerProcess(
        tmp_path / "pishti.db",
        *("--bot-delay", "0", "--time-scale", "0.02", "--pause", "0"),
        *("--rate", "1000", "--log-level", "warning", "--ws-ping", "60"),
    )
    proc.start()
    yield proc
    proc.stop()


async def test_a_client_that_stops_reading_is_closed_with_4408(
    fast_server: ServerProcess,
) -> None:
    # Found by a black-box client: one that stopped reading was dropped only by the
    # keepalive (1006), about 12,000 events behind, never with 4408.
    t = await create(fast_server, target=151)
    token = await join(fast_server, t["table_id"], "slow", 2)
    owner = await player(fast_server, t["table_id"], t["token"], 1)
    await owner.hello()
    # The slow client: a small receive buffer, as a phone's, so its kernel holds little.
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", fast_server.port))
    slow = await connect(
        f"{fast_server.ws}/ws/tables/{t['table_id']}", sock=raw, max_queue=1, ping_interval=None
    )
    await slow.send(f'{{"type": "hello", "token": "{token}"}}')
    assert '"welcome"' in str(await slow.recv())
    await owner.run(until=lambda p: p.seats.get(2, {}).get("connected") is True, timeout=10)
    await owner.send({"type": "start"})
    # It reads nothing more.  The table plays fast (its seat times out into autopilot)
    # and the owner starts match after match, until the server drops the slow seat.
    loop = asyncio.get_running_loop()
    began = loop.time()

    def slow_seat_dropped(p: Player) -> bool:
        return p.seats.get(2, {}).get("connected") is False

    matches = 0
    while not slow_seat_dropped(owner):
        assert loop.time() - began < 60, "the slow seat was never dropped"
        await owner.run(until=lambda p: p.over is not None or slow_seat_dropped(p), timeout=60)
        if owner.over is not None and not slow_seat_dropped(owner):
            owner.over = None
            matches += 1
            await owner.send({"type": "rematch"})
    dropped_at = loop.time()
    dropped_after = dropped_at - began
    # The table plays on without it: its seat is held (R7.4), and played meanwhile.
    assert owner.seats[2]["kind"] == "human"
    seen = len(owner.messages)

    def held_seat_played(p: Player) -> bool:
        plays = [
            m["event"]
            for m in p.messages[seen:]
            if m["type"] == "event" and m["event"]["type"] == "card_played"
        ]
        return any(e["seat"] == 2 for e in plays)

    await owner.run(until=lambda p: p.over is not None or held_seat_played(p), timeout=20)
    # Reading again within CLOSE_LINGER of the drop (the server cuts the transport then),
    # the slow client gets what was sent to it, then the close 4408.
    assert loop.time() - dropped_at < CLOSE_LINGER - 5
    frames = 0
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            try:
                await asyncio.wait_for(slow.recv(), 10)
            except TimeoutError:
                raise AssertionError(f"no close after {frames} frames") from None
            frames += 1
    assert closed.value.rcvd is not None, f"no close frame after {dropped_after:.1f} s"
    assert closed.value.rcvd.code == 4408
    assert dropped_after < 50  # long before the keepalive (60 s) would have
    await owner.transport.close()
