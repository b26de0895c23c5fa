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
from pishti.server.changes import Rematch, SeatSeed, ServerSeed, Start
from pishti.server.events import MatchStarted
from pishti.server.fairness import derived_server_seed
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


def _server_seeds(commits: list[Commit]) -> list[str]:
    """The server seeds the table drew, in order: the first match's (its first change),
    then each next match's (held by each start or rematch)."""
    out = []
    for c in commits:
        if isinstance(c.change, ServerSeed):
            out.append(c.change.seed)
        elif isinstance(c.change, Start | Rematch):
            out.append(c.change.next_seed)
    return out


def _restore(table: Table, commits: list[Commit]) -> Table:
    """The table a restarted server rebuilds from ``table``'s log."""
    copy, _, _ = make_table(table.players, seed=table.seed)
    return Table.restore(
        "T1",
        table.settings,
        table.seed,
        [c.change.as_json() for c in commits],
        scheduler=copy.scheduler,
        sink=copy.sink,
        bots=copy.turns.bots,
        levels=table.levels,
        timing=table.timing,
    )


@pytest.mark.parametrize("players", [4, 2])
def test_two_matches_at_a_table_verify_and_keep_the_seed_secret(players: int) -> None:
    table, clock, sink = make_table(players, "fast", target=51, seed="fair-table")
    table.draw_first_seed()
    table.sit("ann", hash_token("a"), 0)
    table.connect(0)
    first = _server_seeds(sink.commits)
    assert len(first) == 1 and len(first[0]) == 64
    before = lobby_json(table)["fair"]
    assert before == {
        "match": None,
        "commitment": None,
        "seat_seeds": None,
        "next_match": 1,
        "next_commitment": commitment(bytes.fromhex(first[0])),
    }
    table.give_seed(0, SEED_0)
    table.start(0)
    for match in (1, 2):
        # R11.1: 32 fresh bytes per match, drawn before that match's seat seeds
        drawn = _server_seeds(sink.commits)
        assert len(drawn) == match + 1 and len(set(drawn)) == match + 1
        secret = drawn[match - 1]
        assert secret != derived_server_seed("fair-table", match).hex()
        started = next(
            event_json(p, 0)
            for c in sink.commits
            for _, p in c.events
            if isinstance(p, MatchStarted) and p.match == match
        )
        # R11.1: the commitment published before the seeds, and the seat seeds, announced
        assert started["commitment"] == commitment(bytes.fromhex(secret))
        assert started["next_commitment"] == commitment(bytes.fromhex(drawn[match]))
        seeds = started["seat_seeds"]
        assert len(seeds) == players and len(set(seeds)) == players
        assert seeds[0] == (SEED_0 if match == 1 else "1e" * 16)
        assert lobby_json(table)["fair"]["seat_seeds"] == seeds
        # the seed never leaves the server while the match is played (R7.7)
        told = [*_messages(table, sink.commits), json.dumps(lobby_json(table))]
        told += [welcome_message(table, seat, resumed=False) for seat in range(players)]
        assert not [t for t in told if secret in t or drawn[match] in t]
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
            assert lobby_json(table)["fair"]["next_commitment"] == started["next_commitment"]
            table.rematch(0)


def test_the_first_server_seed_is_the_first_change() -> None:
    table, _clock, _sink = make_table()
    table.sit("ann", hash_token("a"), 0)
    with pytest.raises(TableError) as late:
        table.draw_first_seed()
    assert late.value.code == "bad_state"


def test_a_table_made_before_the_seeds_were_stored_keeps_its_published_commitments() -> None:
    """A log with no server seed (an older table) deals match 1 from the seed derived
    from its secret, whose commitment it published; match 2 gets a fresh one."""
    table, clock, sink = make_table(2, "fast", target=51, seed="old-table")
    table.sit("ann", hash_token("a"), 0)
    table.connect(0)
    derived = derived_server_seed("old-table", 1)
    assert lobby_json(table)["fair"]["next_commitment"] == commitment(derived)
    table.start(0)
    assert table.state.fair is not None and table.state.fair.server_seed == derived
    fresh = _server_seeds(sink.commits)[0]
    assert lobby_json(table)["fair"]["next_commitment"] == commitment(bytes.fromhex(fresh))
    _play_out(table, clock)
    table.rematch(0)
    assert table.state.fair.server_seed.hex() == fresh


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


def test_a_restarted_server_deals_the_same_cards_and_reveals_the_same_seed() -> None:
    table, clock, sink = make_table(seed="restart")
    table.draw_first_seed()
    table.sit("ann", hash_token("a"), 0)
    table.connect(0)
    table.give_seed(0, SEED_0)
    table.start(0)
    while table.match is not None and len(table.match.decks) < 2:  # into the second deck
        clock.advance(5.0)
    assert table.status == "playing" and table.match is not None
    restored = _restore(table, sink.commits)
    assert restored.match is not None
    assert [(d.dealer, d.middle, d.deals) for d in restored.match.decks] == [
        (d.dealer, d.middle, d.deals) for d in table.match.decks
    ]
    assert restored.state.fair == table.state.fair
    assert fair_json(restored) == fair_json(table)
    # the restarted table plays the match out and reveals the seed drawn before it
    restored.resume()
    _play_out(restored, restored.scheduler)
    records = [c.record for c in restored.sink.commits if c.record is not None]
    assert len(records) == 1
    fair = records[0].as_json()["fair"]
    assert fair["server_seed"] == _server_seeds(sink.commits)[0]
    assert fair["seat_seeds"][0] == SEED_0


def test_a_seat_seed_sent_before_the_start_survives_a_restart() -> None:
    table, _clock, sink = make_table(seed="lobby")
    table.draw_first_seed()
    table.sit("ann", hash_token("a"), 0)
    table.sit("bob", hash_token("b"), 1)
    table.give_seed(0, SEED_0)
    table.give_seed(1, "2b" * 16)
    table.give_seed(1, "2b" * 16)  # the same seed again is no new change
    table.give_seed(0, "3c" * 16)  # a later seed replaces the earlier one
    assert [c.change for c in sink.commits if isinstance(c.change, SeatSeed)] == [
        SeatSeed(0, SEED_0),
        SeatSeed(1, "2b" * 16),
        SeatSeed(0, "3c" * 16),
    ]
    table.leave(1)  # a person who goes takes their seed along
    table.sit("cem", hash_token("c"), 1)
    restored = _restore(table, sink.commits)
    assert restored.state.seat_seeds == {0: "3c" * 16}
    restored.start(0)
    started = next(
        p for c in restored.sink.commits for _, p in c.events if isinstance(p, MatchStarted)
    )
    assert started.seat_seeds[0] == "3c" * 16
    assert started.seat_seeds[1] != "2b" * 16
    assert started.commitment == commitment(bytes.fromhex(_server_seeds(sink.commits)[0]))


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
