"""Spectators (R7.7): they see what is public and nothing else, cannot act, do not change
what a seat is told, and the owner may turn watching off; a table takes a limited number."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from pishti.records import MatchRecord, loads_record
from pishti.server.config import ServerConfig
from pishti.server.hub import Hub
from pishti.server.table import CollectingSink, Table
from pishti.server.views import BatchRenderer, lobby_json
from server.players import Closed, Player, cards_in, leaks, placed, visible_timeline
from server.test_hub import FakeTransport, seated
from tests.server.test_table import make_table


class Spectator(Player):
    """A spectator's client: ``watch`` instead of ``hello``; it never plays."""

    def __init__(self, transport: FakeTransport, batch: bool = False) -> None:
        super().__init__(transport, "", autoplay=False, batch=batch)

    async def watch(self, last_seq: int | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "watch", "last_seq": last_seq}
        if self.batch:
            message["batch"] = True
        await self.send(message)
        welcome = await self.recv()
        assert welcome["type"] == "welcome", welcome
        return welcome

    def _event(self, event: dict[str, Any]) -> None:
        if event["type"] == "cards_dealt":
            assert all(hand == [] for hand in event["hands"]), event
            return
        super()._event(event)


def public_leaks(record: MatchRecord, messages: list[dict[str, Any]]) -> list[str]:
    """The cards in a spectator's messages that were not public at the time (R7.7): what
    every seat may see alike (the cards played and the face-up cards), nothing else."""
    timeline = visible_timeline(record)
    problems = []
    for n, g, message in placed(messages, until_rematch=False):
        allowed = set.intersection(*timeline[min(g, len(timeline) - 1)])
        bad = sorted(set(cards_in(message, [])) - allowed)
        if bad:
            problems.append(f"message {n} ({message['type']}): {bad} in {message}")
    return problems


async def started_hub(tmp_path: Path, max_watchers: int = 200) -> Hub:
    config = ServerConfig(
        db_url=f"sqlite:///{tmp_path / 'watch.db'}",
        bot_delay=0.0,
        sqlite_synchronous="NORMAL",
        rate=10000.0,
        max_watchers=max_watchers,
    )
    hub = Hub(config)
    await hub.start()
    return hub


async def watched_match(hub: Hub, seed: int, players: int, persons: int) -> None:
    """A match with ``persons`` people, bots elsewhere, and three spectators: one from the
    start, one who comes late, one who drops and comes back (half the time resuming)."""
    rng = random.Random(seed)
    table, tokens = await seated(hub, players, persons)
    clients = [
        Player(FakeTransport(hub, table.table_id), tok, rng=random.Random(seed * 10 + i))
        for i, tok in enumerate(tokens)
    ]
    for c in clients:
        await c.hello()
    early = Spectator(FakeTransport(hub, table.table_id), batch=rng.random() < 0.5)
    welcome = await early.watch()
    assert (welcome["seat"], welcome["team"], welcome["owner"], welcome["watching"]) == (
        None,
        None,
        False,
        True,
    )
    await clients[0].send({"type": "start"})
    watchers = [early]
    goal = rng.randint(20, 80)
    await asyncio.gather(
        *(c.run(until=lambda q: q.over is not None or q.seq >= goal) for c in clients),
        early.run(until=lambda q: q.over is not None or q.seq >= goal),
    )
    late = Spectator(FakeTransport(hub, table.table_id))
    welcome = await late.watch()
    if welcome["view"] is not None:
        assert welcome["view"]["hand"] == [] and welcome["view"]["face_down"] is None
    watchers.append(late)
    # the early one drops and comes back
    await early.transport.close()
    again = Spectator(FakeTransport(hub, table.table_id))
    resume = rng.random() < 0.5
    if resume:
        again.seq, again.messages = early.seq, []
    await again.watch(last_seq=early.seq if resume else None)
    watchers[0] = again
    await asyncio.gather(*(c.run() for c in clients), *(w.run() for w in watchers))
    found = await hub.store.record(table.table_id)
    assert found is not None
    record = loads_record(found[1])
    # a resumed spectator's messages follow on from those before it dropped
    histories = [early.messages + again.messages if resume else again.messages, late.messages]
    histories.append(early.messages)
    for messages in histories:
        assert public_leaks(record, messages) == []
    for w in [early, *watchers]:
        assert w.errors == []
    for w in watchers:
        assert w.over is not None and w.over["totals"] == clients[0].over["totals"]  # type: ignore[index]
    for c in clients:
        # seats: nothing hidden, every event numbered one after another (Player checks),
        # and told how many watch
        assert c.seat is not None
        assert leaks(record, c.seat, c.messages) == []
        assert c.errors == []
        assert {m["count"] for m in c.messages if m["type"] == "watchers"} >= {1, 2}
    for t in [*clients, *watchers]:
        await t.transport.close()


async def test_spectators_see_only_what_is_public(tmp_path: Path) -> None:
    hub = await started_hub(tmp_path)
    try:
        specs = [(4, 2), (4, 1), (2, 1), (4, 4)]
        await asyncio.gather(
            *(watched_match(hub, seed, p, persons) for seed, (p, persons) in enumerate(specs))
        )
    finally:
        await hub.stop()


