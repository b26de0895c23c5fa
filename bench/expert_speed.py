"""Benchmark the expert's time per move: the fast playout core against the reference.

Plays ``--matches`` matches to 51 at each player count (four and two
players), the expert (``ExpertBot``, seed 7) at seat 0 against standard bots,
and keeps every position where the expert moved, with the expert's state just
before (its opponent model).  Then, ``--runs`` times, it times every position
both ways on a copy of that state: ``ExpertBot(fast=False)``, playouts on
copies of ``Deck`` through ``mixed_playout`` (the reference), and
``ExpertBot()``, the fused loop of ``pishti.bots.fastplay``.  The two are
timed one after the other at each position, the order alternating from one
position to the next, so both see the same load.  Every pair must choose the
same card after the same search (the run fails otherwise).

    python bench/expert_speed.py [--matches 2] [--runs 3] [--check 0]

Prints, per run and player count, the median CPU milliseconds per move of
each core (over all of the expert's moves, forced and obvious ones included,
as the arena counts them, and over the moves it searched), and the ratio of
the medians; then the medians of the runs, and as its last line the same as
JSON.  ``--check N`` first plays ``N`` playouts per player count both ways
(``pishti.bots.fastplay.playout_differences``) and exits 1 on any difference.

Times are the process's CPU time (``time.process_time``): what a move costs
on one core.  Other load on the machine still slows both (shared caches),
which is why the two are compared in the same run, alternating.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time

from pishti.bots import make_bot
from pishti.bots.expert import ExpertBot
from pishti.bots.fastplay import playout_differences
from pishti.engine import Match, SeatView, seat_view

Position = tuple[SeatView, ExpertBot]


def positions(players: int, matches: int) -> list[Position]:
    """Every position of the expert at seat 0 in ``matches`` matches to 51, with its state."""
    out: list[Position] = []
    for seed in range(matches):
        match = Match(players, 51, seed=100 + seed)
        expert = ExpertBot(7)
        others = [make_bot("standard", s) for s in range(players)]
        while match.to_play is not None:
            seat = match.to_play
            view = seat_view(match, seat)
            if seat == 0:
                out.append((view, copy.deepcopy(expert)))
                card = expert.choose(view)
            else:
                card = others[seat].choose(view)
            match.play(card)
    return out


Timed = tuple[float, int, tuple[int, float, float]]


def time_move(state: ExpertBot, view: SeatView, fast: bool) -> Timed:
    """CPU seconds of one move from a copy of ``state``, the card, and the search done."""
    bot = copy.deepcopy(state)
    bot.fast = fast
    clock = time.process_time
    start = clock()
    card = bot.choose(view)
    return clock() - start, card, bot.last_search


def run(cases: list[Position]) -> dict[str, float]:
    """Time every position both ways, alternating; the medians in milliseconds."""
    ref: list[float] = []
    fast: list[float] = []
    ref_searched: list[float] = []
    fast_searched: list[float] = []
    for i, (view, state) in enumerate(cases):
        order = (False, True) if i % 2 == 0 else (True, False)
        result = {way: time_move(state, view, way) for way in order}
        t_ref, card_ref, search_ref = result[False]
        t_fast, card_fast, search_fast = result[True]
        if card_ref != card_fast or search_ref != search_fast:
            sys.exit(f"the cores chose differently at {view}: {card_ref} against {card_fast}")
        ref.append(t_ref)
        fast.append(t_fast)
        if search_ref[0]:
            ref_searched.append(t_ref)
            fast_searched.append(t_fast)
    out = {
        "moves": float(len(ref)),
        "reference_ms": 1000 * statistics.median(ref),
        "fast_ms": 1000 * statistics.median(fast),
        "reference_searched_ms": 1000 * statistics.median(ref_searched),
        "fast_searched_ms": 1000 * statistics.median(fast_searched),
    }
    out["ratio"] = out["reference_ms"] / out["fast_ms"]
    out["ratio_searched"] = out["reference_searched_ms"] / out["fast_searched_ms"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=2, help="matches to 51 per player count")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", type=int, default=0, help="playouts to check per player count")
    args = parser.parse_args()
    if args.check:
        for players in (4, 2):
            start = time.perf_counter()
            differences = playout_differences(players, args.check, players)
            print(
                f"{players} players: {args.check:,} playouts, {len(differences)} differences "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
            if differences:
                print("\n".join(differences[:5]))
                sys.exit(1)
    summary: dict[str, dict[str, float]] = {}
    for players in (4, 2):
        cases = positions(players, args.matches)
        runs = []
        for k in range(args.runs):
            figures = run(cases)
            runs.append(figures)
            print(
                f"{players}p run {k + 1}: {int(figures['moves'])} moves, median ms per move "
                f"reference {figures['reference_ms']:.1f}, fast {figures['fast_ms']:.1f} "
                f"(x{figures['ratio']:.2f}); moves searched "
                f"{figures['reference_searched_ms']:.1f} against "
                f"{figures['fast_searched_ms']:.1f} (x{figures['ratio_searched']:.2f})",
                flush=True,
            )
        summary[f"{players}p"] = {
            key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]
        }
        print(f"{players}p median of {args.runs} runs: {summary[f'{players}p']}", flush=True)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
