"""``pishti analyse RECORD [--json] [--samples N] [--jobs J] [--seed S]``: every play
of a match record weighed against the expert bot (R10, R7.7; docs/bots.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from pishti.analysis import analyse_record, total_plays
from pishti.analysis.position import SAMPLES
from pishti.bots.expert import SAMPLES as EXPERT_SAMPLES
from pishti.cli.app import app, fail
from pishti.cli.files import output_path, replace_file
from pishti.engine import card_symbol, parse_card
from pishti.records import RecordError, read_record


def summary_table(analysis: dict[str, Any]) -> Table:
    """The per-seat summary of an analysis (:func:`analyse_record` output); the
    team column only at four players, where a team is two seats (R1.3)."""
    table = Table(title=f"Against the expert ({analysis['samples']} sampled decks a play)")
    teams = analysis["players"] == 4
    names = ["seat", "team"] if teams else ["seat"]
    names += ["choices", "as expert", "best card", "points lost / deck"]
    names += ["inaccuracies", "mistakes"]
    for name in names:
        # Each head as wide as its longest word: a one-word head is never cut
        # ("inaccur…" at 80 columns), the others wrap, and the table fits 80 columns.
        width = max(len(word) for word in name.split())
        table.add_column(name, justify="right", min_width=width, max_width=max(width, 6))
    for row in analysis["seats"]:
        cells = [str(row["seat"]), str(row["team"])] if teams else [str(row["seat"])]
        cells += [
            str(row["choices"]),
            str(row["matches_expert"]),
            str(row["best"]),
            f"{row['points_lost_per_deck']:.2f}",
            str(row["inaccuracies"]),
            str(row["mistakes"]),
        ]
        table.add_row(*cells)
    return table


def _card(text: str) -> str:
    """A card of the analysis (``"TD"``) as the other commands show it (``"10♦"``)."""
    return card_symbol(parse_card(text))


def marked_table(analysis: dict[str, Any]) -> Table:
    """Every marked play: where, who, the card played, the best card and the loss."""
    table = Table(title="Marked plays")
    for name in ("deck", "play", "seat", "played", "best", "expert", "points lost", "mark"):
        table.add_column(name)
    for deck in analysis["decks"]:
        for p in deck["plays"]:
            if p["mark"]:
                table.add_row(
                    str(deck["deck"]),
                    str(p["play"]),
                    str(p["seat"]),
                    _card(p["card"]),
                    _card(p["best"]),
                    _card(p["expert"]),
                    f"{p['loss']:.2f}",
                    p["mark"],
                )
    return table


def _write_text(path: str, text: str) -> None:
    Path(path).write_text(text, encoding="utf-8")


@app.command("analyse")
def analyse_command(
    record_file: Annotated[Path, typer.Argument(help="A match record (R10 JSON).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the analysis as JSON (docs/bots.md).")
    ] = False,
    samples: Annotated[
        int, typer.Option(min=2, help="Sampled decks per play (more: slower, surer).")
    ] = SAMPLES,
    jobs: Annotated[
        int, typer.Option(min=1, help="Worker processes; the decks are shared among them.")
    ] = min(2, os.cpu_count() or 1),
    expert_samples: Annotated[
        int, typer.Option(min=1, help="The expert's sampled decks per move (its live budget).")
    ] = EXPERT_SAMPLES,
    seed: Annotated[int, typer.Option(help="The same seed gives the same analysis.")] = 0,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="<path>",
            help="Also write the JSON to this file (replacing it).",
        ),
    ] = None,
) -> None:
    """Weigh every play of a match record against the expert bot.

    Each play is judged from what its seat saw at that moment (R7.7): the
    expert's card, the expected points of every legal card, the plays that lost
    points, and a summary per seat.

    A progress bar shows on a terminal (on stderr).  A broken or illegal record
    exits with status 1 and a one-line message; an --output file that cannot be
    written is refused before the analysis starts (status 2).
    """
    output_file = None if output is None else output_path(output, "--output")
    if output_file is not None and output_file.resolve() == record_file.resolve():
        raise fail(f"--output {output}: the record being analysed; give another file", 2)
    try:
        record = read_record(record_file)
        total = total_plays(record)
        err = Console(stderr=True)
        with Progress(
            "analysing",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task("plays", total=total)
            analysis = analyse_record(
                record,
                samples=samples,
                seed=seed,
                jobs=jobs,
                expert_samples=expert_samples,
                progress=lambda n: bar.advance(task, n),
            )
    except RecordError as exc:
        raise fail(f"{record_file}: {exc}") from None
    text = json.dumps(analysis)
    if output_file is not None:
        try:
            replace_file(output_file, lambda temporary: _write_text(temporary, text + "\n"))
        except OSError as exc:
            raise fail(f"--output {output_file}: could not be written ({exc.strerror})") from None
    if as_json:
        typer.echo(text)
        return
    console = Console()
    console.print(summary_table(analysis))
    console.print(marked_table(analysis))
