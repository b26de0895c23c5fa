"""Every example record in shared/records replays to exactly its expected count (R10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pishti.records import read_record, replay, replay_json

RECORDS = Path(__file__).resolve().parents[2] / "shared" / "records"
LOCAL = Path(__file__).parent / "records"


def _record_files() -> list[Path]:
    files = []
    for folder in (RECORDS, LOCAL):
        if folder.is_dir():
            files += sorted(
                p for p in folder.glob("*.json") if not p.name.endswith(".expected.json")
            )
    return files


def _subset(got: Any, expected: Any, where: str = "") -> None:
    """Assert that ``got`` holds every field of ``expected`` with the same value."""
    if isinstance(expected, dict):
        assert isinstance(got, dict), where
        for key, value in expected.items():
            assert key in got, f"{where}.{key} missing"
            _subset(got[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for i, (a, b) in enumerate(zip(got, expected, strict=True)):
            _subset(a, b, f"{where}[{i}]")
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


@pytest.mark.parametrize("path", _record_files(), ids=lambda p: p.stem)
def test_record_replays_to_expected(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    got = replay_json(replay(read_record(path)))
    _subset(got, expected)


def test_shared_records_are_found() -> None:
    assert len(_record_files()) >= 4
