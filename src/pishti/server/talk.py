"""The table talk: WebRTC signalling relayed between the persons seated at one table.

Voice and video go peer to peer between the browsers (docs/client.md); the server
only relays what they need to find each other (docs/protocol.md, "Table talk"):

- ``offer``, ``answer`` and ``ice`` go to the one seat they name, and only when
  that seat holds another person with a connection at the sender's own table
  (never a bot, an empty seat, a spectator or another table: ``no_peer``);
- ``media`` (a person's microphone and camera on or off) goes to every other
  person connected at the table, and to each one who connects later;
- ``hangup`` tells the table mates that a seat's connection ended (the page
  closed or reloaded, the network was lost, the person left), so their peer
  connection to it ends.

Nothing of it touches the table: it is never committed, never in the log, the
events or the records, and a refusal changes nothing.  These messages have a
rate limit of their own, counted when their frame comes in
(:meth:`pishti.server.connection.Connection.admit`: ``signal_burst`` at once,
``signal_rate`` a second), not the limit of the connection's other messages.
"""

from __future__ import annotations

from typing import Any

from pishti.server.connection import Connection
from pishti.server.protocol import Answer, Ice, Media, Offer
from pishti.server.table import Table, TableError
from pishti.server.views import dumps

Signal = Offer | Answer | Ice | Media
"""A signalling message of the table talk."""


def hangup_message(seat: int) -> str:
    """The ``hangup`` message: ``seat``'s connection ended, and its media with it."""
    return dumps({"type": "hangup", "seat": seat})


def media_message(seat: int, mic: bool, cam: bool) -> str:
    """The ``media`` message telling table mates ``seat``'s microphone and camera."""
    return dumps({"type": "media", "seat": seat, "mic": mic, "cam": cam})


class Talk:
    """Relays the table talk's signalling among the seats' connections.

    Args:
        conns: the connection of each seat, by table id and seat (the hub's, shared).
    """

    def __init__(self, conns: dict[str, dict[int, Connection]]) -> None:
        self.conns = conns
        self.relayed = 0
        """Signalling messages relayed so far (``media`` counts once per table mate)."""

    def relay(self, conn: Connection, table: Table, seat: int, message: Signal) -> None:
        """Relay ``message`` of ``seat`` (whose connection is ``conn``) at ``table``.

        Raises:
            TableError: ``no_peer`` when the seat named in ``to`` holds no other person
                with a connection at this table.  Nothing is relayed then.
        """
        mates = self.conns.get(table.table_id, {})
        if isinstance(message, Media):
            conn.talked = True
            conn.media = (message.mic, message.cam)
            text = media_message(seat, message.mic, message.cam)
            for other_seat, other in mates.items():
                if other_seat != seat and other.ready:
                    other.talked = True
                    other.push(text)
                    self.relayed += 1
            return
        to = message.to
        target = mates.get(to)
        if (
            to == seat
            or target is None
            or not target.ready
            or mates.get(seat) is not conn
            or table.seats[to].kind != "human"
        ):
            raise TableError("no_peer", f"seat {to} holds no other person connected at this table")
        payload: dict[str, Any] = {"type": message.type, "from": seat}
        if isinstance(message, Ice):
            payload["candidates"] = [
                {"candidate": c.candidate, "mid": c.mid, "mline": c.mline}
                for c in message.candidates
            ]
        else:
            payload["sdp"] = message.sdp
        conn.talked = target.talked = True
        target.push(dumps(payload))
        self.relayed += 1

    def joined(self, conn: Connection, table: Table, seat: int) -> None:
        """Tell ``seat``'s new connection (welcomed) the microphone and camera of each
        table mate who said them."""
        for other_seat, other in self.conns.get(table.table_id, {}).items():
            if other_seat != seat and other.ready and other.media is not None:
                conn.talked = True
                conn.push(media_message(other_seat, *other.media))

    def gone(self, table_id: str, seat: int, conn: Connection) -> None:
        """``seat``'s connection ``conn`` ended (or was replaced): tell its table mates
        ``hangup``, when it took part in the talk."""
        if not conn.talked:
            return
        text = hangup_message(seat)
        for other_seat, other in self.conns.get(table_id, {}).items():
            if other_seat != seat and other.ready and other.talked:
                other.push(text)
