"""``pishti --help`` lists every command with a whole sentence."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from pishti.cli import app


def test_every_command_is_listed_with_a_one_line_sentence() -> None:
    # Found by a new user: the listing showed the first paragraph of a docstring with
    # its line breaks, so `analyse` and `cluster` read as cut mid-sentence.
    group = typer.main.get_command(app)
    commands = group.commands  # type: ignore[attr-defined]
    assert sorted(commands) == [
        "analyse", "arena", "cluster", "play", "replay", "serve", "simulate", "verify"
    ]  # fmt: skip
    for name, command in commands.items():
        first = (command.help or "").strip().split("\n\n")[0]
        assert "\n" not in first and first.endswith("."), (name, first)


def test_the_listing_shows_each_sentence_whole() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "Weigh every play of a match record against the expert bot." in result.output
    assert "Start a cluster to try: PostgreSQL, NODES server nodes and HAProxy." in result.output
    assert "what its seat" not in result.output


def test_the_arena_help_names_its_default_results_file() -> None:
    # Found by a new user: "[arena-A-B-Np-seedS.jsonl, a new one]" was read as a
    # markup tag and vanished from the help.
    result = CliRunner().invoke(app, ["arena", "--help"], env={"COLUMNS": "200"})
    assert "(default: a new arena-A-B-Np-seedS.jsonl)." in result.output


def test_the_commands_are_listed_by_name() -> None:
    # Found by a new user: `replay` came before `play`, in the order the modules
    # happened to be imported.
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    names = [
        line.split()[1]
        for line in result.output.splitlines()
        if line.startswith("\u2502 ") and line.split()[1].isalpha()
    ]
    assert names == sorted(names)
    assert names[:1] == ["analyse"] and len(names) == 8


@pytest.mark.parametrize(
    "command", ["analyse", "arena", "cluster", "play", "replay", "serve", "simulate", "verify"]
)
def test_every_help_fits_80_columns_whole(command: str) -> None:
    # Found by a new user: at 80 columns `serve --help` cut option names and
    # examples ("--sqlite-synchron…"), and `verify --help` showed ``ok`` raw.
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "\u2026" not in result.output
    assert "``" not in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_help_paragraphs_reflow_to_the_terminal() -> None:
    # Found by a new user: the docstrings' own line breaks were kept, so the text
    # came out ragged at 60 columns and did not use the width at 100.
    result = CliRunner().invoke(app, ["verify", "--help"], env={"COLUMNS": "100"})
    lines = [line.strip() for line in result.output.splitlines()]
    assert (
        "Prints one line for the commitment, one for the first dealer and one per deck: "
        '"ok", or "DIFFERS"' in lines
    )
    result = CliRunner().invoke(app, ["verify", "--help"], env={"COLUMNS": "60"})
    paragraph = result.output.split("(R11.9).")[1].split("╭")[0].split()
    assert " ".join(paragraph).startswith("Prints one line for the commitment, one for the first")
    widths = [len(line.rstrip()) for line in result.output.splitlines()[5:10]]
    assert min(widths) >= 50, widths
