"""The pause between decks (R7.8): the next deal waits until every person seated
and connected has pressed Continue, or 15 s; no clock runs meanwhile; bots,
seats on autopilot and disconnected seats do not hold it up."""

from __future__ import annotations

from typing import Any

import pytest

from pishti.bots import LEVELS, make_bot
from pishti.server.clock import VirtualScheduler
from pishti.server.events import ClockStarted, Paused, PauseWaiting, SeatChanged, SeatInfo
from pishti.server.table import CollectingSink, Table, TableError
from pishti.server.views import clock_json, pause_json

from .test_table import BOT_DELAY, make_table, standard_card, started, types


def play_to_the_count(table: Table, clock: VirtualScheduler, humans: int) -> None:
    """Play the first deck to its count: the persons play the standard bot's card."""
    assert table.match is not None
    for _ in range(400):
        if table.match.between_decks or table.match.deck_number > 0:
            return
        seat = table.to_play
        if seat is not None and seat < humans:
            table.play(seat, standard_card(table, seat), table.seq)
        else:
            clock.advance(BOT_DELAY)
    raise AssertionError("the deck did not end")


def last_events(sink: CollectingSink, n: int = 1) -> list[str]:
    return types(sink.commits[-n:])


def test_the_count_holds_the_next_deal_until_the_person_continues() -> None:
    table, clock, sink = started(humans=1)
    play_to_the_count(table, clock, 1)
    counted = sink.commits[-1]
    kinds = types([counted])
    assert kinds[-2:] == ["deck_counted", "pause"]
    pause = counted.events[-1][1]
    assert pause == Paused(deck=0, seconds=15.0, waiting=(0,))
    # No clock runs during the pause, and no deck is dealt before 15 s.
    assert table.to_play is None and clock_json(table) is None
    commits = len(sink.commits)
    clock.advance(14.9)
    assert len(sink.commits) == commits
    assert pause_json(table) == {"deck": 0, "remaining": 0.1, "waiting": [0], "ready": []}
    table.continue_(0, 0)
    assert [c.change.as_json()["kind"] for c in sink.commits[commits:]] == ["ready", "deal"]
    assert types(sink.commits[commits:]) == ["ready", "deck_started", "cards_dealt", "clock"]
    assert table.match is not None and table.match.deck_number == 1
    assert pause_json(table) is None
    clock_event = sink.commits[-1].events[-1][1]
    assert isinstance(clock_event, ClockStarted)
    assert clock_event.remaining == 30.0  # the first player's clock starts afresh


def test_two_people_both_continue_or_15_seconds_pass() -> None:
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    assert pause_json(table) == {"deck": 0, "remaining": 15.0, "waiting": [0, 1], "ready": []}
    table.continue_(1, 0)
    table.continue_(1, 0)  # twice changes nothing
    assert table.match is not None and table.match.between_decks
    assert pause_json(table) == {"deck": 0, "remaining": 15.0, "waiting": [0, 1], "ready": [1]}
    clock.advance(15.0)
    # Time is up: the deal comes without seat 0 (R7.8); no timeout was counted.
    assert not table.match.between_decks
    deal = sink.commits[-1].change.as_json()
    assert (deal["kind"], deal["reason"], len(deal["decks"])) == ("deal", "time", 1)
    assert all(st.timeouts == 0 for st in table.seats)


def test_bots_autopilot_and_disconnected_seats_do_not_hold_the_pause() -> None:
    table, clock, sink = started(humans=2)
    table.disconnect(1)
    table.seats[0].autopilot = True  # as three timeouts in a row would (R7.3)
    play_to_the_count(table, clock, 0)
    assert table.match is not None and not table.match.between_decks
    kinds = [c.change.as_json()["kind"] for c in sink.commits[-2:]]
    assert kinds == ["play", "deal"]
    deal = sink.commits[-1].change.as_json()
    assert (deal["kind"], deal["reason"], len(deal["decks"])) == ("deal", "ready", 1)


def test_continue_outside_the_pause_is_refused_and_changes_nothing() -> None:
    table, clock, sink = started(humans=1)
    with pytest.raises(TableError) as err:
        table.continue_(0, 0)
    assert err.value.code == "bad_state"
    play_to_the_count(table, clock, 1)
    commits = len(sink.commits)
    with pytest.raises(TableError) as err:
        table.continue_(0, 1)
    assert err.value.code == "stale"
    assert len(sink.commits) == commits
    with pytest.raises(TableError) as err:
        table.play(0, "AS", table.seq)
    assert err.value.code == "not_your_turn"


