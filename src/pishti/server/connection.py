"""One client's WebSocket: its outbox, its flood control, the order of its replies, its state.

A :class:`Connection` sends from a queue of its own (its outbox) in a task of
its own, so a slow client never holds up a table or another connection; one
whose queue grows past ``outbox_limit`` messages, or past ``outbox_bytes`` with
what its socket still holds (the transport's buffer, the kernel's send queue),
is closed at once (code 4408, :meth:`Connection._too_slow`) and may reconnect
for a fresh snapshot.

**The reply-ordering rule.**  A client gets the answers to its messages in the
order it sent them, and never hears of a state it has not been told yet: a
reply (an error, a pong) is queued only once every change submitted before it
has been committed and its events queued for the seats.  The connection does
not know the writer; it is given ``after_told(callback)``, which runs
``callback`` at that moment (:meth:`pishti.server.writer.Writer.after`).
:meth:`Connection.reply` applies the rule; :meth:`Connection.push` queues at
once (events, which the writer already sends in order).

**States** (:class:`ConnectionState`), with the only transitions allowed::

    OPEN ──hold()──> JOINING ──release()──> READY
      │                 │                     │
      └──────────────── close() ──────────────┴──> CLOSING ──(sent)──> CLOSED

and from any state to CLOSED when a send fails.

``JOINING``: the connection has its seat and its ``welcome`` is on the way;
what is pushed meanwhile is held back so that the ``welcome`` goes first.
Only a ``READY`` connection is sent the events of its table.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from pishti.server.config import ServerConfig
from pishti.server.protocol import ErrorCode
from pishti.server.ratelimit import TokenBucket
from pishti.server.views import error_message

if TYPE_CHECKING:
    from pishti.server.table import Table


class Socket(Protocol):
    """What a connection needs of a WebSocket (:class:`pishti.server.asgi.AsgiSocket`, and
    Starlette's ``WebSocket``, have it)."""

    def receive(self) -> Awaitable[Mapping[str, Any]]:
        """The next ASGI message: ``websocket.receive`` (``text`` or ``bytes``) or
        ``websocket.disconnect``."""
        ...

    async def send_text(self, data: str) -> None:
        """Send one text frame."""
        ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close the connection with ``code``."""
        ...


class ConnectionState(enum.Enum):
    """Where a connection is in its life (see the module's diagram)."""

    OPEN = "open"
    """Accepted; no seat yet (before a valid ``hello``)."""
    JOINING = "joining"
    """Seated; pushed messages are held back until the ``welcome`` is released."""
    READY = "ready"
    """Welcomed: its table's events are sent to it."""
    CLOSING = "closing"
    """A close is queued: what was queued before it is sent, nothing more is queued."""
    CLOSED = "closed"
    """The socket is closed, or a send failed."""


_S = ConnectionState
_ALLOWED: dict[ConnectionState, frozenset[ConnectionState]] = {
    _S.OPEN: frozenset({_S.JOINING, _S.CLOSING, _S.CLOSED}),
    _S.JOINING: frozenset({_S.READY, _S.CLOSING, _S.CLOSED}),
    _S.READY: frozenset({_S.CLOSING, _S.CLOSED}),
    _S.CLOSING: frozenset({_S.CLOSED}),
    _S.CLOSED: frozenset(),
}
"""The transitions :meth:`Connection._move` allows."""

TOO_SLOW = (4408, "too slow: reconnect for a snapshot")


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class Connection:
    """One WebSocket, and once it said ``hello``, the table and seat it plays.

    Attributes:
        state: a :class:`ConnectionState`.  table, seat: set once seated.
        batch: the client asked for one ``events`` message per change.
        said_closing: the client said the player closed the game (R7.4: a 10 s hold).
        media, talked: the table talk's state (:mod:`pishti.server.talk`).
        outbox: the messages waiting to be sent.
    """

    def __init__(
        self,
        socket: Socket,
        config: ServerConfig,
        now: Callable[[], float],
        after_told: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """Wrap ``socket``.

        Args:
            socket: the accepted WebSocket.  config: rate, flood and outbox limits.
            now: the time in seconds (for the rate limit).
            after_told: runs a callback once everything submitted before it is
                committed and told (the reply-ordering rule); None: at once.
        """
        self.socket = socket
        self.after_told = after_told
        self.config = config
        self.now = now
        self.state = ConnectionState.OPEN
        self.table: Table | None = None
        self.seat: int | None = None
        self.batch = False
        self.said_closing = False
        self.outbox: deque[str | _Close] = deque()
        self.queued_bytes = 0
        """Characters of the messages in :attr:`outbox`."""
        self._held: list[str] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.bucket = TokenBucket(config.rate, config.rate, now())
        self.talk_bucket = TokenBucket(config.signal_rate, config.signal_burst, now())
        """The table talk's own limit on signalling (:meth:`admit`, :mod:`pishti.server.talk`)."""
        self.media: tuple[bool, bool] | None = None
        """The person's microphone and camera as last said (``media``), or None."""
        self.talked = False
        """Whether the connection sent or was sent table talk (then ``hangup`` tells of
        its end)."""
        self._refused = 0
        self._window = now()
        self._last_rate_error = -1e9

    # -- state -----------------------------------------------------------------

    def _move(self, to: ConnectionState) -> None:
        """Change the state.

        Raises:
            RuntimeError: a transition the diagram does not have.
        """
        if to not in _ALLOWED[self.state]:
            raise RuntimeError(f"a connection cannot go from {self.state.name} to {to.name}")
        self.state = to

    @property
    def ready(self) -> bool:
        """Whether its table's events are sent to it (:attr:`ConnectionState.READY`)."""
        return self.state is ConnectionState.READY

    @property
    def closed(self) -> bool:
        """Whether it is closing or closed: nothing more is queued."""
        return self.state in (ConnectionState.CLOSING, ConnectionState.CLOSED)

    # -- sending ---------------------------------------------------------------

    def start(self) -> None:
        """Start the sending task."""
        self._task = asyncio.get_running_loop().create_task(self._send_loop())

    def push(self, text: str) -> None:
        """Queue one message (JSON text) now (held back while :attr:`state` is JOINING)."""
        if self.closed:
            return
        if self.state is ConnectionState.JOINING:
            self._held.append(text)
            if len(self._held) > self.config.outbox_limit:
                self._held.clear()
                self.close(*TOO_SLOW)
            return
        self.outbox.append(text)
        self.queued_bytes += len(text)
        if len(self.outbox) > self.config.outbox_limit or self._behind() > self.config.outbox_bytes:
            self._too_slow()
            return
        self._wake.set()

    def _behind(self) -> int:
        """Characters queued for the client: in the outbox, and (looked at only once the
        outbox holds 16, 32 ... messages) the bytes the socket still holds below it."""
        size = len(self.outbox)
        if size < 16 or size % 16:
            return self.queued_bytes
        backlog = getattr(self.socket, "backlog", None)
        return self.queued_bytes + (backlog() if backlog is not None else 0)

    def _too_slow(self) -> None:
        """Close with 4408 at once, not in line: the send task is stopped (it may be
        waiting for this very client to read), and the close frame goes behind what the
        socket already holds (``close_behind``, when the socket has it)."""
        self.outbox.clear()
        self.queued_bytes = 0
        self._move(ConnectionState.CLOSING)
        if self._task is not None:
            self._task.cancel()
        close_behind = getattr(self.socket, "close_behind", None)
        closing = close_behind if close_behind is not None else self.socket.close
        self._task = asyncio.get_running_loop().create_task(self._close_now(closing))

    async def _close_now(self, close: Callable[[int, str], Awaitable[None]]) -> None:
        with contextlib.suppress(Exception):
            await close(*TOO_SLOW)
        if self.state is not ConnectionState.CLOSED:
            self._move(ConnectionState.CLOSED)

    def reply(self, text: str) -> None:
        """Queue a reply to a client message by the reply-ordering rule (see the module):
        after every change submitted before it is committed and told.  Before the
        connection has its seat, at once."""
        if self.after_told is not None and self.table is not None:
            self.after_told(partial(self.push, text))
        else:
            self.push(text)

    def error(self, code: ErrorCode, message: str, ref: str | None) -> None:
        """Reply with an ``error`` message (:meth:`reply`)."""
        self.reply(error_message(code, message, ref))

    def hold(self) -> None:
        """OPEN -> JOINING: hold back what is pushed from now on until :meth:`release`
        (the ``welcome`` goes first, protocol.md)."""
        self._move(ConnectionState.JOINING)

    def release(self, first: list[str]) -> None:
        """JOINING -> READY: queue ``first``, then what was held back."""
        held, self._held = self._held, []
        self._move(ConnectionState.READY)
        for text in first + held:
            self.push(text)

    def close(self, code: int, reason: str) -> None:
        """Send what is queued (and held back), then close the socket with ``code``."""
        if self.closed:
            return
        self.outbox.extend(self._held)
        self._held = []
        self.outbox.append(_Close(code, reason))
        self._move(ConnectionState.CLOSING)
        self._wake.set()

    def admit(self, signal: str | None = None) -> bool:
        """Count one incoming frame against its rate limit; False if it is refused.

        ``signal``: the frame is the table talk's signalling message of that type
        (``offer``, ``answer``, ``ice``, ``media``), counted by the talk's own bucket
        (``signal_burst`` at once, ``signal_rate`` a second) instead of the general
        one (``rate``), so a burst of ICE candidates is not cut short by the general
        limit.  A refused signalling message gets a ``rate_limited`` error naming
        it; any other refused frame one too, at most one a second.  Refusals of
        both kinds count together: a connection refused more than ``flood_close``
        times within ``flood_window`` seconds is closed with code 4429.
        """
        now = self.now()
        if (self.bucket if signal is None else self.talk_bucket).take(now):
            return True
        if now - self._window > self.config.flood_window:
            self._window = now
            self._refused = 0
        self._refused += 1
        if self._refused > self.config.flood_close:
            self.push(error_message("rate_limited", "too many messages: closing", None))
            self.close(4429, "flooding")
        elif signal is not None:
            config = self.config
            self.error(
                "rate_limited",
                f"more than {config.signal_burst:g} signalling messages at once"
                f" ({config.signal_rate:g} a second): not relayed",
                signal,
            )
        elif now - self._last_rate_error >= 1.0:
            self._last_rate_error = now
            self.error(
                "rate_limited",
                f"more than {self.config.rate:g} messages a second: message refused",
                None,
            )
        return False

    async def finish(self) -> None:
        """Stop sending: wait briefly for a requested close, else cancel the task."""
        task = self._task
        if task is None:
            return
        if self.closed:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), 2.0)
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def _send_loop(self) -> None:
        socket = self.socket
        outbox = self.outbox
        try:
            while True:
                if not outbox:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                item = outbox.popleft()
                if isinstance(item, str):
                    self.queued_bytes -= len(item)
                if isinstance(item, _Close):
                    await socket.close(item.code, item.reason)
                    self._move(ConnectionState.CLOSED)
                    return
                await socket.send_text(item)
        except asyncio.CancelledError:
            raise
        except Exception:
            if self.state is not ConnectionState.CLOSED:
                self._move(ConnectionState.CLOSED)
