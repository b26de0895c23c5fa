"""The table server's settings, with the embedded defaults (a SQLite file, no other service)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pishti.server.protocol import SIGNAL_FRAME_MAX

DEFAULT_DB_PATH = Path("data") / "pishti.db"
"""Where the server keeps its SQLite file by default, relative to the working directory."""

TEMPOS: dict[str, int] = {"relaxed": 60, "normal": 30, "fast": 15}
"""Seconds per card for each tempo (R7.1)."""

HOLD_SECONDS = 60.0
"""How long a lost connection holds its seat (R7.4)."""
CLOSING_HOLD_SECONDS = 10.0
"""The hold after the client said the player closed the game (R7.4)."""
TIMEOUTS_TO_AUTOPILOT = 3
"""Timeouts in a row that put a seat on autopilot (R7.3)."""
PAUSE_SECONDS = 15.0
"""The longest pause between decks, for everyone to read the count (R7.8)."""
PAUSE_RETURN_SECONDS = 10.0
"""How long the pause between decks still waits for a person whose connection
dropped during it (a page reloaded), before it stops holding the deal up (R7.8)."""


ICE_SCHEMES = ("stun:", "stuns:", "turn:", "turns:")
"""The schemes of an ICE server's URL (RFC 7064, RFC 7065)."""


@dataclass(frozen=True, slots=True)
class IceServer:
    """A STUN or TURN server the browsers of a table use to reach each other (WebRTC's
    ``RTCIceServer``): ``url`` such as ``stun:stun.example.org:3478`` or
    ``turn:turn.example.org:3478?transport=udp``; a TURN server's ``username`` and
    ``credential`` (None for STUN).

    Raises:
        ValueError: ``url`` has none of :data:`ICE_SCHEMES`, or a TURN server has no
            username or credential.
    """

    url: str
    username: str | None = None
    credential: str | None = None

    def __post_init__(self) -> None:
        if not self.url.startswith(ICE_SCHEMES) or any(c.isspace() for c in self.url):
            raise ValueError(f"{self.url!r} is not a stun:, stuns:, turn: or turns: URL")
        if self.url.startswith("turn") and not (self.username and self.credential):
            raise ValueError(f"the TURN server {self.url!r} needs a username and a credential")

    def as_json(self) -> dict[str, str]:
        """The server as the browser's ``RTCIceServer`` takes it (``urls``, and for TURN
        ``username`` and ``credential``)."""
        server = {"urls": self.url}
        if self.username is not None and self.credential is not None:
            server["username"] = self.username
            server["credential"] = self.credential
        return server


