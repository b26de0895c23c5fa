"""The expert's analysis of finished matches in the server's worker processes."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from pishti.analysis import analyse_record
from pishti.records import MatchRecord, dumps_record, read_record
from pishti.server.analyses import Analyses, AnalysisBusy, record_key
from pishti.server.store import Store, WriteBatch
from serving import ServerProcess
from tests.server.test_store import new_table

RECORDS = Path(__file__).resolve().parents[1] / "records"


def _short(plays: int) -> MatchRecord:
    record = read_record(RECORDS / "tie_26.json")
    decks = (
        record.decks[0],
        dataclasses.replace(record.decks[1], plays=record.decks[1].plays[:plays]),
    )
    return MatchRecord(record.players, record.target, decks)


async def test_analyses_wait_their_turn_run_in_workers_and_are_stored(db_url: str) -> None:
    store = Store(db_url)
    await store.open()
    analyses = Analyses(store, workers=2, queue=2, samples=2, expert_samples=1, seed=4)
    try:
        await store.write(WriteBatch(new_tables=[new_table("t1"), new_table("t2")]))
        first, second = _short(6), _short(3)
        assert analyses.status(("t1", 1)) is None
        assert analyses.request(("t1", 1), dumps_record(first)) == {
            "status": "queued",
            "position": 0,
        }
        assert analyses.request(("t2", 1), dumps_record(second)) == {
            "status": "queued",
            "position": 1,
        }
        # Asking again queues nothing new; a full queue refuses another.
        assert analyses.request(("t2", 1), dumps_record(second))["position"] == 1
        with pytest.raises(AnalysisBusy):
            analyses.request(("t1", 2), dumps_record(second))
        await asyncio.sleep(0)
        assert analyses.status(("t1", 1)) == {"status": "running", "decks_done": 0, "decks": 2}
        assert analyses.status(("t2", 1)) == {"status": "queued", "position": 1}
        for _ in range(1200):
            if analyses.status(("t2", 1)) is None:
                break
            await asyncio.sleep(0.1)
        assert analyses.status(("t1", 1)) is None
        for key, record in ((("t1", 1)), first), ((("t2", 1)), second):
            stored = await store.analysis(*key)
            assert stored is not None
            assert json.loads(stored) == analyse_record(record, samples=2, seed=4, expert_samples=1)
        assert await store.analysis("t1", 2) is None
        # A record file's analysis (keep): the same analysis, kept in memory, not stored.
        key = record_key("ab" * 32)
        third = _short(2)
        assert analyses.request(key, dumps_record(third), keep=True)["status"] == "queued"
        for _ in range(1200):
            if analyses.status(key) is None:
                break
            await asyncio.sleep(0.1)
        kept_text = analyses.kept(key)
        assert kept_text is not None
        assert json.loads(kept_text) == analyse_record(third, samples=2, seed=4, expert_samples=1)
        assert await store.analysis(*key) is None
        # Stored once: a second save of the same match keeps the first.
        kept = await store.analysis("t1", 1)
        await store.save_analysis("t1", 1, "{}")
        assert await store.analysis("t1", 1) == kept
    finally:
        await analyses.close()
        await store.close()


def _children(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (Linux)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_sigterm_during_an_analysis_stops_the_server_at_once(tmp_path: Path) -> None:
    """Stopping the server does not wait for the deck a worker is analysing (it waited
    for it, about 25 s at load): the worker process is ended, the server exits."""
    # A budget that keeps the worker on the first deck for many minutes.
    server = ServerProcess(
        tmp_path / "pishti.db", "--analysis-samples", "100000", "100", "--log-level", "warning"
    )
    server.start()
    assert server.proc is not None
    children: list[int] = []
    try:
        r = httpx.post(
            server.http + "/api/analysis",
            content=(RECORDS / "tie_26.json").read_bytes(),
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 202, r.text
        digest = r.json()["id"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not children:
            status = httpx.get(f"{server.http}/api/analysis/{digest}").json()
            assert status["status"] in ("queued", "running"), status
            children = _children(server.proc.pid)  # the worker (and multiprocessing's tracker)
            time.sleep(0.1)
        assert children, "no worker process started"
        assert httpx.get(f"{server.http}/api/analysis/{digest}").json()["status"] == "running"
        started = time.monotonic()
        server.proc.terminate()
        server.proc.wait(30)  # a guard against the wait for the deck (minutes), not a timing
        stopped = time.monotonic() - started
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(pid) for pid in children):
            time.sleep(0.1)
        left = [pid for pid in children if _alive(pid)]
    finally:
        server.stop()
        for pid in children:  # never left computing behind a failed test
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert stopped < 30 and left == [], server.log.read_text()[-2000:]
    assert "Traceback" not in server.log.read_text()
