"""``pishti serve``: run the table server (R7) on its embedded defaults."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Literal

import typer

from pishti.cli.app import app, fail
from pishti.server.config import ServerConfig

WS_MAX_SIZE = 256 * 1024
"""Frames over this many bytes are cut off by the WebSocket layer itself (code 1009);
the server refuses frames over 4 KiB with a ``too_large`` error before that (the table
talk's signalling: over ``ServerConfig.max_signal_frame``, 145,024 bytes)."""
LogLevel = Literal["debug", "info", "warning", "error", "critical"]
"""The values of ``--log-level`` (Typer checks them, in any case)."""
DEFAULTS = ServerConfig()
"""The server's own defaults: the options below start from them, never repeat them."""


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            help="Database: a SQLite file path or an SQLAlchemy URL such as "
            "postgresql://user@host/pishti (default: data/pishti.db).",
        ),
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(help="Seconds a bot waits before it plays, so people can follow.")
    ] = DEFAULTS.bot_delay,
    bot_deadline: Annotated[
        float,
        typer.Option(
            help="Seconds a bot may think over one move; then the standard bot's card is played."
        ),
    ] = DEFAULTS.bot_deadline,
    web: Annotated[
        Path | None, typer.Option(help="Folder of the browser client (with index.html).")
    ] = None,
    log_level: Annotated[
        LogLevel,
        typer.Option(
            case_sensitive=False,
            metavar="<level>",
            help="How much the server logs: debug, info, warning, error or critical.",
        ),
    ] = "info",
    time_scale: Annotated[
        float,
        typer.Option(
            hidden=True,
            help="Multiply every table clock and hold by this (for tests only).",
        ),
    ] = DEFAULTS.time_scale,
    rate: Annotated[
        float,
        typer.Option(hidden=True, help="Client messages allowed per second and connection."),
    ] = DEFAULTS.rate,
    ws_ping: Annotated[
        float | None,
        typer.Option(
            hidden=True,
            help="Seconds between a WebSocket's keepalive pings; one not answered within "
            "2 s more is lost (default 5 and 7; for tests only).",
        ),
    ] = None,
    pause: Annotated[
        float,
        typer.Option(
            hidden=True, help="The longest pause between decks in seconds (for load tests only)."
        ),
    ] = DEFAULTS.pause,
    http_rate: Annotated[
        float,
        typer.Option(
            help="Tables created and seats taken a second per client address (a burst of 20, "
            "or as many as this if more); behind a proxy listed in --forwarded-allow-ips, "
            "the address is the one the proxy forwards.",
        ),
    ] = DEFAULTS.http_rate,
    sqlite_synchronous: Annotated[
        Literal["NORMAL", "FULL"],
        typer.Option(
            case_sensitive=False,
            help="SQLite durability: NORMAL survives a killed process, FULL also a power cut "
            "(an fsync per commit).",
        ),
    ] = "NORMAL",
    header_timeout: Annotated[
        float,
        typer.Option(
            help="Seconds a client has to send a request's headers (a WebSocket's handshake "
            "too), from opening the connection or the first byte of the request; past it the "
            "connection is closed.",
        ),
    ] = 10.0,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            help="Addresses of reverse proxies to trust (comma-separated; '*' for any): "
            "X-Forwarded-For and X-Forwarded-Proto are read only from these.  Default: none, "
            "every client is known by the address it connects from.",
        ),
    ] = "",
    node: Annotated[
        str | None,
        typer.Option(
            help="This node's id among several serving one PostgreSQL (default: the host "
            "name); each must have its own (docs/deploy.md).",
        ),
    ] = None,
    lease: Annotated[
        float,
        typer.Option(
            help="Seconds a node's hold on a table (its lease) lasts unless renewed; a "
            "table of a dead node moves after that (PostgreSQL only).",
        ),
    ] = DEFAULTS.lease_seconds,
    gc_sweep: Annotated[
        float,
        typer.Option(
            help="Seconds between full garbage collections; in between the heap is frozen "
            "every second, so play never pauses for one (0: Python's own collector).",
        ),
    ] = 600.0,
    analysis_workers: Annotated[
        int,
        typer.Option(
            min=1,
            metavar="<int>",
            help="Worker processes that compute the expert's analysis of finished matches.",
        ),
    ] = DEFAULTS.analysis_workers,
    analysis_samples: Annotated[
        tuple[int, int],
        typer.Option(
            hidden=True,
            help="Sampled decks per play of an analysis, and the expert's (tests: small).",
        ),
    ] = (DEFAULTS.analysis_samples, DEFAULTS.analysis_expert_samples),
    ice_server: Annotated[
        list[str] | None,
        typer.Option(
            metavar="<url>",
            help="A STUN or TURN server for the table talk's voice and video (repeatable): "
            "stun:HOST:PORT, turn:HOST:PORT?transport=udp, turns:HOST:PORT.  Sent to every "
            "seat; without any, browsers reach each other on one network only "
            '(docs/server.md, "Voice and video").',
        ),
    ] = None,
    ice_relay: Annotated[
        bool,
        typer.Option(
            "--ice-relay",
            help="Connect the browsers through the TURN servers only, so players never "
            "learn each other's network addresses (needs a turn: --ice-server).",
        ),
    ] = False,
    ice_username: Annotated[
        str | None,
        typer.Option(help="The username of the TURN servers of --ice-server."),
    ] = None,
    ice_credential: Annotated[
        str | None,
        typer.Option(
            envvar="PISHTI_ICE_CREDENTIAL",
            help="The password of the TURN servers of --ice-server (or the environment "
            "variable PISHTI_ICE_CREDENTIAL, which other users cannot read in the process "
            "list).",
        ),
    ] = None,
) -> None:
    """Start the table server: HTTP and WebSockets on HOST:PORT, tables kept in a SQLite file."""
    import uvicorn

    from pishti.server import create_app
    from pishti.server.config import IceServer, database_url
    from pishti.server.http import (
        KEEP_ALIVE_TIMEOUT,
        MAX_HEAD_BYTES,
        WS_PING_INTERVAL,
        WS_PING_TIMEOUT,
        with_header_timeout,
    )
    from pishti.server.store import DatabaseError, check_database

    if not 0 <= port <= 65535:
        raise fail("--port must be from 0 to 65535", 2)
    if (
        bot_delay < 0
        or pause < 0
        or time_scale <= 0
        or rate <= 0
        or http_rate <= 0
        or gc_sweep < 0
        or not lease > 0
        or not header_timeout > 0
        or not bot_deadline > 0
        or (ws_ping is not None and not ws_ping > 0)
        or analysis_samples[0] < 2
        or analysis_samples[1] < 1
    ):
        raise fail(
            "--bot-delay and --gc-sweep must be 0 or more, "
            "--time-scale, --rate, --http-rate, --header-timeout, --bot-deadline, "
            "--ws-ping and --lease above 0",
            2,
        )
    ice_servers = []
    for url in ice_server or []:
        turn = url.startswith("turn")
        try:
            ice_servers.append(
                IceServer(
                    url,
                    ice_username if turn else None,
                    ice_credential if turn else None,
                )
            )
        except ValueError as exc:
            hint = " (--ice-username, --ice-credential)" if turn else ""
            raise fail(f"--ice-server: {exc}{hint}", 2) from None
    if ice_relay and not any(server.url.startswith("turn") for server in ice_servers):
        raise fail("--ice-relay needs a turn: or turns: --ice-server", 2)
    proxies = [a.strip() for a in forwarded_allow_ips.split(",") if a.strip()]
    web_dir = web
    if web_dir is None:
        packaged = Path(__file__).resolve().parent.parent / "server" / "static"
        web_dir = packaged if (packaged / "index.html").is_file() else None
    config = ServerConfig(
        db_url=database_url(db),
        time_scale=time_scale,
        bot_delay=bot_delay,
        pause=pause,
        bot_deadline=bot_deadline,
        web_dir=web_dir,
        rate=rate,
        http_rate=http_rate,
        http_burst=max(DEFAULTS.http_burst, http_rate),
        sqlite_synchronous=sqlite_synchronous,
        gc_sweep=gc_sweep or None,
        node=node,
        lease_seconds=lease,
        analysis_workers=analysis_workers,
        analysis_samples=analysis_samples[0],
        analysis_expert_samples=analysis_samples[1],
        ice_servers=tuple(ice_servers),
        ice_relay=ice_relay,
    )
    try:
        check_database(config.db_url)
    except DatabaseError as exc:
        raise fail(f"--db: {exc}", 2) from None
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    uvicorn.run(
        create_app(config),
        host=host,
        port=port,
        http=with_header_timeout(header_timeout),
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        timeout_keep_alive=KEEP_ALIVE_TIMEOUT,
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or None,
        ws_max_size=WS_MAX_SIZE,
        ws_ping_interval=WS_PING_INTERVAL if ws_ping is None else ws_ping,
        ws_ping_timeout=WS_PING_TIMEOUT if ws_ping is None else ws_ping + 2,
        ws_per_message_deflate=False,
        log_level=log_level.lower(),
        access_log=log_level.lower() == "debug",
        backlog=4096,
        timeout_graceful_shutdown=5,
    )
