"""Duplicate matches: every sequence of deals is played twice, the sides swapped.

Side A and side B are two bot specs (a level such as ``"standard"`` or a
plug-in ``"module:Class"``, see :func:`pishti.bots.make_bot`).  Duplicate match
``index`` of a run with seed ``seed`` draws its first dealer and every deck
from generators derived from ``(seed, index)`` and the deck number, so its two
games get the very same decks (R2.1) whoever plays them: in game 0 side A
holds team 0 (seats 0 and 2, or seat 0 with two players, R1.3, R1.4), in
game 1 side B does.  Luck of the deal cancels out; skill remains.

Every seat gets its own bot, seeded from ``(seed, index, game, seat)``, and
sees only its :func:`~pishti.engine.view.seat_view` (R7.7).
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from pishti.bots import make_bot
from pishti.engine.deck import Deck, deal_deck
from pishti.engine.match import DeckSource, Match
from pishti.engine.view import seat_view


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game of a duplicate match, seen from the two sides.

    Attributes:
        swapped: False when side A held team 0, True when side B did.
        score: side A's match result: 1.0 won, 0.5 drawn at the deck cap (R6.4), 0.0 lost.
        decks: decks played.
        points: ``(a, b)``, each side's match points (the sum of its deck points, R5.2).
        pishtis, jack_pishtis: ``(a, b)``, counts over the match (R4.1, R4.2).
        times: ``(a, b)``, wall-clock seconds each side's bots took per move, in order.
        cpu_times: ``(a, b)``, the same in CPU seconds of the playing process
            (what a move costs on one core, however busy the machine).
    """

    swapped: bool
    score: float
    decks: int
    points: tuple[int, int]
    pishtis: tuple[int, int]
    jack_pishtis: tuple[int, int]
    times: tuple[tuple[float, ...], tuple[float, ...]]
    cpu_times: tuple[tuple[float, ...], tuple[float, ...]]


@dataclass(frozen=True, slots=True)
class PairResult:
    """A duplicate match: ``games[0]`` with side A as team 0, ``games[1]`` swapped."""

    index: int
    games: tuple[GameResult, GameResult]


def derived_seed(*parts: object) -> int:
    """Return a 63-bit seed derived from ``parts`` (stable across runs and machines)."""
    return random.Random("/".join(map(str, parts))).getrandbits(63)


def duplicate_decks(seed: int, index: int, players: int) -> tuple[int, DeckSource]:
    """Return ``(first_dealer, deck_source)`` of duplicate match ``index``.

    Deck ``number`` is ``deal_deck(Random(derived from seed, index, number), players,
    dealer)``: both games of the match get the same decks (R2.1, R2.2).
    """
    first_dealer = random.Random(derived_seed(seed, index, "dealer")).randrange(players)

    def source(number: int, dealer: int) -> Deck:
        return deal_deck(random.Random(derived_seed(seed, index, "deck", number)), players, dealer)

    return first_dealer, source


