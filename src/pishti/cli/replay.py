"""``pishti replay FILE [--json]``: replay a match record and print its count (R10, R5.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from pishti.cli.app import app, fail
from pishti.records import RecordError, read_record, replay, replay_json

ROWS = (
    ("cards taken", "cards"),
    ("aces", "aces"),
    ("jacks", "jacks"),
    ("two of clubs", "two_of_clubs"),
    ("ten of diamonds", "ten_of_diamonds"),
    ("most cards", "most_cards"),
    ("pishtis", "pishtis"),
    ("jack pishtis", "jack_pishtis"),
)


def _cell(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "-"
    return str(value)


def count_table(
    result: dict[str, Any],
    players: int,
    first: int = 1,
    names: tuple[str, str] = ("team 0", "team 1"),
) -> Table:
    """Build the deck-by-deck count table (R5.5) from :func:`replay_json` output.

    ``first`` is the number shown for ``result["decks"][0]`` (decks count from 1);
    ``names`` head the two teams' columns, each followed by its seats.
    """
    seats = ("seats 0+2", "seats 1+3") if players == 4 else ("seat 0", "seat 1")
    table = Table(title="Deck count (R5.5)", show_lines=False)
    table.add_column("deck")
    table.add_column("")
    table.add_column(f"{names[0]} ({seats[0]})", justify="right")
    table.add_column(f"{names[1]} ({seats[1]})", justify="right")
    for number, deck in enumerate(result["decks"], start=first):
        if not deck["complete"]:
            table.add_row(str(number), f"cut short after {deck.get('plays', 0)} plays", "", "")
            continue
        t0, t1 = deck["teams"]
        first = True
        for label, key in ROWS:
            table.add_row(str(number) if first else "", label, _cell(t0[key]), _cell(t1[key]))
            first = False
        table.add_row("", "deck total", str(t0["points"]), str(t1["points"]))
        table.add_row(
            "", "match total", str(deck["totals"][0]), str(deck["totals"][1]), end_section=True
        )
    return table


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
    console.print(count_table(result, record.players))
    if result["finished"]:
        winner = result["winner"]
        outcome = "a draw at the deck cap" if winner is None else f"team {winner} wins"
    else:
        outcome = "unfinished"
    console.print(
        f"Final: team 0 {result['totals'][0]}, team 1 {result['totals'][1]} "
        f"(target {record.target}): {outcome}."
    )
