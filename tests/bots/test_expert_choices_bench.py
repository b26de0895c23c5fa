"""bench/expert_choices.py: its summary counts in words a person reads ("1 game", not "1 games")."""

from __future__ import annotations

from tests.benches import bench_module

expert_choices = bench_module("expert_choices")


def test_one_of_a_thing_is_singular() -> None:
    assert expert_choices.counted(1, "game") == "1 game"
    assert expert_choices.counted(1, "deck") == "1 deck"
    assert expert_choices.counted(0, "move") == "0 moves"
    assert expert_choices.counted(60, "game") == "60 games"
