"""The table WebSockets on plain ASGI, in front of the FastAPI application.

Every table WebSocket (``/ws/tables/{table_id}``) lives as long as the player
stays, and the server holds thousands of them.  Through FastAPI each one would
keep a stack of middleware and routing coroutines alive (about two hundred
Python objects a connection) that the garbage collector walks again and again,
and every message would pass through those layers.  :class:`ServerApp` hands
these sockets straight to the hub with the ASGI server's own ``receive`` and
``send``; everything else (HTTP, lifespan) goes to the FastAPI application.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from pishti.server.hub import Hub

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TABLE_SOCKET = re.compile(r"^/ws/tables/([^/]+)$")
"""The path of a table's WebSocket; the group is the table id."""


class AsgiSocket:
    """What the hub needs of a WebSocket (:class:`pishti.server.hub.Socket`), on raw ASGI."""

    __slots__ = ("_send", "receive")

    def __init__(self, receive: Receive, send: Send) -> None:
        """Wrap the ASGI server's ``receive`` and ``send`` of one accepted WebSocket."""
        self.receive = receive
        self._send = send

    async def send_text(self, data: str) -> None:
        """Send one text frame."""
        await self._send({"type": "websocket.send", "text": data})

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close the connection with ``code``."""
        await self._send({"type": "websocket.close", "code": code, "reason": reason or ""})


class ServerApp:
    """The server's ASGI application: table WebSockets go to :attr:`hub`, the rest to :attr:`api`.

    Attributes:
        api: the FastAPI application (HTTP routes, the lifespan that starts the hub).
        hub: the hub that serves the table WebSockets.
    """

    def __init__(self, api: ASGIApp, hub: Hub) -> None:
        """Serve table WebSockets with ``hub``; pass everything else to ``api``."""
        self.api = api
        self.hub = hub

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI entry point."""
        if scope["type"] == "websocket":
            found = TABLE_SOCKET.match(scope["path"])
            if found is not None:
                await self._table_socket(found.group(1), receive, send)
                return
        await self.api(scope, receive, send)

    async def _table_socket(self, table_id: str, receive: Receive, send: Send) -> None:
        first = await receive()
        if first["type"] != "websocket.connect":
            return  # the client went away before the handshake ended
        await send({"type": "websocket.accept"})
        await self.hub.serve(AsgiSocket(receive, send), table_id)
