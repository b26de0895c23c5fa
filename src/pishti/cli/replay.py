"""``pishti replay FILE [--json]``: replay a match record and print its count (R10, R5.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pishti.cli.app import app, fail
from pishti.cli.count import count_table, side_names
from pishti.records import RecordError, read_record, replay, replay_json


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="A match record (R10 JSON).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the R10 JSON count.")] = False,
) -> None:
    """Replay a match record and print its deck-by-deck count (R5.5).

    A broken or illegal record exits with status 1 and a one-line message that
    names the deck and the play.
    """
    try:
        record = read_record(file)
        match = replay(record)
    except RecordError as exc:
        raise fail(f"{file}: {exc}") from None
    result = replay_json(match)
    if as_json:
        typer.echo(json.dumps(result))
        return
    console = Console()
    names = side_names(record.players)
    console.print(count_table(result, record.players))
    if result["finished"]:
        winner = result["winner"]
        outcome = "a draw at the deck cap" if winner is None else f"{names[winner]} wins"
    else:
        outcome = "unfinished"
    console.print(
        f"Final: {names[0]} {result['totals'][0]}, {names[1]} {result['totals'][1]} "
        f"(target {record.target}): {outcome}."
    )
