"""The application: JSON over HTTP for tables and seats, a WebSocket per seat for play.

``create_app(config)`` builds it; ``pishti serve`` runs it on uvicorn.  HTTP is
a FastAPI application; the table WebSockets go straight to the hub
(:mod:`pishti.server.asgi`).  Every route is described in ``docs/protocol.md``.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from pishti.records import RecordError, dumps_record, loads_record, replay
from pishti.server.analyses import Analyses, AnalysisBusy, record_key
from pishti.server.asgi import ServerApp
from pishti.server.collector import Collector
from pishti.server.config import ServerConfig
from pishti.server.hub import Hub
from pishti.server.leases import NotOwner
from pishti.server.people import identity_hash
from pishti.server.protocol import IDENTITY_PATTERN, CreateTable, JoinTable, explain
from pishti.server.ratelimit import AddressLimiter
from pishti.server.table import Table, TableError, TableSettings
from pishti.server.views import lobby_json, no_table

_HTTP_STATUS = {"table_full": 409, "seat_taken": 409, "bad_state": 409, "bad_message": 400}

_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pishti</title></head>
<body><h1>Pishti</h1><p>The table server is running. {what}</p>
<p>The browser client is not installed with this server; the protocol is in
<code>docs/protocol.md</code>.</p></body></html>
"""


