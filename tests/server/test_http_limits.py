"""HTTP on the real server: limits on request heads (size and time), forwarded addresses,
media types, and card text read strictly over the protocol (R1.2).

Most run twice (``any_server``, ``any_quick``): on one server, then through HAProxy in
front of a cluster on PostgreSQL.  Where HAProxy answers first (a request head over its
buffer, a head too slow) the test asserts HAProxy's answer, as docs/deploy.md says.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pishti.cluster.postgres import LocalPostgres
from server.conftest import (
    SERVER_ARGS,
    Served,
    ThroughHAProxy,
    direct_and_haproxy,
    running,
)
from server.players import Player
from server.test_e2e import create, player
from serving import ServerProcess

HEAD_LIMIT = 16 * 1024
HAPROXY_SERVED = 15_000
"""A request head HAProxy takes: it takes heads up to its buffer (``tune.bufsize``, 16 KiB)
less the 1 KiB it keeps for rewriting (``tune.maxrewrite``) and its own bookkeeping
(measured: 15,292 bytes with three headers); a longer one is answered by HAProxy itself
with 400, and no node sees it (docs/deploy.md)."""
ANALYSIS_ARGS = ("--analysis-samples", "2", "1")
"""A record file's analysis in a moment (the first record of tests/records)."""


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose request heads must arrive within 1 s (``--header-timeout 1``)."""
    db = tmp_path_factory.mktemp("quick") / "pishti.db"
    yield from running(ServerProcess(db, *SERVER_ARGS, "--header-timeout", "1", *ANALYSIS_ARGS))


@pytest.fixture(scope="module")
def haproxy_quick(postgres: LocalPostgres) -> Iterator[ThroughHAProxy]:
    """As :func:`quick`, through HAProxy (its ``timeout http-request`` 1 s too), and with
    ``--http-rate 0.01`` (a burst of 20 per address and node) for the test of forwarded
    addresses: the other tests of this module make one table from 127.0.0.1, and that
    test makes its own from 127.0.0.2 and 127.0.0.3."""
    args = (*SERVER_ARGS, *ANALYSIS_ARGS, "--http-rate", "0.01")
    yield from running(ThroughHAProxy(postgres, "through_haproxy_quick", *args, header_timeout=1.0))


any_quick = direct_and_haproxy(
    "quick", "haproxy_quick", ":func:`quick`, then :func:`haproxy_quick`."
)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def exchange(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send ``data`` on a new connection (as much as the server takes) and return all
    it answers until it closes the connection."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(timeout)
        with contextlib.suppress(OSError):  # the server may stop reading and close
            s.sendall(data)
        out = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(65536):
                out += chunk
        return out


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def get(headers: bytes) -> bytes:
    return b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers + b"Connection: close\r\n\r\n"


TOO_LARGE_BODY = (
    b'{"error": {"code": "too_large", "message": "request heads (the request line and headers)'
    b' are limited to 16384 bytes"}}'
)
HAPROXY_400_BODY = (
    b"<html><body><h1>400 Bad request</h1>\nYour browser sent an invalid request.\n</body></html>\n"
)
TIMEOUT_408 = {
    "direct": b"HTTP/1.1 408 Request Timeout\r\n",
    "haproxy": b"HTTP/1.1 408 Request Time-out\r\n",
}
"""The status line of a head that came too slowly: a node's (uvicorn's), HAProxy's."""


def kind(front: Served) -> str:
    return "haproxy" if isinstance(front, ThroughHAProxy) else "direct"


