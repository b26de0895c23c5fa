"""Duplicate matches: the same decks for both games, reproducible runs."""

from __future__ import annotations

import dataclasses
import multiprocessing.pool
import os
import signal
import time
from typing import Any

import pytest

from pishti.arena import PairResult, play_pair, run_duplicate, summarize
from pishti.arena.duplicate import duplicate_decks


def _untimed(pairs: list[PairResult]) -> list[object]:
    return [
        [dataclasses.replace(g, times=((), ()), cpu_times=((), ())) for g in p.games] for p in pairs
    ]


def test_both_games_of_a_duplicate_match_get_the_same_decks() -> None:
    dealer_a, source_a = duplicate_decks(9, 4, 4)
    dealer_b, source_b = duplicate_decks(9, 4, 4)
    assert dealer_a == dealer_b
    for number in range(4):
        a = source_a(number, (dealer_a + number) % 4)
        b = source_b(number, (dealer_b + number) % 4)
        assert (a.middle, a.deals) == (b.middle, b.deals)
    other_dealer, other = duplicate_decks(9, 5, 4)
    assert other(0, other_dealer).deals != source_a(0, dealer_a).deals


def test_a_run_is_reproducible_from_its_seed() -> None:
    first = run_duplicate("novice", "standard", matches=3, target=51, seed=5)
    again = run_duplicate("novice", "standard", matches=3, target=51, seed=5)
    assert [p.index for p in first] == [0, 1, 2]
    assert _untimed(first) == _untimed(again)
    other = run_duplicate("novice", "standard", matches=3, target=51, seed=6)
    assert _untimed(first) != _untimed(other)


def test_a_deterministic_bot_against_itself_scores_exactly_even() -> None:
    # Same decks, same deterministic play: the swapped game mirrors the first.
    pair = play_pair("standard", "standard", 4, 51, 3, 0)
    first, second = pair.games
    assert first.points == (second.points[1], second.points[0])
    assert first.score == 1.0 - second.score
    summary = summarize([pair], "standard", "standard")
    assert summary["margin_per_deck"].value == 0.0
    assert summary["sides"][0].win_rate.value == 0.5


def test_two_player_games_and_results_by_side() -> None:
    pair = play_pair("novice", "random", 2, 51, 1, 0)
    for game in pair.games:
        assert game.decks >= 1
        assert len(game.times[0]) == len(game.cpu_times[0]) > 0
        # Every deck has 48 plays, half by each side (R8.1).
        assert len(game.times[0]) + len(game.times[1]) == 48 * game.decks
        assert len(game.times[0]) == len(game.times[1])
        total = sum(game.points)
        assert total >= 13 * game.decks  # card points alone, R5.4


def test_a_finished_run_closes_its_workers_and_never_terminates_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Terminating a pool whose workers were leaving after their last job hung a run
    # for good (seen once in CI): a finished run closes the pool and joins it.
    calls: list[str] = []
    for name in ("close", "terminate", "join"):
        original = getattr(multiprocessing.pool.Pool, name)

        def record(self: object, _name: str = name, _original: Any = original) -> None:
            calls.append(_name)
            _original(self)

        monkeypatch.setattr(multiprocessing.pool.Pool, name, record)
    pairs = run_duplicate("novice", "random", players=2, matches=2, target=51, seed=8, jobs=2)
    assert [p.index for p in pairs] == [0, 1]
    assert calls == ["close", "join"]


def test_a_run_cut_short_terminates_its_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = multiprocessing.pool.Pool.terminate

    def record(self: multiprocessing.pool.Pool) -> None:
        calls.append("terminate")
        original(self)

    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", record)

    def stop(pair: PairResult) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_duplicate(
            "novice", "random", players=2, matches=4, target=51, seed=8, jobs=2, on_pair=stop
        )
    assert calls == ["terminate"]


def test_a_second_interrupt_while_the_workers_are_stopped_does_not_hang_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ctrl-C twice (or `timeout -s INT`, which signals twice): the second SIGINT landed
    # inside terminate(), left the pool half stopped, and the join after it hung.
    original = multiprocessing.pool.Pool._help_stuff_finish

    def interrupted_again(*args: Any) -> None:
        original(*args)  # takes the task queue's lock, which the workers then wait for
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(multiprocessing.pool.Pool, "_help_stuff_finish", interrupted_again)

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError("the run hung after a second interrupt")

    previous = signal.signal(signal.SIGALRM, hung)
    # Ctrl-C as a terminal gives it, even where the tests were started with SIGINT
    # ignored (a shell's background job): there the kill above would do nothing.
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.alarm(60)
    start = time.monotonic()
    try:

        def stop(pair: PairResult) -> None:
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            run_duplicate(
                "novice", "random", players=2, matches=4, target=51, seed=8, jobs=2, on_pair=stop
            )
        # The handlers are as they were: Ctrl-C interrupts again.
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        signal.signal(signal.SIGINT, previous_int)
    # Stopped at once (two workers spawned and stopped), not after the alarm's minute.
    assert time.monotonic() - start < 30