def restore(table: Table, changes: list[Any], versions: list[int] | None = None) -> Table:
    return Table.restore(
        "T1",
        table.settings,
        table.seed,
        changes,
        versions,
        scheduler=VirtualScheduler(),
        sink=CollectingSink(),
        bots=make_bot,
        levels=LEVELS,
        timing=table.timing,
    )


def test_a_table_restored_during_the_pause_is_still_pausing() -> None:
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(0, 0)
    changes = [c.change.as_json() for c in sink.commits]
    again = restore(table, changes)
    assert again.match is not None and again.match.between_decks
    assert again.state.ready == {0}
    assert again.seq == table.seq


def test_a_log_from_before_the_pause_still_replays() -> None:
    # Logs written before R7.8 have no "ready" or "deal": the next play deals on.
    table, clock, sink = started(humans=1)
    play_to_the_count(table, clock, 1)
    table.continue_(0, 0)
    for _ in range(20):
        clock.advance(BOT_DELAY)
    old = [
        c.change.as_json()
        for c in sink.commits
        if c.change.as_json()["kind"] not in ("ready", "deal")
    ]
    old = [{k: v for k, v in change.items() if k != "decks"} for change in old]
    again = restore(table, old, [1] * len(old))
    assert again.match is not None and table.match is not None
    assert again.match.deck_number == table.match.deck_number == 1
    assert again.match.history == table.match.history


def test_the_pause_is_not_in_an_all_bot_match_but_the_decks_are_the_same() -> None:
    table, clock, sink = make_table()
    table.sit("p", "h")
    table.start(0)
    # The person is not connected: nothing waits, and every deck is dealt at once.
    for _ in range(2000):
        if table.status == "finished":
            break
        clock.advance(30.0)
    assert table.status == "finished"
    kinds = types(sink.commits)
    assert kinds.count("pause") == kinds.count("deck_counted") - 1


def test_a_play_during_the_pause_says_it_is_nobodys_turn() -> None:
    # Found by a new-user trial: the refusal said "it is seat None's turn".
    table, clock, sink = started(humans=1)
    play_to_the_count(table, clock, 1)
    commits = len(sink.commits)
    with pytest.raises(TableError) as refused:
        table.play(0, "AS", table.seq)  # any card: the deck's hands are empty
    assert (refused.value.code, str(refused.value)) == (
        "not_your_turn",
        "it is nobody's turn: the table is paused between decks",
    )
    assert len(sink.commits) == commits


def restarted(table: Table, sink: CollectingSink) -> tuple[Table, VirtualScheduler, CollectingSink]:
    """The table as a restarted server has it: rebuilt from its log, then resumed."""
    clock = VirtualScheduler()
    sink2 = CollectingSink()
    again = Table.restore(
        "T1",
        table.settings,
        table.seed,
        [c.change.as_json() for c in sink.commits],
        scheduler=clock,
        sink=sink2,
        bots=make_bot,
        levels=LEVELS,
        timing=table.timing,
    )
    again.resume()
    return again, clock, sink2


def test_a_restart_during_the_pause_restores_it_and_runs_no_clock() -> None:
    # Found by a new-user trial: the restart marked everyone disconnected, so the
    # next deck was dealt at once and clocks ran before anyone came back.
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(1, 0)
    again, clock2, sink2 = restarted(table, sink)
    assert [c.change.as_json()["kind"] for c in sink2.commits] == ["resume"]
    assert types(sink2.commits) == ["seat_changed", "seat_changed"]
    assert again.match is not None and again.match.between_decks
    assert clock_json(again) is None
    assert pause_json(again) == {"deck": 0, "remaining": 15.0, "waiting": [0, 1], "ready": [1]}
    # Both come back (each is waited for again) and press Continue: the next deal.
    again.connect(0)
    again.connect(1)
    assert pause_json(again) == {"deck": 0, "remaining": 15.0, "waiting": [0, 1], "ready": []}
    again.continue_(0, 0)
    clock2.advance(14.0)
    assert again.match.between_decks
    again.continue_(1, 0)
    assert not again.match.between_decks
    assert types(sink2.commits[-1:]) == ["deck_started", "cards_dealt", "clock"]