@pytest.mark.parametrize(
    "headers",
    [
        b"X-Big: " + b"a" * (HEAD_LIMIT + 1) + b"\r\n",  # one long line, sent whole
        b"X-Big: " + b"a" * (1 << 20) + b"\r\n",  # 1 MB
        b"X-A: b\r\n" * 5000,  # 40 KB of short headers, sent whole
        b"X: y\r\n" * 100_000,
    ],
    ids=["17KB-line", "1MB-line", "5000-headers", "100000-headers"],
)
def test_a_request_head_over_16_kib_is_refused_with_431(any_quick: Served, headers: bytes) -> None:
    # Found by a black-box client: a 32 MB header line, 1 MB ones and 100,000 headers
    # were all answered 200 (the server's memory grew by 178 MB).
    answer = exchange(any_quick.port, get(headers))
    if kind(any_quick) == "haproxy":  # HAProxy's own limit comes first: its 400, no node
        assert status_of(answer) == 400
        assert answer.endswith(b"\r\n\r\n" + HAPROXY_400_BODY)
    else:
        assert status_of(answer) == 431
        assert answer.endswith(b"\r\n\r\n" + TOO_LARGE_BODY)


def test_a_head_just_under_the_limit_is_served(any_quick: Served) -> None:
    request = get(b"")
    pad = HEAD_LIMIT - len(request) - len(b"X-Pad: \r\n")  # a head of 16 KiB exactly
    over, refused = pad + 1, 431
    if kind(any_quick) == "haproxy":  # HAProxy's limit, under the node's
        pad, over, refused = HAPROXY_SERVED - len(request) - len(b"X-Pad: \r\n"), pad, 400
    answer = exchange(any_quick.port, get(b"X-Pad: " + b"p" * pad + b"\r\n"))
    assert status_of(answer) == 200
    answer = exchange(any_quick.port, get(b"X-Pad: " + b"p" * over + b"\r\n"))
    assert status_of(answer) == refused


def test_four_32_mb_header_lines_at_once_leave_memory_unmoved(quick: ServerProcess) -> None:
    assert quick.proc is not None
    exchange(quick.port, get(b""))  # warm up
    before = rss_kib(quick.proc.pid)

    async def all_four() -> list[bytes]:
        line = get(b"X-Big: " + b"a" * (32 << 20) + b"\r\n")
        return await asyncio.gather(
            *(asyncio.to_thread(exchange, quick.port, line) for _ in range(4))
        )

    answers = asyncio.run(all_four())
    assert [status_of(a) for a in answers if a] == [431] * len([a for a in answers if a])
    grown = rss_kib(quick.proc.pid) - before
    assert grown < 8 * 1024, f"the server grew by {grown} KiB"  # it was 178 MB
    assert status_of(exchange(quick.port, get(b""))) == 200


