"""HTTP/1.1 for the server, with limits on request heads: their size and how long they take.

uvicorn reads HTTP with its ``h11`` implementation here, which limits how much
of a request's head it buffers; its ``httptools`` one does not (a 32 MB header
line was read whole).  On top of it :class:`GuardedH11Protocol` adds what
uvicorn lacks: a connection must send a request's whole head (request line
and headers) within :data:`HEADER_TIMEOUT` seconds of opening, or of the first
byte of a later request on the same connection, or it is closed (a client that
sends nothing at all, or a header line every few seconds, no longer holds a
descriptor for ever).  Between requests uvicorn's keep-alive timeout closes a
connection left idle (:data:`KEEP_ALIVE_TIMEOUT`).  WebSocket handshakes are
HTTP requests, so the same limits hold for them.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_HEAD_BYTES = 16 * 1024
"""The largest request head (request line and every header) read, in bytes: past it
the client gets ``431 too_large`` and the connection is closed."""
HEADER_TIMEOUT = 10.0
"""Seconds a client has to send a request's whole head (the default of ``--header-timeout``)."""
KEEP_ALIVE_TIMEOUT = 5
"""Seconds an idle connection stays open after a response, waiting for the next request."""
WS_PING_INTERVAL = 5.0
WS_PING_TIMEOUT = 7.0
"""Every WebSocket is pinged (a protocol ping, which every WebSocket client answers by
itself) this many seconds after its last pong; one that has not answered within
``WS_PING_TIMEOUT`` seconds is counted as lost and closed.  So a connection that died
silently (no FIN, no RST: a phone that lost its network) is noticed 7 to 12 s after its
last frame, and its seat's hold (R7.4) starts then."""


def _answer(status: int, reason: bytes, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 response with a JSON error body that closes the connection."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (
        f"HTTP/1.1 {status} ".encode()
        + reason
        + b"\r\ncontent-type: application/json\r\nconnection: close\r\n"
        + f"content-length: {len(body)}\r\n\r\n".encode()
    )
    return head + body


HEAD_TOO_LARGE = _answer(
    431,
    b"Request Header Fields Too Large",
    "too_large",
    f"request heads (the request line and headers) are limited to {MAX_HEAD_BYTES} bytes",
)
"""The answer to a request head over :data:`MAX_HEAD_BYTES`."""
DRAIN_BYTES = 1 << 20
DRAIN_SECONDS = 2.0
"""After a ``431``, what the client still sends is read and dropped, up to this many
bytes and for this many seconds, before the connection is closed (so that a client still
sending reads the answer instead of a reset connection)."""
_END_OF_HEAD = re.compile(rb"\r?\n\r?\n")
"""The blank line that ends a request head (h11 takes bare line feeds too)."""


def head_timed_out(seconds: float) -> bytes:
    """The answer to a request head that did not arrive within ``seconds``."""
    return _answer(
        408,
        b"Request Timeout",
        "timeout",
        f"a request's headers must arrive within {seconds:g} s",
    )


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head, and ``431`` for a
    head over :data:`MAX_HEAD_BYTES`.  (h11's own limit holds only for a head that is
    still incomplete: a 40 KB head that arrives in one piece passed it; and its answer
    is a bare ``400``.)

    Run uvicorn with ``http=GuardedH11Protocol`` and
    ``h11_max_incomplete_event_size=MAX_HEAD_BYTES``; the head deadline is
    :data:`HEADER_TIMEOUT` seconds unless ``header_timeout`` is set on the class
    (:func:`with_header_timeout`).
    """

    header_timeout: float = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0  # bytes of the head being received so far
        self._tail = b""  # its last bytes, where an end of head may begin
        self._refused = -1  # bytes read and dropped after a 431; -1: not refused

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock for the first request's head."""
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the head clock."""
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Measure a head being received before h11 reads it (refusing it past
        :data:`MAX_HEAD_BYTES`), and stop its clock once it is whole."""
        if self._refused >= 0:
            self._drop(data)
            return
        if self.conn.their_state is h11.IDLE:
            self._arm()  # a later request on a kept-alive connection: its own deadline
            seen = self._tail + data
            end = _END_OF_HEAD.search(seen)
            size = self._head_bytes + (len(data) if end is None else end.end() - len(self._tail))
            if size > MAX_HEAD_BYTES:
                self._refuse(len(data))
                return
            self._head_bytes = size
            self._tail = seen[-3:]
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the head is whole (or refused): the request is the app's now
            self._head_bytes = 0
            self._tail = b""

    def _refuse(self, dropped: int) -> None:
        """Answer ``431`` and stop reading requests; read and drop what the client still
        sends (up to :data:`DRAIN_BYTES`, for :data:`DRAIN_SECONDS` at most) so that it
        reads the answer instead of a reset connection."""
        self._disarm()
        self._refused = dropped
        self.transport.write(HEAD_TOO_LARGE)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(DRAIN_SECONDS, self.transport.close)

    def _drop(self, data: bytes) -> None:
        self._refused += len(data)
        if self._refused > DRAIN_BYTES:
            self.transport.close()

    def _arm(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _timed_out(self) -> None:
        """Close a connection whose request head did not come in time (``408``)."""
        self._head_timer = None
        transport = self.transport
        if transport.is_closing() or transport.get_protocol() is not self:
            return  # closed already, or a WebSocket now
        if self.conn.their_state is not h11.IDLE:
            return  # the head came; the request is being served
        if self._head_bytes:
            transport.write(head_timed_out(self.header_timeout))
        transport.close()


def with_header_timeout(seconds: float) -> type[GuardedH11Protocol]:
    """:class:`GuardedH11Protocol` with a head deadline of ``seconds`` instead of
    :data:`HEADER_TIMEOUT` (``pishti serve --header-timeout``)."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"header_timeout": seconds})