def play_game(
    side_a: str,
    side_b: str,
    *,
    players: int,
    target: int,
    seed: int,
    index: int,
    swapped: bool,
) -> GameResult:
    """Play one game of duplicate match ``index`` and return its result.

    Args:
        side_a, side_b: bot specs for :func:`pishti.bots.make_bot`.
        players: 4 or 2.  target: points to reach (R6.1).
        seed, index: pick the decks (:func:`duplicate_decks`) and the bots' seeds.
        swapped: False gives team 0 to side A, True to side B.
    Raises:
        ValueError: a bot spec is unknown, or a bot played a card it does not hold.
    """
    first_dealer, source = duplicate_decks(seed, index, players)
    match = Match(players, target, seed=0, first_dealer=first_dealer, deck_source=source)
    game = int(swapped)
    a_team = 1 if swapped else 0
    bots = [
        make_bot(side_a if seat & 1 == a_team else side_b, derived_seed(seed, index, game, seat))
        for seat in range(players)
    ]
    times: tuple[list[float], list[float]] = ([], [])
    cpu_times: tuple[list[float], list[float]] = ([], [])
    clock = time.perf_counter
    cpu_clock = time.process_time
    while not match.finished:
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        start = clock()
        cpu_start = cpu_clock()
        card = bots[seat].choose(view)
        cpu_elapsed = cpu_clock() - cpu_start
        elapsed = clock() - start
        if card not in view.legal_cards:
            name = bots[seat].name
            raise ValueError(f"bot {name!r} at seat {seat} played a card it does not hold")
        side = 0 if seat & 1 == a_team else 1
        times[side].append(elapsed)
        cpu_times[side].append(cpu_elapsed)
        match.play(card)
    pishtis = [0, 0]
    jack_pishtis = [0, 0]
    for deck in match.decks:
        pishtis[0] += deck.pishtis[0]
        pishtis[1] += deck.pishtis[1]
        jack_pishtis[0] += deck.jack_pishtis[0]
        jack_pishtis[1] += deck.jack_pishtis[1]
    b_team = 1 - a_team
    score = 0.5 if match.winner is None else 1.0 if match.winner == a_team else 0.0
    return GameResult(
        swapped=swapped,
        score=score,
        decks=len(match.decks),
        points=(match.totals[a_team], match.totals[b_team]),
        pishtis=(pishtis[a_team], pishtis[b_team]),
        jack_pishtis=(jack_pishtis[a_team], jack_pishtis[b_team]),
        times=(tuple(times[0]), tuple(times[1])),
        cpu_times=(tuple(cpu_times[0]), tuple(cpu_times[1])),
    )


Job = tuple[str, str, int, int, int, int]
"""``(side_a, side_b, players, target, seed, index)``: one duplicate match to play."""


def play_pair(
    side_a: str, side_b: str, players: int, target: int, seed: int, index: int
) -> PairResult:
    """Play duplicate match ``index``: both games, the second with the sides swapped."""
    first = play_game(
        side_a, side_b, players=players, target=target, seed=seed, index=index, swapped=False
    )
    second = play_game(
        side_a, side_b, players=players, target=target, seed=seed, index=index, swapped=True
    )
    return PairResult(index, (first, second))


def _play_pair_job(job: Job) -> PairResult:
    return play_pair(*job)


def run_duplicate(
    side_a: str,
    side_b: str,
    *,
    players: int = 4,
    matches: int = 100,
    target: int = 101,
    seed: int = 0,
    jobs: int = 1,
    on_pair: Callable[[PairResult], None] | None = None,
) -> list[PairResult]:
    """Play ``matches`` duplicate matches (``2 * matches`` games) and return them by index.

    Args:
        side_a, side_b: bot specs for :func:`pishti.bots.make_bot`.
        players: 4 or 2.  target: points to reach (R6.1).
        matches: duplicate matches to play, at least 1.
        seed: the run's seed; the same arguments give the same results.
        jobs: worker processes; 1 plays in this process.
        on_pair: called with each duplicate match as it finishes (in any order).
    Raises:
        ValueError: a bot spec is unknown (checked before any game), or bad counts.
    """
    if matches < 1:
        raise ValueError(f"matches must be at least 1, not {matches}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    make_bot(side_a, 0)
    make_bot(side_b, 0)
    job_args: list[Job] = [(side_a, side_b, players, target, seed, i) for i in range(matches)]
    results: list[PairResult] = []
    for pair in _run_jobs(job_args, jobs):
        results.append(pair)
        if on_pair is not None:
            on_pair(pair)
    results.sort(key=lambda p: p.index)
    return results


def _run_jobs(job_args: list[Job], jobs: int) -> Iterator[PairResult]:
    if jobs == 1:
        for job in job_args:
            yield _play_pair_job(job)
        return
    # "spawn" starts clean workers (no threads forked from a progress bar); each
    # inherits this process's import path, so plug-in bots import there too.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [pool.submit(_play_pair_job, job) for job in job_args]
        for future in as_completed(futures):
            yield future.result()
