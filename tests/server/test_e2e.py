"""End to end: the real server on a loopback port, played by real WebSocket clients (R7).

The tests of holds, autopilot, leaks and hostile input run twice (``any_server``,
``any_fast_server``): on one server, then through HAProxy in front of a cluster of
nodes on PostgreSQL (docs/deploy.md), where every check must hold the same."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from pishti.engine import card_text
from pishti.records import loads_record, replay
from server.conftest import Served
from server.players import Player, leaks
from serving import PISHTI, ServerProcess


async def create(
    server: Served, players: int = 4, target: int = 51, tempo: str = "normal"
) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.http) as http:
        r = await http.post(
            "/api/tables",
            json={"name": "p0", "players": players, "target": target, "tempo": tempo},
        )
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
        await settled(http, body["table_id"])
    assert body["seat"] == 0 and body["invite_url"] == f"/t/{body['table_id']}"
    assert body["token"] not in body["invite_url"]
    return body


async def settled(http: httpx.AsyncClient, table_id: str) -> None:
    """Wait until the node that plays table ``table_id`` answers its requests.

    Through HAProxy any node makes a table, then lets it go to the node the hash of its
    id picks, which answers ``503 other_node`` (``Retry-After: 1``) until then
    (docs/deploy.md): a client retries, as told.  One server answers at once.
    """
    for _ in range(100):
        r = await http.get(f"/api/tables/{table_id}")
        if r.status_code != 503:
            assert r.status_code == 200, r.text
            return
        assert r.json()["error"]["code"] == "other_node", r.text
        await asyncio.sleep(0.1)
    raise AssertionError(f"table {table_id} still on another node after 100 tries")


async def join(server: Served, table_id: str, name: str, seat: int | None = None) -> str:
    async with httpx.AsyncClient(base_url=server.http) as http:
        r = await http.post(f"/api/tables/{table_id}/join", json={"name": name, "seat": seat})
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


async def player(server: Served, table_id: str, token: str, seed: int, **kw: Any) -> Player:
    ws = await connect(f"{server.ws}/ws/tables/{table_id}", max_size=2**20)
    return Player(ws, token, rng=random.Random(seed), **kw)


async def record_of(server: Served, table_id: str, tmp_path: Path) -> dict[str, Any]:
    """Download the finished match's record; check it replays (with ``pishti replay``) and
    return the replayed count."""
    async with httpx.AsyncClient(base_url=server.http) as http:
        r = await http.get(f"/api/tables/{table_id}/record")
        first = await http.get(f"/api/tables/{table_id}/record", params={"match": 1})
        later = await http.get(f"/api/tables/{table_id}/record", params={"match": 2})
    assert r.status_code == 200, r.text
    assert first.status_code == 200 and first.text == r.text  # one match played
    assert later.status_code == 404 and later.json()["error"]["code"] == "not_found"
    assert "attachment" in r.headers["content-disposition"]
    path = tmp_path / f"{table_id}.json"
    path.write_text(r.text)
    out = subprocess.run(
        [PISHTI, "replay", "--json", str(path)], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(out.stdout)
    result["record"] = loads_record(r.text)
    return result


def check_finished(players: list[Player], result: dict[str, Any]) -> None:
    """Every seat saw the same end, the record replays to it, and nothing leaked (R7.7)."""
    overs = [p.over for p in players]
    assert all(o is not None for o in overs)
    assert all(o == overs[0] for o in overs)
    assert overs[0] is not None
    assert result["finished"] is True
    assert result["totals"] == overs[0]["totals"]
    assert result["winner"] == overs[0]["winner"]
    record = result["record"]
    assert replay(record).totals == overs[0]["totals"]
    for p in players:
        assert p.seat is not None
        assert leaks(record, p.seat, p.messages) == []


async def play_to_the_end(
    server: Served, table_id: str, players: list[Player], tmp_path: Path
) -> dict[str, Any]:
    """The owner (``players[0]``) starts, everyone plays to the end; the match is checked
    with :func:`check_finished` and its replayed record returned (:func:`record_of`)."""
    await players[0].send({"type": "start"})
    await asyncio.gather(*(p.run() for p in players))
    result = await record_of(server, table_id, tmp_path)
    check_finished(players, result)
    return result


async def test_four_people_play_a_full_match(any_server: Served, tmp_path: Path) -> None:
    t = await create(any_server)
    tokens = [t["token"]] + [await join(any_server, t["table_id"], f"p{s}") for s in (1, 2, 3)]
    players = [await player(any_server, t["table_id"], tok, s) for s, tok in enumerate(tokens)]
    for p in players:
        await p.hello()
    assert [p.seat for p in players] == [0, 1, 2, 3]
    assert players[0].welcome is not None and players[0].welcome["owner"] is True
    assert players[1].welcome is not None and players[1].welcome["owner"] is False
    async with httpx.AsyncClient(base_url=any_server.http) as http:
        r = await http.post(f"/api/tables/{t['table_id']}/join", json={"name": "late"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "table_full"
    result = await play_to_the_end(any_server, t["table_id"], players, tmp_path)
    assert sum(p.played for p in players) == sum(len(d.plays) for d in result["record"].decks)
    assert all(p.errors == [] for p in players)
    async with httpx.AsyncClient(base_url=any_server.http) as http:
        lobby = (await http.get(f"/api/tables/{t['table_id']}")).json()
    assert lobby["status"] == "finished"
    assert [s["kind"] for s in lobby["seats"]] == ["human"] * 4


async def test_batching_and_single_event_clients_play_a_match_together(
    server: ServerProcess, tmp_path: Path
) -> None:
    t = await create(server)
    tokens = [t["token"]] + [await join(server, t["table_id"], f"p{s}") for s in (1, 2, 3)]
    players = [
        await player(server, t["table_id"], tok, 20 + s, batch=s % 2 == 0)
        for s, tok in enumerate(tokens)
    ]
    for p in players:
        await p.hello()
    await play_to_the_end(server, t["table_id"], players, tmp_path)
    assert all(p.errors == [] for p in players)
    for p in players:
        kinds = {f["type"] for f in p.frames}
        assert kinds == ({"welcome", "events"} if p.batch else {"welcome", "event"})
    # One message per change: far fewer frames than events for the batching seats.
    assert len(players[0].frames) * 2 < len(players[1].frames)


async def test_one_person_and_three_bots(server: ServerProcess, tmp_path: Path) -> None:
    t = await create(server, target=101, tempo="fast")
    p = await player(server, t["table_id"], t["token"], 7)
    welcome = await p.hello()
    assert welcome["resumed"] is False and welcome["view"] is None
    assert welcome["table"]["status"] == "waiting"
    await p.send({"type": "add_bot", "seat": 1, "level": "random"})
    await p.send({"type": "add_bot", "seat": 2, "level": "novice"})
    await p.send({"type": "start"})
    await p.run()
    kinds = [s["kind"] for s in p.seats.values()]
    levels = [p.seats[s]["level"] for s in range(4)]
    assert kinds == ["human", "bot", "bot", "bot"]
    assert levels == [None, "random", "novice", "standard"]  # R7.6: the empty seat gets standard
    result = await record_of(server, t["table_id"], tmp_path)
    check_finished([p], result)
    assert p.errors == []
    assert max(result["totals"]) >= 101


async def test_the_two_player_game(server: ServerProcess, tmp_path: Path) -> None:
    t = await create(server, players=2)
    token = await join(server, t["table_id"], "p1")
    players = [
        await player(server, t["table_id"], t["token"], 1),
        await player(server, t["table_id"], token, 2),
    ]
    for p in players:
        await p.hello()
    result = await play_to_the_end(server, t["table_id"], players, tmp_path)
    assert result["record"].players == 2
    deals = [len(d.deals) for d in result["record"].decks]
    assert set(deals) == {6}  # R8.1: six deals per deck
    assert players[0].events("match_started")[0]["players"] == 2


async def test_timeouts_autopilot_and_take_over(any_fast_server: Served, tmp_path: Path) -> None:
    t = await create(any_fast_server)
    p = await player(any_fast_server, t["table_id"], t["token"], 3, autoplay=False)
    await p.hello()
    await p.send({"type": "start"})
    await p.run(until=lambda q: q.seats[0]["autopilot"], timeout=30)
    mine = [
        e["type"]
        for e in p.events()
        if e.get("seat") == 0 and e["type"] in ("timeout", "autopilot", "card_played")
    ]
    # R7.2, R7.3: three timeouts in a row, each followed by the card played for the seat.
    assert mine == ["timeout", "card_played"] * 3 + ["autopilot"]
    await p.send({"type": "take_over"})
    await p.run(until=lambda q: not q.seats[0]["autopilot"], timeout=10)
    assert p.autopilot is False
    p.autoplay = True
    await p.run(timeout=60)
    result = await record_of(any_fast_server, t["table_id"], tmp_path)
    check_finished([p], result)


async def test_disconnect_and_reconnect_within_the_hold(any_server: Served, tmp_path: Path) -> None:
    t = await create(any_server, players=2)
    token = await join(any_server, t["table_id"], "p1")
    p0 = await player(any_server, t["table_id"], t["token"], 1)
    p1 = await player(any_server, t["table_id"], token, 2)
    await p0.hello()
    await p1.hello()
    await p0.send({"type": "start"})
    await asyncio.gather(
        p0.run(until=lambda q: len(q.events("card_played")) >= 20),
        p1.run(until=lambda q: len(q.events("card_played")) >= 20),
    )
    await p1.transport.close()
    # p0 sees p1's connection drop (the seat is held, R7.4) and waits for its turn.
    await p0.run(until=lambda q: q.seats[1]["connected"] is False)
    assert p0.seats[1]["kind"] == "human"
    seen = p1.seq
    again = Player(await connect(f"{any_server.ws}/ws/tables/{t['table_id']}"), token)
    again.messages, again.seq, again.hand = p1.messages, p1.seq, p1.hand
    again.seats, again.rng, again.seat = p1.seats, p1.rng, p1.seat
    again.to_play, again._asked, again._turn_mark = p1.to_play, p1._asked, p1._turn_mark
    welcome = await again.hello(last_seq=seen)
    # Everything missed follows the welcome, numbered on from last_seq, nothing twice.
    assert welcome["resumed"] is True and welcome["table"] is None
    await asyncio.gather(p0.run(), again.run())
    result = await record_of(any_server, t["table_id"], tmp_path)
    check_finished([p0, again], result)
    assert [e["seat"]["connected"] for e in again.events("seat_changed") if e["seat"]["seat"] == 1][
        -2:
    ] == [False, True]
    # A hello without last_seq gets the full snapshot.
    third = Player(await connect(f"{any_server.ws}/ws/tables/{t['table_id']}"), token)
    snap = await third.hello()
    assert snap["resumed"] is False and snap["seq"] == again.seq
    assert snap["view"]["finished"] is True and snap["table"]["status"] == "finished"
    await third.transport.close()


async def test_hold_expiry_gives_the_seat_to_a_bot(any_fast_server: Served, tmp_path: Path) -> None:
    t = await create(any_fast_server)
    token = await join(any_fast_server, t["table_id"], "p1")
    p0 = await player(any_fast_server, t["table_id"], t["token"], 1)
    p1 = await player(any_fast_server, t["table_id"], token, 2)
    await p0.hello()
    await p1.hello()
    await p1.send({"type": "closing"})
    await p0.send({"type": "start"})
    await asyncio.gather(
        p0.run(until=lambda q: len(q.events("card_played")) >= 2),
        p1.run(until=lambda q: len(q.events("card_played")) >= 2),
    )
    await p1.transport.close()
    # After 'closing' the hold is 10 s (0.2 s here); then a bot has the seat for good.
    await p0.run(until=lambda q: q.seats[1]["kind"] == "bot", timeout=20)
    assert p0.seats[1]["left"] is True and p0.seats[1]["level"] == "standard"
    await p0.run(timeout=60)
    result = await record_of(any_fast_server, t["table_id"], tmp_path)
    check_finished([p0], result)
    gone = Player(await connect(f"{any_fast_server.ws}/ws/tables/{t['table_id']}"), token)
    await gone.send({"type": "hello", "token": token})
    error = await gone.recv()
    assert error["type"] == "error" and error["code"] == "seat_gone"
    with pytest.raises(ConnectionClosed) as closed:
        await gone.transport.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403


async def test_leaving_gives_the_seat_to_a_bot(server: ServerProcess, tmp_path: Path) -> None:
    t = await create(server)
    token = await join(server, t["table_id"], "p2", seat=2)
    p0 = await player(server, t["table_id"], t["token"], 1)
    p2 = await player(server, t["table_id"], token, 2)
    await p0.hello()
    await p2.hello()
    await p0.send({"type": "start"})
    await asyncio.gather(
        p0.run(until=lambda q: len(q.events("card_played")) >= 5),
        p2.run(until=lambda q: len(q.events("card_played")) >= 5),
    )
    await p2.send({"type": "leave"})
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await p2.transport.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000
    await p0.run(until=lambda q: q.seats[2]["kind"] == "bot")
    assert p0.seats[2]["left"] is True and p0.seats[2]["name"] == "p2"
    await p0.run()
    result = await record_of(server, t["table_id"], tmp_path)
    check_finished([p0], result)


async def test_killed_server_restarts_and_the_match_finishes_intact(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path / "kill.db", "--bot-delay", "0", "--rate", "1000")
    srv.start()
    try:
        t = await create(srv, target=101)
        token = await join(srv, t["table_id"], "p2", seat=2)
        p0 = await player(srv, t["table_id"], t["token"], 1)
        p2 = await player(srv, t["table_id"], token, 2)
        await p0.hello()
        await p2.hello()
        await p0.send({"type": "start"})
        await asyncio.gather(
            p0.run(until=lambda q: len(q.events("card_played")) >= 70),
            p2.run(until=lambda q: len(q.events("card_played")) >= 70),
        )
        srv.kill()  # mid-match, with plays in flight
        before = {p.seat: [m for m in p.messages if m["type"] == "event"] for p in (p0, p2)}
        srv.start()
        again = []
        for old in (p0, p2):
            p = Player(await connect(f"{srv.ws}/ws/tables/{t['table_id']}"), old.token)
            # The client's state stands unless the welcome brings a snapshot.
            p.rng, p.messages, p.seq, p.hand = old.rng, list(old.messages), old.seq, old.hand
            p.seats, p.to_play = old.seats, old.to_play
            p._asked, p._turn_mark = old._asked, old._turn_mark
            await p.hello(last_seq=old.seq)
            again.append(p)
        await asyncio.gather(*(p.run() for p in again))
        result = await record_of(srv, t["table_id"], tmp_path)
        record = result["record"]
        plays = [c for d in record.decks for c in d.plays]
        for p in again:
            assert p.seat is not None
            # Every event told before the kill is still there, with the same number.
            seen = [e for e in before[p.seat] if e["event"]["type"] == "card_played"]
            assert [e["event"]["card"] for e in seen] == [card_text(c) for c in plays[: len(seen)]]
            later = {m["seq"]: m for m in p.messages if m["type"] == "event"}
            for m in before[p.seat]:
                if m["seq"] in later:
                    assert later[m["seq"]] == m
        overs = [p.over for p in again]
        assert overs[0] == overs[1] and overs[0] is not None
        assert result["totals"] == overs[0]["totals"]
        for p in again:
            assert p.seat is not None
            full = [m for m in p.messages if m["type"] != "welcome" or not m["resumed"]]
            assert leaks(record, p.seat, full) == []
        resumes = [
            e for e in again[0].events("clock") if e["remaining"] == e["tempo"]
        ]  # the clock restarted at the full tempo
        assert resumes
    finally:
        srv.stop()


async def test_hostile_frames_and_requests_on_the_real_server(any_server: Served) -> None:
    t = await create(any_server)
    async with httpx.AsyncClient(base_url=any_server.http) as http:
        bad = await http.post("/api/tables", json={"name": " ", "players": 3})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_request"
        json_type = {"content-type": "application/json"}
        for body, message in [
            (b'{"name": "ann", ', "the body is not valid JSON"),
            (b"", "the body must be a JSON object"),
            (b"[1]", "the body must be a JSON object"),
            (b'{"players": 2}', "name: is required"),
            (b'{"name": "ann", "target": "51"}', "target: must be a whole number"),
            (
                b'{"name": "a\\u202eb"}',
                "name: must not hold control, invisible or direction-changing characters (U+202E)",
            ),
            (b'{"name": "   "}', "name: must hold a character that shows"),
            (b'{"name": "a\\ud800b"}', "name: must be valid Unicode text"),
            (b'{"name": "\xff"}', "the body is not valid JSON"),
            (b'{"name": "ann", "color": 1}', "color: is not a field of the body"),
        ]:
            r = await http.post("/api/tables", content=body, headers=json_type)
            error = {"code": "bad_request", "message": message}
            assert (r.status_code, r.json()["error"]) == (400, error), body
        r = await http.post(f"/api/tables/{t['table_id']}/join", json={"name": "b", "seat": "1"})
        error = {"code": "bad_request", "message": "seat: must be a whole number"}
        assert (r.status_code, r.json()["error"]) == (400, error)
        for odd in ("1_0", "+1", "1.0", "1\n", "١", "0x1", "-1", ""):
            r = await http.get(f"/api/tables/{t['table_id']}/record", params={"match": odd})
            error = {"code": "bad_request", "message": "match: must be a match number (1, 2, ...)"}
            assert (r.status_code, r.json()["error"]) == (400, error), odd
        # a repeated parameter is refused, not read as its last value
        for method, what in (("GET", "record"), ("GET", "analysis"), ("POST", "analysis")):
            r = await http.request(
                method, f"/api/tables/{t['table_id']}/{what}?match=1&match=2&match=1"
            )
            error = {"code": "bad_request", "message": "match: given 3 times, once at most"}
            assert (r.status_code, r.json()["error"]) == (400, error), (method, what)
        big = await http.post("/api/tables", content=b"x" * 5000)
        assert big.status_code == 413 and big.json()["error"]["code"] == "too_large"

        async def chunks(size: int) -> AsyncIterator[bytes]:
            yield b'{"name": "'
            for _ in range(size // 1000):
                yield b"y" * 1000

        # A streamed body (no Content-Length) is cut off at 4 KiB as well.
        streamed = await http.post("/api/tables", content=chunks(10_000))
        assert streamed.status_code == 413
        assert streamed.json()["error"] == {
            "code": "too_large",
            "message": "request bodies are limited to 4096 bytes",
        }
        # 20 MB: past 1 MiB the server answers and closes; the sender may not even
        # see the answer before the connection is reset.  The server is unharmed.
        try:
            huge = await http.post("/api/tables", content=chunks(20_000_000))
            assert huge.status_code == 413
        except httpx.TransportError:  # reset while sending, or read cut short
            pass

        async def parts() -> AsyncIterator[bytes]:
            yield b'{"name": "ann",'
            yield b' "players": 2}'

        small = await http.post(
            "/api/tables", content=parts(), headers={"content-type": "application/json"}
        )
        assert small.status_code == 201, small.text
        deep = await http.post(
            "/api/tables",
            content=b"[" * 1100 + b"]" * 1100,
            headers={"content-type": "application/json"},
        )
        assert deep.status_code == 400 and deep.json()["error"]["code"] == "bad_request"
        wrong = await http.delete("/api/tables")
        assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"
        long = await http.get("/api/tables/" + "L" * 10_000)  # not echoed whole
        assert long.json()["error"]["message"] == f"no table {'L' * 40 + '...'!r}"
        missing = await http.get("/api/tables/NoSuchTable1")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
        early = await http.get(f"/api/tables/{t['table_id']}/record")
        assert early.status_code == 409 and early.json()["error"]["code"] == "not_finished"
        for number in (0, 1, 99):  # no match has started: match 1 does not exist yet
            none = await http.get(f"/api/tables/{t['table_id']}/record", params={"match": number})
            assert none.status_code == 404 and none.json()["error"] == {
                "code": "not_found",
                "message": f"no match {number} at this table",
            }
    p = await player(any_server, t["table_id"], t["token"], 1)
    await p.hello()
    await p.transport.send("{oops")
    assert (await p.recv())["code"] == "bad_message"
    await p.transport.send("y" * 5000)
    assert (await p.recv())["code"] == "too_large"
    # A frame over 256 KiB is cut off by the WebSocket layer; the table is unharmed.
    other = await join(any_server, t["table_id"], "p1")
    flood = await player(any_server, t["table_id"], other, 2)
    await flood.hello()
    await flood.transport.send("z" * 300_000)
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await flood.transport.recv()
    if isinstance(any_server, ServerProcess):
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    else:
        # Behind HAProxy the server's close frame (1009) can be overtaken by the reset
        # that follows it (the server drops the rest of the frame unread): on a loaded
        # machine the client saw the connection end with no close frame (rcvd None).
        rcvd = closed.value.rcvd
        assert rcvd is None or rcvd.code == 1009
    await p.send({"type": "start"})
    # The other seat's hold (60 s) is running; it plays by timeouts only if we wait,
    # so it leaves: a bot plays on (R7.5).
    quitter = Player(await connect(f"{any_server.ws}/ws/tables/{t['table_id']}"), other)
    await quitter.hello()
    await quitter.send({"type": "leave"})
    await p.run()
    assert p.over is not None


async def test_table_creation_and_joins_are_rate_limited_per_address(tmp_path: Path) -> None:
    # --http-rate 0.001: a burst of 20, then one every 1000 s; creating and joining share it.
    # (At 0.01, one every 100 s, the twenty requests took over 10 s on a loaded machine and the
    # refusal's Retry-After fell below the test's bound: the slow rate leaves room.)
    srv = ServerProcess(tmp_path / "limit.db", "--http-rate", "0.001", "--log-level", "warning")
    srv.start()
    try:
        tables = [await create(srv) for _ in range(15)]
        for seat in (1, 2, 3):
            await join(srv, tables[0]["table_id"], f"p{seat}", seat=seat)
        await join(srv, tables[1]["table_id"], "q1", seat=1)
        await join(srv, tables[1]["table_id"], "q2", seat=2)
        async with httpx.AsyncClient(base_url=srv.http) as http:
            refused = await http.post(
                "/api/tables", json={"name": "p0", "players": 2, "target": 51, "tempo": "fast"}
            )
            join_refused = await http.post(
                f"/api/tables/{tables[1]['table_id']}/join", json={"name": "q3", "seat": 3}
            )
            lobby = await http.get(f"/api/tables/{tables[1]['table_id']}")
        assert refused.status_code == 429
        error = refused.json()["error"]
        assert error["code"] == "rate_limited"
        wait = int(refused.headers["retry-after"])
        assert 900 <= wait <= 1000
        assert error["message"] == (
            f"too many tables created or seats taken from this address: try again in {wait} s"
        )
        assert join_refused.status_code == 429
        # The refused join changed nothing: seat 3 is still free.
        assert [s["kind"] for s in lobby.json()["seats"]] == ["human", "human", "human", "empty"]
    finally:
        srv.stop()


async def test_a_malformed_identity_key_is_told_apart_from_a_missing_one(
    server: ServerProcess,
) -> None:
    # From a new-user trial: a key that was sent but malformed was answered "is missing".
    async with httpx.AsyncClient(base_url=server.http) as http:
        missing = await http.get("/api/me")
        malformed = [
            await http.get("/api/me", headers={"X-Pishti-Identity": key})
            for key in ("short", "k" * 200, "!" * 43)
        ]
    assert missing.status_code == 400
    assert missing.json()["error"]["message"] == (
        "X-Pishti-Identity: the browser's identity key is missing"
    )
    for answer in malformed:
        assert answer.status_code == 400
        assert answer.json()["error"] == {
            "code": "bad_request",
            "message": (
                "X-Pishti-Identity: is not in the expected form (32 to 128 of A-Z a-z 0-9 _ -)"
            ),
        }
