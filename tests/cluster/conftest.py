"""A local cluster (three nodes on the session's PostgreSQL, HAProxy in front) and
test clients that reconnect through HAProxy as the browser client does."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from pishti.cluster.local import LocalCluster
from pishti.cluster.postgres import LocalPostgres
from server.players import Closed, Player

LEASE = 2.0
"""Seconds a lease lasts in the cluster tests (5 by default)."""


@pytest.fixture(scope="module")
def cluster(postgres: LocalPostgres, request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    """Three nodes, bots without delay, leases of 2 s, HAProxy checking every 0.5 s;
    clocks 20 times faster (a normal-tempo clock is 1.5 s, a hold 3 s) so that a
    paused node has clocks run out while paused."""
    the_cluster = LocalCluster(
        3,
        postgres=postgres,
        database=f"cluster_{request.module.__name__.rsplit('.', 1)[-1]}",
        node_args=[
            *("--bot-delay", "0", "--rate", "1000", "--http-rate", "1000"),
            *("--lease", str(LEASE), "--log-level", "warning", "--time-scale", "0.05"),
        ],
    )
    try:
        the_cluster.start()
        yield the_cluster
    finally:
        the_cluster.stop()


def owners(cluster: LocalCluster) -> dict[str, str]:
    """The node that holds each table's lease, read from PostgreSQL."""
    engine = sa.create_engine(
        cluster.postgres.url(cluster.database).replace("postgresql://", "postgresql+psycopg://")
    )
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql("SELECT table_id, owner FROM leases").all()
    finally:
        engine.dispose()
    return {str(r[0]): str(r[1]) for r in rows}


@dataclass
class Seat:
    """A test client of one seat that reconnects through HAProxy when its connection
    ends, saying the last event number it saw (as the browser client does)."""

    player: Player
    ws_url: str
    reconnects: int = 0
    retries: int = 0  # connections answered other_node (close 1013) or refused
    welcomes: list[dict[str, Any]] = field(default_factory=list)

    async def rejoin(self, timeout: float = 60.0) -> None:
        p = self.player
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            try:
                p.transport = await connect(self.ws_url, open_timeout=5, max_size=2**20)
                # A first hello asks for a snapshot; a later one for what was missed.
                last_seq = p.seq if p.welcome is not None else None
                await p.send({"type": "hello", "token": p.token, "last_seq": last_seq})
                text = await asyncio.wait_for(p.transport.recv(), 10)
            except (OSError, ConnectionClosed, InvalidHandshake, InvalidStatus, TimeoutError):
                self.retries += 1
                await asyncio.sleep(0.2)
                continue
            message = json.loads(text)
            if message["type"] == "error":
                assert message["code"] == "other_node", message
                self.retries += 1
                await p.transport.close()
                await asyncio.sleep(0.2)
                continue
            assert message["type"] == "welcome", message
            if p.welcome is not None:
                self.welcomes.append(message)
                self.reconnects += 1
            p.frames.append(message)
            p.messages.append(message)
            p.apply(message)
            return
        raise TimeoutError(f"seat {p.seat} could not reconnect in {timeout} s")

    async def run(self, timeout: float = 240.0) -> None:
        """Play to the end of the match, reconnecting whenever the connection ends."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            try:
                await self.player.run(timeout=end - loop.time())
                return
            except (Closed, ConnectionClosed):
                await self.rejoin()


async def table_of_four(base: str, ws: str, seed: int, target: int = 51) -> tuple[str, list[Seat]]:
    """Create a 4-player table through HAProxy, seat four test clients, say hello."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post(
            "/api/tables", json={"name": "p0", "players": 4, "target": target, "tempo": "normal"}
        )
        assert r.status_code == 201, r.text
        table_id = r.json()["table_id"]
        tokens = [r.json()["token"]]
        for seat in (1, 2, 3):
            for _ in range(100):  # 503 other_node while the table moves: retry, as told
                j = await http.post(f"/api/tables/{table_id}/join", json={"name": f"p{seat}"})
                if j.status_code != 503:
                    break
                assert j.json()["error"]["code"] == "other_node"
                await asyncio.sleep(0.2)
            assert j.status_code == 200, j.text
            tokens.append(j.json()["token"])
    url = f"{ws}/ws/tables/{table_id}"
    seats = []
    for n, token in enumerate(tokens):
        p = Player(await connect(url, max_size=2**20), token, rng=random.Random(seed * 10 + n))
        await p.transport.close()
        seat = Seat(p, url)
        # Retried like a reconnect: a node that just came back may be handed the
        # table meanwhile (other_node, 1013).
        await seat.rejoin()
        seats.append(seat)
    return table_id, seats
