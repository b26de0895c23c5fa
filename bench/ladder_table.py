"""Print a Markdown table of ``pishti arena --json`` results, one row per run.

pishti arena novice random --matches 300 --seed 1 --jobs 2 --json > novice-random.json
...
python bench/ladder_table.py novice-random.json standard-novice.json expert-standard.json
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def interval(estimate: dict[str, float | None], digits: int) -> str:
    """``value [low, high]`` with ``digits`` decimals; a bound that is null in the
    JSON (one duplicate match gives no interval) is ``-inf`` or ``inf``."""
    v, lo, hi = estimate["value"], estimate["low"], estimate["high"]
    low = -math.inf if lo is None else lo
    high = math.inf if hi is None else hi
    return f"{v:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def row(run: dict[str, Any]) -> str:
    """One table row: side A's figures against side B, and both sides' per-deck figures."""
    a, b = run["sides"]
    cells = [
        f"{a['bot']} vs {b['bot']}",
        str(run["players"]),
        f"{run['duplicate_matches']} ({run['games']} games, {run['decks']} decks)",
        interval(a["win_rate"], 3),
        interval(run["margin_per_deck"], 2),
        f"{interval(a['points_per_deck'], 2)} / {interval(b['points_per_deck'], 2)}",
        f"{interval(a['pishtis_per_deck'], 3)} / {interval(b['pishtis_per_deck'], 3)}",
        f"{a['median_move_ms']:.3g} ({a['median_move_cpu_ms']:.3g} CPU)",
    ]
    return "| " + " | ".join(cells) + " |"


def load(path: str) -> dict[str, Any]:
    """The ``--json`` output of one ``pishti arena`` run.

    Raises:
        SystemExit: with one line naming the file, when it cannot be read, is
            not JSON, or is not an arena run's figures (no ``sides``).
    """
    try:
        with open(path) as f:
            run = json.load(f)
    except OSError as exc:
        raise SystemExit(f"{path}: cannot be read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        what = f"{exc.msg}, line {exc.lineno}"
        raise SystemExit(f"{path}: not the JSON of one arena run ({what})") from None
    except UnicodeDecodeError:
        raise SystemExit(f"{path}: not the JSON of one arena run (not UTF-8 text)") from None
    if not isinstance(run, dict) or "sides" not in run:
        raise SystemExit(f"{path}: not the output of `pishti arena ... --json`")
    return run


def rows(
    paths: list[str],
    make: Callable[[dict[str, Any]], T],
    kind: str,
    read: Callable[[str], dict[str, Any]] = load,
) -> list[T]:
    """What ``make`` gives (a table row, or more) for each file's run as ``read``
    reads it (:func:`load` by default), all before any is printed.

    Raises:
        SystemExit: with one line naming the file, when ``read`` refuses it
            or its figures are not of the shape ``make`` reads (``kind`` names
            the command that writes them).
    """
    out: list[T] = []
    for path in paths:
        run = read(path)
        try:
            out.append(make(run))
        except (KeyError, TypeError, ValueError, IndexError):
            raise SystemExit(f"{path}: not the output of `{kind}`") from None
    return out


def main(paths: list[str]) -> None:
    """Print the header and one row per file of ``paths``, in their order.

    Raises:
        SystemExit: no file named, or a file :func:`load` refuses (nothing printed).
    """
    if not paths:
        raise SystemExit("usage: .venv/bin/python bench/ladder_table.py RUN.json [RUN.json ...]")
    lines = rows(paths, row, "pishti arena ... --json")
    print(
        "| A vs B | players | duplicate matches | A's match win rate | A - B points per deck"
        " | points per deck, A / B | pishtis per deck, A / B | A's median ms per move |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
