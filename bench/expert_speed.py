"""Benchmark the expert's time per move: the fast playout core against the reference.

Plays ``--matches`` matches to 51 at each player count (four and two
players), the expert (``ExpertBot``, seed 7) at seat 0 against standard bots,
and keeps every position where the expert moved, with the expert's state just
before (its opponent model).  Then, ``--runs`` times, it times every position
both ways on a copy of that state: ``ExpertBot(fast=False)``, playouts on
copies of ``Deck`` through ``mixed_playout`` (the reference), and
``ExpertBot()``, the fused loops of ``pishti.bots.fastplay``.  They are
timed one after the other at each position, the order turning from one
position to the next, so all see the same load.  Every way must choose the
same card after the same search (the run fails otherwise).

When the fast core is compiled (``./dev compile``, ``fastplay.NATIVE``) a
third way is timed: the compiled ``fast_playout`` and ``fast_solve``
(``fused`` is then the pure-Python ones, ``fastplay.PURE``).

    python bench/expert_speed.py [--matches 2] [--runs 3] [--check 0] [--budget-ms 0]

Prints, per run and player count, the median CPU milliseconds per move of
each core (over all of the expert's moves, forced and obvious ones included,
as the arena counts them, and in brackets over the moves it searched); then
the medians of the runs with the ratios of the reference's medians to each
other core's, and as its last line the same as JSON.  ``--check N`` first
plays ``N`` playouts per player count both ways
(``pishti.bots.fastplay.playout_differences``) and exits 1 on any difference.

``--budget-ms T`` instead gives every core ``T`` milliseconds of CPU time per
move (``ExpertBot(time_limit=T / 1000, clock="cpu")``, up to 4,096 sampled
decks) at the same positions and prints, per run, how many decks each
samples (or solves, in an exact endgame) in a median move searched, and the
median CPU milliseconds of those moves; the cards may then differ.

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

from pishti.bots import expert, fastplay, make_bot
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


def time_move(state: ExpertBot, view: SeatView, core: str) -> Timed:
    """CPU seconds of one move from a copy of ``state`` on ``core``, the card, and
    the search done."""
    bot = copy.deepcopy(state)
    bot.fast = core != "reference"
    functions = fastplay.PURE if core == "fused" else (fastplay.fast_playout, fastplay.fast_solve)
    expert.fast_playout, expert.fast_solve = functions
    clock = time.process_time
    start = clock()
    card = bot.choose(view)
    return clock() - start, card, bot.last_search


def budget_run(cases: list[Position], cores: list[str], budget_ms: float) -> dict[str, float]:
    """Give every core ``budget_ms`` of CPU time per move at every position, the
    order turning; the median decks sampled and CPU ms over the moves searched."""
    used: dict[str, list[float]] = {core: [] for core in cores}
    spent: dict[str, list[float]] = {core: [] for core in cores}
    for i, (view, state) in enumerate(cases):
        timed = copy.deepcopy(state)
        timed.samples = timed.endgame_samples = 4096
        timed.time_limit = budget_ms / 1000
        timed.clock = "cpu"
        for core in cores[i % len(cores) :] + cores[: i % len(cores)]:
            seconds, _, search = time_move(timed, view, core)
            if search[0]:
                used[core].append(search[0])
                spent[core].append(seconds)
    out = {"moves_searched": float(len(used[cores[0]]))}
    for core in cores:
        out[f"{core}_samples"] = statistics.median(used[core])
        out[f"{core}_searched_ms"] = 1000 * statistics.median(spent[core])
    return out


def run(cases: list[Position], cores: list[str]) -> dict[str, float]:
    """Time every position on every core, the order turning from one position to
    the next; the medians in milliseconds, and the reference's over each other core's."""
    times: dict[str, list[float]] = {core: [] for core in cores}
    searched: dict[str, list[float]] = {core: [] for core in cores}
    for i, (view, state) in enumerate(cases):
        order = cores[i % len(cores) :] + cores[: i % len(cores)]
        result = {core: time_move(state, view, core) for core in order}
        want = result["reference"][1:]
        for core in cores:
            spent, card, search = result[core]
            if (card, search) != want:
                sys.exit(f"{core} chose differently at {view}: {card} against {want[0]}")
            times[core].append(spent)
            if search[0]:
                searched[core].append(spent)
    out = {"moves": float(len(cases))}
    for core in cores:
        out[f"{core}_ms"] = 1000 * statistics.median(times[core])
        out[f"{core}_searched_ms"] = 1000 * statistics.median(searched[core])
    for core in cores[1:]:
        out[f"ratio_{core}"] = out["reference_ms"] / out[f"{core}_ms"]
        out[f"ratio_{core}_searched"] = out["reference_searched_ms"] / out[f"{core}_searched_ms"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=2, help="matches to 51 per player count")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", type=int, default=0, help="playouts to check per player count")
    parser.add_argument(
        "--budget-ms", type=float, default=0, help="CPU ms per move instead of 128 samples"
    )
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
    cores = ["reference", "fused", "compiled"] if fastplay.NATIVE else ["reference", "fused"]
    print(f"cores: {', '.join(cores)}; median CPU ms per move (moves searched only)")
    summary: dict[str, dict[str, float]] = {}
    for players in (4, 2):
        cases = positions(players, args.matches)
        runs = []
        for k in range(args.runs):
            if args.budget_ms:
                figures = budget_run(cases, cores, args.budget_ms)
                runs.append(figures)
                print(f"{players}p run {k + 1} at {args.budget_ms:g} ms: {figures}", flush=True)
                continue
            figures = run(cases, cores)
            runs.append(figures)
            line = ", ".join(
                f"{core} {figures[core + '_ms']:.1f} ({figures[core + '_searched_ms']:.1f})"
                for core in cores
            )
            print(f"{players}p run {k + 1}: {int(figures['moves'])} moves; {line}", flush=True)
        summary[f"{players}p"] = {
            key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]
        }
        print(f"{players}p median of {args.runs} runs: {summary[f'{players}p']}", flush=True)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
