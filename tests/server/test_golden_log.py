"""A table log written by an earlier version of the server still restores, exactly.

``golden/table_log_v0.json`` was written once, by the server of the day, from a
scripted table that makes every kind of change (seats taken and freed, bots
added and removed, a start, plays by a player, a bot, a timeout and the
autopilot, autopilot on and off, connections lost and back, a restart, a hold
that expired, a player who left, a rematch).  It holds the rows of
``tables`` and ``table_log`` and every event the table made.  It is never
written again: a change that would rebuild stored tables differently fails here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pishti.bots import LEVELS, make_bot
from pishti.engine import Event
from pishti.server.clock import VirtualScheduler
from pishti.server.store import Store, WriteBatch
from pishti.server.table import CollectingSink, Table, Timing
from pishti.server.views import table_event_json

GOLDEN = Path(__file__).parent / "golden" / "table_log_v0.json"


def payload_json(payload: Any) -> Any:
    return payload.as_json() if isinstance(payload, Event) else table_event_json(payload, 0)


async def test_a_log_written_by_the_first_server_restores_to_the_same_events(db_url: str) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    row = golden["table"]
    store = Store(db_url)
    await store.open()
    try:
        batch = WriteBatch()
        batch.new_tables.append(
            {
                "id": row["id"],
                "players": row["players"],
                "target": row["target"],
                "tempo": row["tempo"],
                "seed": row["seed"],
                "status": row["status"],
                "created": 0.0,
                "updated": 0.0,
            }
        )
        batch.log.extend({"table_id": row["id"], **entry} for entry in golden["log"])
        await store.write(batch)
        stored = await store.load(row["id"])
    finally:
        await store.close()
    assert stored is not None
    sink = CollectingSink()
    table = Table.restore(
        stored.table_id,
        stored.settings,
        stored.seed,
        stored.changes,
        stored.versions,
        scheduler=VirtualScheduler(),
        sink=sink,
        bots=make_bot,
        levels=LEVELS,
        timing=Timing(bot_delay=0.5),
        event_buffer=10_000,
    )
    assert stored.versions == [1] * len(stored.changes)  # the first server's rows
    assert sink.commits == []
    expected = [(seq, event) for seq, event in golden["events"]]
    assert [(seq, payload_json(p)) for seq, p in table.events] == expected
    assert table.seq == 817 and table.log_size == 356
    assert table.status == "finished" and table.match_no == 2
    assert table.match is not None and table.match.winner is not None
    assert [(s.kind, s.name, s.left) for s in table.seats] == [
        ("bot", "Ayşe", True),
        ("bot", "Bob", True),
        ("bot", "bot (novice)", False),
        ("bot", "bot (standard)", False),
    ]