class ApiError(Exception):
    """An HTTP error answered as ``{"error": {"code", "message"}}`` with ``status``."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def _error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def _json_media_type(request: Request) -> None:
    """Refuse a request body sent as anything but JSON (``415 unsupported_media_type``).

    ``application/json`` and any ``+json`` type are JSON (with any parameters, such
    as ``charset=utf-8``).

    Raises:
        ApiError: the ``Content-Type`` is missing or names another media type.
    """
    media = request.headers.get("content-type", "(none)").partition(";")[0].strip().lower()
    if media != "application/json" and not media.endswith("+json"):
        raise ApiError(
            415,
            "unsupported_media_type",
            "the body must be JSON sent as Content-Type: application/json, "
            f"not {media or '(none)'}",
        )


def _one_value_each(request: Request) -> None:
    """Refuse an API request that gives one query parameter more than once
    (``?match=1&match=2``): which one was meant cannot be known, so neither is
    taken (``400 bad_request``, naming the parameter).

    Raises:
        ApiError: a query parameter of an ``/api/`` path is repeated.
    """
    if not request.url.path.startswith("/api/"):
        return
    keys = [key for key, _ in request.query_params.multi_items()]
    for key in dict.fromkeys(keys):
        times = keys.count(key)
        if times > 1:
            raise ApiError(400, "bad_request", f"{key}: given {times} times, once at most")


def create_app(config: ServerConfig | None = None, *, hub: Hub | None = None) -> ServerApp:
    """Build the server application (ASGI): HTTP routes and the table WebSockets.

    Args:
        config: the settings (defaults: ``ServerConfig()``).
        hub: the hub to use (tests inject one with a virtual clock); built from
            ``config`` when None.  It is started and stopped with the app.
    """
    config = config or ServerConfig()
    the_hub = hub or Hub(config)
    analyses = Analyses(
        the_hub.store,
        workers=config.analysis_workers,
        queue=config.analysis_queue,
        samples=config.analysis_samples,
        expert_samples=config.analysis_expert_samples,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await the_hub.start()
        collector = None
        if config.gc_sweep is not None:
            collector = Collector(sweep_every=config.gc_sweep)
            collector.start()
        try:
            yield
        finally:
            if collector is not None:
                collector.stop()
            await analyses.close()
            await the_hub.stop()

    app = FastAPI(
        title="Pishti table server",
        summary="Real-time Pishti tables (RULES.md R7); see docs/protocol.md.",
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        dependencies=[Depends(_one_value_each)],
    )
    app.state.hub = the_hub

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(NotOwner)
    async def _not_owner(_request: Request, exc: NotOwner) -> JSONResponse:
        # Another node plays the table (docs/deploy.md): a retry soon reaches its owner.
        return _error(503, "other_node", str(exc), {"Retry-After": "1"})

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        # The loc without its "body", "query" or "path".
        where = ".".join(str(p) for p in tuple(first.get("loc", ()))[1:])
        return _error(400, "bad_request", explain(first, where, "the body"))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}
        code = codes.get(exc.status_code, "http_error")
        detail = str(exc.detail)
        if detail == "There was an error parsing the body":  # not UTF-8, or nested too deep
            detail = "the body is not valid JSON"
        return _error(exc.status_code, code, detail)

    limiter = AddressLimiter(config.http_rate, config.http_burst, time.monotonic)

    def _limit(request: Request) -> None:
        """Count a table creation or a join against the client's address."""
        address = request.client.host if request.client is not None else "-"
        wait = limiter.check(address)
        if wait > 0:
            raise ApiError(
                429,
                "rate_limited",
                "too many tables created or seats taken from this address: "
                f"try again in {math.ceil(wait)} s",
                {"Retry-After": str(math.ceil(wait))},
            )

    async def _claim(key: str, name: str, table: Table, seat: int) -> None:
        """Remember the browser identity (its hash only) that took ``seat``."""
        await the_hub.writer.flush()  # the table's row is there first
        await the_hub.store.claim_seat(
            identity_hash(key), name.strip(), table.table_id, seat, table.match_no
        )

    def _identity(request: Request) -> str:
        """The hash of the request's ``X-Pishti-Identity`` key.

        Raises:
            ApiError: 400 no key, or not of the key's form.
        """
        key = request.headers.get("x-pishti-identity")
        if key is None:
            raise ApiError(
                400, "bad_request", "X-Pishti-Identity: the browser's identity key is missing"
            )
        if not re.fullmatch(IDENTITY_PATTERN, key):
            raise ApiError(
                400,
                "bad_request",
                "X-Pishti-Identity: is not in the expected form (32 to 128 of A-Z a-z 0-9 _ -)",
            )
        return identity_hash(key)

    @app.get("/api/me")
    async def my_history(request: Request) -> dict[str, Any]:
        """The history, figures and rating of the browser's identity."""
        found = await the_hub.store.history(_identity(request))
        if found is None:
            raise ApiError(404, "not_found", "this browser has played no match yet")
        return found

    @app.get("/api/me/export")
    async def my_records(request: Request) -> Response:
        """Every finished match of the browser's identity as JSON lines, one a match:
        ``{"table_id", "match", "seat", "finished", "record"}`` (R10)."""
        rows = await the_hub.store.records_of(_identity(request))
        lines = [
            json.dumps(
                {
                    "table_id": r["table_id"],
                    "match": r["match"],
                    "seat": r["seat"],
                    "finished": r["finished"],
                    "record": json.loads(r["record"]),
                }
            )
            for r in rows
        ]
        return Response(
            "".join(line + "\n" for line in lines),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": 'attachment; filename="pishti-matches.jsonl"'},
        )

    @app.delete("/api/me")
    async def forget_me(request: Request) -> dict[str, Any]:
        """Delete the browser's identity, its seats and rating; its name in the
        finished matches' players is removed."""
        if not await the_hub.store.forget(_identity(request)):
            raise ApiError(404, "not_found", "this browser has played no match yet")
        return {"deleted": True}

    @app.get("/api/leaderboard")
    async def leaderboard(min_matches: int = 3) -> dict[str, Any]:
        """Every bot level and every person with at least ``min_matches`` rated
        matches, best first (docs/server.md, "History and ratings")."""
        if not 0 <= min_matches <= 1000:
            raise ApiError(400, "bad_request", "min_matches: from 0 to 1000")
        return {
            "min_matches": min_matches,
            "players": await the_hub.store.leaderboard(min_matches),
        }

    async def _table(table_id: str) -> Table:
        table = await the_hub.table(table_id)
        if table is None:
            raise ApiError(404, "not_found", no_table(table_id))
        return table

    @app.post("/api/tables", status_code=201, dependencies=[Depends(_json_media_type)])
    async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
        """Create a table; the creator is its owner at seat 0 (R6.1, R7.1, R7.6)."""
        _limit(request)
        settings = TableSettings(body.players, body.target, body.tempo)
        table, seat, token = await the_hub.create_table(body.name, settings)
        if body.identity is not None:
            await _claim(body.identity, body.name, table, seat)
        return {
            "table_id": table.table_id,
            "seat": seat,
            "token": token,
            "invite_url": f"/t/{table.table_id}",
        }

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        """The public lobby of a table."""
        table = await _table(table_id)
        lobby = lobby_json(table)
        await the_hub.writer.flush()  # tell nothing that is not committed
        return lobby

    @app.post("/api/tables/{table_id}/join", dependencies=[Depends(_json_media_type)])
    async def join_table(table_id: str, body: JoinTable, request: Request) -> dict[str, Any]:
        """Take a free seat (any when ``seat`` is null) before the match starts."""
        table = await _table(table_id)
        _limit(request)
        if body.seat is not None and body.seat >= table.players:
            raise ApiError(
                400, "bad_request", f"no seat {body.seat} at a {table.players}-player table"
            )
        try:
            seat, token = await the_hub.join(table, body.name, body.seat)
        except TableError as exc:
            code = "match_started" if exc.code == "bad_state" else exc.code
            raise ApiError(_HTTP_STATUS.get(exc.code, 409), code, exc.message) from None
        if body.identity is not None:
            await _claim(body.identity, body.name, table, seat)
        return {"seat": seat, "token": token}

    @app.get("/api/tables/{table_id}/record")
    async def get_record(table_id: str, match: str | None = None) -> Response:
        """The R10 record of a finished match (the latest when ``match`` is not given);
        ``match`` is its number, 1 for the first, in plain digits."""
        number: int | None = None
        if match is not None:
            if not (match.isascii() and match.isdigit()):
                raise ApiError(400, "bad_request", "match: must be a match number (1, 2, ...)")
            # Any length of digits is a number; one longer than 9 digits is past any
            # table's matches (and is not turned into an int, which could be slow).
            number = int(match) if len(match) <= 9 else -1
        table = await _table(table_id)
        if number is not None and not 1 <= number <= table.match_no:
            raise ApiError(404, "not_found", f"no match {match} at this table")
        found = await the_hub.store.record(table_id, number)
        if found is None:
            what = "no match of this table is over" if number is None else f"match {number} is on"
            raise ApiError(409, "not_finished", f"{what}: no record to give yet (R7.7)")
        number, text = found
        return Response(
            text + "\n",
            media_type="application/json",
            headers={
                "Content-Disposition": f'attachment; filename="pishti-{table_id}-{number}.json"'
            },
        )

    async def _finished_record(table_id: str, match: str) -> tuple[int, str]:
        """``(number, record JSON)`` of finished match ``match`` of a table.

        Raises:
            ApiError: 400 a bad number, 404 no such table or match, 409 a match
                still played (R7.7).
        """
        if not (match.isascii() and match.isdigit() and len(match) <= 9):
            raise ApiError(400, "bad_request", "match: must be a match number (1, 2, ...)")
        number = int(match)
        table = await _table(table_id)
        if not 1 <= number <= table.match_no:
            raise ApiError(404, "not_found", f"no match {match} at this table")
        found = await the_hub.store.record(table_id, number)
        if found is None:
            raise ApiError(409, "not_finished", f"match {number} is on: no analysis yet (R7.7)")
        return found

    @app.get("/api/tables/{table_id}/analysis")
    async def get_analysis(table_id: str, match: str) -> Response:
        """The expert's analysis of finished match ``match`` (docs/bots.md) once
        computed: ``200 {"status": "done", "analysis": {...}}``; while it waits or
        runs, ``202`` with its status (``queued`` and ``position``, or ``running``);
        ``200 {"status": "not_requested"}`` when nobody asked for it (a 404 here made
        the browser log an error on every replay page that had none yet)."""
        number, _record = await _finished_record(table_id, match)
        stored = await the_hub.store.analysis(table_id, number)
        if stored is not None:
            return Response(
                '{"status": "done", "analysis": ' + stored + "}", media_type="application/json"
            )
        status = analyses.status((table_id, number))
        if status is None:
            return JSONResponse({"status": "not_requested"})
        return JSONResponse(status, status_code=500 if status["status"] == "failed" else 202)

    @app.post("/api/tables/{table_id}/analysis", status_code=202)
    async def request_analysis(table_id: str, match: str) -> Response:
        """Ask for the expert's analysis of finished match ``match``: computed in the
        server's worker processes (one at a time, in the order asked); answers as
        ``GET`` does (``200`` when already stored; ``503 busy`` when the queue is full)."""
        number, record = await _finished_record(table_id, match)
        stored = await the_hub.store.analysis(table_id, number)
        if stored is not None:
            return Response(
                '{"status": "done", "analysis": ' + stored + "}", media_type="application/json"
            )
        try:
            status = analyses.request((table_id, number), record)
        except AnalysisBusy as exc:
            raise ApiError(503, "busy", str(exc), {"Retry-After": "60"}) from None
        return JSONResponse(status, status_code=202)

    def _record_analysis(digest: str) -> Response | None:
        """The answer for the analysis of record file ``digest``: done, waiting or
        failed; None when it is neither kept nor asked for."""
        key = record_key(digest)
        done = analyses.kept(key)
        if done is not None:
            return Response(
                f'{{"status": "done", "id": "{digest}", "analysis": {done}}}',
                media_type="application/json",
            )
        status = analyses.status(key)
        if status is None:
            return None
        code = 500 if status["status"] == "failed" else 202
        return JSONResponse({**status, "id": digest}, status_code=code)

    @app.post("/api/analysis", status_code=202, dependencies=[Depends(_json_media_type)])
    async def analyse_record_file(request: Request) -> Response:
        """Ask for the expert's analysis of an R10 record sent as the body (a record
        file the replay page opened): the same analysis, queue and budget as a
        finished match's (docs/bots.md).  ``400 bad_record`` when it does not read or
        replay (R10); otherwise answers as ``GET /api/tables/{id}/analysis`` does,
        with ``"id"``: the SHA-256 of the record as the server writes it, for
        ``GET /api/analysis/{id}``.  The result is kept in memory (the latest 32),
        never in the database; the record is not kept."""
        try:
            record = loads_record((await request.body()).decode("utf-8"))
            replay(record)
        except UnicodeDecodeError:
            raise ApiError(400, "bad_record", "the record is not UTF-8 text") from None
        except RecordError as exc:
            raise ApiError(400, "bad_record", str(exc)) from None
        text = dumps_record(record)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        known = _record_analysis(digest)
        if known is not None and known.status_code != 500:
            return known
        try:
            analyses.request(record_key(digest), text, keep=True)
        except AnalysisBusy as exc:
            raise ApiError(503, "busy", str(exc), {"Retry-After": "60"}) from None
        answer = _record_analysis(digest)
        assert answer is not None
        return answer

    @app.get("/api/analysis/{digest}")
    async def get_record_analysis(digest: str) -> Response:
        """The analysis of a record file asked for with ``POST /api/analysis``: as
        ``GET /api/tables/{id}/analysis`` answers; ``404 not_requested`` when it was
        not asked for, or is no longer kept (send the record again)."""
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise ApiError(400, "bad_request", "the id is the record's SHA-256 in hex")
        answer = _record_analysis(digest)
        if answer is None:
            raise ApiError(
                404, "not_requested", "no analysis of this record is kept: send the record"
            )
        return answer

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Liveness, with a few counters."""
        return {"ok": True, **the_hub.stats()}

    def _page(what: str) -> Response:
        web_dir = config.web_dir
        if web_dir is not None and (Path(web_dir) / "index.html").is_file():
            return FileResponse(Path(web_dir) / "index.html", media_type="text/html")
        return HTMLResponse(_PLACEHOLDER.format(what=html.escape(what)))

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return _page("")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def invite(table_id: str) -> Response:
        return _page(f"Table {table_id}.")

    @app.get("/t/{table_id}/watch", include_in_schema=False)
    async def watch(table_id: str) -> Response:
        return _page(f"Watching table {table_id}.")

    @app.get("/r/{table_id}/{match}", include_in_schema=False)
    async def replay_page(table_id: str, match: str) -> Response:
        """The replay of a finished match; its record comes from ``/api/tables/{id}/record``,
        which gives none of a match still played (R7.7)."""
        return _page(f"Replay of match {match} of table {table_id}.")

    @app.get("/replay", include_in_schema=False)
    async def replay_file_page() -> Response:
        """The replay viewer for a record file opened in the browser (nothing uploaded)."""
        return _page("Replay a match record.")

    @app.get("/me", include_in_schema=False)
    async def me_page() -> Response:
        """The browser identity's history page."""
        return _page("Your matches.")

    @app.get("/leaderboard", include_in_schema=False)
    async def leaderboard_page() -> Response:
        """The ratings of people and bot levels."""
        return _page("Leaderboard.")

    @app.get("/how-to-play", include_in_schema=False)
    async def how_to_play() -> Response:
        return _page("How to play.")

    def _client_file(name: str, media_type: str) -> Response:
        web_dir = config.web_dir
        if web_dir is None or not (Path(web_dir) / name).is_file():
            raise ApiError(404, "not_found", f"no {name}")
        return FileResponse(Path(web_dir) / name, media_type=media_type)

    @app.get("/manifest.webmanifest", include_in_schema=False)
    async def manifest() -> Response:
        """The web app manifest: the client installs as an app."""
        return _client_file("manifest.webmanifest", "application/manifest+json")

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        """The service worker, served at the root so that its scope is the whole site."""
        response = _client_file("sw.js", "text/javascript")
        response.headers["Cache-Control"] = "no-cache"
        return response

    if config.web_dir is not None and Path(config.web_dir).is_dir():
        from fastapi.staticfiles import StaticFiles

        app.mount("/static", StaticFiles(directory=config.web_dir), name="static")

    return ServerApp(app, the_hub)
