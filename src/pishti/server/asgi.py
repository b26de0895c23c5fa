"""The table WebSockets on plain ASGI, in front of the FastAPI application; and the
limit on HTTP request bodies.

Every table WebSocket (``/ws/tables/{table_id}``) lives as long as the player
stays, and the server holds thousands of them.  Through FastAPI each one would
keep a stack of middleware and routing coroutines alive (about two hundred
Python objects a connection) that the garbage collector walks again and again,
and every message would pass through those layers.  :class:`ServerApp` hands
these sockets straight to the hub with the ASGI server's own ``receive`` and
``send``; everything else (HTTP, lifespan) goes to the FastAPI application.

Every HTTP request body is limited to :data:`MAX_BODY` bytes, whether it
announces its length or streams it in chunks: past the limit the application
is told the client went away, and the client gets ``413 too_large``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import re
import sys
import termios
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.responses import JSONResponse

from pishti.server.hub import Hub

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TABLE_SOCKET = re.compile(r"^/ws/tables/([^/]+)$")
"""The path of a table's WebSocket; the group is the table id."""
MAX_BODY = 4096
"""The largest HTTP request body accepted, in bytes."""
RECORD_PATH = "/api/analysis"
"""The path a record file is sent to for its analysis, whose body may be larger."""
MAX_RECORD_BODY = 256 * 1024
"""The largest body at :data:`RECORD_PATH`, in bytes (a 101-point record is some 10 KB)."""


def _too_large(limit: int) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": "too_large", "message": f"request bodies are limited to {limit} bytes"}},
        status_code=413,
        headers={"connection": "close"},
    )


TOO_LARGE = _too_large(MAX_BODY)
"""The answer to a body over :data:`MAX_BODY` bytes (an ASGI application)."""
DRAIN_LIMIT = 1 << 20
"""Bytes of a refused body read and thrown away before the answer, so that a client
still sending reads the answer instead of a reset connection (as web servers'
"lingering close" does); a longer body is answered, and its connection closed,
after that many."""


CLOSE_LINGER = 30.0
"""Seconds a connection closed for being too slow (4408) is given to read up to its close
frame; then its transport is cut."""


def _transport_of(send: Send) -> Any:
    """The asyncio transport under the ASGI server's WebSocket ``send`` (uvicorn's
    ``send`` is a method of its protocol object, which holds it), or None."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    needed = ("get_write_buffer_size", "set_write_buffer_limits", "abort", "is_closing")
    return transport if all(hasattr(transport, name) for name in needed) else None


class AsgiSocket:
    """What a connection needs of a WebSocket (:class:`pishti.server.connection.Socket`),
    on raw ASGI, and what it holds below the application (:meth:`backlog`)."""

    __slots__ = ("_fd", "_send", "_transport", "receive")

    def __init__(self, receive: Receive, send: Send) -> None:
        """Wrap the ASGI server's ``receive`` and ``send`` of one accepted WebSocket."""
        self.receive = receive
        self._send = send
        self._transport = _transport_of(send)
        sock = self._transport.get_extra_info("socket") if self._transport else None
        self._fd: int = sock.fileno() if sock is not None else -1

    def backlog(self) -> int:
        """Bytes sent to this connection that the server still holds: in the transport's
        buffer, and in the kernel's send queue (not yet acknowledged by the client).
        0 when the ASGI server does not show its transport."""
        transport = self._transport
        if transport is None or transport.is_closing():
            return 0
        held: int = transport.get_write_buffer_size()
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                queued = fcntl.ioctl(self._fd, termios.TIOCOUTQ, b"\0\0\0\0")
                held += int.from_bytes(queued, sys.byteorder, signed=True)
        return held

    async def close_behind(self, code: int, reason: str) -> None:
        """Close with ``code`` although the client reads nothing: the close frame goes at
        once behind what the transport holds (its write limit is lifted, so the send
        does not wait for the client), and the transport is cut :data:`CLOSE_LINGER`
        seconds later if the client has not read up to it by then."""
        transport = self._transport
        if transport is not None:
            transport.set_write_buffer_limits(high=1 << 30)
            asyncio.get_running_loop().call_later(CLOSE_LINGER, transport.abort)
        await self.close(code, reason)

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
        if scope["type"] == "http":
            await self._http(scope, receive, send)
            return
        await self.api(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a request to :attr:`api` with its body cut off at :data:`MAX_BODY` bytes
        (:data:`MAX_RECORD_BODY` at :data:`RECORD_PATH`)."""
        limit = MAX_RECORD_BODY if scope.get("path") == RECORD_PATH else MAX_BODY
        too_large = TOO_LARGE if limit == MAX_BODY else _too_large(limit)
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await too_large(scope, receive, send)
            return
        received = 0
        cut = False
        whole = False  # the last piece of the body has been received
        answered = False

        async def limited_receive() -> Message:
            nonlocal received, cut, whole
            if cut:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                whole = not message.get("more_body", False)
                if received > limit:
                    cut = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal answered
            if cut:
                return  # what the application answers to a cut-off body is dropped
            answered = True
            await send(message)

        try:
            await self.api(scope, limited_receive, guarded_send)
        except Exception:
            if not cut:
                raise
        if cut and not answered:
            if not whole:
                await _drain(receive)
            await too_large(scope, receive, send)

    async def _table_socket(self, table_id: str, receive: Receive, send: Send) -> None:
        first = await receive()
        if first["type"] != "websocket.connect":
            return  # the client went away before the handshake ended
        await send({"type": "websocket.accept"})
        await self.hub.serve(AsgiSocket(receive, send), table_id)


async def _drain(receive: Receive) -> None:
    """Read and drop what is left of a request body, up to :data:`DRAIN_LIMIT` bytes."""
    drained = 0
    while drained <= DRAIN_LIMIT:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return
        drained += len(message.get("body", b""))
