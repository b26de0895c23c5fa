"""Every bot move runs off the event loop with a deadline; failures fall back to the
standard bot's card (R7.2), in a live table on a real event loop."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from pishti.bots import LEVELS, Bot, make_bot
from pishti.engine import SeatView, card_text, seat_view
from pishti.server.botrunner import ThreadedRunner
from pishti.server.clock import AsyncioScheduler
from pishti.server.table import CollectingSink, Table, TableSettings, Timing, hash_token
from pishti.server.turns import derived_seed


class FailingBot:
    name = "failing"

    def choose(self, view: SeatView) -> int:
        raise RuntimeError("this bot always fails")


class SlowBot:
    """Sleeps a second over every move: always past the test's deadline.  In steps of
    10 ms, so the stop raised in its thread lands at once: raised during one sleep of a
    second, it waited for the sleep to end, and under coverage's tracing the event loop
    stalled with it (0.86 s a move, 31 s of a 42 s test)."""

    name = "slow"

    def choose(self, view: SeatView) -> int:
        for _ in range(100):
            time.sleep(0.01)
        return min(view.legal_cards)


class NumpyBot:
    """Returns a numpy integer: equal to a legal card, but not an int."""

    name = "numpy"

    def choose(self, view: SeatView) -> int:
        import numpy as np

        return np.int64(min(view.legal_cards))  # type: ignore[return-value]


ODD = {"failing": FailingBot, "slow": SlowBot, "numpy": NumpyBot}


def bots(level: str, seed: int | None) -> Bot:
    return ODD[level]() if level in ODD else make_bot(level, seed)


async def test_failing_slow_and_numpy_bots_in_a_live_table_and_the_match_finishes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pytest.importorskip("numpy")
    caplog.set_level(logging.INFO)
    sink = CollectingSink()
    runner = ThreadedRunner(deadline=0.15)
    table = Table(
        "T1",
        TableSettings(4, 51, "fast"),
        "s1",
        scheduler=AsyncioScheduler(),
        sink=sink,
        bots=bots,
        levels=[*LEVELS, *ODD],
        # The holds and the pauses between decks (R7.4, R7.8) at 1/50 of their
        # length: they are not under test, and at full length they were most of
        # the test's time (94 s of a CI run under coverage).
        timing=Timing(scale=0.02, bot_delay=0.0),
        runner=runner,
    )
    table.sit("ann", hash_token("a"), 0)
    table.connect(0)
    for seat, level in ((1, "failing"), (2, "slow"), (3, "numpy")):
        table.add_bot(0, seat, level)
    table.start(0)
    person = make_bot("standard", 0)
    # While the slow bot's thread sleeps the loop is free: the person's plays go on.
    loop_free = 0
    # Only a guard against a hang: a fresh-clone CI run on a loaded machine took over 120 s.
    deadline = asyncio.get_running_loop().time() + 900
    while table.match is not None and not table.match.finished:
        assert asyncio.get_running_loop().time() < deadline, "the match did not finish"
        if table.to_play == 0:
            table.play(0, card_text(person.choose(seat_view(table.match, 0))), table.seq)
        else:
            loop_free += 1
            await asyncio.sleep(0.01)
    assert table.match is not None and table.match.finished
    plays = [c.change.as_json() for c in sink.commits if c.change.as_json()["kind"] == "play"]
    by_seat = {s: [p for p in plays if p["seat"] == s] for s in range(4)}
    assert all(p["how"] == "bot" for s in (1, 2, 3) for p in by_seat[s])
    messages = [r.getMessage() for r in caplog.records]

    def count(text: str) -> int:
        return sum(text in m for m in messages)

    # Every move of the slow bot ran over, was logged and played by the standard bot.
    assert count("the slow bot took longer than 0.15 s: the standard bot plays") == len(by_seat[2])
    assert count("the slow bot chose no legal card: the standard bot plays") == len(by_seat[2])
    assert len(by_seat[2]) > 10 and runner.late >= len(by_seat[2])
    assert loop_free > len(by_seat[2])  # the loop turned while the slow bot thought
    # Every move of the failing bot and of the numpy bot fell back to the standard bot.
    assert count("the failing bot failed at seat 1") >= 1
    assert count("the failing bot chose no legal card: the standard bot plays") == len(by_seat[1])
    assert count("the numpy bot chose no legal card: the standard bot plays") == len(by_seat[3])


async def test_a_replaced_move_is_the_standard_bots_card() -> None:
    sink = CollectingSink()
    runner = ThreadedRunner(deadline=0.1)
    table = Table(
        "T2",
        TableSettings(2, 51, "fast"),
        "s2",
        scheduler=AsyncioScheduler(),
        sink=sink,
        bots=bots,
        levels=[*LEVELS, *ODD],
        timing=Timing(bot_delay=0.0),
        runner=runner,
    )
    table.sit("ann", hash_token("a"), 0)
    table.connect(0)
    table.add_bot(0, 1, "slow")
    table.start(0)
    assert table.match is not None
    if table.to_play == 0:
        card = make_bot("standard", 0).choose(seat_view(table.match, 0))
        table.play(0, card_text(card), table.seq)
    view = seat_view(table.match, 1)
    expected = card_text(make_bot("standard", derived_seed("s2", 1, 1, "standard")).choose(view))
    before = len(sink.commits)
    while len(sink.commits) == before:
        await asyncio.sleep(0.01)
    played = sink.commits[before].change.as_json()
    assert (played["seat"], played["card"], played["how"]) == (1, expected, "bot")
    assert runner.late == 1


def test_a_deadline_must_be_positive() -> None:
    with pytest.raises(ValueError, match="deadline must be positive seconds"):
        ThreadedRunner(0)
