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

import contextlib
import multiprocessing
import random
import signal
import threading
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from pishti.bots import Bot, StandardBot, make_bot
from pishti.bots.guard import (
    BUSY,
    DEFAULT_MOVE_TIME,
    OVERTIME,
    BotFault,
    GuardedBot,
    check_card,
    fault_line,
)
from pishti.bots.plugins import is_plugin_spec
from pishti.engine.deck import Deck, deal_deck
from pishti.engine.events import Event
from pishti.engine.match import DeckSource, Match
from pishti.engine.view import event_for_seat, seat_view


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
        fallbacks: ``(a, b)``, moves on which a side's plug-in ran over its
            time, or was still busy with a move that had, and the standard
            bot's card was played instead (R7.2).
        notes: one line per such move (:func:`pishti.bots.guard.fault_line`).
    """

    swapped: bool
    score: float
    decks: int
    points: tuple[int, int]
    pishtis: tuple[int, int]
    jack_pishtis: tuple[int, int]
    times: tuple[tuple[float, ...], tuple[float, ...]]
    cpu_times: tuple[tuple[float, ...], tuple[float, ...]]
    fallbacks: tuple[int, int] = (0, 0)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PairResult:
    """A duplicate match: ``games[0]`` with side A as team 0, ``games[1]`` swapped.

    ``reference``: in a run with a reference bot C (``--compare``), the two
    games of C against side B on the very same deals, with the same seeds for
    B's bots (C in A's place); else None.
    """

    index: int
    games: tuple[GameResult, GameResult]
    reference: tuple[GameResult, GameResult] | None = None


class BotFailed(Exception):
    """A bot returned something that is not a legal card, or raised, during a game.

    The message is one line naming the bot, the seat, the duplicate match,
    the game and the deck, and what the bot returned or raised
    (:func:`pishti.bots.guard.fault_line`).
    """


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


def seat_bot(spec: str, seed: int, move_time: float | None) -> Bot:
    """Build the bot ``spec`` for a seat: a plug-in comes guarded
    (:class:`~pishti.bots.guard.GuardedBot`, ``move_time`` seconds per move),
    a built-in level as it is.

    Raises:
        ValueError: the spec is unknown, or the plug-in cannot be loaded or built.
    """
    bot = make_bot(spec, seed)
    if is_plugin_spec(spec):
        return GuardedBot(bot, spec, move_time)
    return bot


def play_game(
    side_a: str,
    side_b: str,
    *,
    players: int,
    target: int,
    seed: int,
    index: int,
    swapped: bool,
    move_time: float | None = DEFAULT_MOVE_TIME,
) -> GameResult:
    """Play one game of duplicate match ``index`` and return its result.

    Args:
        side_a, side_b: bot specs for :func:`pishti.bots.make_bot`.
        players: 4 or 2.  target: points to reach (R6.1).
        seed, index: pick the decks (:func:`duplicate_decks`) and the bots' seeds.
        swapped: False gives team 0 to side A, True to side B.
        move_time: seconds a plug-in may take per move (None: no limit); a
            move over it is stopped and the standard bot's card is played (R7.2).
    Raises:
        ValueError: a bot spec is unknown, or a plug-in cannot be built.
        BotFailed: a bot returned something that is not a legal card, or raised.
    """
    first_dealer, source = duplicate_decks(seed, index, players)
    match = Match(players, target, seed=0, first_dealer=first_dealer, deck_source=source)
    game = int(swapped)
    a_team = 1 if swapped else 0
    where = f"seed {seed}, duplicate match {index}, game {game}"
    bots: list[Bot] = []
    for seat in range(players):
        spec = side_a if seat & 1 == a_team else side_b
        try:
            bots.append(seat_bot(spec, derived_seed(seed, index, game, seat), move_time))
        except ValueError as exc:
            raise ValueError(f"{exc} (seat {seat}, {where})") from None
    fallback = StandardBot()
    observers = [s for s, b in enumerate(bots) if isinstance(b, GuardedBot) and b.observes]
    fallbacks = [0, 0]
    notes: list[str] = []

    def tell(events: list[Event]) -> None:
        # Plug-ins with an observe hook see every event as their seat may (R7.7).
        for event in events:
            for s in observers:
                bot = bots[s]
                assert isinstance(bot, GuardedBot)
                try:
                    bot.observe(event_for_seat(event, s))
                except BotFault as fault:
                    line = fault_line(_spec_of(bot), s, where, event.deck, fault)
                    if fault.kind not in (OVERTIME, BUSY):
                        raise BotFailed(line + " (in observe)") from None
                    notes.append(line + " (in observe)")

    tell(match.events)
    times: tuple[list[float], list[float]] = ([], [])
    cpu_times: tuple[list[float], list[float]] = ([], [])
    clock = time.perf_counter
    cpu_clock = time.process_time
    while not match.finished:
        player = match.to_play
        assert player is not None
        view = seat_view(match, player)
        side = 0 if player & 1 == a_team else 1
        bot = bots[player]
        start = clock()
        cpu_start = cpu_clock()
        try:
            card = check_card(bot.choose(view), view)
        except BotFault as fault:
            line = fault_line(_spec_of(bot), player, where, view.deck, fault)
            if fault.kind not in (OVERTIME, BUSY):
                raise BotFailed(line) from None
            fallbacks[side] += 1
            notes.append(line + "; the standard bot played that move")
            card = fallback.choose(view)
        cpu_elapsed = cpu_clock() - cpu_start
        elapsed = clock() - start
        times[side].append(elapsed)
        cpu_times[side].append(cpu_elapsed)
        events = match.play(card)
        if observers:
            tell(events)
    for s in observers:  # events kept while a stopped move ran: shown now (guard)
        bot = bots[s]
        assert isinstance(bot, GuardedBot)
        try:
            bot.finish()
        except BotFault as fault:
            line = fault_line(_spec_of(bot), s, where, match.deck_number, fault)
            if fault.kind not in (OVERTIME, BUSY):
                raise BotFailed(line + " (in observe)") from None
            notes.append(line + " (in observe)")
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
        fallbacks=(fallbacks[0], fallbacks[1]),
        notes=tuple(notes),
    )


def _spec_of(bot: Bot) -> str:
    return bot.spec if isinstance(bot, GuardedBot) else bot.name


@dataclass(frozen=True, slots=True)
class Job:
    """One duplicate match to play (a picklable job for a worker process)."""

    side_a: str
    side_b: str
    players: int
    target: int
    seed: int
    index: int
    move_time: float | None = DEFAULT_MOVE_TIME
    reference: str | None = None


def play_pair(
    side_a: str,
    side_b: str,
    players: int,
    target: int,
    seed: int,
    index: int,
    move_time: float | None = DEFAULT_MOVE_TIME,
    reference: str | None = None,
) -> PairResult:
    """Play duplicate match ``index``: both games, the second with the sides swapped,
    and the same two games with ``reference`` in side A's place when given.

    Raises:
        ValueError, BotFailed: as :func:`play_game`.
    """

    def games(a: str) -> tuple[GameResult, GameResult]:
        first, second = (
            play_game(
                a,
                side_b,
                players=players,
                target=target,
                seed=seed,
                index=index,
                swapped=swapped,
                move_time=move_time,
            )
            for swapped in (False, True)
        )
        return first, second

    return PairResult(index, games(side_a), None if reference is None else games(reference))


def _play_job(job: Job) -> PairResult:
    return play_pair(
        job.side_a,
        job.side_b,
        job.players,
        job.target,
        job.seed,
        job.index,
        job.move_time,
        job.reference,
    )


def run_duplicate(
    side_a: str,
    side_b: str,
    *,
    players: int = 4,
    matches: int = 100,
    target: int = 101,
    seed: int = 0,
    jobs: int = 1,
    move_time: float | None = DEFAULT_MOVE_TIME,
    reference: str | None = None,
    skip: Collection[int] = (),
    on_pair: Callable[[PairResult], None] | None = None,
) -> list[PairResult]:
    """Play ``matches`` duplicate matches (``2 * matches`` games) and return them by index.

    Args:
        side_a, side_b: bot specs for :func:`pishti.bots.make_bot`.
        players: 4 or 2.  target: points to reach (R6.1).
        matches: duplicate matches to play, at least 1.
        seed: the run's seed; the same arguments give the same results.
        jobs: worker processes; 1 plays in this process.
        move_time: seconds a plug-in may take per move (see :func:`play_game`).
        reference: a bot spec C that also plays side B on the same deals
            (:attr:`PairResult.reference`), to compare A with C paired.
        skip: indices already played (a resumed run): not played again.
        on_pair: called with each duplicate match as it finishes (in any order);
            the pairs finished so far are kept even when a later one fails.
    Returns:
        The pairs played (not those skipped), by index.
    Raises:
        ValueError: a bot spec is unknown or cannot be built (checked before
            any game), or bad counts.
        BotFailed: a bot returned something that is not a legal card, or raised.
    """
    if matches < 1:
        raise ValueError(f"matches must be at least 1, not {matches}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    for spec in (side_a, side_b) if reference is None else (side_a, side_b, reference):
        make_bot(spec, 0)
    done = set(skip)
    job_args = [
        Job(side_a, side_b, players, target, seed, i, move_time, reference)
        for i in range(matches)
        if i not in done
    ]
    results: list[PairResult] = []
    for pair in _run_jobs(job_args, jobs):
        results.append(pair)
        if on_pair is not None:
            on_pair(pair)
    results.sort(key=lambda p: p.index)
    return results


def _quiet_worker() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (no tracebacks)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_jobs(job_args: list[Job], jobs: int) -> Iterator[PairResult]:
    if jobs == 1 or len(job_args) <= 1:
        for job in job_args:
            yield _play_job(job)
        return
    # "spawn" starts clean workers (no threads forked from a progress bar); each
    # inherits this process's import path, so plug-in bots import there too.
    # A run that finishes closes the pool and waits for its workers to leave; only a
    # run cut short (Ctrl-C, a failing bot) terminates them.  Terminating a pool
    # whose workers are already leaving after their last job can hang it for good
    # (a worker waiting on the task queue's lock that is never released).
    # A second Ctrl-C (or SIGTERM) that lands inside terminate() leaves the pool half
    # stopped, and the join after it waits for ever: both are ignored while it runs.
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(min(jobs, len(job_args)), initializer=_quiet_worker)
    finished = False
    try:
        yield from pool.imap_unordered(_play_job, job_args)
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            with _interrupts_ignored():
                pool.terminate()
        pool.join()


@contextlib.contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """SIGINT and SIGTERM are ignored inside the block (in the main thread, the
    only one that receives them); the handlers before it are put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
