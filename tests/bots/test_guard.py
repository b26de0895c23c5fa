"""The guard around plug-in bots: every misbehaviour is one clear line, caught at the boundary."""

from __future__ import annotations

import threading
import time

import pytest

from pishti.bots import StandardBot, make_bot
from pishti.bots.guard import (
    BUSY,
    OVERTIME,
    RAISED,
    RETURNED,
    BotFault,
    GuardedBot,
    check_card,
    fault_line,
)
from pishti.engine import Event, Match, SeatView, card_text, event_for_seat, parse_card, seat_view
from tests.bots.misbehaving import HeldFirst, HeldWatcher

M = "tests.bots.misbehaving"


def _view() -> SeatView:
    match = Match(2, 101, seed=3)
    seat = match.to_play
    assert seat is not None
    return seat_view(match, seat)


def _fault(spec: str, move_time: float | None = None, moves: int = 1) -> BotFault:
    bot = GuardedBot(make_bot(spec, 1), spec, move_time)
    view = _view()
    with pytest.raises(BotFault) as caught:
        for _ in range(moves):
            bot.choose(view)
    return caught.value


def test_the_view_used_here() -> None:
    view = _view()
    assert " ".join(card_text(c) for c in sorted(view.legal_cards)) == "AD 5C 6D 9S"


@pytest.mark.parametrize(
    ("cls", "what"),
    [
        ("ReturnsNone", "returned None (NoneType), not one of its cards (AD 5C 6D 9S)"),
        ("ReturnsText", "returned '7H' (str), not one of its cards (AD 5C 6D 9S)"),
        ("ReturnsFloat", "returned 1.0 (float), not one of its cards (AD 5C 6D 9S)"),
        ("ReturnsTrue", "returned True (bool), not one of its cards (AD 5C 6D 9S)"),
        (
            "ReturnsNumpy",
            "returned np.int64(1) (tests.bots.misbehaving.Int64), not a plain int: cards are "
            "plain ints, use int(card) (its cards: AD 5C 6D 9S)",
        ),
    ],
)
def test_an_answer_that_is_not_a_card_is_refused(cls: str, what: str) -> None:
    fault = _fault(f"{M}:{cls}")
    assert (fault.kind, fault.what) == (RETURNED, what)


def test_a_numpy_like_integer_equal_to_a_card_is_refused_before_the_engine() -> None:
    from tests.bots.misbehaving import Int64

    view = _view()
    assert Int64(1) in view.legal_cards  # it passes a value check ...
    with pytest.raises(BotFault):
        check_card(Int64(1), view)  # ... and is refused by the exact type check
    assert check_card(1, view) == 1


def test_a_card_not_held_is_named() -> None:
    fault = _fault(f"{M}:WrongCard", moves=3)
    assert fault.kind == RETURNED
    assert fault.what == "returned AC (0), a card it does not hold (its cards: AD 5C 6D 9S)"


def test_an_exception_is_caught_with_and_without_a_time_limit() -> None:
    for move_time in (None, 1.0):
        fault = _fault(f"{M}:Raises", move_time, moves=2)
        assert (fault.kind, fault.what) == (RAISED, "raised ZeroDivisionError: division by zero")


def test_a_bot_that_exits_is_a_fault_with_and_without_a_time_limit() -> None:
    # With --move-time 0 a plug-in's sys.exit(3) ended `pishti arena` and `pishti play`
    # with status 3 and no word (only Exception was caught on the caller's thread).
    for move_time in (None, 1.0):
        fault = _fault(f"{M}:Exits", move_time, moves=2)
        assert (fault.kind, fault.what) == (RAISED, "raised SystemExit: 3")


def _stopped_calls_end() -> None:
    """Wait for every stopped bot call (its thread, "bot NAME") to end."""
    for thread in threading.enumerate():
        if thread.name.startswith("bot "):
            thread.join(10)
            assert not thread.is_alive()


def test_a_slow_move_is_stopped_and_the_bot_plays_again_later() -> None:
    # The bot's first move waits for the test, not for a time: under load (the
    # tests in two processes) the sleeps this test used ended before it looked.
    spec = f"{M}:HeldFirst"
    bot = GuardedBot(make_bot(spec, 1), spec, 0.2)
    held = bot.bot
    assert isinstance(held, HeldFirst)
    view = _view()
    start = time.perf_counter()
    with pytest.raises(BotFault) as caught:
        bot.choose(view)
    assert caught.value.kind in (OVERTIME,)
    assert caught.value.what == "took longer than 0.2 s and was stopped"
    assert time.perf_counter() - start < 5  # stopped; the move itself waits 10 s
    held.release.set()
    _stopped_calls_end()
    assert bot.choose(view) == parse_card("AD")


