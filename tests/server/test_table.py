"""The table state machine in virtual time (R7): turns, clocks, timeouts, autopilot, holds."""

from __future__ import annotations

from typing import Any

import pytest

from pishti.bots import LEVELS, make_bot
from pishti.engine import Event, card_text, seat_view
from pishti.records import replay
from pishti.server.clock import VirtualScheduler
from pishti.server.events import Payload
from pishti.server.table import (
    CollectingSink,
    Table,
    TableError,
    TableSettings,
    Timing,
    hash_token,
)
from pishti.server.views import clock_json, table_event_json

BOT_DELAY = 0.5


def full_json(payload: Payload) -> dict[str, Any]:
    """An event with every card (an engine event unfiltered), as JSON."""
    return payload.as_json() if isinstance(payload, Event) else table_event_json(payload, 0)


def make_table(
    players: int = 4, tempo: str = "normal", target: int = 101, seed: str = "s1"
) -> tuple[Table, VirtualScheduler, CollectingSink]:
    clock = VirtualScheduler()
    sink = CollectingSink()
    table = Table(
        "T1",
        TableSettings(players, target, tempo),
        seed,
        scheduler=clock,
        sink=sink,
        bots=make_bot,
        levels=LEVELS,
        timing=Timing(bot_delay=BOT_DELAY),
    )
    return table, clock, sink


def types(commits: list[Any]) -> list[str]:
    out = []
    for commit in commits:
        for _, payload in commit.events:
            out.append(payload.type)
    return out


def started(
    players: int = 4, humans: int = 1, tempo: str = "normal", seed: str = "s1"
) -> tuple[Table, VirtualScheduler, CollectingSink]:
    """A started table: persons at seats 0..humans-1 (connected), standard bots elsewhere."""
    table, clock, sink = make_table(players, tempo, seed=seed)
    for seat in range(humans):
        table.sit(f"p{seat}", hash_token(f"tok{seat}"), seat)
        table.connect(seat)
    table.start(0)
    return table, clock, sink


def advance_to_seat(table: Table, clock: VirtualScheduler, seat: int) -> None:
    """Let bots play (virtual time) until ``seat`` is to play."""
    for _ in range(200):
        if table.to_play == seat:
            return
        clock.advance(BOT_DELAY)
    raise AssertionError("the seat never came to play")


def standard_card(table: Table, seat: int) -> str:
    assert table.match is not None
    return card_text(make_bot("standard", 0).choose(seat_view(table.match, seat)))


def test_create_sit_add_bots_and_start_events() -> None:
    table, _clock, sink = make_table()
    assert table.sit("ann", hash_token("a"), None) == 0
    assert table.owner == 0
    table.add_bot(0, 1, "novice")
    table.start(0)
    assert types(sink.commits) == [
        "seat_changed",
        "owner_changed",
        "seat_changed",
        "seat_changed",  # R7.6: empty seats 2 and 3 get standard bots
        "seat_changed",
        "match_started",
        "deck_started",
        "cards_dealt",
        "clock",
    ]
    assert [s.kind for s in table.seats] == ["human", "bot", "bot", "bot"]
    assert [s.level for s in table.seats] == [None, "novice", "standard", "standard"]
    assert table.status == "playing"
    assert table.seq == 9
    # The change that gave the first turn began with the seat_changed of seat 2.
    assert table.turn_seq == 4
    assert [c.change.as_json()["kind"] for c in sink.commits] == ["sit", "bot", "start"]


def test_same_seeds_same_deal_and_other_seed_other_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    # R11: the deal comes from the table's server seed and the seat seeds only.
    monkeypatch.setattr("pishti.server.table.draw_seat_seed", lambda: "ab" * 16)
    a, _, _ = started(seed="x")
    b, _, _ = started(seed="x")
    c, _, _ = started(seed="y")
    assert a.match is not None and b.match is not None and c.match is not None
    assert a.match.deck.deals == b.match.deck.deals
    assert a.match.deck.deals != c.match.deck.deals
    d, _, _ = make_table(seed="x")
    d.sit("p0", hash_token("tok0"), 0)
    d.give_seed(0, "cd" * 16)
    d.start(0)
    assert d.match is not None and d.match.deck.deals != a.match.deck.deals


