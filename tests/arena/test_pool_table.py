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
    assert len(out) == 5
    assert out[:2] == ["A: novice; reference: random (every row).", ""]  # noticed: unnamed
    out = out[2:]
    assert out[0].startswith("| opponent | players | target | duplicate matches |")
    cells = _cells(out[2])
    a, _ = run["sides"]
    paired = run["a_less_reference"]["margin_per_deck"]
    win = run["reference"]["sides"][0]["win_rate"]
    assert cells[:4] == ["miser (held out)", "2", "51", f"3 ({run['decks']} decks)"]
    assert cells[5] == f"{win['value']:.3f} [{win['low']:.3f}, {win['high']:.3f}]"
    assert cells[8] == f"{paired['value']:.2f} [{paired['low']:.2f}, {paired['high']:.2f}]"
    # novice's moves take well under 10 ms: two significant digits, not "0 / 0"
    assert a["p95_move_ms"] < 10
    assert cells[10] == f"{a['median_move_ms']:.2g} / {a['p95_move_ms']:.2g}"
    assert cells[10] != "0 / 0"
    assert len(cells) == 12


def test_milliseconds_are_whole_from_ten_and_two_digits_below() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from pool_table import milliseconds
    finally:
        sys.path.remove(str(BENCH))
    assert [milliseconds(v) for v in (82.77, 10.0, 9.96, 0.0372, 0.0)] == [
        "83", "10", "10", "0.037", "0"
    ]  # fmt: skip


def test_the_caption_names_a_and_the_reference_once_or_row_by_row() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from pool_table import caption
    finally:
        sys.path.remove(str(BENCH))
    same = "A: expert; reference: standard"
    assert caption([same, same]) == "A: expert; reference: standard (every row)."
    assert caption([same, "A: mybots:Variant; reference: expert"]) == (
        "Row 1: A: expert; reference: standard. Row 2: A: mybots:Variant; reference: expert."
    )


def test_the_ladder_table_reads_a_run_and_refuses_other_files(tmp_path: Path) -> None:
    # A missing or broken file gave a raw traceback after the header.
    run, path = _compare_run(tmp_path, 2)
    out = subprocess.run(
        [sys.executable, str(BENCH / "ladder_table.py"), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert len(out) == 3
    cells = _cells(out[2])
    margin = run["margin_per_deck"]
    assert cells[:2] == ["novice vs miser", "2"]
    assert cells[4] == f"{margin['value']:.2f} [{margin['low']:.2f}, {margin['high']:.2f}]"
    (tmp_path / "broken.json").write_text("[1,")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "shape.json").write_text('{"sides": 1}')
    (tmp_path / "latin1.json").write_bytes(b"\xff\xfe{}")
    for args, message in [
        (["broken.json"], "broken.json: not the JSON of one arena run (Expecting value"),
        (["list.json"], "list.json: not the output of `pishti arena ... --json`"),
        # A wrong shape after a good file: still no header, no row, no traceback.
        (["miser-2p.json", "shape.json"], "shape.json: not the output of `pishti arena"),
        (["latin1.json"], "latin1.json: not the JSON of one arena run (not UTF-8 text)"),
        (["missing.json"], "missing.json: cannot be read (No such file or directory)"),
        ([], "usage: .venv/bin/python bench/ladder_table.py RUN.json"),
    ]:
        done = subprocess.run(
            [sys.executable, str(BENCH / "ladder_table.py"), *[str(tmp_path / a) for a in args]],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 1
        assert done.stdout == ""
        assert message in done.stderr
        assert "Traceback" not in done.stderr


def test_a_file_that_is_not_a_compare_run_is_one_line_and_no_table(tmp_path: Path) -> None:
    # A run without --compare gave a KeyError traceback after the header was printed.
    plain = CliRunner().invoke(
        app, ["arena", "novice", "random", "--players", "2", "--matches", "1", "--target", "51",
              "--results", str(tmp_path / "r.jsonl"), "--json"],
    )  # fmt: skip
    (tmp_path / "plain.json").write_text(plain.stdout)
    (tmp_path / "broken.json").write_text("{")
    (tmp_path / "shape.json").write_text('{"sides": [{}, {}], "a_less_reference": {}}')
    for name, message in [
        ("plain.json", "not a `pishti arena ... --compare C --json` run"),
        ("shape.json", "not the output of `pishti arena ... --compare C --json`"),
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
    cells = _cells(_table(path)[4])
    assert cells[8] == f"{paired['value']:.2f} [-inf, inf]"
    win = run["a_less_reference"]["win_rate"]
    # A difference of two win rates over one pair: no interval but its range.
    assert (win["low"], win["high"]) == (-1.0, 1.0)
    assert cells[9] == f"{win['value']:.3f} [-1.000, 1.000]"
