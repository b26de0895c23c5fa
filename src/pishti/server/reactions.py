"""Quick reactions: a seated person sends one of a few presets, everyone at the table sees it.

A reaction is table talk, not a move: it is relayed at once to every seat's
connection and to the spectators (whoever may watch the table sees what the
seats say aloud), and it is **not** a change of the table: not committed, not
numbered, not in the table log, gone after a restart.  Presets only (ids, the
client has their texts in both languages), so nothing a person sends needs
moderating.  Each person may send one every :data:`REACTION_SECONDS`; a faster
one is refused with ``rate_limited`` and relayed to nobody.  See
``docs/protocol.md``, "Quick reactions".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import get_args

from pishti.server.connection import Connection
from pishti.server.protocol import ReactionPreset
from pishti.server.table import Table, TableError
from pishti.server.views import dumps

PRESETS: tuple[str, ...] = get_args(ReactionPreset)
"""Every preset id, in the palette's order."""

REACTION_SECONDS = 2.0
"""A person may send one reaction every this many seconds (real time, never scaled)."""
_PRUNE_AT = 4096
"""Past this many remembered senders, those whose interval is over are forgotten."""


def reaction_message(seat: int, name: str | None, preset: str) -> str:
    """The ``reaction`` message relayed to the table: who (``seat`` and its ``name``,
    null for a seat without one) sent which ``preset``.  Not numbered (no ``seq``)."""
    return dumps({"type": "reaction", "seat": seat, "name": name, "reaction": preset})


class Reactions:
    """The reactions of one server process: the rate limit per person and the relay.

    Args:
        now: the clock, in seconds (monotonic).
        interval: seconds between two reactions of one person.
    """

    def __init__(self, now: Callable[[], float], interval: float = REACTION_SECONDS) -> None:
        self.now = now
        self.interval = interval
        self._last: dict[tuple[str, int], float] = {}
        """When each person (table id, seat) last sent a reaction that was relayed."""

    def wait(self, table_id: str, seat: int) -> float:
        """Seconds before the person at ``seat`` of ``table_id`` may react again (0: now)."""
        last = self._last.get((table_id, seat))
        if last is None:
            return 0.0
        return max(0.0, last + self.interval - self.now())

    def send(self, table: Table, seat: int, preset: str, targets: Iterable[Connection]) -> None:
        """Relay ``preset`` from the person at ``seat`` to ``targets`` (the table's seats'
        and spectators' connections; those not ready yet are skipped).

        Raises:
            TableError: ``bad_state`` when no match is being played or the seat is not a
                person's; ``rate_limited`` when the person reacted less than
                :attr:`interval` seconds ago (the message says how long to wait).
                Nothing is relayed then.
        """
        if table.status != "playing":
            raise TableError("bad_state", "reactions are sent while a match is played")
        info = table.seats[seat]
        if info.kind != "human" or info.left:
            raise TableError("bad_state", f"seat {seat} is not a person's")
        wait = self.wait(table.table_id, seat)
        if wait > 0:
            raise TableError(
                "rate_limited",
                f"one reaction every {self.interval:g} s: try again in {wait:.1f} s",
            )
        if len(self._last) >= _PRUNE_AT:
            self._prune()
        self._last[(table.table_id, seat)] = self.now()
        text = reaction_message(seat, info.name, preset)
        for conn in targets:
            if conn.ready:
                conn.push(text)

    def _prune(self) -> None:
        """Forget the people whose interval is over (they lose nothing)."""
        now = self.now()
        for key in [k for k, at in self._last.items() if now - at >= self.interval]:
            del self._last[key]
