"""The table server (R7): real-time Pishti tables over HTTP and WebSockets.

Modules, one job each:

- :mod:`~pishti.server.config`: the server's settings (:class:`ServerConfig`).
- :mod:`~pishti.server.clock`: schedulers: the real asyncio one and a virtual one for tests.
- :mod:`~pishti.server.protocol`: the strict pydantic models of every client message.
- :mod:`~pishti.server.changes`: the table log's format: every kind of change, typed and versioned.
- :mod:`~pishti.server.reducer`: a table's state, and the reducer that applies a change to it.
- :mod:`~pishti.server.turns`: turns and clocks: deadlines, timeouts, autopilot, holds, bot moves.
- :mod:`~pishti.server.table`: a table's actions (checked once) and its log; no I/O.
- :mod:`~pishti.server.views`: the lobby, snapshot and event messages, built per seat (R7.7).
- :mod:`~pishti.server.store`: the database (SQLAlchemy 2, in a database thread of its own).
- :mod:`~pishti.server.checkpointer`: SQLite checkpoints in a thread of their own.
- :mod:`~pishti.server.writer`: group commit: changes are committed, then told.
- :mod:`~pishti.server.registry`: the tables in memory: create, join, load, unload idle ones.
- :mod:`~pishti.server.connection`: one WebSocket: outbox, flood control, reply order, state.
- :mod:`~pishti.server.session`: one client's handshake and messages, dispatched to its table.
- :mod:`~pishti.server.hub`: puts registry, writer and connections together; fan-out of events.
- :mod:`~pishti.server.ratelimit`: token buckets; one per client address for creating and joining.
- :mod:`~pishti.server.app`: the application: HTTP routes (FastAPI) and the table WebSockets.
- :mod:`~pishti.server.asgi`: the table WebSockets on plain ASGI, in front of FastAPI.
- :mod:`~pishti.server.collector`: the garbage collector of a server process: no pauses in play.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pishti.server.config import ServerConfig

if TYPE_CHECKING:
    from pishti.server.app import create_app

__all__ = ["ServerConfig", "create_app"]


def __getattr__(name: str) -> Any:
    """``create_app`` is imported when first asked for, so that reading the settings
    (the command line does) does not load the web framework."""
    if name == "create_app":
        from pishti.server.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
