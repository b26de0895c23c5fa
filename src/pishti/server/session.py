"""One client's session on a table's WebSocket: the handshake, then its messages one by one.

The first message must be a valid ``hello`` whose token holds a seat at the
table (within :data:`HELLO_TIMEOUT` seconds); the socket is closed otherwise
(4401 unauthorized, 4404 no such table, 4403 the seat went to a bot for good).
Then every message is validated (:func:`pishti.server.protocol.parse_message`)
and dispatched on its type to the table; a refusal is answered with an
``error`` that changes nothing (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING

from pishti.server.connection import Connection
from pishti.server.leases import NotOwner
from pishti.server.protocol import (
    AddBot,
    Answer,
    BadMessage,
    Closing,
    Continue,
    Hello,
    Ice,
    Leave,
    Media,
    Offer,
    Ping,
    Play,
    React,
    Rematch,
    RemoveBot,
    Seed,
    SetWatching,
    Start,
    TakeOver,
    Watch,
    parse_message,
    signal_type,
)
from pishti.server.table import Table, TableError
from pishti.server.views import dumps, no_table

if TYPE_CHECKING:
    from pishti.server.hub import Hub

HELLO_TIMEOUT = 15.0
"""Seconds a new connection has to send ``hello``."""
PONG = dumps({"type": "pong"})


class Session:
    """The messages of one :class:`Connection` to ``/ws/tables/{table_id}``."""

    def __init__(self, hub: Hub, conn: Connection, table_id: str) -> None:
        """Serve ``conn`` for the table ``table_id`` of ``hub``."""
        self.hub = hub
        self.conn = conn
        self.table_id = table_id

    async def run(self) -> None:
        """Run the handshake, then handle messages until the socket closes."""
        conn = self.conn
        hello = await self._hello()
        if hello is None:
            return
        try:
            table = await self.hub.table(self.table_id)
        except NotOwner as exc:
            # Another node plays it (docs/deploy.md): the client reconnects shortly.
            conn.error("other_node", str(exc), "hello")
            conn.close(1013, "the table is on another node: try again")
            return
        if table is None:
            conn.error("not_found", no_table(self.table_id), hello.type)
            conn.close(4404, "no such table")
            return
        if isinstance(hello, Watch):
            await self._watch(table, hello)
            return
        seat = table.seat_of_token(hello.token)
        if seat is None:
            conn.error("unauthorized", "this token holds no seat at this table", "hello")
            conn.close(4401, "unauthorized")
            return
        if table.seats[seat].kind != "human":
            conn.error("seat_gone", f"seat {seat} went to a bot for good (R7.4, R7.5)", "hello")
            conn.close(4403, "seat gone")
            return
        conn.batch = hello.batch
        self.hub.attach(conn, table, seat, hello.last_seq)
        while not conn.closed:
            text = await self._receive(talk=True)
            if text is None:
                return
            self.handle(table, seat, text)

    async def _watch(self, table: Table, watch: Watch) -> None:
        """A spectator's session: refused when the owner turned watching off (4410) or
        the table has its most spectators (4411); then every message but ``ping`` and
        ``closing`` (ignored: no seat is held) is refused with ``spectator`` (R7.7: a
        spectator sees, never acts)."""
        conn = self.conn
        if not table.state.watching:
            conn.error("watching_off", "the table's owner has turned watching off", "watch")
            conn.close(4410, "watching is off")
            return
        limit = self.hub.config.max_watchers
        if len(self.hub.watchers.get(table.table_id, ())) >= limit:
            conn.error("watchers_full", f"this table has {limit} spectators already", "watch")
            conn.close(4411, "too many spectators")
            return
        conn.batch = watch.batch
        self.hub.watch(conn, table, watch.last_seq)
        while not conn.closed:
            text = await self._receive()
            if text is None:
                return
            try:
                message = parse_message(text)
            except BadMessage as exc:
                conn.error("bad_message", exc.message, exc.ref)
                continue
            if isinstance(message, Ping):
                conn.reply(PONG)
            elif isinstance(message, Closing):
                continue  # the page is closing: a spectator holds no seat, nothing to do
            else:
                conn.error("spectator", "a spectator cannot act at the table", message.type)

    async def _hello(self) -> Hello | Watch | None:
        """The client's valid ``hello`` (or ``watch``), or None once the connection was
        refused."""
        conn = self.conn
        try:
            text = await asyncio.wait_for(self._receive(first=True), HELLO_TIMEOUT)
        except TimeoutError:
            conn.error("unauthorized", "no hello", None)
            conn.close(4401, "no hello")
            return None
        if text is None:
            return None
        try:
            hello = parse_message(text)
        except BadMessage as exc:
            conn.error("bad_message", exc.message, exc.ref)
            conn.close(4401, "the first message must be a valid hello")
            return None
        if not isinstance(hello, Hello | Watch):
            conn.error("unauthorized", "the first message must be hello", hello.type)
            conn.close(4401, "the first message must be hello")
            return None
        return hello

    async def _receive(self, first: bool = False, talk: bool = False) -> str | None:
        """The next admitted text frame, or None once the socket is closed.  A
        ``first`` frame that is not text, or too large, closes the socket (4401).
        Frames over ``max_frame`` bytes are refused (``too_large``), but for a seat's
        (``talk``) signalling messages (``offer``, ``answer``, ``ice``, ``media``): they
        may be up to ``max_signal_frame`` bytes, and are counted by the table talk's
        own rate limit instead of the general one (:meth:`Connection.admit`)."""
        conn = self.conn
        config = self.hub.config
        most = max(config.max_frame, config.max_signal_frame) if talk else config.max_frame
        while True:
            message = await conn.socket.receive()
            if message["type"] == "websocket.disconnect":
                return None
            text = message.get("text")
            signal = (
                signal_type(text) if talk and isinstance(text, str) and len(text) <= most else None
            )
            if not conn.admit(signal):
                if conn.closed:
                    return None
                continue
            limit = most if signal is not None else config.max_frame
            if text is None:
                conn.error("bad_message", "messages are JSON text frames", None)
            elif len(text) > most or len(text.encode()) > most:
                conn.error("too_large", f"a frame over {most} bytes", None)
            elif len(text) > limit or len(text.encode()) > limit:
                conn.error("too_large", f"a frame over {limit} bytes", None)
            else:
                return str(text)
            if first:
                conn.close(4401, "the first message must be hello")
                return None

    def handle(self, table: Table, seat: int, text: str) -> None:
        """Validate one message of ``seat`` and do what it asks; a refusal is an ``error``."""
        conn = self.conn
        try:
            message = parse_message(text)
        except BadMessage as exc:
            conn.error("bad_message", exc.message, exc.ref)
            return
        try:
            match message:
                case Play(card=card, seq=seq):
                    table.play(seat, card, seq)
                case Ping():
                    conn.reply(PONG)
                case TakeOver():
                    table.take_over(seat)
                case Continue(deck=deck):
                    table.continue_(seat, deck)
                case AddBot(seat=bot_seat, level=level):
                    table.add_bot(seat, bot_seat, level)
                case RemoveBot(seat=bot_seat):
                    table.remove_bot(seat, bot_seat)
                case Start():
                    table.start(seat)
                case Rematch():
                    table.rematch(seat)
                case Seed(seed=seed):
                    table.give_seed(seat, seed)
                case SetWatching(on=on):
                    table.set_watching(seat, on)
                case React(reaction=preset):
                    self.hub.react(table, seat, preset)
                case Closing():
                    conn.said_closing = True
                case Leave():
                    table.leave(seat)
                    self.hub.writer.after(partial(conn.close, 1000, "left the table"))
                case Offer() | Answer() | Ice() | Media():
                    self.hub.talk.relay(conn, table, seat, message)
                case Hello() | Watch():
                    raise TableError("bad_state", "hello was already said")
        except TableError as exc:
            conn.error(exc.code, exc.message, message.type)
