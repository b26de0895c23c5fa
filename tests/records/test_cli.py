"""The ``pishti`` command: replay records (R10, R5.5) and simulate matches."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pishti.cli import app
from support import MIDDLE_A, MIDDLE_C, PLAYS_A, PLAYS_C, deck_json, record_json

RECORDS = Path(__file__).parent
RECORD_FILES = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))
runner = CliRunner()


def _expected(path: Path) -> Any:
    return json.loads(path.with_name(path.stem + ".expected.json").read_text())


def _matches(got: Any, expected: Any) -> bool:
    """``got`` has every field of ``expected`` with the same value (R10 allows more fields)."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(
            k in got and _matches(got[k], v) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(got, list)
            and len(got) == len(expected)
            and all(_matches(a, b) for a, b in zip(got, expected, strict=True))
        )
    return type(got) is type(expected) and got == expected


def _write(tmp_path: Path, data: Any, name: str = "record.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_records_are_there() -> None:
    assert len(RECORD_FILES) == 4


@pytest.mark.parametrize("path", RECORD_FILES, ids=lambda p: p.stem)
def test_r10_replay_json_equals_the_expected_file(path: Path) -> None:
    result = runner.invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    got = json.loads(result.stdout)
    expected = _expected(path)
    assert _matches(got, expected)
    assert not _matches(got, {**expected, "totals": [t + 1 for t in expected["totals"]]})


def test_r5_5_replay_prints_the_count_line_by_line() -> None:
    path = RECORDS / "tie_26.json"
    expected = _expected(path)
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    rows: dict[str, list[list[str]]] = {}
    for line in lines:
        cells = [c.strip() for c in line.split("\u2502")]
        if len(cells) == 6 and cells[2]:
            rows.setdefault(cells[2], []).append(cells[3:5])
    fields = [
        ("cards taken", "cards"),
        ("aces", "aces"),
        ("jacks", "jacks"),
        ("two of clubs", "two_of_clubs"),
        ("ten of diamonds", "ten_of_diamonds"),
        ("most cards", "most_cards"),
        ("pishtis", "pishtis"),
        ("jack pishtis", "jack_pishtis"),
        ("deck total", "points"),
    ]
    shown = {True: "yes", False: "-"}
    for label, key in fields:
        want = [
            [shown[t[key]] if isinstance(t[key], bool) else str(t[key])
             for t in deck["teams"]]
            for deck in expected["decks"]
        ]  # fmt: skip
        assert rows[label] == want, label
    assert rows["match total"] == [[str(t) for t in d["totals"]] for d in expected["decks"]]
    a, b = expected["totals"]
    assert (
        lines[-1] == f"Final: team 0 {a}, team 1 {b} (target 101): team {expected['winner']} wins."
    )


def test_r10_replay_of_a_cut_short_record(tmp_path: Path) -> None:
    data = record_json(
        4, 101, deck_json(4, 3, MIDDLE_A, PLAYS_A), deck_json(4, 0, MIDDLE_C, PLAYS_C, played=7)
    )
    path = _write(tmp_path, data)
    result = runner.invoke(app, ["replay", str(path), "--json"])
    assert json.loads(result.stdout)["decks"][1] == {"complete": False, "plays": 7}
    text = runner.invoke(app, ["replay", str(path)]).stdout
    assert "cut short after 7 plays" in text
    assert text.splitlines()[-1] == "Final: team 0 18, team 1 38 (target 101): unfinished."


def _broken(tmp_path: Path) -> tuple[Path, str]:
    data = record_json(4, 101, deck_json(4, 3, MIDDLE_A, PLAYS_A))
    plays = data["decks"][0]["plays"]
    plays[6], plays[7] = plays[7], plays[6]  # seat 2 plays seat 3's JH
    return _write(tmp_path, data), "deck 1, play 7: seat 2 does not hold JH"


def test_r10_replay_of_an_illegal_record_fails_in_one_line(tmp_path: Path) -> None:
    path, message = _broken(tmp_path)
    for args in (["replay", str(path)], ["replay", str(path), "--json"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1
        assert result.stdout == ""
        assert result.stderr == f"pishti: {path}: {message}\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON: "),
        ("[]", "a record must be a JSON object"),
        (
            lambda: {**record_json(4, 101, deck_json(4, 3, MIDDLE_A, PLAYS_A)), "target": 20},
            None,  # valid: the match ends after deck 1
        ),
    ],
)
def test_r10_replay_of_malformed_json(tmp_path: Path, content: Any, message: str | None) -> None:
    data = content() if callable(content) else content
    path = _write(tmp_path, data)
    result = runner.invoke(app, ["replay", str(path), "--json"])
    if message is None:
        assert result.exit_code == 0 and json.loads(result.stdout)["winner"] == 1
        return
    assert result.exit_code == 1
    assert result.stderr.startswith(f"pishti: {path}: {message}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_r10_replay_of_a_deck_after_the_end(tmp_path: Path) -> None:
    data = record_json(
        4, 30, deck_json(4, 3, MIDDLE_A, PLAYS_A), deck_json(4, 0, MIDDLE_C, PLAYS_C, played=3)
    )
    path = _write(tmp_path, copy.deepcopy(data))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert result.stderr == f"pishti: {path}: deck 2: the match was already over before this deck\n"


def test_r10_replay_of_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.json"
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert result.stderr == f"pishti: {path}: cannot read the file: No such file or directory\n"


def test_r10_the_installed_command_prints_no_traceback(tmp_path: Path) -> None:
    path, message = _broken(tmp_path)
    command = [sys.executable, "-c", "from pishti.cli import main; main()", "replay", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == f"pishti: {path}: {message}\n"


SIMULATE_4P = {
    "matches": 20,
    "decks": 190,
    "points_per_deck": 18.968,
    "card_points_per_deck": 15.968,
    "pishtis_per_deck": 0.2474,
    "jack_pishtis_per_deck": 0.0263,
    "decks_per_match": 9.5,
    "median_decks_per_match": 9.5,
    "team0_wins": 6,
    "team1_wins": 14,
    "draws": 0,
}
SIMULATE_2P = {
    "matches": 20,
    "decks": 181,
    "points_per_deck": 20.448,
    "card_points_per_deck": 15.917,
    "pishtis_per_deck": 0.4088,
    "jack_pishtis_per_deck": 0.0221,
    "decks_per_match": 9.05,
    "median_decks_per_match": 9.0,
    "team0_wins": 8,
    "team1_wins": 12,
    "draws": 0,
}


def test_simulate_is_exact_and_deterministic() -> None:
    # Figures observed with this engine and seed; a change to the shuffle, the
    # rules or the random choices moves them.  Card points per deck stay just
    # under 16 (R5.4): a few decks split 26-26 and count 13.
    args = ["simulate", "--matches", "20", "--seed", "1", "--json"]
    first = runner.invoke(app, args)
    second = runner.invoke(app, args)
    assert first.exit_code == 0 and first.stdout == second.stdout
    assert json.loads(first.stdout) == SIMULATE_4P
    two = runner.invoke(app, [*args, "--players", "2"])
    assert json.loads(two.stdout) == SIMULATE_2P
    assert json.loads(runner.invoke(app, [*args[:-2], "2", "--json"]).stdout) != SIMULATE_4P


def test_simulate_prints_figures_for_people() -> None:
    result = runner.invoke(app, ["simulate", "--matches", "20", "--seed", "1"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "20 random 4-player matches to 101 (seed 1)"
    assert "decks per match     9.5" in result.stdout
    assert "team 0: 6, team 1: 14, draws: 0" in result.stdout
    assert "(both teams)" in result.stdout


def test_simulate_at_two_players_names_the_seats() -> None:
    # Found by a new user: two-player matches were said to be won by "team 0".
    args = ["simulate", "--matches", "20", "--seed", "1", "--players", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[2] == "  points per deck     20.448  (both seats)"
    assert lines[-1] == "  wins                seat 0: 8, seat 1: 12, draws: 0"
    assert "team" not in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "3"], "--players must be 4 or 2"),
        (["--target", "100"], "--target must be one of 51, 101, 151"),
        (["--matches", "0"], "--matches must be at least 1"),
    ],
)
def test_simulate_refuses_bad_options(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["simulate", *args])
    assert result.exit_code == 2
    assert result.stderr == f"pishti: {message}\n"


@pytest.mark.parametrize("card", [" JC", "JC ", "J\u0421"])  # the last with a Cyrillic Es
def test_r1_2_replay_refuses_a_card_with_spaces_or_not_ascii(tmp_path: Path, card: str) -> None:
    data = record_json(4, 101, deck_json(4, 3, MIDDLE_A, PLAYS_A))
    assert data["decks"][0]["plays"][4] == "JC"
    data["decks"][0]["plays"][4] = card
    path = _write(tmp_path, data)
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"pishti: {path}: deck 1, play 5: play: {card!r} is not a card\n"


def test_a_two_player_replay_names_the_seats_not_teams() -> None:
    # Found by a new user: a two-player record was said to be won by "team 1", and
    # its count table headed "team 0 (seat 0)", where each side is one seat (R1.3).
    result = runner.invoke(app, ["replay", str(RECORDS / "two_player_with_pishti.json")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    head = [c.strip() for c in lines[2].split("\u2503")]
    assert head[3:5] == ["seat 0", "seat 1"]
    assert lines[-1] == "Final: seat 0 105, seat 1 153 (target 151): seat 1 wins."
    assert "team" not in result.stdout
