"""Print the Markdown table of the expert against the pool from ``pishti arena --compare`` runs.

Each file is the ``--json`` output of one row's command, e.g.

pishti arena expert sampler --players 2 --matches 100 --target 101 --seed 1401 \
    --compare standard --jobs 1 --json > sampler-2p.json
...
.venv/bin/python bench/pool_table.py sampler-2p.json miser-2p.json grabber-2p.json

A line above the table names BOT_A and the reference bot.  A row: the
opponent (held out or not, from ``pishti.bots.baselines``), the
duplicate matches and decks, both bots' match win rates against it, both
margins per deck, BOT_A less the reference (margin per deck and match win
rate, paired on the same deals), and BOT_A's median and 95th percentile time
per move, wall-clock and CPU, in milliseconds.
"""

from __future__ import annotations

import sys
from typing import Any

from ladder_table import interval, rows
from ladder_table import load as load_run
from pishti.bots.baselines import HELD_OUT

HEADER = (
    "| opponent | players | target | duplicate matches | A's match win rate"
    " | reference's match win rate | A - opponent, points per deck"
    " | reference - opponent | A less reference, points per deck"
    " | A less reference, match win rate | A's ms per move, median / p95 (wall)"
    " | CPU ms, median / p95 |"
)


def row(run: dict[str, Any]) -> str:
    """One table row of a ``--compare`` run (module doc)."""
    a, b = run["sides"]
    ref = run["reference"]
    paired = run["a_less_reference"]
    name = b["bot"] + (" (held out)" if b["bot"] in HELD_OUT else "")
    cells = [
        name,
        str(run["players"]),
        str(run["target"]),
        f"{run['duplicate_matches']} ({run['decks']} decks)",
        interval(a["win_rate"], 3),
        interval(ref["sides"][0]["win_rate"], 3),
        interval(run["margin_per_deck"], 2),
        interval(ref["margin_per_deck"], 2),
        interval(paired["margin_per_deck"], 2),
        interval(paired["win_rate"], 3),
        f"{milliseconds(a['median_move_ms'])} / {milliseconds(a['p95_move_ms'])}",
        f"{milliseconds(a['median_move_cpu_ms'])} / {milliseconds(a['p95_move_cpu_ms'])}",
    ]
    return "| " + " | ".join(cells) + " |"


def bots(run: dict[str, Any]) -> str:
    """Which bots a run's A and reference are: ``"A: expert; reference: standard"``."""
    return f"A: {run['sides'][0]['bot']}; reference: {run['reference']['sides'][0]['bot']}"


def caption(names: list[str]) -> str:
    """The line above the table naming A and the reference (:func:`bots`): once
    when every row has the same, else row by row."""
    if len(set(names)) == 1:
        return names[0] + " (every row)."
    return " ".join(f"Row {i}: {name}." for i, name in enumerate(names, 1))


def load(path: str) -> dict[str, Any]:
    """The ``--json`` output of one ``pishti arena --compare`` run.

    Raises:
        SystemExit: with one line naming the file, when it cannot be read, is
            not JSON, or holds no reference figures (a run without ``--compare``).
    """
    run = load_run(path)
    if "a_less_reference" not in run:
        raise SystemExit(f"{path}: not a `pishti arena ... --compare C --json` run")
    return run


def milliseconds(value: float) -> str:
    """Milliseconds for the table: whole above 10, else two significant
    digits (a fast bot's 0.037 ms is not 0)."""
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def main(paths: list[str]) -> None:
    """Print the header and one row per file of ``paths``, in their order.

    Raises:
        SystemExit: no file named, or a file :func:`load` refuses (nothing printed).
    """
    if not paths:
        raise SystemExit("usage: .venv/bin/python bench/pool_table.py RUN.json [RUN.json ...]")
    read = rows(
        paths, lambda run: (row(run), bots(run)), "pishti arena ... --compare C --json", load
    )
    print(caption([names for _, names in read]))
    print()
    print(HEADER)
    print("|" + "---|" * 12)
    for line, _ in read:
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
