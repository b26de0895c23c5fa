"""A connection counts what its socket still holds as queued (docs/server.md, 4408)."""

from __future__ import annotations

import asyncio
from typing import Any

from pishti.server.config import ServerConfig
from pishti.server.connection import Connection


class StuckSocket:
    """A socket whose client stopped reading: sends wait for ever, and ``backlog`` says
    how many bytes it holds."""

    def __init__(self, held: int) -> None:
        self.held = held
        self.sent: list[str] = []
        self.closed_with: tuple[int, str] | None = None
        self.closed_behind = False

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()
        return {}

    async def send_text(self, data: str) -> None:
        self.sent.append(data)
        await asyncio.Event().wait()  # the client reads nothing

    def backlog(self) -> int:
        return self.held

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed_with = (code, reason or "")

    async def close_behind(self, code: int, reason: str) -> None:
        self.closed_behind = True
        await self.close(code, reason)


async def test_what_the_socket_holds_counts_and_the_close_does_not_wait_for_the_client() -> None:
    config = ServerConfig(outbox_limit=1024, outbox_bytes=100_000)
    socket = StuckSocket(held=99_700)
    conn = Connection(socket, config, lambda: 0.0)
    conn.start()
    for n in range(40):
        conn.push(f'{{"type": "pong", "n": {n:04d}}}')  # 27 characters each
        await asyncio.sleep(0)
        if conn.closed:
            break
    # The send task is stuck on the first message.  The socket is looked at once 16
    # are queued behind it: 16 x 27 characters and its 99,700 bytes pass 100,000.
    assert n == 16
    assert conn.closed
    await asyncio.sleep(0.01)
    assert socket.closed_behind and socket.closed_with == (
        4408,
        "too slow: reconnect for a snapshot",
    )
    assert socket.sent == ['{"type": "pong", "n": 0000}']
    await conn.finish()


async def test_a_socket_holding_little_is_not_closed() -> None:
    config = ServerConfig(outbox_limit=1024, outbox_bytes=100_000)
    socket = StuckSocket(held=1_000)
    conn = Connection(socket, config, lambda: 0.0)
    conn.start()
    for n in range(200):
        conn.push(f'{{"type": "pong", "n": {n:04d}}}')
        await asyncio.sleep(0)
    assert not conn.closed and socket.closed_with is None
    await conn.finish()
