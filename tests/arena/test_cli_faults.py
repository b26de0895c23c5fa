"""``pishti arena`` with plug-ins that misbehave, results kept as matches finish, resuming."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from pishti.cli import app

runner = CliRunner()
M = "tests.bots.misbehaving"


def _untimed(data: dict[str, Any]) -> dict[str, Any]:
    for side in data["sides"]:
        side.pop("median_move_ms")
        side.pop("median_move_cpu_ms")
        side.pop("p95_move_ms")
        side.pop("p95_move_cpu_ms")
    return data


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_bot_that_plays_a_card_it_does_not_hold_stops_the_run_with_one_line() -> None:
    spec = f"{M}:WrongCard"
    result = runner.invoke(app, ["arena", spec, "random", "--players", "2", "--matches", "2"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("pishti: bot")]
    assert errors == [
        f"pishti: bot '{spec}' at seat 0, seed 0, duplicate match 0, game 0, deck 1: "
        "returned AC (0), a card it does not hold (its cards: 3H JC)"
    ]
    assert "0 of 2 duplicate matches done" in result.stderr


def test_each_wrong_answer_is_named_and_never_a_traceback() -> None:
    expected = {
        "ReturnsNone": "returned None (NoneType), not one of its cards",
        "ReturnsText": "returned '7H' (str), not one of its cards",
        "ReturnsFloat": "(float), not one of its cards",
        "ReturnsTrue": "returned True (bool), not one of its cards",
        "ReturnsNumpy": "(tests.bots.misbehaving.Int64), not a plain int",
        "Raises": "raised ZeroDivisionError: division by zero",
    }
    for cls, what in expected.items():
        spec = f"{M}:{cls}"
        result = runner.invoke(app, ["arena", "novice", spec, "--matches", "1", "--target", "51"])
        assert result.exit_code == 1, cls
        assert "Traceback" not in result.output
        (line,) = [x for x in result.stderr.splitlines() if x.startswith("pishti: bot")]
        assert line.startswith(f"pishti: bot '{spec}' at seat "), line
        assert ", seed 0, duplicate match 0, game 0, deck 1: " in line
        assert what in line, line


def test_a_plugin_that_cannot_be_built_is_one_line_before_any_game() -> None:
    for spec, what in [
        (f"{M}:NoSeed", "could not be built as NoSeed(seed): TypeError"),
        ("tests.bots.broken_plugin:Bot", "failed to import: RuntimeError: this module is broken"),
        ("./nowhere.py:Bot", "no bot file './nowhere.py'"),
    ]:
        result = runner.invoke(app, ["arena", spec, "novice", "--matches", "1"])
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1 and what in result.stderr, result.stderr
        assert not list(Path().glob("*.jsonl"))


def test_slow_and_hung_moves_are_played_by_the_standard_bot_and_counted() -> None:
    # Hangs: its second move of each game is stopped at once (a Python loop).
    # SlowFirst sleeps 0.5 s: its first move is stopped after 0.2 s, the next
    # one waits 0.2 s more for the sleep to end and is played by the standard
    # bot too, the third is the plug-in's again.
    for cls, fallbacks in (("Hangs", 2), ("SlowFirst", 4)):
        spec = f"{M}:{cls}"
        args = [spec, "novice", "--players", "2", "--matches", "1", "--target", "51"]
        result = runner.invoke(app, ["arena", *args, "--move-time", "0.2", "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        # On a busy machine the waits stretch: SlowFirst's second move may find
        # the sleep over (one fallback a game), or a stopped call may take
        # longer to end (one more); at least the move over the time each game.
        assert data["fallbacks"][1] == 0
        assert 2 <= data["fallbacks"][0] <= fallbacks + 2, data["fallbacks"]
        notes = [line for line in result.stderr.splitlines() if "took longer" in line]
        assert len(notes) == 2
        assert notes[0].startswith(f"pishti: bot '{spec}' at seat ")
        assert notes[0].endswith(
            "took longer than 0.2 s and was stopped; the standard bot played that move"
        )
    # The text report counts them in one line, the busy moves with the stopped ones.
    result = runner.invoke(app, ["arena", *args, "--move-time", "0.2"])
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("Moves played by")]
    assert line.startswith("Moves played by the standard bot (over the time limit, or busy): A ")
    assert line.endswith(", B 0") and 2 <= int(line.split("A ")[1].split(",")[0]) <= 6


def test_results_are_kept_as_matches_finish_and_a_run_resumes() -> None:
    args = ["novice", "random", "--players", "2", "--target", "51", "--seed", "3"]
    whole = runner.invoke(app, ["arena", *args, "--matches", "3", "--json"])
    assert whole.exit_code == 0
    assert "results go to arena-novice-random-2p-seed3.jsonl" in whole.stderr
    kept = _lines(Path("arena-novice-random-2p-seed3.jsonl"))
    assert kept[0] == {
        "arena": 1,
        "bots": ["novice", "random"],
        "players": 2,
        "target": 51,
        "seed": 3,
        "matches": 3,
        "move_time": 2.0,
        "reference": None,
    }
    assert sorted(line["index"] for line in kept[1:]) == [0, 1, 2]
    part = runner.invoke(app, ["arena", *args, "--matches", "2", "--results", "run.jsonl"])
    assert part.exit_code == 0
    # A line cut short by a crash is dropped and played again.
    with open("run.jsonl", "a") as f:
        f.write('{"index": 2, "ga')
    resumed = runner.invoke(app, ["arena", "--resume", "run.jsonl", "--matches", "3", "--json"])
    assert resumed.exit_code == 0, resumed.output
    assert (
        "results go to run.jsonl (2 of 3 duplicate matches done); "
        "pishti arena --resume run.jsonl continues the run" in resumed.stderr
    )
    finished = runner.invoke(app, ["arena", "--resume", "run.jsonl", "--json"])
    assert finished.exit_code == 0, finished.output
    # A finished run only says where it is: there is nothing to continue.
    assert "pishti: results go to run.jsonl (3 of 3 duplicate matches done)\n" in finished.stderr
    assert "continues" not in finished.stderr
    assert _untimed(json.loads(resumed.stdout)) == _untimed(json.loads(whole.stdout))
    kept = _lines(Path("run.jsonl"))
    assert [line.get("index") for line in kept] == [None, 0, 1, None, 2]
    assert kept[3] == {"matches": 3}  # the run's new size, written where it grew
    # A run grown by --matches keeps its new size even if it stops before it gets there.
    grown = runner.invoke(app, ["arena", "--resume", "run.jsonl", "--matches", "5", "--json"])
    assert grown.exit_code == 0, grown.output
    lines = _lines(Path("run.jsonl"))
    assert {"matches": 5} in lines
    cut = [line for line in lines if line.get("index", 0) < 4]
    Path("run.jsonl").write_text("".join(json.dumps(line) + "\n" for line in cut))
    again_grown = runner.invoke(app, ["arena", "--resume", "run.jsonl", "--json"])
    assert "results go to run.jsonl (4 of 5 duplicate matches done); " in again_grown.stderr
    again = runner.invoke(app, ["arena", *args, "--matches", "2", "--results", "run.jsonl"])
    assert again.exit_code == 2
    assert "'run.jsonl' exists: --resume it" in again.stderr
    other = runner.invoke(app, ["arena", "--resume", "run.jsonl", "standard", "random"])
    assert other.exit_code == 2
    assert "run.jsonl is a run of 'novice' as BOT_A, not 'standard'" in other.stderr


def test_the_default_results_file_is_never_overwritten() -> None:
    args = ["novice", "random", "--matches", "1", "--target", "51"]
    assert runner.invoke(app, ["arena", *args]).exit_code == 0
    result = runner.invoke(app, ["arena", *args])
    assert "results go to arena-novice-random-4p-seed0-2.jsonl" in result.stderr
    assert sorted(p.name for p in Path().glob("*.jsonl")) == [
        "arena-novice-random-4p-seed0-2.jsonl",
        "arena-novice-random-4p-seed0.jsonl",
    ]


def test_ctrl_c_prints_the_summary_of_the_matches_done() -> None:
    from tests.bots import misbehaving

    misbehaving.CALLS[0] = 0
    spec = f"{M}:Interrupts"
    args = [spec, "novice", "--players", "2", "--target", "51", "--matches", "4"]
    result = runner.invoke(app, ["arena", *args, "--move-time", "0", "--json"])
    assert result.exit_code == 130
    assert "pishti: interrupted" in result.stderr
    assert "1 of 4 duplicate matches done, kept in arena-" in result.stderr
    data = json.loads(result.stdout)
    assert data["duplicate_matches"] == 1
    kept = _lines(Path("arena-tests.bots.misbehaving_Interrupts-novice-2p-seed0.jsonl"))
    assert len(kept) == 2 and kept[0]["move_time"] is None


def test_compare_plays_a_reference_bot_on_the_same_deals_and_reports_the_paired_difference() -> (
    None
):
    args = ["novice", "grabber", "--players", "2", "--target", "51", "--matches", "3"]
    result = runner.invoke(app, ["arena", *args, "--compare", "standard", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    alone = json.loads(runner.invoke(app, ["arena", *args, "--json"]).stdout)
    reference = json.loads(runner.invoke(app, ["arena", "standard", *args[1:], "--json"]).stdout)
    # The A side is the run without --compare, the reference the run of C against B.
    assert _untimed(alone)["sides"] == _untimed(data)["sides"]
    assert [s["bot"] for s in data["reference"]["sides"]] == ["standard", "grabber"]
    for mine, theirs in zip(data["reference"]["sides"], reference["sides"], strict=True):
        assert mine["points_per_deck"] == theirs["points_per_deck"]
        assert mine["win_rate"] == theirs["win_rate"]
    difference = data["a_less_reference"]
    expected = data["margin_per_deck"]["value"] - data["reference"]["margin_per_deck"]["value"]
    assert abs(difference["margin_per_deck"]["value"] - expected) < 2e-4
    low, high = difference["margin_per_deck"]["low"], difference["margin_per_deck"]["high"]
    assert low < difference["margin_per_deck"]["value"] < high
    win = data["sides"][0]["win_rate"]["value"] - data["reference"]["sides"][0]["win_rate"]["value"]
    assert abs(difference["win_rate"]["value"] - win) < 2e-4
    kept = _lines(Path("arena-novice-grabber-2p-seed0.jsonl"))
    assert kept[0]["reference"] == "standard"
    assert all(len(line["reference_games"]) == 2 for line in kept[1:])


def test_sigterm_stops_a_run_like_ctrl_c() -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-c", "from pishti.cli import main; main()", "arena"]
    cmd += ["standard", "novice"]
    cmd += ["--players", "2", "--matches", "100000", "--json", "--results", "run.jsonl"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if Path("run.jsonl").exists() and len(Path("run.jsonl").read_text().splitlines()) >= 3:
            break
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "pishti: interrupted" in err
    done = json.loads(out)["duplicate_matches"]
    assert done >= 2
    assert len(_lines(Path("run.jsonl"))) - 1 >= done


def test_the_text_table_fits_an_80_column_terminal_unwrapped() -> None:
    args = ["arena", "standard", "novice", "--players", "2", "--matches", "2", "--target", "51"]
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    labels = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    assert labels == [
        "match win rate",
        "points per deck",
        "pishtis per deck",
        "jack pishtis per deck",
        "median ms per move",
        "median CPU ms per move",
        "95th pct. ms per move",
        "95th pct. CPU ms per move",
    ]
