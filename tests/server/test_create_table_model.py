"""The body of ``POST /api/tables`` takes whole numbers only (2.0 is not 2)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pishti.server.protocol import CreateTable


def test_players_and_target_take_whole_numbers() -> None:
    body = CreateTable.model_validate({"name": "Ayşe", "players": 2, "target": 51})
    assert (body.players, body.target, body.tempo) == (2, 51, "normal")


@pytest.mark.parametrize(
    "field, value", [("players", 2.0), ("players", True), ("target", 101.0), ("players", "2")]
)
def test_floats_bools_and_strings_are_refused(field: str, value: object) -> None:
    # Found by trying the server as a new user: {"players": 2.0} made a table.
    with pytest.raises(ValidationError):
        CreateTable.model_validate({"name": "Ayşe", field: value})


@pytest.mark.parametrize("name", ["Ayşe", "سارة", "יעל", "Zoë 2", "李雷"])
def test_names_in_any_script_are_taken(name: str) -> None:
    assert CreateTable.model_validate({"name": name}).name == name


@pytest.mark.parametrize(
    "name",
    ["a\u202eb", "\u200bAnn", "Ann\u2066x", "x\u200fy", "\ufeffBo", "a\x85b", "tab\there"],
)
def test_names_with_invisible_or_direction_changing_characters_are_refused(name: str) -> None:
    # Found by a new-user trial: U+202E made a name show reversed beside the others.
    with pytest.raises(ValidationError):
        CreateTable.model_validate({"name": name})
