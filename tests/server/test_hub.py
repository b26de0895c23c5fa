"""The hub in process (fake sockets, real database): many matches checked for leaks,
hostile input, rate limits."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from pishti.engine.cards import card_text
from pishti.records import loads_record
from pishti.server.clock import VirtualScheduler
from pishti.server.config import ServerConfig
from pishti.server.hub import Hub
from pishti.server.table import Table, TableSettings
from pishti.server.views import lobby_json
from server.players import Closed, Player, leaks


class FakeSocket:
    """The server's side of a WebSocket; the test talks to it through :class:`FakeTransport`."""

    def __init__(self) -> None:
        self.incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outgoing: asyncio.Queue[str | None] = asyncio.Queue()
        self.close_code: int | None = None

    async def receive(self) -> dict[str, Any]:
        return await self.incoming.get()

    async def send_text(self, data: str) -> None:
        self.outgoing.put_nowait(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.close_code = code
        self.incoming.put_nowait({"type": "websocket.disconnect", "code": code})
        self.outgoing.put_nowait(None)


class FakeTransport:
    def __init__(self, hub: Hub, table_id: str) -> None:
        self.socket = FakeSocket()
        self.task = asyncio.get_running_loop().create_task(hub.serve(self.socket, table_id))

    async def send(self, text: str) -> None:
        self.socket.incoming.put_nowait({"type": "websocket.receive", "text": text})

    async def send_bytes(self, data: bytes) -> None:
        self.socket.incoming.put_nowait({"type": "websocket.receive", "bytes": data})

    async def recv(self) -> str:
        item = await self.socket.outgoing.get()
        if item is None:
            raise Closed(f"closed with {self.socket.close_code}")
        return item

    async def close(self) -> None:
        self.socket.incoming.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await self.task


async def started_hub(tmp_path: Path, rate: float) -> Hub:
    config = ServerConfig(
        db_url=f"sqlite:///{tmp_path / 'hub.db'}",
        bot_delay=0.0,
        sqlite_synchronous="NORMAL",
        rate=rate,
    )
    the_hub = Hub(config)
    await the_hub.start()
    return the_hub


@pytest.fixture
async def hub(tmp_path: Path) -> Any:
    """A hub with the default rate limit (20 messages a second)."""
    the_hub = await started_hub(tmp_path, 20.0)
    yield the_hub
    await the_hub.stop()


@pytest.fixture
async def fast_hub(tmp_path: Path) -> Any:
    """A hub whose clients may play as fast as they can (bots do not wait either)."""
    the_hub = await started_hub(tmp_path, 10000.0)
    yield the_hub
    await the_hub.stop()


async def seated(hub: Hub, players: int, persons: int, target: int = 51) -> tuple[Table, list[str]]:
    table, _, token = await hub.create_table("p0", TableSettings(players, target, "normal"))
    tokens = [token]
    for seat in range(1, persons):
        tokens.append((await hub.join(table, f"p{seat}", seat))[1])
    return table, tokens


async def play_match(
    hub: Hub, seed: int, players: int, persons: int, batching: bool = False
) -> None:
    """Play one match with random persons who now and then reconnect; check every
    message each seat got against the record (R7.7).  With ``batching`` each
    connection asks for ``events`` messages or not at random."""
    rng = random.Random(seed)
    table, tokens = await seated(hub, players, persons)

    def batch() -> bool:
        return batching and rng.random() < 0.5

    clients = [
        Player(
            FakeTransport(hub, table.table_id),
            tok,
            rng=random.Random(seed * 10 + i),
            batch=batch(),
        )
        for i, tok in enumerate(tokens)
    ]
    for c in clients:
        await c.hello()
    await clients[0].send({"type": "start"})
    history: dict[int, list[dict[str, Any]]] = {}
    while True:
        # Everyone plays on until some seat has seen a few more plays ...
        goal = max(c.seq for c in clients) + rng.randint(10, 120)
        await asyncio.gather(
            *(c.run(until=lambda q, g=goal: q.over is not None or q.seq >= g) for c in clients)
        )
        if all(c.over is not None for c in clients):
            break
        # ... then one person drops and comes back, with or without its last event number.
        i = rng.randrange(len(clients))
        old = clients[i]
        await old.transport.close()
        new = Player(FakeTransport(hub, table.table_id), old.token, rng=old.rng, batch=batch())
        history.setdefault(i, []).extend(old.messages)
        resume = rng.random() < 0.5
        if resume:
            new.seq, new.hand, new.seats, new.to_play = old.seq, old.hand, old.seats, old.to_play
            new.over = old.over  # a seat that saw the end before it dropped gets no more events
            # A play sent just before the drop is not sent again.
            new._asked, new._turn_mark = old._asked, old._turn_mark
            new.messages = []
        await new.hello(last_seq=old.seq if resume else None)
        if new.welcome is not None and new.welcome["resumed"]:
            assert resume
        clients[i] = new
    found = await hub.store.record(table.table_id)
    assert found is not None
    record = loads_record(found[1])
    totals = [c.over["totals"] for c in clients if c.over is not None]
    assert all(t == totals[0] for t in totals)
    for i, c in enumerate(clients):
        assert c.seat is not None
        messages = history.get(i, []) + c.messages
        assert leaks(record, c.seat, messages) == []
        assert c.errors == []
    for c in clients:
        await c.transport.close()


async def test_no_message_to_any_seat_ever_holds_a_hidden_card(fast_hub: Hub) -> None:
    # 4 persons, 2 persons + 2 bots, 2-player matches: several of each, side by side.
    specs = [(4, 4), (4, 2), (2, 2), (4, 1), (2, 1)] * 3
    await asyncio.gather(
        *(
            play_match(fast_hub, seed, players, persons)
            for seed, (players, persons) in enumerate(specs)
        )
    )


async def test_batching_clients_see_every_event_once_and_no_hidden_card(fast_hub: Hub) -> None:
    # Every connection (reconnections too) asks for events messages or not at random.
    specs = [(4, 4), (4, 3), (2, 2)] * 2
    await asyncio.gather(
        *(
            play_match(fast_hub, 100 + seed, players, persons, batching=True)
            for seed, (players, persons) in enumerate(specs)
        )
    )


async def test_a_batching_client_gets_each_change_in_one_message(fast_hub: Hub) -> None:
    hub = fast_hub
    table, tokens = await seated(hub, 4, 4)
    clients = [
        Player(FakeTransport(hub, table.table_id), tok, rng=random.Random(i), batch=i < 2)
        for i, tok in enumerate(tokens)
    ]
    for c in clients:
        await c.hello()
    await clients[0].send({"type": "start"})
    await asyncio.gather(
        *(c.run(until=lambda q: len(q.events("card_played")) >= 30) for c in clients)
    )
    single, batched = clients[2], clients[0]  # the same team: the same copies but the hands
    first = max(c.welcome["seq"] for c in clients if c.welcome is not None)
    last = min(single.seq, batched.seq)

    # The same events with the same numbers, in order; only the dealt hands differ.
    def plain(c: Player) -> list[tuple[int, dict[str, Any]]]:
        out = []
        for m in c.messages:
            if m["type"] == "event" and first < m["seq"] <= last:
                event = dict(m["event"])
                if event["type"] == "cards_dealt":
                    event["hands"] = None
                out.append((m["seq"], event))
        return out

    assert len(plain(batched)) == last - first > 50
    assert plain(batched) == plain(single)
    # A change's events come in one message: a play's card_played up to the next clock.
    frames = [f for f in batched.frames if f["type"] == "events"]
    assert all(f["type"] in ("welcome", "events") for f in batched.frames)
    assert len(frames) < len([m for m in single.frames if m["type"] == "event"])
    plays = [f for f in frames if f["events"][0]["event"]["type"] == "card_played"]
    assert len(plays) >= 30
    for f in plays:
        assert f["events"][-1]["event"]["type"] in ("clock", "match_over"), f
        assert [e["event"]["type"] for e in f["events"]].count("card_played") == 1
    # Reconnecting with the last event number: the missed events in one message.
    await batched.transport.close()
    back = Player(FakeTransport(hub, table.table_id), tokens[0], batch=True)
    mark = batched.seq - 5
    welcome = await back.hello(last_seq=mark)
    assert welcome["resumed"] is True
    missed = json.loads(await back.transport.recv())
    assert missed["type"] == "events"
    assert [e["seq"] for e in missed["events"]] == list(range(mark + 1, welcome["seq"] + 1))
    for c in (back, *clients[1:]):
        await c.transport.close()


async def test_hostile_input_gets_clear_errors_and_changes_nothing(fast_hub: Hub) -> None:
    hub = fast_hub  # no rate limit in the way here (see the flood test)
    table, tokens = await seated(hub, 2, 2)
    a = Player(FakeTransport(hub, table.table_id), tokens[0])
    b = Player(FakeTransport(hub, table.table_id), tokens[1])
    await a.hello()
    await b.hello()
    await a.send({"type": "start"})
    await asyncio.gather(
        a.run(until=lambda q: q.to_play is not None), b.run(until=lambda q: q.to_play is not None)
    )
    mover, other = (a, b) if a.my_turn else (b, a)
    assert table.match is not None
    before = (
        table.seq,
        table.log_size,
        lobby_json(table),
        [list(h) for h in table.match.deck.hands],
    )

    async def expect(client: Player, raw: str | dict[str, Any], code: str, ref: str | None) -> None:
        await client.transport.send(raw if isinstance(raw, str) else json.dumps(raw))
        message = await client.recv()
        while message["type"] == "event":  # events of the table may come first
            message = await client.recv()
        assert message["type"] == "error", message
        assert (message["code"], message["ref"]) == (code, ref), message
        assert message["message"]

    await expect(mover, "{not json", "bad_message", None)
    await expect(mover, "[1, 2]", "bad_message", None)
    # Arrays nested 1,100 deep (2.2 KB): once a RecursionError that dropped the socket.
    await expect(mover, "[" * 1100 + "]" * 1100, "bad_message", None)
    await expect(
        mover, '{"type": "play", "card": ' + "[" * 1100 + "]" * 1100 + "}", "bad_message", None
    )
    await expect(mover, {"type": "dance"}, "bad_message", None)
    await expect(mover, {"type": "play", "card": "AS"}, "bad_message", "play")
    await expect(mover, {"type": "play", "card": "AS", "seq": "3"}, "bad_message", "play")
    await expect(mover, {"type": "play", "card": "AS", "seq": 1, "x": 1}, "bad_message", "play")
    await expect(mover, {"type": "play", "card": "XX", "seq": mover.seq}, "bad_message", "play")
    await expect(
        mover, {"type": "add_bot", "seat": 9, "level": "standard"}, "bad_message", "add_bot"
    )
    await expect(a, {"type": "start"}, "bad_state", "start")
    await expect(mover, {"type": "take_over"}, "bad_state", "take_over")
    await expect(mover, {"type": "hello", "token": tokens[0]}, "bad_state", "hello")
    await expect(b, {"type": "rematch"}, "not_owner", "rematch")
    held = other.hand[0]
    await expect(other, {"type": "play", "card": held, "seq": other.seq}, "not_your_turn", "play")
    await expect(mover, {"type": "play", "card": held, "seq": mover.seq}, "card_not_held", "play")
    await expect(mover, {"type": "play", "card": mover.hand[0], "seq": 0}, "stale", "play")
    await expect(
        mover, {"type": "play", "card": mover.hand[0], "seq": mover.seq + 5}, "stale", "play"
    )
    await expect(mover, "x" * 5000, "too_large", None)
    await mover.transport.send_bytes(b"\x00\x01")  # type: ignore[attr-defined]
    assert (await mover.recv())["code"] == "bad_message"
    after = (
        table.seq,
        table.log_size,
        lobby_json(table),
        [list(h) for h in table.match.deck.hands],
    )
    assert after == before
    # A replayed move: the first copy is played, the second is stale.
    play = {"type": "play", "card": mover.hand[0], "seq": mover.seq}
    await mover.send(play)
    await mover.run(until=lambda q: len(q.events("card_played")) == 1)
    await expect(mover, play, "stale", "play")
    assert len(table.match.deck.plays) == 1
    # A wrong token, and a message before hello.
    for first in ({"type": "hello", "token": "nope"}, {"type": "ping"}):
        intruder = FakeTransport(hub, table.table_id)
        await intruder.send(json.dumps(first))
        message = json.loads(await intruder.recv())
        assert message["type"] == "error" and message["code"] == "unauthorized"
        with pytest.raises(Closed):
            await intruder.recv()
        assert intruder.socket.close_code == 4401
    # A first frame that is binary or too large closes the socket at once (found by a
    # new-user trial: it stayed open until the hello timeout).
    for code, send in (("bad_message", "send_bytes"), ("too_large", "send")):
        intruder = FakeTransport(hub, table.table_id)
        await getattr(intruder, send)(b"\x00\x01" if send == "send_bytes" else "h" * 5000)
        assert json.loads(await intruder.recv())["code"] == code
        with pytest.raises(Closed):
            await intruder.recv()
        assert intruder.socket.close_code == 4401
    missing = FakeTransport(hub, "NoSuchTable1")
    await missing.send(json.dumps({"type": "hello", "token": tokens[0]}))
    assert json.loads(await missing.recv())["code"] == "not_found"
    assert len(table.match.deck.plays) == 1
    for c in (a, b):
        await c.transport.close()


async def test_floods_are_refused_then_closed_without_harming_others(hub: Hub) -> None:
    table, tokens = await seated(hub, 2, 2)
    a = Player(FakeTransport(hub, table.table_id), tokens[0])
    b = Player(FakeTransport(hub, table.table_id), tokens[1])
    await a.hello()
    await b.hello()
    for _ in range(60):
        await b.send({"type": "ping"})
    replies = [await b.recv()]
    while replies[-1]["type"] == "pong":
        replies.append(await b.recv())
    # A burst of 20 messages (the hello was one) is allowed, then refused with one
    # rate_limited error (a second at most).
    assert 19 <= len(replies) - 1 <= 21
    assert replies[-1]["code"] == "rate_limited"
    for _ in range(200):
        await b.send({"type": "ping"})
    with pytest.raises(Closed):
        while True:
            await b.recv()
    assert b.transport.socket.close_code == 4429  # type: ignore[attr-defined]
    # The other seat and the table are unharmed.
    await a.send({"type": "ping"})
    pong = await a.run(until=lambda q: q.messages[-1]["type"] == "pong") or a.messages[-1]
    assert pong["type"] == "pong"
    await a.send({"type": "start"})
    await a.run(until=lambda q: q.to_play is not None)
    assert table.status == "playing"
    await a.transport.close()


async def test_a_finished_table_nobody_watches_leaves_memory_and_reads_back(
    tmp_path: Path,
) -> None:
    config = ServerConfig(
        db_url=f"sqlite:///{tmp_path / 'evict.db'}", bot_delay=0.0, rate=10000, idle_unload=0.2
    )
    hub = Hub(config)
    await hub.start()
    try:
        table, _, token = await hub.create_table("p0", TableSettings(2, 51, "fast"))
        owner = Player(FakeTransport(hub, table.table_id), token, rng=random.Random(1))
        await owner.hello()
        await owner.send({"type": "add_bot", "seat": 1, "level": "novice"})
        await owner.send({"type": "start"})
        await owner.send({"type": "leave"})  # a bot takes the seat and the match plays on
        for _ in range(600):
            if table.status == "finished":
                break
            await asyncio.sleep(0.05)
        assert table.status == "finished"
        seq, lobby = table.seq, lobby_json(table)
        assert table.table_id in hub.tables
        for _ in range(100):
            if table.table_id not in hub.tables:
                break
            await asyncio.sleep(0.05)
        assert table.table_id not in hub.tables and hub.evicted == 1
        assert table.closed
        again = await hub.table(table.table_id)
        assert again is not None and again is not table
        assert (again.status, again.seq, lobby_json(again)) == ("finished", seq, lobby)
        assert await hub.store.record(table.table_id) is not None
    finally:
        await hub.stop()


async def test_a_waiting_table_at_rest_leaves_memory_and_is_read_back_on_demand(
    tmp_path: Path,
) -> None:
    """A waiting table nobody is connected to leaves memory once it has not changed for
    ``idle_unload`` seconds (a join starts the wait again); a restart does not load it;
    its lobby and a join read it back from its log."""
    clock = VirtualScheduler()
    config = ServerConfig(db_url=f"sqlite:///{tmp_path / 'rest.db'}", idle_unload=300.0)
    hub = Hub(config, scheduler=clock)
    await hub.start()
    try:
        table, _, _ = await hub.create_table("owner", TableSettings(4, 101, "normal"))
        table_id = table.table_id
        clock.advance(200.0)
        assert await hub.join(table, "early", 2) == (2, ANY)
        clock.advance(200.0)  # 400 s since it was made, 200 s since the join
        assert hub.tables.get(table_id) is table and hub.evicted == 0
        clock.advance(150.0)
        assert table_id not in hub.tables and hub.evicted == 1 and table.closed
        lobby = lobby_json(table)
        again = await hub.table(table_id)
        assert again is not None and again is not table and lobby_json(again) == lobby
        assert await hub.join(again, "late", None) == (1, ANY)
    finally:
        await hub.stop()
    hub = Hub(config, scheduler=VirtualScheduler())
    await hub.start()
    try:
        assert hub.tables == {}  # only tables being played are resumed at start
        back = await hub.table(table_id)
        assert back is not None
        assert [s["name"] for s in lobby_json(back)["seats"]] == ["owner", "late", "early", None]
    finally:
        await hub.stop()


async def test_replies_never_overtake_the_welcome_or_the_events_they_speak_of(
    fast_hub: Hub,
) -> None:
    """protocol.md: ``welcome`` is the first message of a connection, and nothing is told
    before it is committed, errors about an event included."""
    hub = fast_hub
    table, tokens = await seated(hub, 2, 2)
    a = Player(FakeTransport(hub, table.table_id), tokens[0])
    # Seat 1 says hello, then at once pings and tries to start (it is not the owner).
    b = FakeTransport(hub, table.table_id)
    await b.send(json.dumps({"type": "hello", "token": tokens[1]}))
    await b.send(json.dumps({"type": "ping"}))
    await b.send(json.dumps({"type": "start"}))
    first = [json.loads(await b.recv()) for _ in range(3)]
    assert [m["type"] for m in first] == ["welcome", "pong", "error"]
    assert (first[2]["code"], first[2]["ref"]) == ("not_owner", "start")
    await a.hello()
    await a.send({"type": "start"})
    await a.run(until=lambda q: q.to_play is not None)
    assert table.match is not None and table.to_play is not None
    log_size = table.log_size
    # The same play twice in a row: the copy's error comes after the play's event, and
    # names it as the start of the turn that the copy is too late for.
    seat = table.to_play
    mover = a.transport if seat == 0 else b
    card = card_text(table.match.deck.hands[seat][0])
    play = json.dumps({"type": "play", "card": card, "seq": table.seq})
    await mover.send(play)
    await mover.send(play)
    seen = [json.loads(await mover.recv())]
    while seen[-1]["type"] != "error":
        seen.append(json.loads(await mover.recv()))
    played = [
        m["seq"] for m in seen if m["type"] == "event" and m["event"]["type"] == "card_played"
    ]
    assert len(played) == 1 and seen[-2]["seq"] >= played[0]
    assert (seen[-1]["code"], seen[-1]["ref"]) == ("stale", "play")
    assert seen[-1]["message"].endswith(f"(it began at event {played[0]})")
    assert table.log_size == log_size + 1


async def test_a_pong_comes_after_what_the_messages_before_it_changed(fast_hub: Hub) -> None:
    """A client may send ``ping`` to learn that its earlier messages are all answered."""
    table, tokens = await seated(fast_hub, 2, 1)
    owner = Player(FakeTransport(fast_hub, table.table_id), tokens[0])
    await owner.hello()
    for message in ({"type": "add_bot", "seat": 1, "level": "novice"}, {"type": "dance"}):
        await owner.transport.send(json.dumps(message))
        await owner.transport.send(json.dumps({"type": "ping"}))
    seen = [json.loads(await owner.transport.recv())]
    while len([m for m in seen if m["type"] == "pong"]) < 2:
        seen.append(json.loads(await owner.transport.recv()))
    kinds = [m["event"]["type"] if m["type"] == "event" else m["type"] for m in seen]
    assert kinds == ["seat_changed", "pong", "error", "pong"]
