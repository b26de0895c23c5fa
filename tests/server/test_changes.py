"""The table log's format: typed changes, versions, deck layouts (pishti.server.changes)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from pishti.bots import LEVELS, make_bot
from pishti.engine import card_text
from pishti.server.changes import (
    KINDS,
    LOG_VERSION,
    AddBot,
    Autopilot,
    Change,
    Connected,
    Deal,
    DeckLayout,
    Free,
    LogFormatError,
    Play,
    Ready,
    Rematch,
    Replace,
    Resume,
    SeatSeed,
    ServerSeed,
    Sit,
    Start,
    StopWaiting,
    Watching,
    decode,
)
from pishti.server.clock import VirtualScheduler
from pishti.server.store import Store
from pishti.server.table import CollectingSink, CorruptLog, Table, TableSettings, Timing
from tests.server.test_table import BOT_DELAY, full_json, started

LAYOUT = DeckLayout(
    2,
    (0, 1, 2, 3),
    tuple(
        tuple(tuple(4 + 16 * k + 4 * s + i for i in range(4)) for s in range(4)) for k in range(3)
    ),
)


@pytest.mark.parametrize(
    "change",
    [
        Sit(0, "Ayşe", "ab" * 32),
        AddBot(1, "novice"),
        Free(1),
        Start(),
        Start((LAYOUT,)),
        Rematch(),
        Play(2, "TD", "timeout"),
        Play(3, "JC", "autopilot", (LAYOUT,)),
        Autopilot(0, True),
        Connected(1, False),
        Replace(1, "hold"),
        Resume(),
        Ready(2),
        StopWaiting(1),
        Deal("time", (LAYOUT,)),
        Deal("ready"),
        Start((LAYOUT,), ("ab" * 16, "cd" * 16, "ef" * 16, "01" * 16)),
        Rematch(seeds=("00" * 16, "11" * 16)),
        Watching(False),
        ServerSeed(1, "5a" * 32),
        SeatSeed(3, "c4" * 16),
        Start(seeds=("ab" * 16, "cd" * 16), next_seed="e7" * 32),
        Rematch((LAYOUT,), ("00" * 16, "11" * 16), "9f" * 32),
    ],
)
def test_every_change_reads_back_from_its_stored_json(change: Change) -> None:
    stored = json.loads(json.dumps(change.as_json()))
    assert stored["kind"] == change.KIND
    assert decode(stored, LOG_VERSION) == change


def test_every_kind_is_listed_once() -> None:
    assert sorted(KINDS) == [
        "autopilot",
        "bot",
        "connected",
        "deal",
        "free",
        "play",
        "ready",
        "rematch",
        "replace",
        "resume",
        "seat_seed",
        "server_seed",
        "sit",
        "start",
        "stop_waiting",
        "watching",
    ]


def test_a_deck_layout_is_stored_as_card_text() -> None:
    data = Start((LAYOUT,)).as_json()
    assert data["decks"][0]["dealer"] == 2
    assert data["decks"][0]["middle"] == " ".join(card_text(c) for c in (0, 1, 2, 3))
    assert len(data["decks"][0]["deals"]) == 3


@pytest.mark.parametrize(
    ("data", "version", "message"),
    [
        ({"kind": "start"}, 6, "version 6 is not one this server reads (1 to 5)"),
        ({"kind": "stop_waiting", "seat": 1}, 4, "unknown change 'stop_waiting'"),
        ({"kind": "server_seed", "match": 1, "seed": "ab" * 32}, 3, "unknown change 'server"),
        ({"kind": "server_seed", "match": 1, "seed": "ab" * 16}, 4, "'seed' must be 64 lower"),
        ({"kind": "seat_seed", "seat": 1, "seed": "AB" * 16}, 4, "'seed' must be 32 lower"),
        ({"kind": "rematch", "next_server_seed": "x"}, 4, "'next_server_seed' must be 64"),
        ({"kind": "ready", "seat": 0}, 2, "unknown change 'ready'"),
        ({"kind": "deal", "reason": "soon"}, 3, "'reason' must be one of"),
        ({"kind": "start"}, 0, "version 0 is not one this server reads"),
        ({"kind": "shuffle"}, 2, "unknown change 'shuffle'"),
        ({"kind": "play", "seat": "2", "card": "TD", "how": "bot"}, 2, "'seat' must be a whole"),
        ({"kind": "play", "seat": 2, "card": "TD", "how": "magic"}, 2, "'how' must be one of"),
        ({"kind": "connected", "seat": 2, "on": 1}, 2, "'on' must be true or false"),
        ({"kind": "start", "seeds": ["AB" * 16]}, 3, "'seeds' must be a list of 32 lower-case"),
        ({"kind": "start", "seeds": "ab"}, 3, "'seeds' must be a list of 32 lower-case"),
        ({"kind": "watching"}, 3, "'on' must be true or false"),
        ({"kind": "start", "decks": [LAYOUT.as_json()]}, 1, "a version 1 change holds no decks"),
        ({"kind": "start", "decks": [{"dealer": 0, "middle": "ZZ", "deals": []}]}, 2, "ZZ"),
        (["kind", "start"], 2, "a change must be an object"),
    ],
)
def test_a_change_that_cannot_be_read_is_refused(data: object, version: int, message: str) -> None:
    with pytest.raises(LogFormatError, match=re.escape(message)):
        decode(data, version)


def _restore(changes: list[dict[str, object]], seed: str, versions: list[int] | None) -> Table:
    return Table.restore(
        "T1",
        TableSettings(4, 101, "fast"),
        seed,
        changes,
        versions,
        scheduler=VirtualScheduler(),
        sink=CollectingSink(),
        bots=make_bot,
        levels=LEVELS,
        timing=Timing(bot_delay=BOT_DELAY),
        event_buffer=100_000,
    )


def _events(table: Table) -> list[tuple[int, object]]:
    return [(n, full_json(p)) for n, p in table.events]


def test_a_log_of_this_version_replays_from_its_layouts_not_from_the_seed() -> None:
    table, clock, sink = started(humans=1, tempo="fast")
    for _ in range(400):  # through several decks
        clock.advance(15)
    decks = [c.change.as_json() for c in sink.commits if "decks" in c.change.as_json()]
    assert decks[0]["kind"] == "start" and len(decks) >= 2
    assert all(d["kind"] == "deal" for d in decks[1:])  # after each pause (R7.8)
    changes = [c.change.as_json() for c in sink.commits]
    same = _restore(changes, "another seed", None)
    assert same.match is not None and table.match is not None
    assert same.seq == table.seq and same.match.totals == table.match.totals
    # Without the layouts and the pauses (version 1), a replay deals again from
    # the seed given, and the play that ends a deck deals the next one.
    bare = [
        {k: v for k, v in c.items() if k != "decks"}
        for c in changes
        if c["kind"] not in ("ready", "deal")
    ]
    old = _restore(bare, "s1", [1] * len(bare))
    assert old.match is not None
    assert old.match.deck_number == same.match.deck_number
    assert old.match.history == same.match.history
    assert old.match.totals == same.match.totals
    assert _events(old)[-8:] != [] and "pause" not in [e["type"] for _, e in _events(old)]
    with pytest.raises(CorruptLog):
        _restore(bare, "another seed", [1] * len(bare))


def test_a_row_of_an_unknown_version_fails_naming_the_table_and_the_row() -> None:
    _table, _clock, sink = started(humans=1)
    changes = [c.change.as_json() for c in sink.commits]
    versions = [LOG_VERSION] * len(changes)
    versions[2] = 9
    with pytest.raises(CorruptLog, match=r"^table T1: row 2 \(version 9\) .*: version 9 is not"):
        _restore(changes, "s1", versions)


async def test_a_database_made_before_log_versions_reads_its_rows_as_version_1(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(
            """
            CREATE TABLE tables (id VARCHAR(32) PRIMARY KEY, players INTEGER NOT NULL,
                target INTEGER NOT NULL, tempo VARCHAR(16) NOT NULL, seed VARCHAR(64) NOT NULL,
                status VARCHAR(16) NOT NULL, created FLOAT NOT NULL, updated FLOAT NOT NULL);
            CREATE TABLE table_log (table_id VARCHAR(32) NOT NULL REFERENCES tables (id),
                n INTEGER NOT NULL, seq INTEGER NOT NULL, change TEXT NOT NULL,
                PRIMARY KEY (table_id, n));
            INSERT INTO tables VALUES ('OLDTABLE1', 4, 101, 'normal', 's1', 'waiting', 0, 0);
            INSERT INTO table_log VALUES ('OLDTABLE1', 0, 2,
                '{"kind":"sit","seat":0,"name":"ann","token":"00"}');
            """
        )
    store = Store(f"sqlite:///{db}")
    await store.open()
    try:
        stored = await store.load("OLDTABLE1")
    finally:
        await store.close()
    assert stored is not None
    assert stored.versions == [1]
    assert stored.changes == [{"kind": "sit", "seat": 0, "name": "ann", "token": "00"}]
