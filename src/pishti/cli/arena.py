"""``pishti arena BOT_A BOT_B``: duplicate matches between two bots, with 95% intervals."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from pishti.arena import run_duplicate, summarize
from pishti.arena.duplicate import BotFailed, PairResult
from pishti.arena.results import ResultsWriter, RunSettings, read_results
from pishti.arena.stats import Estimate, SideReport, paired_difference
from pishti.bots import make_bot
from pishti.bots.guard import DEFAULT_MOVE_TIME
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
        "fallbacks": list(summary["fallbacks"]),
    }


def report_table(summary: dict[str, Any]) -> Table:
    """Both sides' figures, each with its 95% confidence interval."""
    a, b = summary["sides"]
    table = Table(title="Arena (95% confidence intervals in brackets)")
    table.add_column("")
    table.add_column(f"A: {a.spec}", justify="right", overflow="fold")
    table.add_column(f"B: {b.spec}", justify="right", overflow="fold")
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
    # Labels short enough that the table fits an 80-column terminal unwrapped.
    table.add_row("95th pct. ms per move", f"{a.p95_move_ms:.3f}", f"{b.p95_move_ms:.3f}")
    table.add_row(
        "95th pct. CPU ms per move", f"{a.p95_move_cpu_ms:.3f}", f"{b.p95_move_cpu_ms:.3f}"
    )
    return table


def default_results_path(bot_a: str, bot_b: str, players: int, seed: int) -> Path:
    """A results file name in the current directory that does not exist yet:
    ``arena-standard-novice-4p-seed0.jsonl``, then ``...-seed0-2.jsonl`` and so on."""
    stem = "-".join(
        re.sub(r"[^A-Za-z0-9_.]+", "_", part).strip("_.") or "bot"
        for part in (bot_a, bot_b, f"{players}p", f"seed{seed}")
    )
    path = Path(f"arena-{stem}.jsonl")
    number = 2
    while path.exists():
        path = Path(f"arena-{stem}-{number}.jsonl")
        number += 1
    return path


def _matches(count: int) -> str:
    """``"duplicate match"`` after a count of 1, else ``"duplicate matches"``."""
    return "duplicate match" if count == 1 else "duplicate matches"


def _summary_text(summary: dict[str, Any], settings: RunSettings) -> None:
    out = Console()
    done = summary["duplicate_matches"]
    out.print(
        f"{done} {_matches(done)} ({summary['games']} games, "
        f"{summary['decks']} decks, {summary['draws']} drawn at the deck cap), "
        f"{settings.players} players, target {settings.target}, seed {settings.seed}"
    )
    out.print(report_table(summary))
    margin: Estimate = summary["margin_per_deck"]
    out.print(f"A - B points per deck: {margin.text()}")
    fallbacks = summary["fallbacks"]
    if any(fallbacks):
        out.print(
            f"Moves played by the standard bot (over the time limit, or busy): "
            f"A {fallbacks[0]}, B {fallbacks[1]}"
        )


def _reference_pairs(pairs: list[PairResult]) -> list[PairResult]:
    """The reference bot's games as pairs of their own (C in A's place)."""
    out = []
    for p in pairs:
        assert p.reference is not None
        out.append(PairResult(p.index, p.reference))
    return out


