"""Three nodes on a real PostgreSQL behind a real HAProxy, played by test clients
through HAProxy: a node killed mid-deck, a node paused until its leases moved
(split brain), PostgreSQL restarted mid-match.  docs/deploy.md describes each case.

Each test plays 4 matches at once in ``./dev test`` (CI time) and 30 with
``PISHTI_CLUSTER_MATCHES=30`` (docs/deploy.md gives such a run)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from cluster.conftest import LEASE, Seat, owners, table_of_four
from cluster.cut import Relay
from pishti.cluster.local import LocalCluster
from pishti.engine import card_text
from pishti.records import loads_record, replay
from server.players import leaks

MATCHES = int(os.environ.get("PISHTI_CLUSTER_MATCHES", "4"))
"""Tables of four people played at once in each failover test: 4 in ``./dev test``
(CI time); docs/deploy.md gives a run with ``PISHTI_CLUSTER_MATCHES=30``."""


def ws_of(cluster: LocalCluster) -> str:
    return cluster.url.replace("http://", "ws://")


async def start_all(
    cluster: LocalCluster, seed: int, matches: int = MATCHES
) -> list[tuple[str, list[Seat]]]:
    tables = [await table_of_four(cluster.url, ws_of(cluster), seed + n) for n in range(matches)]
    for _, seats in tables:
        await seats[0].player.send({"type": "start"})
    return tables


async def until_played(tables: list[tuple[str, list[Seat]]], plays: int) -> None:
    """Let every seat play until each table has had ``plays`` cards played."""

    def enough(p: Any) -> bool:
        return len(p.events("card_played")) >= plays

    await asyncio.gather(
        *(s.player.run(until=enough, timeout=120) for _, seats in tables for s in seats)
    )


async def check_match(cluster: LocalCluster, table_id: str, seats: list[Seat], tmp: Path) -> None:
    """The match finished, every seat saw the same end, the record replays (with
    ``pishti replay``) to the totals the clients saw, every card any client saw played
    is in the record in the same place, and nothing leaked (R7.7)."""
    async with httpx.AsyncClient(base_url=cluster.url, timeout=30) as http:
        for _ in range(100):
            r = await http.get(f"/api/tables/{table_id}/record")
            if r.status_code != 503:  # other_node while a table moves: retry
                break
            await asyncio.sleep(0.2)
    assert r.status_code == 200, r.text
    path = tmp / f"{table_id}.json"
    path.write_text(r.text)
    done = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).with_name("pishti")),
        *("replay", "--json", str(path)),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await done.communicate()
    assert done.returncode == 0
    replayed = json.loads(out)
    record = loads_record(r.text)
    overs = [s.player.over for s in seats]
    assert overs[0] is not None and all(o == overs[0] for o in overs)
    assert replayed["totals"] == overs[0]["totals"] == replay(record).totals
    plays = [card_text(c) for d in record.decks for c in d.plays]
    for s in seats:
        seen = [e["card"] for e in s.player.events("card_played")]
        assert seen == plays  # every acknowledged move is kept, in its place, none twice
        assert s.player.seat is not None
        full = [m for m in s.player.messages if m["type"] != "welcome" or not m["resumed"]]
        assert leaks(record, s.player.seat, full) == []
        for welcome in s.welcomes:
            assert welcome["resumed"] is True  # the missed events followed, gap-free


async def test_a_node_killed_mid_deck_its_tables_finish_on_the_others(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    tables = await start_all(cluster, 100)
    await until_played(tables, 6)  # mid-deck: 6 of the first deal's 16 cards
    held = owners(cluster)
    counts = {n.name: sum(1 for t, _ in tables if held[t] == n.name) for n in cluster.nodes}
    victim = next(n for n in cluster.nodes if counts[n.name] == max(counts.values()))
    moved = [t for t, _ in tables if held[t] == victim.name]
    assert moved
    killed_at = time.monotonic()
    victim.signal(signal.SIGKILL)
    await asyncio.gather(*(s.run() for _, seats in tables for s in seats))
    for table_id, seats in tables:
        await check_match(cluster, table_id, seats, tmp_path)
    now = owners(cluster)
    assert all(now[t] != victim.name for t in moved)
    for table_id, seats in tables:
        if table_id in moved:
            assert all(s.reconnects >= 1 for s in seats)
    print(
        f"failover: {len(moved)} tables of {victim.name} moved; all done "
        f"{time.monotonic() - killed_at:.1f} s after the kill"
    )
    victim.start()  # back for the next tests
    await asyncio.sleep(2)  # HAProxy marks it up (2 checks 0.5 s apart)


def stats(url: str) -> dict[str, Any]:
    found: dict[str, Any] = httpx.get(url + "/healthz", timeout=10).json()
    return found


async def test_split_brain_a_paused_node_writes_nothing_more_when_it_wakes(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    tables = await start_all(cluster, 200)
    await until_played(tables, 6)
    held = owners(cluster)
    counts = {n.name: sum(1 for t, _ in tables if held[t] == n.name) for n in cluster.nodes}
    victim = next(n for n in cluster.nodes if counts[n.name] == max(counts.values()))
    moved = [t for t, _ in tables if held[t] == victim.name]
    before = stats(victim.url)
    victim.signal(signal.SIGSTOP)
    try:
        # Its clients are cut off by HAProxy and reconnect to the others, which take
        # the leases once they expire (on PostgreSQL's clock).
        players = [asyncio.ensure_future(s.run()) for _, seats in tables for s in seats]
        deadline = time.monotonic() + 60
        while any(owners(cluster).get(t) == victim.name for t in moved):
            assert time.monotonic() < deadline, "the leases did not move"
            await asyncio.sleep(0.2)
        await asyncio.sleep(LEASE)  # its tables' clocks run out meanwhile: it has writes due
    finally:
        victim.signal(signal.SIGCONT)
    await asyncio.gather(*players)
    after = stats(victim.url)
    # It dropped every table it had lost and wrote none of the changes it made once awake.
    assert after["leases_lost"] - before["leases_lost"] == len(moved)
    assert after["writes_refused"] > before["writes_refused"]
    print(
        f"split brain: {victim.name} paused with {len(moved)} tables; awake it dropped "
        f"them and {after['writes_refused'] - before['writes_refused']} changes were refused"
    )
    for table_id, seats in tables:
        await check_match(cluster, table_id, seats, tmp_path)


async def test_postgresql_restarted_mid_match_nodes_wait_and_go_on(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    tables = await start_all(cluster, 300)
    await until_played(tables, 6)
    retries = sum(stats(n.url)["commit_retries"] for n in cluster.nodes)
    players = [asyncio.ensure_future(s.run()) for _, seats in tables for s in seats]
    await asyncio.to_thread(cluster.postgres.stop)
    await asyncio.sleep(1.0)
    await asyncio.to_thread(cluster.postgres.start)
    await asyncio.gather(*players)
    for table_id, seats in tables:
        await check_match(cluster, table_id, seats, tmp_path)
    assert sum(stats(n.url)["commit_retries"] for n in cluster.nodes) > retries


async def test_haproxy_restarted_mid_match_every_seat_reconnects_to_the_same_node(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    tables = await start_all(cluster, 500, matches=2)  # every socket is cut alike
    await until_played(tables, 6)
    held = owners(cluster)
    players = [asyncio.ensure_future(s.run()) for _, seats in tables for s in seats]
    await asyncio.to_thread(cluster.stop_haproxy)  # every socket through it is cut
    await asyncio.sleep(0.2)
    await asyncio.to_thread(cluster.start_haproxy)
    await asyncio.gather(*players)
    for table_id, seats in tables:
        await check_match(cluster, table_id, seats, tmp_path)
        assert all(s.reconnects >= 1 for s in seats)
    # The hash is the same: every table stayed on its node (no lease moved).
    assert {t: owners(cluster)[t] for t, _ in tables} == {t: held[t] for t, _ in tables}


async def test_a_node_that_does_not_hold_a_table_answers_retry_and_gets_it_handed_over(
    cluster: LocalCluster,
) -> None:
    table_id, seats = await table_of_four(cluster.url, ws_of(cluster), 400)
    owner = owners(cluster)[table_id]
    other = next(n for n in cluster.nodes if n.name != owner)
    async with httpx.AsyncClient(base_url=other.url, timeout=30) as http:
        r = await http.get(f"/api/tables/{table_id}")
        assert r.status_code == 503
        assert r.headers["retry-after"] == "1"
        assert r.json() == {
            "error": {
                "code": "other_node",
                "message": f"table {table_id} is being played on another node ({owner}): "
                "try again in a moment",
            }
        }
        # The owner hands it over at its next renewal (every LEASE / 5 s), closing
        # its seats' sockets with 1012; then the node asked has it.
        for _ in range(100):
            await asyncio.sleep(0.2)
            r = await http.get(f"/api/tables/{table_id}")
            if r.status_code == 200:
                break
        assert r.status_code == 200 and r.json()["table_id"] == table_id
    assert owners(cluster)[table_id] == other.name
    closed = seats[0].player
    try:
        while True:
            await closed.recv(timeout=10)
    except Exception as exc:
        assert "1012" in str(exc)
    for s in seats:
        await s.player.transport.close()


async def test_a_network_cut_between_a_node_and_postgresql_loses_nothing(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """Node n1 reaches PostgreSQL through a relay that is then cut for longer than its
    leases.  HAProxy still sees n1 alive, so its seats stay on it and wait; the other
    nodes take its tables up once the leases expired; when the cut heals, n1's writes
    are refused, it drops the tables and closes their sockets, and the seats end up on
    the node that plays each table, with every acknowledged move kept."""
    victim = cluster.nodes[0]
    relay = Relay(cluster.postgres.port)
    relay.start()
    victim.stop()
    victim.db_url = victim.db_url.replace(f":{cluster.postgres.port}/", f":{relay.port}/")
    victim.start()
    await asyncio.sleep(2)  # HAProxy marks it up (2 checks 0.5 s apart)
    tables = await start_all(cluster, 600, matches=2)
    for n in range(10):  # the victim must play one at least
        if any(owners(cluster)[t] == victim.name for t, _ in tables):
            break
        tables += await start_all(cluster, 700 + n, matches=1)
    await until_played(tables, 6)
    held = owners(cluster)
    cut = [t for t, _ in tables if held[t] == victim.name]
    assert cut
    before = stats(victim.url)
    players = [asyncio.ensure_future(s.run()) for _, seats in tables for s in seats]
    relay.cut()
    try:
        deadline = time.monotonic() + 60
        while any(owners(cluster).get(t) == victim.name for t in cut):
            assert time.monotonic() < deadline, "no other node took the tables up"
            await asyncio.sleep(0.2)
    finally:
        relay.heal()
    await asyncio.gather(*players)
    after = stats(victim.url)
    assert after["leases_lost"] - before["leases_lost"] == len(cut)
    assert after["writes_refused"] > before["writes_refused"]
    print(
        f"network cut: {victim.name} cut off with {len(cut)} tables; healed it dropped "
        f"them and {after['writes_refused'] - before['writes_refused']} changes were refused"
    )
    for table_id, seats in tables:
        await check_match(cluster, table_id, seats, tmp_path)