def test_after_a_restart_the_pause_lasts_15_seconds_from_the_restart() -> None:
    table, clock, sink = started(humans=1)
    play_to_the_count(table, clock, 1)
    clock.advance(10.0)
    again, clock2, sink2 = restarted(table, sink)
    clock2.advance(14.9)
    assert again.match is not None and again.match.between_decks and clock_json(again) is None
    clock2.advance(0.1)
    assert not again.match.between_decks
    assert sink2.commits[-1].change.as_json()["reason"] == "time"


def test_a_reload_during_the_pause_does_not_end_it_and_is_waited_for_again() -> None:
    # Found by a new-user trial: seat 1 had pressed Continue; seat 0's reload ended
    # the pause, and its page opened on the next deck with its clock running.
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(1, 0)
    table.disconnect(0)
    assert table.match is not None and table.match.between_decks
    assert pause_json(table) == {"deck": 0, "remaining": 15.0, "waiting": [0, 1], "ready": [1]}
    clock.advance(2.0)
    table.connect(0)
    assert types(sink.commits[-2:]) == ["seat_changed", "seat_changed"]  # still waited for
    clock.advance(10.0)
    assert table.match.between_decks and clock_json(table) is None
    table.continue_(0, 0)
    assert not table.match.between_decks


def test_a_person_who_pressed_continue_and_reloads_is_waited_for_again() -> None:
    table, clock, _sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(0, 0)
    table.disconnect(0)
    table.connect(0)
    assert pause_json(table) == {"deck": 0, "remaining": 15.0, "waiting": [0, 1], "ready": []}
    table.continue_(1, 0)
    assert table.match is not None and table.match.between_decks
    table.continue_(0, 0)
    assert not table.match.between_decks


def test_one_who_drops_during_the_pause_and_stays_away_holds_it_up_10_seconds() -> None:
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(1, 0)
    table.disconnect(0)
    clock.advance(9.9)
    assert table.match is not None and table.match.between_decks
    clock.advance(0.1)
    assert not table.match.between_decks
    assert sink.commits[-1].change.as_json()["reason"] == "ready"


def test_one_who_drops_is_named_in_pause_waiting_until_the_table_stops_waiting() -> None:
    # Found by a new-user trial: pause_waiting said at once that seat 1 was no longer
    # waited for ({"waiting": [0], "ready": [0]}) while the deal still waited 10 s
    # for it, and seat 0's turn line read "Dealing..." meanwhile.
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(0, 0)
    commits = len(sink.commits)
    clock.advance(1.0)
    table.disconnect(1)
    dropped = SeatInfo(1, "p1", "human", None, False, False, False)
    assert [e for _, e in sink.commits[commits].events] == [SeatChanged(dropped)]
    assert pause_json(table) == {"deck": 0, "remaining": 14.0, "waiting": [0, 1], "ready": [0]}
    clock.advance(9.9)
    assert len(sink.commits) == commits + 1
    clock.advance(0.1)
    # 10 s after the drop: no longer waited for, and everyone left is ready: the deal.
    stop, deal = sink.commits[commits + 1 :]
    assert stop.change.as_json() == {"kind": "stop_waiting", "seat": 1}
    assert [e for _, e in stop.events] == [PauseWaiting(0, (0,), (0,))]
    assert deal.change.as_json()["reason"] == "ready"
    assert types([deal]) == ["deck_started", "cards_dealt", "clock"]


def test_one_who_pressed_continue_and_drops_is_waited_for_as_not_ready() -> None:
    # Their page comes back to the count (R7.8): they are waited for to press again.
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(1, 0)
    table.disconnect(1)
    assert [e.type for _, e in sink.commits[-1].events] == ["seat_changed", "pause_waiting"]
    assert sink.commits[-1].events[-1][1] == PauseWaiting(0, (0, 1), ())
    table.continue_(0, 0)
    clock.advance(9.9)
    assert table.match is not None and table.match.between_decks
    clock.advance(0.1)
    assert types(sink.commits[-2:]) == ["pause_waiting", "deck_started", "cards_dealt", "clock"]