def test_owner_only_actions_and_bad_states() -> None:
    table, _clock, sink = make_table()
    table.sit("ann", hash_token("a"))
    table.sit("bob", hash_token("b"), 2)
    before = len(sink.commits)
    with pytest.raises(TableError) as err:
        table.add_bot(2, 1, "standard")
    assert err.value.code == "not_owner"
    with pytest.raises(TableError) as err:
        table.add_bot(0, 2, "standard")
    assert err.value.code == "seat_taken"
    with pytest.raises(TableError) as err:
        table.add_bot(0, 1, "grandmaster")
    assert err.value.code == "bad_message"
    with pytest.raises(TableError) as err:
        table.remove_bot(0, 1)
    assert err.value.code == "bad_state"
    with pytest.raises(TableError) as err:
        table.start(2)
    assert err.value.code == "not_owner"
    with pytest.raises(TableError) as err:
        table.sit("cat", hash_token("c"), 2)
    assert err.value.code == "seat_taken"
    assert len(sink.commits) == before
    table.add_bot(0, 1, "random")
    table.remove_bot(0, 1)
    assert table.seats[1].kind == "empty"
    table.start(0)
    with pytest.raises(TableError) as err:
        table.start(0)
    assert err.value.code == "bad_state"
    with pytest.raises(TableError) as err:
        table.sit("cat", hash_token("c"))
    assert err.value.code == "bad_state"


def test_owner_leaving_before_the_start_passes_ownership() -> None:
    table, _clock, sink = make_table()
    table.sit("ann", hash_token("a"))
    table.sit("bob", hash_token("b"), 3)
    table.leave(0)
    assert table.seats[0].kind == "empty"
    assert table.owner == 3
    assert types(sink.commits)[-2:] == ["seat_changed", "owner_changed"]
    table.leave(3)
    assert table.owner is None
    table.sit("cat", hash_token("c"), 1)
    assert table.owner == 1


def test_a_play_is_accepted_only_from_the_seat_to_play_with_a_held_card() -> None:
    table, clock, sink = started(humans=4)
    assert table.match is not None
    seat = table.to_play
    assert seat is not None
    other = (seat + 1) % 4
    hand = [card_text(c) for c in table.match.hand(seat)]
    not_held = next(card_text(c) for c in table.match.hand(other))
    state = (table.seq, table.log_size, len(sink.commits), table.match.deck.plays[:])

    def refused(code: str, who: int, card: str, seq: int) -> None:
        with pytest.raises(TableError) as err:
            table.play(who, card, seq)
        assert err.value.code == code
        assert (table.seq, table.log_size, len(sink.commits), table.match.deck.plays) == state

    refused("not_your_turn", other, hand[0], table.seq)
    refused("card_not_held", seat, not_held, table.seq)
    refused("bad_message", seat, "ZZ", table.seq)
    refused("stale", seat, hand[0], table.turn_seq - 1)
    refused("stale", seat, hand[0], table.seq + 1)
    turn_seq = table.seq
    table.play(seat, hand[0].lower(), turn_seq)
    assert sink.commits[-1].change.as_json() == {
        "kind": "play",
        "seat": seat,
        "card": hand[0],
        "how": "player",
    }
    # The same move sent again is stale, never applied twice.
    before = table.seq
    with pytest.raises(TableError) as err:
        table.play(seat, hand[1], turn_seq)
    assert err.value.code == "stale"
    assert table.seq == before
    # The next seat may answer any event from the first one of its turn on.
    nxt = table.to_play
    assert nxt == other
    table.play(nxt, card_text(table.match.hand(nxt)[0]), table.turn_seq)
    assert clock.pending()  # the next clock runs


def test_timeout_plays_the_standard_bots_card_and_three_in_a_row_mean_autopilot() -> None:
    table, clock, sink = started(humans=1, tempo="fast")
    advance_to_seat(table, clock, 0)
    for n in range(1, 4):
        expected = standard_card(table, 0)
        clock.advance(14.999)
        assert table.to_play == 0  # R7.1: 15 s a card at fast tempo
        clock.advance(0.001)
        timeouts = [c for c in sink.commits if c.change.as_json().get("how") == "timeout"]
        assert len(timeouts) == n
        assert timeouts[-1].change.as_json() == {
            "kind": "play",
            "seat": 0,
            "card": expected,
            "how": "timeout",
        }
        kinds = types([timeouts[-1]])
        assert kinds[0] == "timeout" and kinds[1] == "card_played"
        assert table.seats[0].timeouts == n
        assert table.seats[0].autopilot is (n == 3)
        if n < 3:
            advance_to_seat(table, clock, 0)
    assert "autopilot" in types([timeouts[-1]])
    # R7.3: on autopilot the table plays without waiting out the clock.
    advance_to_seat(table, clock, 0)
    seq_before = table.seq
    clock.advance(BOT_DELAY)
    last = sink.commits[-1]
    assert last.change.as_json()["how"] == "autopilot" and last.change.as_json()["seat"] == 0
    assert table.seq > seq_before
    # Take over: the seat is the player's again and its clock runs.
    table.take_over(0)
    assert not table.seats[0].autopilot and table.seats[0].timeouts == 0
    assert types([sink.commits[-1]]) == ["autopilot", "seat_changed"]
    advance_to_seat(table, clock, 0)
    clock.advance(BOT_DELAY)
    assert table.to_play == 0  # not played for: the clock runs again
    with pytest.raises(TableError) as err:
        table.take_over(0)
    assert err.value.code == "bad_state"


