"""bench/pool_table.py: the expert-against-the-pool table, read off arena --compare JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from pishti.cli import app

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _compare_run(tmp_path: Path, matches: int) -> tuple[dict[str, Any], Path]:
    """``pishti arena novice miser --compare random --json`` over ``matches`` duplicate
    matches: its JSON, and the file it was written to."""
    result = CliRunner().invoke(
        app,
        [
            "arena", "novice", "miser", "--players", "2", "--matches", str(matches),
            "--target", "51", "--seed", "4", "--compare", "random",
            "--results", str(tmp_path / "r.jsonl"), "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    path = tmp_path / "miser-2p.json"
    path.write_text(result.stdout)
    return json.loads(result.stdout), path


def _table(path: Path) -> list[str]:
    """The lines bench/pool_table.py prints for the run in ``path``."""
    return subprocess.run(
        [sys.executable, str(BENCH / "pool_table.py"), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip("|").split("|")]


def test_a_row_holds_the_runs_figures(tmp_path: Path) -> None:
    run, path = _compare_run(tmp_path, 3)
    out = _table(path)
    assert len(out) == 3
    assert out[0].startswith("| opponent | players | target | duplicate matches |")
    cells = _cells(out[2])
    a, _ = run["sides"]
    paired = run["a_less_reference"]["margin_per_deck"]
    win = run["reference"]["sides"][0]["win_rate"]
    assert cells[:4] == ["miser (held out)", "2", "51", f"3 ({run['decks']} decks)"]
    assert cells[5] == f"{win['value']:.3f} [{win['low']:.3f}, {win['high']:.3f}]"
    assert cells[8] == f"{paired['value']:.2f} [{paired['low']:.2f}, {paired['high']:.2f}]"
    assert cells[10] == f"{a['median_move_ms']:.0f} / {a['p95_move_ms']:.0f}"
    assert len(cells) == 12


def test_a_file_that_is_not_a_compare_run_is_one_line_and_no_table(tmp_path: Path) -> None:
    # A run without --compare gave a KeyError traceback after the header was printed.
    plain = CliRunner().invoke(
        app, ["arena", "novice", "random", "--players", "2", "--matches", "1", "--target", "51",
              "--results", str(tmp_path / "r.jsonl"), "--json"],
    )  # fmt: skip
    (tmp_path / "plain.json").write_text(plain.stdout)
    (tmp_path / "broken.json").write_text("{")
    for name, message in [
        ("plain.json", "not a `pishti arena ... --compare C --json` run"),
        ("broken.json", "not the JSON of one arena run (Expecting property name"),
        ("missing.json", "cannot be read (No such file or directory)"),
    ]:
        done = subprocess.run(
            [sys.executable, str(BENCH / "pool_table.py"), str(tmp_path / name)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 1
        assert done.stdout == ""
        assert done.stderr.startswith(f"{tmp_path / name}: {message}")


def test_one_duplicate_match_is_a_row_without_intervals(tmp_path: Path) -> None:
    # One match gives no interval: JSON null bounds, printed as -inf and inf.
    run, path = _compare_run(tmp_path, 1)
    paired = run["a_less_reference"]["margin_per_deck"]
    assert (paired["low"], paired["high"]) == (None, None)
    assert (run["margin_per_deck"]["low"], run["margin_per_deck"]["high"]) == (None, None)
    points = run["sides"][0]["points_per_deck"]  # a count: its floor, 0
    assert (points["low"], points["high"]) == (0.0, None)
    cells = _cells(_table(path)[2])
    assert cells[8] == f"{paired['value']:.2f} [-inf, inf]"
    win = run["a_less_reference"]["win_rate"]
    assert (win["low"], win["high"]) == (None, None)  # a mean over one pair
    assert cells[9] == f"{win['value']:.3f} [-inf, inf]"