def test_a_hung_move_is_stopped() -> None:
    spec = f"{M}:Hangs"
    bot = GuardedBot(make_bot(spec, 1), spec, 0.2)
    view = _view()
    assert bot.choose(view) == parse_card("AD")
    with pytest.raises(BotFault) as caught:
        bot.choose(view)
    assert caught.value.kind in (OVERTIME, BUSY)
    # The busy loop is pure Python: the stop ends it, and the bot answers again.
    time.sleep(0.2)
    assert bot.choose(view) == parse_card("AD")


def test_a_bot_still_running_is_busy() -> None:
    spec = f"{M}:HeldFirst"
    bot = GuardedBot(make_bot(spec, 1), spec, 0.15)
    held = bot.bot
    assert isinstance(held, HeldFirst)
    view = _view()
    with pytest.raises(BotFault):
        bot.choose(view)
    with pytest.raises(BotFault) as caught:
        bot.choose(view)  # the stopped move still waits
    assert caught.value.kind == BUSY
    held.release.set()
    _stopped_calls_end()
    assert bot.choose(view) == parse_card("AD")


def test_the_fault_line_names_bot_seat_match_and_deck() -> None:
    fault = BotFault(RAISED, "raised KeyError: 3")
    line = fault_line("mybot:Bot", 1, "match seed 5", 0, fault)
    assert line == "bot 'mybot:Bot' at seat 1, match seed 5, deck 1: raised KeyError: 3"


def test_a_guarded_bot_plays_as_the_bot_does() -> None:
    spec = "pishti.bots.standard:StandardBot"
    view = _view()
    guarded = GuardedBot(make_bot(spec, 1), spec)
    assert guarded.name == "standard"
    assert guarded.choose(view) == StandardBot().choose(view)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "tests.bots.broken_plugin:Bot",
            "the bot module 'tests.bots.broken_plugin' failed to import: "
            "RuntimeError: this module is broken",
        ),
        (
            f"{M}:NoSeed",
            f"the bot '{M}:NoSeed' could not be built as NoSeed(seed): TypeError: "
            "NoSeed.__init__() takes 1 positional argument but 2 were given",
        ),
        ("./no_such_file.py:Bot", "no bot file './no_such_file.py'"),
    ],
)
def test_a_plugin_that_cannot_be_loaded_or_built_is_one_line(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        make_bot(spec, 0)
    assert str(caught.value) == message


def test_a_plugin_may_be_named_by_its_file() -> None:
    bot = make_bot("tests/bots/sample_plugin.py:LowestCardBot", 4)
    view = _view()
    assert bot.choose(view) == min(view.legal_cards)


def test_a_real_numpy_integer_is_refused_at_the_boundary() -> None:
    np = pytest.importorskip("numpy")
    view = _view()
    assert np.int64(1) in view.legal_cards
    fault = _fault(f"{M}:ReturnsRealNumpy")
    assert fault.kind == RETURNED
    assert fault.what == (
        "returned np.int64(1) (numpy.int64), not a plain int: cards are plain ints, "
        "use int(card) (its cards: AD 5C 6D 9S)"
    )


def _events() -> list[Event]:
    """The first events of a match as seat 0 sees them: a deck, a deal, two plays."""
    match = Match(2, 101, seed=3)
    for _ in range(2):
        seat = match.to_play
        assert seat is not None
        match.play(min(seat_view(match, seat).legal_cards))
    return [event_for_seat(e, 0) for e in match.events]


def _stopped_watcher() -> tuple[GuardedBot, HeldWatcher, SeatView]:
    """A guarded HeldWatcher (0.1 s a move) whose first move was just stopped
    while it still waits for its ``release``."""
    spec = f"{M}:HeldWatcher"
    bot = GuardedBot(make_bot(spec, 1), spec, 0.1)
    watcher = bot.bot
    assert isinstance(watcher, HeldWatcher)
    view = _view()
    with pytest.raises(BotFault) as caught:
        bot.choose(view)
    assert caught.value.kind == OVERTIME
    return bot, watcher, view


def test_events_while_a_stopped_move_runs_are_kept_and_shown_in_order() -> None:
    bot, watcher, _ = _stopped_watcher()
    first, second, third = _events()[:3]
    # The stopped move still waits: nothing is raised and nothing is lost.
    bot.observe(first)
    bot.observe(second)
    assert watcher.events == []
    watcher.release.set()
    _stopped_calls_end()
    bot.observe(third)
    assert watcher.events == [first, second, third]


def test_events_kept_while_busy_reach_the_bot_before_its_next_move() -> None:
    bot, watcher, view = _stopped_watcher()
    events = _events()[:2]
    for event in events:
        bot.observe(event)
    assert watcher.events == []
    watcher.release.set()
    _stopped_calls_end()
    # The next move passes the kept events first.
    assert bot.choose(view) == min(view.legal_cards)
    assert watcher.events == events
