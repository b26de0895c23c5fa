"""The bodies of ``POST /api/tables`` (whole numbers only: 2.0 is not 2; names that show)
and the refusals of client messages."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pishti.server.protocol import BadMessage, CreateTable, parse_message


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


@pytest.mark.parametrize(
    "name",
    [
        "Ayşe",
        "سارة",
        "יעל",
        "Zoë 2",
        "李雷",
        "👨\u200d👩\u200d👧",  # a family: emoji joined by U+200D
        "می\u200cخواهم",  # Persian with a zero-width non-joiner
        "e\u0301\u0301",  # two marks on one letter
    ],
)
def test_names_in_any_script_are_taken(name: str) -> None:
    assert CreateTable.model_validate({"name": name}).name == name


@pytest.mark.parametrize(
    "name",
    [
        "a\u202eb",
        "\u200bAnn",
        "Ann\u2066x",
        "x\u200fy",
        "\ufeffBo",
        "a\x85b",
        "tab\there",
        "a\u00adb",  # a soft hyphen
        "a\u2028b",  # a line separator
    ],
)
def test_names_with_invisible_or_direction_changing_characters_are_refused(name: str) -> None:
    # Found by a new-user trial: U+202E made a name show reversed beside the others;
    # a later one: a soft hyphen and a line separator passed.
    with pytest.raises(ValidationError, match="must not hold control, invisible"):
        CreateTable.model_validate({"name": name})


@pytest.mark.parametrize("name", ["   ", "\u3164", "\u2800", "\u115f\u1160", " \u3164 "])
def test_names_that_show_as_nothing_are_refused(name: str) -> None:
    # Found by a new-user trial: a Hangul filler or a Braille blank made a blank name.
    with pytest.raises(ValidationError, match="must hold a character that shows"):
        CreateTable.model_validate({"name": name})


def test_marks_may_not_pile_up_on_a_character() -> None:
    with pytest.raises(ValidationError, match="more than 4 marks"):
        CreateTable.model_validate({"name": "Z" + "\u0301" * 5})
    assert CreateTable.model_validate({"name": "Z" + "\u0301" * 4}).name == "Z" + "\u0301" * 4


@pytest.mark.parametrize(
    "text, reason",
    [
        ('{"type": "hello", "token": "t", "batch": "yes"}', "hello.batch: must be true or false"),
        ('{"type": "hello", "token": "t", "x": 1}', "hello.x: is not a field of this message"),
        ('{"type": "play", "card": "AS"}', "play.seq: is required"),
        ('{"type": "play", "card": "AS", "seq": 1.5}', "play.seq: must be a whole number"),
        ("{", "not valid JSON"),
    ],
)
def test_refusals_say_what_is_wrong_in_plain_words(text: str, reason: str) -> None:
    with pytest.raises(BadMessage) as caught:
        parse_message(text)
    assert caught.value.message == reason
