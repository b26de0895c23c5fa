"""``pishti arena BOT_A BOT_B``: duplicate matches between two bots, with 95% intervals."""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from pishti.arena import run_duplicate, summarize
from pishti.arena.stats import Estimate, SideReport
from pishti.cli.app import app, fail
from pishti.engine import TARGETS

BOT_HELP = "A bot level (random, novice, standard, expert) or a plug-in module:Class."


def allow_local_plugins() -> None:
    """Let ``module:Class`` plug-ins be imported from the current directory."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)


def report_json(
    summary: dict[str, Any], bots: tuple[str, str], players: int, target: int, seed: int
) -> dict[str, Any]:
    """The arena's figures as JSON: the run's settings, both sides, and A's margin."""
    sides: list[SideReport] = summary["sides"]
    margin: Estimate = summary["margin_per_deck"]
    return {
        "bots": list(bots),
        "players": players,
        "target": target,
        "seed": seed,
        "duplicate_matches": summary["duplicate_matches"],
        "games": summary["games"],
        "decks": summary["decks"],
        "draws": summary["draws"],
        "sides": [side.as_json() for side in sides],
        "margin_per_deck": margin.as_json(),
    }


def report_table(summary: dict[str, Any]) -> Table:
    """Both sides' figures, each with its 95% confidence interval."""
    a, b = summary["sides"]
    table = Table(title="Arena (95% confidence intervals in brackets)")
    table.add_column("")
    table.add_column(f"A: {a.spec}", justify="right")
    table.add_column(f"B: {b.spec}", justify="right")
    table.add_row("match win rate", a.win_rate.text(3), b.win_rate.text(3))
    table.add_row("points per deck", a.points_per_deck.text(), b.points_per_deck.text())
    table.add_row("pishtis per deck", a.pishtis_per_deck.text(3), b.pishtis_per_deck.text(3))
    table.add_row(
        "jack pishtis per deck", a.jack_pishtis_per_deck.text(3), b.jack_pishtis_per_deck.text(3)
    )
    table.add_row("median ms per move", f"{a.median_move_ms:.3f}", f"{b.median_move_ms:.3f}")
    table.add_row(
        "median CPU ms per move", f"{a.median_move_cpu_ms:.3f}", f"{b.median_move_cpu_ms:.3f}"
    )
    return table


@app.command("arena")
def arena_command(
    bot_a: Annotated[str, typer.Argument(help=BOT_HELP, metavar="BOT_A")],
    bot_b: Annotated[str, typer.Argument(help=BOT_HELP, metavar="BOT_B")],
    players: Annotated[int, typer.Option(help="4 (partners) or 2.")] = 4,
    matches: Annotated[
        int, typer.Option(help="Duplicate matches; each is played twice, the sides swapped.")
    ] = 100,
    target: Annotated[int, typer.Option(help="Points to reach: 51, 101 or 151.")] = 101,
    seed: Annotated[int, typer.Option(help="Seed of the deals and the bots.")] = 0,
    jobs: Annotated[int, typer.Option(help="Worker processes playing in parallel.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Play duplicate matches between BOT_A and BOT_B and compare them.

    Every sequence of deals is played twice, the sides swapped, so the luck of
    the deal cancels out.  For each side: match win rate, points per deck and
    pishtis per deck with 95% confidence intervals (over duplicate matches),
    and the median time per move.  The same arguments give the same results.
    """
    if players not in (2, 4):
        raise fail("--players must be 4 or 2", 2)
    if target not in TARGETS:
        raise fail(f"--target must be one of {', '.join(map(str, TARGETS))}", 2)
    if matches < 1:
        raise fail("--matches must be at least 1", 2)
    if jobs < 1:
        raise fail("--jobs must be at least 1", 2)
    allow_local_plugins()
    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(f"{bot_a} vs {bot_b}", total=matches)
        try:
            pairs = run_duplicate(
                bot_a,
                bot_b,
                players=players,
                matches=matches,
                target=target,
                seed=seed,
                jobs=jobs,
                on_pair=lambda _: progress.advance(task),
            )
        except ValueError as exc:
            raise fail(str(exc), 2) from None
    summary = summarize(pairs, bot_a, bot_b)
    if as_json:
        typer.echo(json.dumps(report_json(summary, (bot_a, bot_b), players, target, seed)))
        return
    out = Console()
    out.print(
        f"{summary['duplicate_matches']} duplicate matches ({summary['games']} games, "
        f"{summary['decks']} decks, {summary['draws']} drawn at the deck cap), "
        f"{players} players, target {target}, seed {seed}"
    )
    out.print(report_table(summary))
    margin: Estimate = summary["margin_per_deck"]
    out.print(f"A - B points per deck: {margin.text()}")
