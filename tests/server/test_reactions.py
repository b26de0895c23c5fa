"""Quick reactions: presets only, relayed to the table's seats and spectators and to no one
else, one per person every 2 s, never committed or numbered (docs/protocol.md)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from pishti.server.hub import Hub
from pishti.server.reactions import PRESETS, REACTION_SECONDS, Reactions
from pishti.server.table import Table
from server.test_hub import FakeTransport, seated
from server.test_spectators import started_hub


class Client:
    """A raw client of the table protocol: it keeps every message it gets."""

    def __init__(self, hub: Hub, table: Table, token: str = "") -> None:
        self.transport = FakeTransport(hub, table.table_id)
        self.token = token
        self.got: list[dict[str, Any]] = []

    async def hello(self) -> None:
        await self.send({"type": "hello", "token": self.token})
        await self.until("welcome")

    async def send(self, message: dict[str, Any]) -> None:
        await self.transport.send(json.dumps(message))

    async def until(self, kind: str, ref: str | None = None) -> dict[str, Any]:
        """Receive up to the next message of ``kind`` (an ``error`` for ``ref``); return it."""
        while True:
            message: dict[str, Any] = json.loads(await self.transport.recv())
            self.got.append(message)
            if message["type"] == kind and (ref is None or message.get("ref") == ref):
                return message

    async def settled(self) -> list[dict[str, Any]]:
        """Every message up to the answer of a ``ping`` (so up to now): what came since
        the last call, reactions only."""
        start = len(self.got)
        await self.send({"type": "ping"})
        await self.until("pong")
        return [m for m in self.got[start:] if m["type"] == "reaction"]


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[Hub]:
    the_hub = await started_hub(tmp_path)
    yield the_hub
    await the_hub.stop()


async def at_table(hub: Hub, persons: int, start: bool = True) -> tuple[Table, list[Client]]:
    """A table of four with ``persons`` people (bots elsewhere), each connected."""
    table, tokens = await seated(hub, 4, persons)
    clients = []
    for token in tokens:
        client = Client(hub, table, token)
        await client.hello()
        clients.append(client)
    if start:
        await clients[0].send({"type": "start"})
        for client in clients:
            await client.until("event")
    return table, clients


async def test_a_reaction_goes_to_every_seat_and_spectator_of_the_table_only(hub: Hub) -> None:
    table, (ayse, mehmet) = await at_table(hub, 2)
    _, (stranger,) = await at_table(hub, 1)
    watcher = Client(hub, table)
    await watcher.send({"type": "watch"})
    await watcher.until("welcome")
    seq, log = table.seq, table.log_size
    await mehmet.send({"type": "react", "reaction": "bravo"})
    expected = {"type": "reaction", "seat": 1, "name": "p1", "reaction": "bravo"}
    assert await mehmet.settled() == [expected]  # the sender sees it too
    assert await ayse.settled() == [expected]
    assert await watcher.settled() == [expected]
    assert await stranger.settled() == []
    # Not a change of the table: no event number, nothing in the log.
    assert (table.seq, table.log_size) == (seq, log)
    assert all("seq" not in m for m in mehmet.got if m["type"] == "reaction")


async def test_one_reaction_every_two_seconds_per_person(hub: Hub) -> None:
    clock = Clock()
    hub.reactions.now = clock
    table, (ayse, mehmet) = await at_table(hub, 2)
    await ayse.send({"type": "react", "reaction": "good_game"})
    await ayse.until("reaction")
    clock.now += 1.5
    await ayse.send({"type": "react", "reaction": "laugh"})
    refused = await ayse.until("error", ref="react")
    assert refused == {
        "type": "error",
        "code": "rate_limited",
        "message": "one reaction every 2 s: try again in 0.5 s",
        "ref": "react",
    }
    # The refused one went to nobody; another person is not held up.
    await mehmet.send({"type": "react", "reaction": "wow"})
    await mehmet.until("reaction")
    await ayse.settled()
    seen = [(m["seat"], m["reaction"]) for m in ayse.got if m["type"] == "reaction"]
    assert seen == [(0, "good_game"), (1, "wow")]
    # A new connection (a reload) is the same person: still limited.
    ayse = Client(hub, table, ayse.token)
    await ayse.hello()
    clock.now += 0.4
    await ayse.send({"type": "react", "reaction": "laugh"})
    assert (await ayse.until("error", ref="react"))["code"] == "rate_limited"
    clock.now += 0.1
    await ayse.send({"type": "react", "reaction": "laugh"})
    await ayse.until("reaction")
    await mehmet.settled()
    seen = [(m["seat"], m["reaction"]) for m in mehmet.got if m["type"] == "reaction"]
    assert seen == [(0, "good_game"), (1, "wow"), (0, "laugh")]


async def test_refused_reactions_change_nothing_and_go_to_nobody(hub: Hub) -> None:
    table, (ayse, mehmet) = await at_table(hub, 2, start=False)
    await ayse.send({"type": "react", "reaction": "bravo"})
    refused = await ayse.until("error", ref="react")
    assert (refused["code"], refused["message"]) == (
        "bad_state",
        "reactions are sent while a match is played",
    )
    await ayse.send({"type": "start"})
    await ayse.until("event")
    presets = ", ".join(f'"{p}"' for p in PRESETS[:-1]) + f' or "{PRESETS[-1]}"'
    # Presets only: no free text, no other spelling, no extra field.
    for bad, why in [
        ({"reaction": "you lose"}, f"react.reaction: must be {presets}"),
        ({"reaction": "Bravo"}, f"react.reaction: must be {presets}"),
        ({"reaction": 3}, f"react.reaction: must be {presets}"),
        ({"reaction": "bravo", "text": "hi"}, "react.text: is not a field of this message"),
        ({}, "react.reaction: is required"),
    ]:
        await ayse.send({"type": "react", **bad})
        error = await ayse.until("error")
        assert error == {"type": "error", "code": "bad_message", "message": why, "ref": "react"}
    watcher = Client(hub, table)
    await watcher.send({"type": "watch"})
    await watcher.until("welcome")
    await watcher.send({"type": "react", "reaction": "bravo"})
    assert (await watcher.until("error"))["code"] == "spectator"
    assert await mehmet.settled() == []
    assert await watcher.settled() == []


def test_the_limit_is_per_person_and_forgets_those_long_quiet() -> None:
    clock = Clock()
    reactions = Reactions(clock, interval=REACTION_SECONDS)
    assert reactions.wait("T", 0) == 0.0
    reactions._last[("T", 0)] = clock.now
    assert reactions.wait("T", 0) == 2.0 and reactions.wait("T", 1) == 0.0
    assert reactions.wait("U", 0) == 0.0
    clock.now += 2.0
    assert reactions.wait("T", 0) == 0.0
    reactions._last[("T", 1)] = clock.now
    reactions._prune()
    assert list(reactions._last) == [("T", 1)]
    assert PRESETS[:4] == ("good_game", "bravo", "pishti", "come_on") and len(PRESETS) == 10
