"""bench/expert_choices.py: its summary counts in words a person reads ("1 game", not "1 games")."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "expert_choices.py"
_spec = importlib.util.spec_from_file_location("expert_choices_bench", BENCH)
assert _spec is not None and _spec.loader is not None
expert_choices = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(expert_choices)


def test_one_of_a_thing_is_singular() -> None:
    assert expert_choices.counted(1, "game") == "1 game"
    assert expert_choices.counted(1, "deck") == "1 deck"
    assert expert_choices.counted(0, "move") == "0 moves"
    assert expert_choices.counted(60, "game") == "60 games"