async def test_spectators_cannot_act_and_the_owner_turns_watching_off(tmp_path: Path) -> None:
    hub = await started_hub(tmp_path, max_watchers=2)
    try:
        table, tokens = await seated(hub, 4, 2)
        owner = Player(FakeTransport(hub, table.table_id), tokens[0], autoplay=False)
        guest = Player(FakeTransport(hub, table.table_id), tokens[1], autoplay=False)
        await owner.hello()
        await guest.hello()
        spectator = Spectator(FakeTransport(hub, table.table_id))
        await spectator.watch()
        await owner.send({"type": "start"})
        await owner.run(until=lambda q: q.to_play is not None)
        seq = table.seq
        refused = [
            {"type": "play", "card": "AS", "seq": seq},
            {"type": "start"},
            {"type": "continue", "deck": 0},
            {"type": "seed", "seed": "00" * 16},
            {"type": "watching", "on": False},
            {"type": "leave"},
            {"type": "take_over"},
            {"type": "hello", "token": tokens[0]},
        ]
        for message in refused:
            await spectator.send(message)
        await spectator.send({"type": "closing"})  # a page closing: ignored, no error
        await spectator.send({"type": "ping"})
        while not any(m["type"] == "pong" for m in spectator.messages):
            await spectator.recv()
        errors = [m for m in spectator.messages if m["type"] == "error"]
        assert [(e["code"], e["ref"]) for e in errors] == [
            ("spectator", m["type"]) for m in refused
        ]
        assert errors[0]["message"] == "a spectator cannot act at the table"
        assert table.seats[0].kind == "human" and table.state.watching
        # a second spectator; a third is one too many
        second = Spectator(FakeTransport(hub, table.table_id))
        await second.watch()
        third = Spectator(FakeTransport(hub, table.table_id))
        await third.send({"type": "watch"})
        error = await third.recv()
        assert (error["code"], error["message"]) == (
            "watchers_full",
            "this table has 2 spectators already",
        )
        with pytest.raises(Closed):
            await third.recv()
        assert third.transport.socket.close_code == 4411
        assert lobby_json(table)["watchers"] == 2
        # only the owner turns watching off; those watching are closed (4410)
        await guest.send({"type": "watching", "on": False})
        error = await guest.recv()
        while error["type"] != "error":
            error = await guest.recv()
        assert error["code"] == "not_owner"
        await owner.send({"type": "watching", "on": False})
        with pytest.raises(Closed):
            while True:
                await spectator.recv()
        assert spectator.transport.socket.close_code == 4410
        assert any(
            m["type"] == "event" and m["event"] == {"type": "watching", "on": False}
            for m in spectator.messages
        )
        refused_one = Spectator(FakeTransport(hub, table.table_id))
        await refused_one.send({"type": "watch"})
        error = await refused_one.recv()
        assert error["code"] == "watching_off"
        assert lobby_json(table)["watching"] is False
        await owner.send({"type": "watching", "on": True})
        back = Spectator(FakeTransport(hub, table.table_id))
        await asyncio.sleep(0.05)
        await back.watch()
        for t in (owner, guest, second, back):
            await t.transport.close()
    finally:
        await hub.stop()


def test_seat_messages_are_the_same_with_or_without_spectators() -> None:
    """The seats' copies of every event of a whole match do not depend on a spectator's
    copy being rendered first (R7.7: one place decides, and nothing is shared wrongly)."""
    table, clock, sink = make_table(seed="same")
    table.sit("ann", "h", 0)
    table.start(0)
    for _ in range(3000):
        if table.status != "playing":
            break
        clock.advance(5.0)
    commits = sink.commits
    for commit in commits:
        plain = BatchRenderer(commit.events)
        watched = BatchRenderer(commit.events)
        spectator = [*watched.messages(None), watched.batch(None)]
        for seat in range(4):
            assert plain.messages(seat) == watched.messages(seat)
            assert plain.batch(seat) == watched.batch(seat)
        for text in spectator:
            for item in json.loads(text).get("events", [json.loads(text)]):
                event = item["event"]
                if event["type"] == "cards_dealt":
                    assert all(h == [] for h in event["hands"])
                if event["type"] in ("deck_started", "pile_captured"):
                    assert event.get("middle") is None and event.get("face_down") is None


def test_watching_survives_a_restart() -> None:
    table, _clock, sink = make_table(seed="w")
    table.sit("ann", "h", 0)
    table.set_watching(0, False)
    assert [c.change.as_json() for c in sink.commits][-1] == {"kind": "watching", "on": False}
    copy, _, _ = make_table(seed="w")
    restored = Table.restore(
        "T1",
        table.settings,
        "w",
        [c.change.as_json() for c in sink.commits],
        scheduler=copy.scheduler,
        sink=CollectingSink(),
        bots=copy.turns.bots,
        levels=table.levels,
    )
    assert restored.state.watching is False