def test_timeouts_must_be_in_a_row() -> None:
    table, clock, _sink = started(humans=1, tempo="fast")
    for _ in range(2):
        advance_to_seat(table, clock, 0)
        clock.advance(15)
    assert table.seats[0].timeouts == 2
    advance_to_seat(table, clock, 0)
    assert table.match is not None
    table.play(0, card_text(table.match.hand(0)[0]), table.seq)
    assert table.seats[0].timeouts == 0
    for _ in range(2):
        advance_to_seat(table, clock, 0)
        clock.advance(15)
    assert table.seats[0].timeouts == 2 and not table.seats[0].autopilot


def test_playing_a_card_clears_autopilot() -> None:
    table, clock, sink = started(humans=1, tempo="fast")
    for _ in range(3):
        advance_to_seat(table, clock, 0)
        clock.advance(15)
    assert table.seats[0].autopilot
    advance_to_seat(table, clock, 0)
    assert table.match is not None
    # Within the autopilot's short delay, the player plays a card himself (R7.3).
    table.play(0, card_text(table.match.hand(0)[0]), table.seq)
    assert not table.seats[0].autopilot
    assert types([sink.commits[-1]])[:3] == ["autopilot", "seat_changed", "card_played"]


def test_lost_connection_holds_the_seat_60_s_then_a_bot_takes_it_for_good() -> None:
    table, clock, sink = started(humans=2, tempo="fast")
    table.disconnect(1)
    assert table.seats[1].kind == "human" and not table.seats[1].connected
    clock.advance(59.9)
    assert table.seats[1].kind == "human"
    # R7.4: the clock ran meanwhile; timeouts played for the seat.
    assert any(
        c.change.as_json().get("how") == "timeout" and c.change.as_json()["seat"] == 1
        for c in sink.commits
    )
    clock.advance(0.1)
    assert table.seats[1].kind == "bot" and table.seats[1].left
    assert table.seats[1].level == "standard"
    assert table.seat_of_token("tok1") == 1  # the token is known, but the seat is gone
    replace = [c for c in sink.commits if c.change.as_json()["kind"] == "replace"]
    assert replace[-1].change.as_json() == {"kind": "replace", "seat": 1, "reason": "hold"}
    # The bot plays on for good.
    advance_to_seat(table, clock, 1)
    before = len(sink.commits)
    clock.advance(BOT_DELAY)
    played = sink.commits[before].change.as_json()
    assert (played["kind"], played["seat"], played["how"]) == ("play", 1, "bot")


def test_closing_message_makes_the_hold_10_s() -> None:
    table, clock, _sink = started(humans=2)
    table.disconnect(1, closing=True)
    clock.advance(9.99)
    assert table.seats[1].kind == "human"
    clock.advance(0.01)
    assert table.seats[1].kind == "bot" and table.seats[1].left


def test_reconnecting_within_the_hold_keeps_the_seat() -> None:
    table, clock, sink = started(humans=2)
    table.disconnect(1)
    clock.advance(30)
    table.connect(1)
    assert table.seats[1].connected
    clock.advance(100)
    assert table.seats[1].kind == "human"
    kinds = [c.change.as_json() for c in sink.commits if c.change.as_json()["kind"] == "connected"]
    assert kinds[-2:] == [
        {"kind": "connected", "seat": 1, "on": False},
        {"kind": "connected", "seat": 1, "on": True},
    ]


def test_leaving_gives_the_seat_to_a_bot_for_good_and_the_match_plays_on() -> None:
    table, clock, _sink = started(humans=2)
    table.leave(1)
    assert table.seats[1].kind == "bot" and table.seats[1].left
    assert table.seats[1].name == "p1"
    table.leave(0)
    assert table.owner is None
    for _ in range(5000):
        if table.status == "finished":
            break
        clock.advance(BOT_DELAY)
    assert table.status == "finished"
    assert table.match is not None and table.match.finished


