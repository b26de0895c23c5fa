"""A TCP relay on loopback that can be cut and healed, standing for the network between
one node and PostgreSQL (the node connects to the relay instead of PostgreSQL).

While cut, nothing passes either way and new connections wait: bytes sent are held,
as a network partition holds them (TCP retransmits); once healed they pass again, in
order.  The relay runs its own event loop in a thread, so that a test's fixtures and
its event loop need not share one."""

from __future__ import annotations

import asyncio
import threading


class Relay:
    """Relays ``127.0.0.1:port`` (a free port, chosen at :meth:`start`) to ``127.0.0.1:target``."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._open = asyncio.Event()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def start(self) -> None:
        """Start relaying (open)."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)

    async def _listen(self) -> None:
        self._open.set()
        server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._open.wait()
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(
            self._pump(reader, up_writer), self._pump(up_reader, writer), return_exceptions=True
        )

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await self._open.wait()  # held while cut
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    def cut(self) -> None:
        """Stop every byte, both ways, until :meth:`heal`."""
        self._loop.call_soon_threadsafe(self._open.clear)

    def heal(self) -> None:
        """Let the held bytes and new connections through again."""
        self._loop.call_soon_threadsafe(self._open.set)

    def stop(self) -> None:
        """Stop the relay's loop (connections still open are left to the process's end)."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
