"""People's history and ratings (docs/server.md, "History and ratings")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pishti.records import MatchRecord, read_record, replay
from pishti.server.changes import Free, Sit
from pishti.server.people import SeatHolder, identity_hash, seat_pishtis
from pishti.server.ratings import MU, SIGMA, Rating, rate_match
from pishti.server.store import FinishedMatch, Store, WriteBatch
from tests.server.test_store import new_table

RECORDS = Path(__file__).resolve().parents[1] / "records"
ANN = identity_hash("a" * 43)
BOB = identity_hash("b" * 43)


def test_ratings_move_towards_the_result() -> None:
    new = Rating()
    (w1, w2), (l1, l2) = rate_match(([new, new], [new, new]), winner=0)
    assert w1.mu > MU > l1.mu and w1 == w2 and l1 == l2
    assert w1.sigma < SIGMA and (w1.matches, l1.matches) == (1, 1)
    (a,), (b,) = rate_match(([w1], [l1]), winner=None)  # a draw pulls them together
    assert w1.mu > a.mu and b.mu > l1.mu
    (c,), _ = rate_match(([l1], [w1]), winner=0)  # an upset moves more than the favourite
    assert c.mu - l1.mu > w1.mu - rate_match(([w1], [l1]), winner=0)[0][0].mu
    with pytest.raises(ValueError):
        rate_match(([], [new]), winner=0)
    with pytest.raises(ValueError):
        rate_match(([new], [new]), winner=2)


def test_pishtis_are_counted_by_the_seat_that_made_them() -> None:
    record = read_record(RECORDS / "two_player_with_pishti.json")
    by_seat = seat_pishtis(record)
    match = replay(record)
    assert sum(by_seat) == sum(
        d.counts[0].pishtis
        + d.counts[0].jack_pishtis
        + d.counts[1].pishtis
        + d.counts[1].jack_pishtis
        for d in match.decks
        if d.counts is not None
    )
    assert by_seat == [
        sum(d.counts[0].pishtis + d.counts[0].jack_pishtis for d in match.decks if d.counts),
        sum(d.counts[1].pishtis + d.counts[1].jack_pishtis for d in match.decks if d.counts),
    ]


def _finished(
    table_id: str, record: MatchRecord, holders: list[SeatHolder], when: float
) -> WriteBatch:
    row = {
        "table_id": table_id,
        "match": 1,
        "record": json.dumps(record.as_json()),
        "finished": when,
    }
    return WriteBatch(records=[row], finished=[FinishedMatch(table_id, 1, record, holders, when)])


async def test_history_ratings_export_and_delete(db_url: str) -> None:
    store = Store(db_url)
    await store.open()
    try:
        record = read_record(RECORDS / "two_player_with_pishti.json")
        match = replay(record)
        winner = match.winner
        assert winner is not None
        await store.write(
            WriteBatch(new_tables=[new_table("t1"), new_table("t2"), new_table("t3")])
        )
        # t1: Ann (seat 0) against Bob (seat 1); t2: Ann against an expert bot;
        # t3: a person without an identity against a standard bot.
        # The table logs: at t1 Zed sat at seat 0 and left before Ann sat there.
        log = WriteBatch()
        for n, change in enumerate(
            [Sit(0, "Zed", "z" * 64), Free(0), Sit(0, "Ann", "a" * 64), Sit(1, "Bob", "b" * 64)]
        ):
            log.add_change("t1", n, n, change)
        log.add_change("t2", 0, 0, Sit(winner, "Annie", "a" * 64))
        log.add_change("t3", 0, 0, Sit(0, "Guest", "g" * 64))
        await store.write(log)
        await store.claim_seat(ANN, "Ann", "t1", 0, 0)
        await store.claim_seat(BOB, "Bob", "t1", 1, 0)
        await store.claim_seat(ANN, "Annie", "t2", winner, 0)
        people = [SeatHolder("human", "Ann", None, False), SeatHolder("human", "Bob", None, False)]
        await store.write(_finished("t1", record, people, 1000.0))
        against_bot = [SeatHolder("bot", None, "expert", False)] * 2
        against_bot[winner] = SeatHolder("human", "Annie", None, False)
        await store.write(_finished("t2", record, against_bot, 2000.0))
        guest = [
            SeatHolder("human", "Guest", None, False),
            SeatHolder("bot", None, "standard", False),
        ]
        await store.write(_finished("t3", record, guest, 3000.0))

        ann = await store.history(ANN)
        bob = await store.history(BOB)
        assert ann is not None and bob is not None
        assert ann["name"] == "Annie"  # the name last played under
        assert [(m["table_id"], m["seat"]) for m in ann["matches"]] == [("t2", winner), ("t1", 0)]
        assert [m["table_id"] for m in bob["matches"]] == ["t1"]  # never another's match
        t1 = ann["matches"][1]
        assert t1["opponents"] == [{"seat": 1, "kind": "person", "name": "Bob", "level": None}]
        assert t1["partners"] == [] and t1["replay"] == "/r/t1/1"
        assert t1["score"] == [match.totals[0], match.totals[1]]
        assert t1["result"] == ("win" if winner == 0 else "loss")
        assert ann["matches"][0]["result"] == "win"
        decks = len(match.decks)
        assert ann["figures"]["matches"] == 2 and ann["figures"]["decks"] == 2 * decks
        assert ann["figures"]["wins"] == 1 + (winner == 0)
        assert ann["figures"]["points_per_deck"] == round(
            (match.totals[0] + match.totals[winner]) / (2 * decks), 2
        )
        by_seat = seat_pishtis(record)
        assert ann["figures"]["pishtis_per_deck"] == round(
            (by_seat[0] + by_seat[winner]) / (2 * decks), 3
        )
        # Ratings: the winner of t1 went up, the loser down; the expert lost to Ann.
        won, lost = (ann, bob) if winner == 0 else (bob, ann)
        first = next(m for m in won["matches"] if m["table_id"] == "t1")
        second = next(m for m in lost["matches"] if m["table_id"] == "t1")
        assert first["rating_after"] > first["rating_before"] > second["rating_after"]
        board = await store.leaderboard(0)
        by_name = {e.get("name") or e["level"]: e for e in board}
        assert sorted(by_name) == ["Annie", "Bob", "expert", "standard"]  # no guest
        assert by_name["expert"]["rating"] < by_name["Annie"]["rating"]
        # The standard bot played the guest (at the default rating, kept nowhere).
        assert (by_name["standard"]["mu"] < MU) == (winner == 0)
        assert [e["rating"] for e in board] == sorted((e["rating"] for e in board), reverse=True)
        assert {e.get("name") for e in await store.leaderboard(2)} == {"Annie", None}
        # Export: every record of the identity, oldest first.
        rows = await store.records_of(ANN)
        assert [(r["table_id"], r["seat"]) for r in rows] == [("t1", 0), ("t2", winner)]
        assert json.loads(rows[0]["record"]) == record.as_json()
        # Delete: gone from the leaderboard, no page, the name gone from Bob's history.
        assert await store.forget(ANN) is True
        assert await store.history(ANN) is None
        assert await store.records_of(ANN) == []
        assert "Annie" not in {e.get("name") for e in await store.leaderboard(0)}
        bob = await store.history(BOB)
        assert bob is not None
        assert bob["matches"][0]["opponents"] == [
            {"seat": 0, "kind": "person", "name": None, "level": None}
        ]
        # ... and from the table logs: her sit rows are nameless, everyone else's kept.
        logs = {t: await store.load(t) for t in ("t1", "t2", "t3")}
        assert [c.get("name") for c in logs["t1"].changes] == ["Zed", None, "", "Bob"]
        assert logs["t2"].changes == [
            {"kind": "sit", "seat": winner, "name": "", "token": "a" * 64}
        ]
        assert logs["t3"].changes[0]["name"] == "Guest"
        assert await store.forget(ANN) is False
    finally:
        await store.close()
