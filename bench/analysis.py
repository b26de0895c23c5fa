"""How long ``pishti analyse`` takes, and how often its best card agrees with a longer search.

Time: plays a 101-point four-player match of ``standard`` bots against
``novice`` bots (seed 1), then analyses its record at the default setting
with 1 and 2 worker processes, alternating, ``RUNS`` times each; prints the
medians (seconds).

Agreement: at ``POSITIONS`` positions of such matches (every 7th play with a
real choice) the best card at the default budget
(:data:`~pishti.analysis.position.SAMPLES`) is compared with the best card of
a search ``LONG`` times longer (a different seed); it prints the share of
positions where they play alike (same rank and card points), and the mean
expected points the default's best card loses by the longer search's values.

    python bench/analysis.py [RUNS] [POSITIONS]
        (RUNS 0: the agreement only; POSITIONS 0: the timing only)
"""

from __future__ import annotations

import statistics
import sys
import time

from pishti.analysis import analyse_record, card_values
from pishti.analysis.position import SAMPLES
from pishti.bots import make_bot
from pishti.bots.opponents import same_play
from pishti.bots.playout import distinct_cards
from pishti.engine import Match, seat_view
from pishti.records import MatchRecord, match_record

LONG = 8
"""How many times longer the reference search is."""


def play_match(seed: int) -> MatchRecord:
    """A finished 101-point four-player match: standard (team 0) against novice (team 1)."""
    match = Match(4, 101, seed=seed)
    bots = [make_bot("standard" if s % 2 == 0 else "novice", seed * 10 + s) for s in range(4)]
    while not match.finished:
        seat = match.to_play
        assert seat is not None
        match.play(bots[seat].choose(seat_view(match, seat)))
    return match_record(match)


def timing(runs: int) -> None:
    """Print the median wall time of an analysis with 1 and 2 workers (alternating),
    and the median CPU seconds of the one-worker run (this process's own time, which
    other work on a busy machine barely changes)."""
    record = play_match(1)
    plays = sum(len(d.plays) for d in record.decks)
    print(f"match: {len(record.decks)} decks, {plays} plays, default {SAMPLES} samples a play")
    times: dict[int, list[float]] = {1: [], 2: []}
    cpu: list[float] = []
    for run in range(runs):
        for jobs in (2, 1):
            start = time.perf_counter()
            start_cpu = time.process_time()
            analyse_record(record, jobs=jobs)
            times[jobs].append(time.perf_counter() - start)
            if jobs == 1:
                cpu.append(time.process_time() - start_cpu)
            print(f"  run {run + 1}, {jobs} worker(s): {times[jobs][-1]:.1f} s", flush=True)
    for jobs, values in times.items():
        print(f"{jobs} worker(s): median {statistics.median(values):.1f} s over {runs} runs")
    print(f"1 worker: median {statistics.median(cpu):.1f} CPU seconds")


def agreement(positions: int) -> None:
    """Print how often the default search's best card agrees with a longer one."""
    agree = 0
    lost: list[float] = []
    seen = 0
    seed = 100
    while seen < positions:
        record = play_match(seed)
        seed += 1
        match = Match(4, 101, seed=seed - 1)
        count = 0
        for deck in record.decks:
            for card in deck.plays:
                seat = match.to_play
                assert seat is not None
                view = seat_view(match, seat)
                count += 1
                if len(distinct_cards(view.legal_cards)) > 1 and count % 7 == 0:
                    short = card_values(view, f"short/{count}", SAMPLES)
                    long = card_values(view, f"long/{count}", SAMPLES * LONG)
                    agree += same_play(short[0].card, long[0].card)
                    lost.append(next(v.loss for v in long if v.card == short[0].card))
                    seen += 1
                    if seen == positions:
                        break
                match.play(card)
            if seen == positions:
                break
    print(
        f"agreement with a {LONG}x longer search ({SAMPLES * LONG} samples): "
        f"{agree}/{positions} = {agree / positions:.0%}; "
        f"mean expected points lost by the default's best card: {statistics.fmean(lost):.3f}"
    )


def main(argv: list[str]) -> None:
    """Run the timing (``argv[0]`` runs, 3 by default) and the agreement (``argv[1]``
    positions, 100 by default); a count of 0 leaves that part out."""
    runs = int(argv[0]) if argv else 3
    positions = int(argv[1]) if len(argv) > 1 else 100
    if runs:
        timing(runs)
    if positions:  # an agreement over no position has no share to print
        agreement(positions)


if __name__ == "__main__":
    main(sys.argv[1:])
