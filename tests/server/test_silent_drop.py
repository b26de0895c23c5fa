"""A connection that dies silently (no FIN, no RST) is noticed within seconds, and the
seat's hold (R7.4) starts then."""

from __future__ import annotations

import asyncio
import contextlib

import httpx
from websockets.asyncio.client import connect

from server.players import Player
from server.test_e2e import create, join, player
from serving import ServerProcess


class FreezingProxy:
    """A TCP relay in front of the server that can stop forwarding in both directions
    while keeping every socket open, as a phone that lost its network would."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.frozen = asyncio.Event()
        self.server: asyncio.Server | None = None
        self.port = 0
        self.held: list[asyncio.StreamWriter] = []

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.held += [writer, up_writer]

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            while not self.frozen.is_set():
                read = asyncio.ensure_future(src.read(65536))
                frozen = asyncio.ensure_future(self.frozen.wait())
                await asyncio.wait({read, frozen}, return_when=asyncio.FIRST_COMPLETED)
                if self.frozen.is_set():
                    read.cancel()
                    return  # stop reading and writing; the sockets stay open
                frozen.cancel()
                data = read.result()
                if not data:
                    return
                dst.write(data)
                await dst.drain()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    async def stop(self) -> None:
        for writer in self.held:
            writer.transport.abort()
        if self.server is not None:
            self.server.close()


async def test_a_silently_dead_connection_is_noticed_within_12_s(server: ServerProcess) -> None:
    # Found by a black-box client: a dead connection was noticed only after about 40 s
    # by the WebSocket keepalive, so the 60 s hold began 40 s late.
    loop = asyncio.get_running_loop()
    t = await create(server, players=2, target=51, tempo="relaxed")
    other = await join(server, t["table_id"], "p1", 1)
    watcher = await player(server, t["table_id"], t["token"], 1, autoplay=False)
    await watcher.hello()
    proxy = FreezingProxy(server.port)
    await proxy.start()
    try:
        phone = Player(
            await connect(
                f"ws://127.0.0.1:{proxy.port}/ws/tables/{t['table_id']}", ping_interval=None
            ),
            other,
            autoplay=False,
        )
        await phone.hello()

        def seat_1_connected(p: Player) -> bool:
            return bool(p.seats.get(1, {}).get("connected"))

        await watcher.run(until=seat_1_connected, timeout=10)
        await watcher.send({"type": "start"})
        await watcher.run(until=lambda p: p.to_play is not None, timeout=10)
        await asyncio.sleep(0.5)  # let the frames of the start reach the phone
        proxy.frozen.set()
        frozen_at = loop.time()
        await watcher.run(until=lambda p: not seat_1_connected(p), timeout=20)
        noticed = loop.time() - frozen_at
        assert 6.5 <= noticed <= 13.0, noticed  # 7 to 12 s after the last frame
        # The hold has begun: the seat is still the person's, marked disconnected.
        async with httpx.AsyncClient(base_url=server.http) as http:
            lobby = (await http.get(f"/api/tables/{t['table_id']}")).json()
        assert lobby["seats"][1]["kind"] == "human"
        assert lobby["seats"][1]["connected"] is False
        assert lobby["seats"][1]["left"] is False
    finally:
        await proxy.stop()
        with contextlib.suppress(Exception):
            await watcher.transport.close()