def _report(pairs: list[PairResult], settings: RunSettings, as_json: bool) -> None:
    """Print the summary of ``pairs`` (JSON or a table) on standard output; with a
    reference bot, its own figures and A less it, paired on the same deals."""
    bot_a, bot_b = settings.bots
    summary = summarize(pairs, bot_a, bot_b)
    reference = settings.reference
    ref_summary = None
    difference = None
    if reference is not None:
        ref_summary = summarize(_reference_pairs(pairs), reference, bot_b)
        difference = paired_difference(pairs)
    if as_json:
        data = report_json(summary, settings.bots, settings.players, settings.target, settings.seed)
        if ref_summary is not None and difference is not None:
            sides: list[SideReport] = ref_summary["sides"]
            ref_margin: Estimate = ref_summary["margin_per_deck"]
            data["reference"] = {
                "bot": reference,
                "sides": [side.as_json() for side in sides],
                "margin_per_deck": ref_margin.as_json(),
                "fallbacks": list(ref_summary["fallbacks"]),
            }
            data["a_less_reference"] = {
                "margin_per_deck": difference["margin_per_deck"].as_json(),
                "win_rate": difference["win_rate"].as_json(),
            }
        typer.echo(json.dumps(data))
        return
    _summary_text(summary, settings)
    if ref_summary is not None and difference is not None:
        out = Console()
        out.print(f"Reference: {reference} against {bot_b} on the same deals")
        out.print(report_table(ref_summary))
        ref_text: Estimate = ref_summary["margin_per_deck"]
        out.print(f"{reference} - {bot_b} points per deck: {ref_text.text()}")
        out.print(
            f"A less {reference}, paired: margin per deck "
            f"{difference['margin_per_deck'].text()}, match win rate "
            f"{difference['win_rate'].text(3)}"
        )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def move_time_limit(seconds: float) -> float | None:
    """The time limit per move that ``--move-time`` gives: ``seconds``, or None
    (no limit) for 0.

    Raises:
        typer.Exit: after one line (status 2): negative, NaN or infinite seconds.
    """
    if not math.isfinite(seconds) or seconds < 0:
        raise fail("--move-time must be 0 (no limit) or positive, finite seconds", 2)
    return seconds if seconds > 0 else None