async def test_slow_and_silent_clients_are_closed_while_play_goes_on(any_quick: Served) -> None:
    # Found by a black-box client: sockets that sent a header line every 5 s, or
    # nothing, were all still open after 40 s.  Here the head must come within 1 s
    # (through HAProxy, its timeout http-request closes them, with its own 408).
    quick = any_quick
    loop = asyncio.get_running_loop()
    opened = loop.time()
    slow = [socket.create_connection(("127.0.0.1", quick.port)) for _ in range(30)]
    silent = [socket.create_connection(("127.0.0.1", quick.port)) for _ in range(20)]
    for s in (*slow, *silent):
        s.setblocking(False)
    closed_at: dict[int, float] = {}
    answers: dict[int, bytes] = {}

    async def drip(s: socket.socket) -> None:
        # a request line, then a header line every 0.25 s, never the blank line
        lines = [b"GET /healthz HTTP/1.1\r\n"] + [b"X-Slow: 1\r\n"] * 40
        for line in lines:
            try:
                await loop.sock_sendall(s, line)
            except OSError:
                break
            with contextlib.suppress(TimeoutError):
                data = await asyncio.wait_for(loop.sock_recv(s, 4096), 0.25)
                answers[s.fileno()] = data
                if not data or data.startswith(b"HTTP/1.1 408 "):
                    break
        closed_at[s.fileno()] = loop.time() - opened

    async def wait_closed(s: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while await asyncio.wait_for(loop.sock_recv(s, 4096), 5):
                pass
        closed_at[s.fileno()] = loop.time() - opened

    tasks = [asyncio.create_task(drip(s)) for s in slow]
    tasks += [asyncio.create_task(wait_closed(s)) for s in silent]
    # Meanwhile a match is played: a person and three bots.
    t = await create(quick, target=51, tempo="fast")
    p = await player(quick, t["table_id"], t["token"], 3)
    await p.hello()
    await p.send({"type": "start"})
    await p.run(until=lambda p: p.played >= 5, timeout=30)
    await asyncio.gather(*tasks)
    played_at = loop.time() - opened
    for s in (*slow, *silent):
        s.close()
    assert p.errors == []
    assert len(closed_at) == 50
    assert max(closed_at.values()) < 4.0, sorted(closed_at.values())
    assert min(closed_at.values()) >= 0.9
    assert all(a.startswith(TIMEOUT_408[kind(quick)]) for a in answers.values() if a)
    assert played_at > 0  # the match went on with the slow sockets open
    # The player's own connection was not touched: it plays on.
    await p.run(until=lambda p: p.played >= 6, timeout=30)
    await p.transport.close()


async def test_a_websocket_handshake_must_come_in_time_too(any_quick: Served) -> None:
    quick = any_quick
    loop = asyncio.get_running_loop()
    s = socket.create_connection(("127.0.0.1", quick.port))
    s.setblocking(False)
    start = loop.time()
    await loop.sock_sendall(
        s, b"GET /ws/tables/x HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    )
    answer = b""
    while chunk := await asyncio.wait_for(loop.sock_recv(s, 4096), 5):
        answer += chunk
    s.close()
    assert answer.startswith(TIMEOUT_408[kind(quick)])
    assert 0.9 <= loop.time() - start < 4.0


def test_an_idle_kept_alive_connection_is_closed_after_5_s(any_quick: Served) -> None:
    # Through HAProxy, its timeout http-keep-alive is the node's 5 s.
    with socket.create_connection(("127.0.0.1", any_quick.port)) as s:
        s.settimeout(10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        first = s.recv(65536)
        while not first.endswith(b"}"):  # the whole JSON answer
            first += s.recv(65536)
        assert status_of(first) == 200
        start = time.monotonic()
        rest = s.recv(65536)
        idle = time.monotonic() - start
    assert rest == b""
    assert 4.5 <= idle < 7.0


async def forwarded_creations(srv: Served, count: int, source: str = "127.0.0.1") -> list[int]:
    """Create ``count`` tables from address ``source``, each request claiming another
    forwarded address."""
    codes = []
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(base_url=srv.http, transport=transport) as http:
        for n in range(count):
            r = await http.post(
                "/api/tables",
                json={"name": "p0"},
                headers={"X-Forwarded-For": f"203.0.113.{n + 1}"},
            )
            codes.append(r.status_code)
    return codes


async def test_forwarded_addresses_are_trusted_only_from_configured_proxies(
    tmp_path: Path,
) -> None:
    # Found by a black-box client: any local process could dodge the per-address limit
    # by sending a new X-Forwarded-For each time.  --http-rate 0.01: a burst of 20.
    srv = ServerProcess(tmp_path / "direct.db", "--http-rate", "0.01", "--log-level", "warning")
    try:
        srv.start()
        assert await forwarded_creations(srv, 21) == [201] * 20 + [429]
    finally:
        srv.stop()
    proxied = ServerProcess(
        tmp_path / "proxied.db",
        "--http-rate",
        "0.01",
        "--log-level",
        "warning",
        "--forwarded-allow-ips",
        "127.0.0.1",
    )
    try:  # behind a proxy on this host, each forwarded address has a burst of its own
        proxied.start()
        assert await forwarded_creations(proxied, 21) == [201] * 21
    finally:
        proxied.stop()


async def test_through_haproxy_the_limit_counts_the_client_address_on_each_node(
    haproxy_quick: ThroughHAProxy,
) -> None:
    # HAProxy drops the X-Forwarded-For a client sends and forwards the address it sees;
    # the nodes trust it from HAProxy alone (--forwarded-allow-ips 127.0.0.1), so a
    # client cannot pick the address it is counted by.  Each node keeps its own count
    # (docs/deploy.md): tables are made by the nodes in turn, so an address makes 20 on
    # each of the 2 nodes (--http-rate 0.01: a burst of 20) before it is refused.
    nodes = len(haproxy_quick.cluster.nodes)
    codes = await forwarded_creations(haproxy_quick, 20 * nodes + 1, source="127.0.0.2")
    assert codes == [201] * 20 * nodes + [429]
    # Another address is counted apart: the nodes see the client's, not HAProxy's.
    assert await forwarded_creations(haproxy_quick, 1, source="127.0.0.3") == [201]
    # A client at HAProxy's own address, which the nodes trust, cannot pick its address
    # either: HAProxy dropped the X-Forwarded-For it sent (else every address it named
    # had a burst of its own, and all 41 were made).  Each node took at most 20.
    codes = await forwarded_creations(haproxy_quick, 20 * nodes + 1, source="127.0.0.1")
    assert codes[-1] == 429 and codes.count(201) <= 20 * nodes


async def test_a_body_that_is_not_sent_as_json_is_refused_with_415(any_server: Served) -> None:
    # Found by a black-box client: text/plain with a JSON object body was answered
    # "the body must be a JSON object".
    t = await create(any_server)
    async with httpx.AsyncClient(base_url=any_server.http) as http:
        for media in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
            for path, body in (
                ("/api/tables", b'{"name": "ann"}'),
                (f"/api/tables/{t['table_id']}/join", b'{"name": "bo"}'),
            ):
                r = await http.post(path, content=body, headers={"content-type": media})
                assert (r.status_code, r.json()["error"]) == (
                    415,
                    {
                        "code": "unsupported_media_type",
                        "message": "the body must be JSON sent as Content-Type: "
                        f"application/json, not {media}",
                    },
                ), media
        lobby = (await http.get(f"/api/tables/{t['table_id']}")).json()
        assert [s["kind"] for s in lobby["seats"]] == ["human", "empty", "empty", "empty"]
        for media in ("application/json", "application/json; charset=utf-8", "Application/JSON"):
            r = await http.post(
                "/api/tables", content=b'{"name": "ann"}', headers={"content-type": media}
            )
            assert r.status_code == 201, (media, r.text)
        r = await http.post("/api/tables", content=b'{"name": "ann"}')  # no Content-Type
        assert (r.status_code, r.json()["error"]["message"]) == (
            415,
            "the body must be JSON sent as Content-Type: application/json, not (none)",
        )


async def test_any_match_number_in_plain_digits_not_started_is_404(any_server: Served) -> None:
    # Found by a black-box client: 23 digits were a 400, while the docs say plain
    # digits give 404 for a match the table has not started.
    t = await create(any_server)
    async with httpx.AsyncClient(base_url=any_server.http) as http:
        for number in ("2", "0", "007", "9999999999", "1" * 23, "9" * 5000):
            r = await http.get(f"/api/tables/{t['table_id']}/record", params={"match": number})
            assert (r.status_code, r.json()["error"]) == (
                404,
                {"code": "not_found", "message": f"no match {number} at this table"},
            ), number[:30]


async def test_cards_with_spaces_or_not_ascii_are_not_played(any_server: Served) -> None:
    # Found by a black-box client: " 6S" and "4S " were played as 6S and 4S, and "9ſ"
    # (a long s) as 9S.  R1.2: 10 for T and lower case, nothing else.
    t = await create(any_server, target=51, tempo="relaxed")
    p: Player = await player(any_server, t["table_id"], t["token"], 5, autoplay=False)
    await p.hello()
    await p.send({"type": "start"})
    await p.run(until=lambda p: p.my_turn and bool(p.hand), timeout=30)
    card = p.hand[0]
    seq = p.seq
    forms = [f" {card}", f"{card} ", f"{card[0]}\u017f"]
    forms += [f"\uff21{card[1]}", card[0] + chr(ord(card[1]) + 0xFEE0)]  # fullwidth letters
    for form in forms:
        await p.send({"type": "play", "card": form, "seq": seq})
        error = await p.recv()
        assert error == {
            "type": "error",
            "code": "bad_message",
            "message": f"not a card: {form!r}",
            "ref": "play",
        }
    assert p.seq == seq and card in p.hand  # nothing changed
    await p.send({"type": "play", "card": card.lower(), "seq": seq})
    await p.run(until=lambda p: card not in p.hand, timeout=10)
    await p.transport.close()


async def test_a_record_file_sent_for_analysis_is_checked_first(any_server: Served) -> None:
    """``POST /api/analysis`` (the replay page's record file): a record larger than other
    bodies is read, a broken one refused with where it breaks, an unknown id is a 404."""
    records = Path(__file__).resolve().parents[1] / "records"
    data = json.loads((records / "jack_on_empty_then_jack_pishti.json").read_text())
    data["decks"][0]["plays"][0] = data["decks"][0]["plays"][1]  # played twice
    body = json.dumps(data).encode()
    assert len(body) > 4096  # over the limit of other bodies
    json_type = {"content-type": "application/json"}
    async with httpx.AsyncClient(base_url=any_server.http) as http:
        r = await http.post("/api/analysis", content=body, headers=json_type)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_record"
        assert r.json()["error"]["message"].startswith("deck 1, play 1: ")
        r = await http.post("/api/analysis", content=b"\xff{}", headers=json_type)
        assert r.json()["error"] == {
            "code": "bad_record",
            "message": "the record is not UTF-8 text",
        }
        r = await http.post("/api/analysis", content=body, headers={"content-type": "text/plain"})
        assert r.status_code == 415
        r = await http.post("/api/analysis", content=b" " * (256 * 1024 + 1), headers=json_type)
        assert (r.status_code, r.json()["error"]["message"]) == (
            413,
            "request bodies are limited to 262144 bytes",
        )
        r = await http.get(f"/api/analysis/{'ab' * 32}")
        assert (r.status_code, r.json()["error"]["code"]) == (404, "not_requested")
        r = await http.get("/api/analysis/AB")
        assert r.status_code == 400


async def test_a_record_file_analysis_is_followed_to_its_end(any_quick: Served) -> None:
    """``POST /api/analysis``, then ``GET /api/analysis/{id}`` until done, as the replay
    page does.  Through HAProxy on several nodes the GETs went to the nodes in turn,
    and the one that had not computed it answered 404 ``not_requested`` (the page
    then offered to ask again): they now go where the POST went (by the client's
    address; the analysis is kept in that node's memory)."""
    records = Path(__file__).resolve().parents[1] / "records"
    body = (records / "jack_on_empty_then_jack_pishti.json").read_bytes()
    json_type = {"content-type": "application/json"}
    loop = asyncio.get_running_loop()
    end = loop.time() + 120
    async with httpx.AsyncClient(base_url=any_quick.http, timeout=30) as http:
        r = await http.post("/api/analysis", content=body, headers=json_type)
        assert r.status_code in (200, 202), r.text
        digest = r.json()["id"]
        answers = [r.json()["status"]]
        while answers[-1] != "done":
            assert loop.time() < end, answers[-5:]
            await asyncio.sleep(0.2)
            r = await http.get(f"/api/analysis/{digest}")
            assert r.status_code in (200, 202), r.text
            assert r.json()["id"] == digest
            answers.append(r.json()["status"])
    assert set(answers) <= {"queued", "running", "done"}
    assert len(r.json()["analysis"]["decks"]) == 7  # the record's seven decks
