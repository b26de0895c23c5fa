"""The bodies of ``POST /api/tables`` (whole numbers only: 2.0 is not 2; names that show)
and the refusals of client messages."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from pishti.server.protocol import BadMessage, CreateTable, JoinTable, explain, parse_message


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
        "\u2764\ufe0f Can",  # an emoji asked for in colour (U+FE0F right after it)
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # a rainbow flag
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


@pytest.mark.parametrize(
    "name, hidden",
    [
        ("A\u034fnn", "U+034F"),  # combining grapheme joiner
        ("Ann\U000e0100", "U+E0100"),  # a variation selector
        ("An\u3164n", "U+3164"),  # Hangul filler inside a name
        ("A\u17b4nn", "U+17B4"),  # Khmer inherent vowels
        ("Ann\u17b5", "U+17B5"),
        ("Ann\ufe0f", "U+FE0F"),  # a presentation selector after a letter
        ("A\u180bnn", "U+180B"),  # Mongolian free variation selector
        ("An\uffa0n", "U+FFA0"),  # halfwidth Hangul filler inside a name
        ("A\u00adB", "U+00AD"),  # a soft hyphen (the refusal did not name it)
        ("Ali\u200b", "U+200B"),  # a zero-width space (likewise)
    ],
)
def test_names_with_default_ignorable_code_points_are_refused(name: str, hidden: str) -> None:
    # Found by a new-user trial: these passed, so three seats could show the same name.
    # The Unicode property Default_Ignorable_Code_Point decides, not a list.
    reason = f"must not hold control, invisible.*{re.escape(hidden)}"
    with pytest.raises(ValidationError, match=reason):
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


SEQ_BOUND = "must be below 2^53 (9007199254740992)"


@pytest.mark.parametrize(
    "message, reason",
    [
        ({"type": "hello", "token": "t", "last_seq": -1}, "hello.last_seq: must be 0 or more"),
        ({"type": "hello", "token": "t", "last_seq": 2**53}, f"hello.last_seq: {SEQ_BOUND}"),
        ({"type": "hello", "token": "t", "last_seq": 2**53 - 1}, None),
        ({"type": "hello", "token": ""}, "hello.token: must not be empty"),
        ({"type": "hello", "token": "t" * 129}, "hello.token: must be at most 128 characters"),
        ({"type": "hello", "token": 5}, "hello.token: must be a string"),
        ({"type": "hello", "token": None}, "hello.token: must be a string"),
        (
            {"type": "hello", "token": "t", "last_seq": "3"},
            "hello.last_seq: must be a whole number",
        ),
        ({"type": "play", "card": "A", "seq": 1}, "play.card: must be at least 2 characters"),
        ({"type": "play", "card": "10DD", "seq": 1}, "play.card: must be at most 3 characters"),
        ({"type": "play", "card": 5, "seq": 1}, "play.card: must be a string"),
        ({"type": "play", "card": "AS", "seq": -5}, "play.seq: must be 0 or more"),
        ({"type": "play", "card": "AS", "seq": 2**60}, f"play.seq: {SEQ_BOUND}"),
        ({"type": "play", "card": "AS", "seq": True}, "play.seq: must be a whole number"),
        ({"type": "add_bot", "seat": 4, "level": "x"}, "add_bot.seat: must be 3 or less"),
        ({"type": "add_bot", "seat": -1, "level": "x"}, "add_bot.seat: must be 0 or more"),
        ({"type": "add_bot", "seat": 1, "level": ""}, "add_bot.level: must not be empty"),
        ({"type": "add_bot", "seat": 1, "level": []}, "add_bot.level: must be a string"),
        ({"type": "remove_bot", "seat": "1"}, "remove_bot.seat: must be a whole number"),
        ({"type": 5}, "unknown message type"),
        ([], "the message must be a JSON object"),
    ],
)
def test_refusals_use_the_protocols_words_never_the_validators(
    message: object, reason: str | None
) -> None:
    # Found by a black-box client: "Input should be greater than or equal to 0",
    # "Input should be less than 9007199254740992", "String should have at least ...".
    text = json.dumps(message)
    if reason is None:
        parse_message(text)
        return
    with pytest.raises(BadMessage) as caught:
        parse_message(text)
    assert caught.value.message == reason


@pytest.mark.parametrize(
    "model, body, reason",
    [
        (CreateTable, {"name": "x", "players": 3}, "players: must be 4 or 2"),
        (CreateTable, {"name": "x", "target": 5}, "target: must be 51, 101 or 151"),
        (
            CreateTable,
            {"name": "x", "tempo": "slow"},
            'tempo: must be "relaxed", "normal" or "fast"',
        ),
        (CreateTable, {"name": 5}, "name: must be a string"),
        (CreateTable, {"name": "x", "seat": 1}, "seat: is not a field of the body"),
        (JoinTable, {"name": "x", "seat": 9}, "seat: must be 3 or less"),
        (JoinTable, {"name": "x", "seat": -1}, "seat: must be 0 or more"),
    ],
)
def test_http_body_refusals_use_the_protocols_words(
    model: type[CreateTable | JoinTable], body: dict[str, object], reason: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(body)
    first = caught.value.errors()[0]
    assert explain(first, ".".join(str(p) for p in first["loc"]), "the body") == reason