@app.command("arena")
def arena_command(
    bot_a: Annotated[str | None, typer.Argument(help=BOT_HELP, metavar="BOT_A")] = None,
    bot_b: Annotated[str | None, typer.Argument(help=BOT_HELP, metavar="BOT_B")] = None,
    players: Annotated[int, typer.Option(help="4 (partners) or 2.")] = 4,
    matches: Annotated[
        int | None,
        typer.Option(
            help="Duplicate matches; each is played twice, the sides swapped "
            "(default: 100; with --resume, the run's own).",
        ),
    ] = None,
    target: Annotated[int, typer.Option(help="Points to reach: 51, 101 or 151.")] = 101,
    seed: Annotated[int, typer.Option(help="Seed of the deals and the bots.")] = 0,
    jobs: Annotated[int, typer.Option(help="Worker processes playing in parallel.")] = 1,
    move_time: Annotated[
        float,
        typer.Option(
            help="Seconds a plug-in bot may take per move; a move over it is stopped and "
            "the standard bot plays it. 0: no limit.",
        ),
    ] = DEFAULT_MOVE_TIME,
    results: Annotated[
        Path | None,
        typer.Option(
            help="JSON-lines file that keeps each duplicate match as it finishes "
            "(default: a new arena-A-B-Np-seedS.jsonl).",
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            help="Continue the run kept in this results file: its bots and settings, "
            "only the matches missing (--matches may ask for more).",
        ),
    ] = None,
    compare: Annotated[
        str | None,
        typer.Option(
            help="A reference bot C that also plays BOT_B on the same deals; reports "
            "BOT_A less C, paired (e.g. --compare standard).",
            metavar="C",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Play duplicate matches between BOT_A and BOT_B and compare them.

    Every sequence of deals is played twice, the sides swapped, so the luck of
    the deal cancels out.  For each side: match win rate, points per deck and
    pishtis per deck with 95% confidence intervals (over duplicate matches),
    and the median time per move.  The same arguments give the same results.
    Each duplicate match is written to the results file as it finishes;
    Ctrl-C (or SIGTERM), or a bot that fails, prints the summary of the
    matches done.
    """
    allow_local_plugins()
    done: list[PairResult] = []
    grown = False
    if resume is not None:
        try:
            settings, done = read_results(resume)
        except ValueError as exc:
            raise fail(str(exc), 2) from None
        given = {"BOT_A": bot_a, "BOT_B": bot_b}
        for name, value in given.items():
            kept = settings.bots[0 if name == "BOT_A" else 1]
            if value is not None and value != kept:
                raise fail(f"{resume} is a run of {kept!r} as {name}, not {value!r}", 2)
        if compare is not None and compare != settings.reference:
            raise fail(f"{resume} was run with --compare {settings.reference}, not {compare}", 2)
        if matches is not None and matches < settings.matches:
            raise fail(f"--matches must be at least the run's {settings.matches}", 2)
        grown = matches is not None and matches > settings.matches
        if matches is not None:
            settings = dataclasses.replace(settings, matches=matches)
        path = resume
    else:
        if bot_a is None or bot_b is None:
            raise fail("name two bots, BOT_A and BOT_B (or --resume FILE)", 2)
        if players not in (2, 4):
            raise fail("--players must be 4 or 2", 2)
        if target not in TARGETS:
            raise fail(f"--target must be one of {', '.join(map(str, TARGETS))}", 2)
        count = 100 if matches is None else matches
        if count < 1:
            raise fail("--matches must be at least 1", 2)
        settings = RunSettings(
            (bot_a, bot_b),
            players,
            target,
            seed,
            count,
            move_time_limit(move_time),
            compare,
        )
        path = results if results is not None else default_results_path(bot_a, bot_b, players, seed)
    if jobs < 1:
        raise fail("--jobs must be at least 1", 2)
    side_a, side_b = settings.bots
    try:
        for spec in (side_a, side_b, settings.reference):
            if spec is not None:
                make_bot(spec, 0)
        writer = (
            ResultsWriter.resume(path)
            if resume is not None
            else ResultsWriter.start(path, settings)
        )
    except ValueError as exc:
        raise fail(str(exc), 2) from None
    if grown:
        writer.grow(settings.matches)  # kept even if this run is stopped early
    console = Console(stderr=True)
    kept = (
        f"results go to {path} "
        f"({len(done)} of {settings.matches} {_matches(settings.matches)} done)"
    )
    if len(done) < settings.matches:
        kept += f"; pishti arena --resume {path} continues the run"
    typer.echo(f"pishti: {kept}", err=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    pairs = list(done)

    def finished(pair: PairResult) -> None:
        writer.add(pair)
        pairs.append(pair)
        for note in (n for g in pair.games for n in g.notes):
            console.print(f"pishti: {note}", markup=False, highlight=False, soft_wrap=True)
        progress.advance(task)

    failure: str | None = None
    code = 0
    # A run stopped with SIGTERM (kill, a batch system) ends like Ctrl-C.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task(
                f"{side_a} vs {side_b}", total=settings.matches, completed=len(done)
            )
            run_duplicate(
                side_a,
                side_b,
                players=settings.players,
                matches=settings.matches,
                target=settings.target,
                seed=settings.seed,
                jobs=jobs,
                move_time=settings.move_time,
                reference=settings.reference,
                skip={p.index for p in done},
                on_pair=finished,
            )
    except BotFailed as exc:
        failure, code = str(exc), 1
    except ValueError as exc:
        failure, code = str(exc), 2
    except KeyboardInterrupt:
        failure, code = "interrupted", 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        writer.close()
    if failure is not None:
        typer.echo(f"pishti: {failure}", err=True)
        typer.echo(
            f"pishti: {len(pairs)} of {settings.matches} {_matches(settings.matches)} done, "
            "kept in "
            f"{path}; pishti arena --resume {path} continues the run",
            err=True,
        )
        if pairs:
            pairs.sort(key=lambda p: p.index)
            _report(pairs, settings, as_json)
        raise typer.Exit(code)
    pairs.sort(key=lambda p: p.index)
    _report(pairs, settings, as_json)
