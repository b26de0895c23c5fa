"""The deck-by-deck count table (R5.5) that ``pishti replay`` and ``pishti play`` print."""

from __future__ import annotations

from typing import Any

from rich.table import Table

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
"""The count's lines: (label, key of a team's count in ``replay_json``)."""


def side_names(players: int) -> tuple[str, str]:
    """What the two sides of a match are called: ``("team 0", "team 1")`` at four
    players, ``("seat 0", "seat 1")`` at two, where a team is one seat (R1.3)."""
    return ("team 0", "team 1") if players == 4 else ("seat 0", "seat 1")


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
    names: tuple[str, str] | None = None,
) -> Table:
    """Build the deck-by-deck count table (R5.5) from ``replay_json`` output.

    ``first`` is the number shown for ``result["decks"][0]`` (decks count from 1);
    ``names`` head the two teams' columns, each followed by its seats (None:
    :func:`side_names`, which at two players are the seats themselves).
    """
    seats = ("seats 0+2", "seats 1+3") if players == 4 else ("seat 0", "seat 1")
    if names is None:
        names = side_names(players)
    heads = [
        name if name == seat else f"{name} ({seat})"
        for name, seat in zip(names, seats, strict=True)
    ]
    table = Table(title="Deck count (R5.5)", show_lines=False)
    table.add_column("deck")
    table.add_column("")
    table.add_column(heads[0], justify="right")
    table.add_column(heads[1], justify="right")
    for number, deck in enumerate(result["decks"], start=first):
        if not deck["complete"]:
            table.add_row(str(number), f"cut short after {deck.get('plays', 0)} plays", "", "")
            continue
        t0, t1 = deck["teams"]
        for line, (label, key) in enumerate(ROWS):
            shown = "" if line else str(number)  # the deck's number on its first line
            table.add_row(shown, label, _cell(t0[key]), _cell(t1[key]))
        table.add_row("", "deck total", str(t0["points"]), str(t1["points"]))
        table.add_row(
            "", "match total", str(deck["totals"][0]), str(deck["totals"][1]), end_section=True
        )
    return table