def test_the_table_stops_waiting_for_one_who_dropped_10_seconds_after_their_last_drop() -> None:
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(0, 0)
    table.disconnect(1)
    clock.advance(6.0)
    table.connect(1)
    clock.advance(1.0)
    table.disconnect(1)
    clock.advance(6.0)  # 13 s from the first drop, 6 s from the second
    assert table.match is not None and table.match.between_decks
    assert pause_json(table) == {"deck": 0, "remaining": 2.0, "waiting": [0, 1], "ready": [0]}
    clock.advance(2.0)  # the pause's 15 s are up before the 10 s (R7.8)
    assert not table.match.between_decks
    assert sink.commits[-1].change.as_json()["reason"] == "time"


def test_a_version_4_log_stops_waiting_for_one_who_dropped_at_once_as_it_told() -> None:
    # Before version 5 a connection lost during the pause ended the wait for the person
    # in the log at once (the deal waited 10 s more outside the log): its rows replay so.
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(0, 0)
    table.disconnect(1)
    changes = [c.change.as_json() for c in sink.commits]
    old = restore(table, changes, [4] * len(changes))
    assert old.events[-1][1] == PauseWaiting(0, (0,), (0,))
    assert old.seq == table.seq + 1 and old.state.away == set()
    now = restore(table, changes)
    assert now.seq == table.seq and now.state.away == {1}


def test_a_bot_taking_a_seat_during_the_pause_is_told() -> None:
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.leave(0)
    assert sink.commits[-1].events[-1][1] == PauseWaiting(0, (1,), ())


def test_a_reload_whose_new_connection_replaces_the_old_is_waited_for_again() -> None:
    # The new page's connection may come before the old one is seen closing: the
    # seat is never disconnected, and is still waited for again.
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(0, 0)
    table.connect(0)
    assert sink.commits[-1].events[-1][1] == PauseWaiting(0, (0, 1), ())
    table.continue_(1, 0)
    assert table.match is not None and table.match.between_decks
    table.continue_(0, 0)
    assert not table.match.between_decks
    table.connect(0)  # outside the pause a new connection changes nothing
    assert sink.commits[-1].change.as_json()["kind"] == "deal"


def test_a_log_from_before_pause_waiting_keeps_the_event_numbers_it_told() -> None:
    # pause_waiting came after the log's version 3: a version 3 row written before it
    # (a person dropping and coming back during the pause) told no such event.  Replayed
    # now it would make one, so every later event would be numbered one higher than
    # told, and a client reconnecting with its last_seq would get seen events as new.
    table, clock, sink = started(humans=2)
    play_to_the_count(table, clock, 2)
    table.continue_(1, 0)
    table.disconnect(0)
    table.connect(0)
    table.continue_(0, 0)
    for _ in range(3):
        clock.advance(BOT_DELAY)
    told: list[tuple[int, str]] = []  # what the older server numbered and told
    old_seqs = []
    for commit in sink.commits:
        for _, event in commit.events:
            if not isinstance(event, PauseWaiting):
                told.append((len(told) + 1, type(event).__name__))
        old_seqs.append(len(told))
    changes = [c.change.as_json() for c in sink.commits]
    versions = [3] * len(changes)
    # Replayed as version 3 rows, the drop and the return make two pause_waiting events...
    assert restore(table, changes, versions).seq == len(told) + 2
    # ... which the rows' stored numbers say were never told.
    old = Table.restore(
        "T1",
        table.settings,
        table.seed,
        changes,
        versions,
        seqs=old_seqs,
        scheduler=VirtualScheduler(),
        sink=CollectingSink(),
        bots=make_bot,
        levels=LEVELS,
        timing=table.timing,
        event_buffer=1000,
    )
    assert old.seq == len(told)
    assert [(n, type(e).__name__) for n, e in old.events] == told
    assert old.match is not None and table.match is not None
    assert old.match.history == table.match.history
    # A log written since keeps its pause_waiting events and their numbers.
    now = Table.restore(
        "T1",
        table.settings,
        table.seed,
        changes,
        seqs=[c.seq for c in sink.commits],
        scheduler=VirtualScheduler(),
        sink=CollectingSink(),
        bots=make_bot,
        levels=LEVELS,
        timing=table.timing,
    )
    assert now.seq == table.seq
    assert list(now.events) == list(table.events)
