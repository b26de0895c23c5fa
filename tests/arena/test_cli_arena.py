"""The ``pishti arena`` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from pishti.cli import app

runner = CliRunner()


def _run(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["arena", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _untimed(data: dict[str, Any]) -> dict[str, Any]:
    for side in data["sides"]:
        side.pop("median_move_ms")
        side.pop("median_move_cpu_ms")
        side.pop("p95_move_ms")
        side.pop("p95_move_cpu_ms")
    return data


def test_arena_json_holds_both_sides_with_intervals() -> None:
    data = _run("novice", "random", "--matches", "3", "--target", "51", "--seed", "2")
    assert data["bots"] == ["novice", "random"]
    assert data["duplicate_matches"] == 3 and data["games"] == 6
    assert (data["players"], data["target"], data["seed"]) == (4, 51, 2)
    a, b = data["sides"]
    for side in (a, b):
        for key in ("win_rate", "points_per_deck", "pishtis_per_deck"):
            est = side[key]
            assert est["low"] <= est["value"] <= est["high"]
        assert side["moves"] > 0
    assert a["win_rate"]["value"] + b["win_rate"]["value"] == 1.0
    margin = a["points_per_deck"]["value"] - b["points_per_deck"]["value"]
    assert abs(data["margin_per_deck"]["value"] - margin) < 1e-3


def test_arena_results_do_not_depend_on_the_number_of_jobs() -> None:
    args = ("standard", "novice", "--matches", "2", "--target", "51", "--seed", "4")
    one = _untimed(_run(*args))
    assert one == _untimed(_run(*args))
    assert one == _untimed(_run(*args, "--jobs", "2"))


def test_arena_plays_a_plugin_bot() -> None:
    plugin = "tests.bots.sample_plugin:LowestCardBot"
    data = _run(plugin, "random", "--matches", "1", "--target", "51")
    assert data["bots"][0] == plugin


def test_arena_text_report() -> None:
    result = runner.invoke(app, ["arena", "novice", "random", "--matches", "2", "--target", "51"])
    assert result.exit_code == 0, result.output
    assert "2 duplicate matches (4 games" in result.stdout
    assert "match win rate" in result.stdout
    assert "A - B points per deck" in result.stdout


def test_one_duplicate_match_is_said_in_the_singular(tmp_path: Path) -> None:
    results = tmp_path / "one.jsonl"
    args = ["arena", "novice", "random", "--matches", "1", "--target", "51"]
    result = runner.invoke(app, [*args, "--results", str(results)])
    assert result.exit_code == 0, result.output
    assert "1 duplicate match (2 games" in result.stdout
    assert "(0 of 1 duplicate match done)" in result.stderr


def test_arena_refuses_bad_arguments() -> None:
    result = runner.invoke(app, ["arena", "novice", "grandmaster", "--matches", "1"])
    assert result.exit_code == 2
    assert "unknown bot level 'grandmaster'" in result.output
    result = runner.invoke(app, ["arena", "novice", "random", "--players", "3"])
    assert result.exit_code == 2
    assert "--players must be 4 or 2" in result.output
    result = runner.invoke(app, ["arena", "novice", "random", "--target", "60"])
    assert result.exit_code == 2


def test_a_long_bot_name_is_shown_whole_at_80_columns(tmp_path: Path) -> None:
    # Found by a new user: a plug-in named by its file path was cut in the table's
    # head ("A: /tmp/trial2/examples/lin…").
    plugin = f"{Path(__file__).parents[1] / 'bots' / 'sample_plugin.py'}:LowestCardBot"
    args = ["arena", plugin, "random", "--players", "2", "--matches", "1", "--target", "51"]
    result = runner.invoke(
        app, [*args, "--results", str(tmp_path / "r.jsonl")], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    bottom = next(i for i, line in enumerate(lines) if line.startswith("┡"))
    head = "".join(line.split("┃")[2].strip() for line in lines[top + 1 : bottom])
    assert head == f"A:{plugin}"  # folded over the lines of the head, the space lost
    assert "…" not in result.stdout
