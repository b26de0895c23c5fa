"""Provably fair deals at a table (R11): commitment first, seat seeds, records that verify,
a server seed that never leaves the server while its match is played, and a restart that
deals the same cards."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pishti.engine.fair import commitment
from pishti.records import loads_record
from pishti.records.verify import verify_record
from pishti.server.events import MatchStarted
from pishti.server.fairness import server_seed
from pishti.server.protocol import BadMessage, parse_message
from pishti.server.table import Commit, Table, TableError, hash_token
from pishti.server.views import event_json, fair_json, lobby_json, welcome_message
from tests.server.test_table import make_table

SEED_0 = "0f" * 16


def _play_out(table: Table, clock: Any, limit: float = 200_000.0) -> None:
    """Let the clocks, the autopilot and the bots play until the match is over."""
    spent = 0.0
    while table.status == "playing" and spent < limit:
        clock.advance(5.0)
        spent += 5.0
    assert table.status == "finished"


def _messages(table: Table, commits: list[Commit]) -> list[str]:
    """Everything the seats were told: each seat's copy of every event, as JSON."""
    out = []
    for commit in commits:
        for seq, payload in commit.events:
            for seat in range(table.players):
                out.append(json.dumps({"seq": seq, "event": event_json(payload, seat)}))
    return out


@pytest.mark.parametrize("players", [4, 2])
def test_two_matches_at_a_table_verify_and_keep_the_seed_secret(players: int) -> None:
    table, clock, sink = make_table(players, "fast", target=51, seed="fair-table")
    table.sit("ann", hash_token("a"), 0)
    table.connect(0)
    before = lobby_json(table)["fair"]
    assert before == {
        "match": None,
        "commitment": None,
        "seat_seeds": None,
        "next_match": 1,
        "next_commitment": commitment(server_seed("fair-table", 1)),
    }
    table.give_seed(0, SEED_0)
    table.start(0)
    for match in (1, 2):
        secret = server_seed("fair-table", match).hex()
        started = next(
            event_json(p, 0)
            for c in sink.commits
            for _, p in c.events
            if isinstance(p, MatchStarted) and p.match == match
        )
        # R11.1: the commitment published before the seeds, and the seat seeds, announced
        assert started["commitment"] == commitment(server_seed("fair-table", match))
        seeds = started["seat_seeds"]
        assert len(seeds) == players and len(set(seeds)) == players
        assert seeds[0] == (SEED_0 if match == 1 else "1e" * 16)
        assert lobby_json(table)["fair"]["seat_seeds"] == seeds
        # the seed never leaves the server while the match is played (R7.7)
        told = [*_messages(table, sink.commits), json.dumps(lobby_json(table))]
        told += [welcome_message(table, seat, resumed=False) for seat in range(players)]
        assert not [t for t in told if secret in t]
        assert all("server_seed" not in t for t in told)
        _play_out(table, clock)
        record = next(c.record for c in reversed(sink.commits) if c.record is not None)
        # the record the server writes verifies (R11.9), with the announced seeds
        checks = verify_record(loads_record(json.dumps(record.as_json())))
        assert all(c.ok for c in checks), [c.line() for c in checks if not c.ok]
        assert len(checks) == 2 + len(record.decks)
        fair = record.as_json()["fair"]
        assert fair == {
            "match": match,
            "server_seed": secret,
            "commitment": started["commitment"],
            "seat_seeds": seeds,
        }
        if match == 1:
            with pytest.raises(TableError) as bad:
                table.give_seed(0, "XY" * 16)
            assert bad.value.code == "bad_message"
            table.give_seed(0, "1e" * 16)
            assert lobby_json(table)["fair"]["next_commitment"] == commitment(
                server_seed("fair-table", 2)
            )
            table.rematch(0)


def test_seeds_are_fixed_once_the_match_is_on() -> None:
    table, _clock, sink = make_table(seed="fixed")
    table.sit("ann", hash_token("a"), 0)
    table.start(0)
    with pytest.raises(TableError) as refused:
        table.give_seed(0, SEED_0)
    assert refused.value.code == "bad_state"
    assert refused.value.message == "the seeds of the match being played are fixed"
    start = next(c.change.as_json() for c in sink.commits if c.change.KIND == "start")
    assert len(start["seeds"]) == 4


def test_a_restarted_server_deals_the_same_cards() -> None:
    table, clock, sink = make_table(seed="restart")
    table.sit("ann", hash_token("a"), 0)
    table.connect(0)
    table.give_seed(0, SEED_0)
    table.start(0)
    for _ in range(400):  # into the second deck or further
        clock.advance(5.0)
    assert table.match is not None and len(table.match.decks) >= 2
    copy, _, _ = make_table(seed="restart")
    restored = Table.restore(
        "T1",
        table.settings,
        "restart",
        [c.change.as_json() for c in sink.commits],
        scheduler=copy.scheduler,
        sink=copy.sink,
        bots=copy.turns.bots,
        levels=table.levels,
        timing=table.timing,
    )
    assert restored.match is not None
    assert [(d.dealer, d.middle, d.deals) for d in restored.match.decks] == [
        (d.dealer, d.middle, d.deals) for d in table.match.decks
    ]
    assert restored.state.fair == table.state.fair
    assert fair_json(restored) == fair_json(table)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            '{"type":"seed","seed":"ABCDEF0123456789abcdef0123456789"}',
            "seed.seed: must be 16 bytes as 32 lower-case hex digits",
        ),
        ('{"type":"seed","seed":"00"}', "seed.seed: must be 16 bytes as 32 lower-case hex digits"),
        ('{"type":"seed","seed":7}', "seed.seed: must be a string"),
        ('{"type":"seed"}', "seed.seed: is required"),
    ],
)
def test_a_malformed_seed_message_is_refused(text: str, reason: str) -> None:
    with pytest.raises(BadMessage) as bad:
        parse_message(text)
    assert (bad.value.message, bad.value.ref) == (reason, "seed")