def test_all_bot_match_finishes_and_its_record_replays_to_the_same_scores() -> None:
    table, clock, sink = started(players=2, humans=1, tempo="fast")
    for _ in range(20000):
        if table.status == "finished":
            break
        clock.advance(15)  # the person never plays: timeouts, then autopilot
    assert table.status == "finished"
    last = sink.commits[-1]
    assert last.record is not None and last.status == "finished"
    match = replay(last.record)
    assert table.match is not None
    assert match.totals == table.match.totals and match.winner == table.match.winner
    assert types([last])[-1] == "match_over"
    # Only the start and the end change the status (the table's row is written then only).
    changed = [(c.change.as_json()["kind"], c.status) for c in sink.commits if c.status_changed]
    assert changed == [("start", "playing"), (last.change.as_json()["kind"], "finished")]


def test_restore_rebuilds_the_same_table_and_resume_restarts_the_clock() -> None:
    table, clock, sink = started(humans=2, tempo="fast")
    for _ in range(30):
        clock.advance(3)
    assert table.match is not None
    changes = [c.change.as_json() for c in sink.commits]
    events = [(seq, full_json(p)) for c in sink.commits for seq, p in c.events]
    clock2 = VirtualScheduler(start=1000.0)
    sink2 = CollectingSink()
    copy = Table.restore(
        "T1",
        table.settings,
        "s1",
        changes,
        scheduler=clock2,
        sink=sink2,
        bots=make_bot,
        levels=LEVELS,
        timing=Timing(bot_delay=BOT_DELAY),
    )
    assert sink2.commits == []  # restoring tells nothing
    assert copy.seq == table.seq and copy.turn_seq == table.turn_seq
    assert copy.match is not None
    assert copy.match.deck.hands == table.match.deck.hands
    assert copy.match.totals == table.match.totals
    assert [(s, full_json(p)) for s, p in copy.events] == events[-len(copy.events) :]
    assert [s.connected for s in copy.seats] == [True, True, False, False]
    copy.resume()
    assert [c.change.as_json() for c in sink2.commits] == [{"kind": "resume"}]
    assert types(sink2.commits) == ["seat_changed", "seat_changed", "clock"]
    assert clock_json(copy) == {"seat": copy.to_play, "remaining": 15.0, "tempo": 15.0}
    # R7.4: after a restart every person's seat is held for a full 60 s.
    clock2.advance(59.9)
    assert copy.seats[0].kind == "human"
    clock2.advance(0.1)
    assert copy.seats[0].kind == "bot" and copy.seats[1].kind == "bot"


def test_rematch_starts_a_new_match_with_the_same_seats() -> None:
    table, clock, _sink = started(players=2, humans=1, tempo="fast")
    table.leave(0)
    for _ in range(20000):
        if table.status == "finished":
            break
        clock.advance(1)
    with pytest.raises(TableError) as err:
        table.rematch(0)
    assert err.value.code == "not_owner"  # the owner left
    table2, clock2, sink2 = started(players=2, humans=1, tempo="fast")
    for _ in range(20000):
        if table2.status == "finished":
            break
        clock2.advance(15)
    first_deals = table2.match.deck.deals if table2.match else None
    table2.rematch(0)
    assert table2.status == "playing" and table2.match_no == 2
    assert table2.match is not None and table2.match.deck.deals != first_deals
    assert not table2.seats[0].autopilot
    assert types([sink2.commits[-1]])[:2] == ["rematch", "seat_changed"]


@pytest.mark.parametrize(
    "first, second",
    [
        ("Ayşe", "AYŞE"),  # case
        ("Ann", "Ａｎｎ"),  # fullwidth letters: NFKC
        ("Straße", "STRASSE"),  # case folding
        ("Jo Jo", "jo  jo"),  # runs of spaces
        ("Ann", "An\u200dn"),  # a joiner shows as nothing
        ("ﬁona", "Fiona"),  # a ligature: NFKC
    ],
)
def test_two_names_that_look_the_same_may_not_sit_at_one_table(first: str, second: str) -> None:
    # Found by a new-user trial: three seats could show the same name.
    table, _clock, sink = make_table()
    table.sit(first, hash_token("a"))
    before = len(sink.commits)
    with pytest.raises(TableError) as err:
        table.sit(second, hash_token("b"), 2)
    assert err.value.code == "name_taken"
    assert err.value.message == f"someone at this table is called {first}"
    assert len(sink.commits) == before
    assert table.sit("Bora", hash_token("c"), 2) == 2