def database_url(db: str | None) -> str:
    """Turn ``--db`` into an SQLAlchemy URL.

    ``None`` gives the default SQLite file (``data/pishti.db``); a value with
    ``://`` is taken as a URL (``sqlite:///x.db``, ``postgresql://...``; an
    async driver such as ``+aiosqlite`` is replaced by the dialect's default
    one, see :func:`pishti.server.store.sync_url`); anything else is a SQLite
    file path.
    """
    if db is None:
        db = str(DEFAULT_DB_PATH)
    if "://" in db:
        return db
    return f"sqlite:///{db}"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Settings of one server process.

    Attributes:
        db_url: SQLAlchemy database URL (see :func:`database_url`).
        pause: the longest pause between decks in seconds, before ``time_scale``
            (R7.8; 15, and 0 only for load tests).
        time_scale: multiplies every table clock and hold (R7.1, R7.4); 1.0 in
            play, small in end-to-end tests so that timeouts take milliseconds.
        bot_delay: seconds a bot (or the autopilot) waits before it plays, so
            people can follow; 0 in tests.
        bot_deadline: seconds a bot may think over one move (in a thread of its
            own); then the standard bot's card is played (R7.2, see
            :mod:`pishti.server.botrunner`).
        max_frame: the largest client frame accepted, in bytes (4 KiB).
        rate: client messages allowed per second and connection (a burst of as many),
            the table talk's signalling aside (``signal_rate``).
        flood_close: refused messages within ``flood_window`` seconds that close the
            connection (code 4429).
        flood_window: seconds, see ``flood_close``.
        event_buffer: events each table keeps for reconnecting clients.
        outbox_limit: messages queued for one slow connection before it is dropped.
        outbox_bytes: characters queued for one connection, with the bytes its socket
            still holds (the transport's buffer, the kernel's send queue), before it is
            dropped.
        web_dir: a folder with the browser client (``index.html``); None for the
            built-in placeholder page.
        sqlite_synchronous: SQLite's ``synchronous`` pragma (``FULL`` or ``NORMAL``).
        idle_unload: seconds a table that is not playing (waiting or finished)
            stays in memory with nobody connected and no change; after that it
            is dropped, and read back from the database if anyone asks for it
            again (its lobby, a join, a rematch).
        http_rate: tables created and seats taken (HTTP) a second per client address.
        http_burst: how many of those an address may make at once.
        node: this node's id among several sharing one PostgreSQL (``--node``; the
            host name when None).  Unused on SQLite.
        lease_seconds: how long a table's lease lasts unless renewed, on the
            database's clock (PostgreSQL; :mod:`pishti.server.leases`).
        db_retry: seconds a commit is tried again while PostgreSQL cannot be
            reached (a restart); then its tables are dropped and reloaded.
        gc_sweep: None leaves Python's garbage collector as it is; a number of
            seconds freezes the heap every second and sweeps it that often
            (:class:`pishti.server.collector.Collector`; ``pishti serve``: 600).
        max_watchers: spectators one table takes at most (R7.7); one more is refused.
        analysis_workers: worker processes that compute the expert's analysis of
            finished matches (:mod:`pishti.server.analyses`).
        analysis_queue: analyses waiting or running at most; more are refused (503).
        analysis_samples: sampled decks per play of an analysis (docs/bots.md).
        analysis_expert_samples: the expert's sampled decks per move in an analysis.
        ice_servers: the STUN and TURN servers sent to every seat in its ``welcome``, for
            the table talk's voice and video (none: the browsers reach each other only
            on one network).
        ice_relay: the browsers connect through the TURN servers only (``relay``), so
            players never learn each other's network addresses.
        max_signal_frame: the largest frame accepted for a signalling message (``offer``,
            ``answer``, ``ice``, ``media``), in bytes: a session description does not fit
            in ``max_frame``.  By default (145,024 bytes) any ``sdp`` within its 12,000
            characters fits however it is escaped
            (:data:`pishti.server.protocol.SIGNAL_FRAME_MAX`).
        signal_rate: signalling messages allowed per second and connection (the table
            talk's own limit: they do not count against ``rate``).
        signal_burst: signalling messages a connection may send at once (a full mesh of
            three peers needs about twenty).
    """

    db_url: str = database_url(None)
    time_scale: float = 1.0
    bot_delay: float = 0.7
    pause: float = PAUSE_SECONDS
    bot_deadline: float = 5.0
    max_frame: int = 4096
    rate: float = 20.0
    flood_close: int = 100
    flood_window: float = 5.0
    event_buffer: int = 256
    outbox_limit: int = 1024
    outbox_bytes: int = 256 * 1024
    web_dir: Path | None = None
    sqlite_synchronous: Literal["NORMAL", "FULL"] = "NORMAL"
    idle_unload: float = 300.0
    http_rate: float = 0.5
    http_burst: float = 20.0
    gc_sweep: float | None = None
    node: str | None = None
    lease_seconds: float = 5.0
    db_retry: float = 60.0
    max_watchers: int = 200
    analysis_workers: int = 1
    analysis_queue: int = 8
    analysis_samples: int = 256
    analysis_expert_samples: int = 128
    ice_servers: tuple[IceServer, ...] = ()
    ice_relay: bool = False
    max_signal_frame: int = SIGNAL_FRAME_MAX
    signal_rate: float = 5.0
    signal_burst: float = 30.0
