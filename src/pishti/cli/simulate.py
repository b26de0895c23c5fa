"""``pishti simulate``: play random matches and print summary figures."""

from __future__ import annotations

import json
import random
import statistics
from dataclasses import dataclass, field
from typing import Annotated

import typer
from rich.progress import Progress

from pishti.cli.app import app, fail
from pishti.cli.count import side_names
from pishti.engine import TARGETS, Match


@dataclass
class Summary:
    """Totals over simulated matches: decks, points, pishtis, matches won by each team."""

    matches: int = 0
    decks: int = 0
    points: int = 0
    card_points: int = 0
    pishtis: int = 0
    jack_pishtis: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    decks_per_match: list[int] = field(default_factory=list)

    def add(self, match: Match) -> None:
        """Count one finished match."""
        self.matches += 1
        self.decks += len(match.decks)
        self.decks_per_match.append(len(match.decks))
        for deck in match.decks:
            assert deck.counts is not None
            for count in deck.counts:
                self.points += count.points
                self.card_points += count.points - 10 * count.pishtis - 20 * count.jack_pishtis
                self.pishtis += count.pishtis
                self.jack_pishtis += count.jack_pishtis
        if match.winner is None:
            self.draws += 1
        else:
            self.wins[match.winner] += 1

    def as_json(self) -> dict[str, float | int]:
        """The summary figures, per deck (both teams together) and per match."""
        d = max(self.decks, 1)
        return {
            "matches": self.matches,
            "decks": self.decks,
            "points_per_deck": round(self.points / d, 3),
            "card_points_per_deck": round(self.card_points / d, 3),
            "pishtis_per_deck": round(self.pishtis / d, 4),
            "jack_pishtis_per_deck": round(self.jack_pishtis / d, 4),
            "decks_per_match": round(self.decks / max(self.matches, 1), 3),
            "median_decks_per_match": statistics.median(self.decks_per_match or [0]),
            "team0_wins": self.wins[0],
            "team1_wins": self.wins[1],
            "draws": self.draws,
        }


def simulate(matches: int, players: int, target: int, seed: int) -> Summary:
    """Play ``matches`` matches of uniformly random legal plays from ``seed``."""
    rng = random.Random(seed)
    summary = Summary()
    with Progress(transient=True, disable=matches < 50) as progress:
        task = progress.add_task("matches", total=matches)
        for _ in range(matches):
            match = Match(players, target, rng=rng)
            while not match.finished:
                match.play(rng.choice(match.legal_cards()))
            summary.add(match)
            progress.advance(task)
    return summary


@app.command("simulate")
def simulate_command(
    matches: Annotated[int, typer.Option(help="How many matches to play.")] = 100,
    players: Annotated[int, typer.Option(help="4 (partners) or 2.")] = 4,
    target: Annotated[int, typer.Option(help="Points to reach: 51, 101 or 151.")] = 101,
    seed: Annotated[int, typer.Option(help="Seed of the random generator.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Play random matches (every card a uniformly random legal one) and print figures."""
    if players not in (2, 4):
        raise fail("--players must be 4 or 2", 2)
    if target not in TARGETS:
        raise fail(f"--target must be one of {', '.join(map(str, TARGETS))}", 2)
    if matches < 1:
        raise fail("--matches must be at least 1", 2)
    figures = simulate(matches, players, target, seed).as_json()
    if as_json:
        typer.echo(json.dumps(figures))
        return
    typer.echo(f"{matches} random {players}-player matches to {target} (seed {seed})")
    typer.echo(f"  decks per match     {figures['decks_per_match']}")
    names = side_names(players)
    both = "both teams" if players == 4 else "both seats"
    typer.echo(f"  points per deck     {figures['points_per_deck']}  ({both})")
    typer.echo(f"  card points / deck  {figures['card_points_per_deck']}")
    typer.echo(f"  pishtis per deck    {figures['pishtis_per_deck']}")
    typer.echo(f"  jack pishtis / deck {figures['jack_pishtis_per_deck']}")
    typer.echo(
        f"  wins                {names[0]}: {figures['team0_wins']}, "
        f"{names[1]}: {figures['team1_wins']}, draws: {figures['draws']}"
    )
