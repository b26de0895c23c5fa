"""Broken and illegal records are refused, naming the deck and the play (R10)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pishti.records.record as record_module
from pishti.records import RecordError, loads_record, parse_record, read_record, replay
from support import MIDDLE_A, MIDDLE_C, PLAYS_A, PLAYS_C, deck_json, record_json

Record = dict[str, Any]


def base() -> Record:
    """A good record: deck 1 is scenario A (dealer 3), deck 2 scenario C cut after 10 plays."""
    return record_json(
        4,
        101,
        deck_json(4, 3, MIDDLE_A, PLAYS_A),
        deck_json(4, 0, MIDDLE_C, PLAYS_C, played=10),
    )


def _load(data: Record) -> None:
    replay(loads_record(json.dumps(data)))


def _set(path: str, value: Any) -> Callable[[Record], None]:
    """An edit of the record: put ``value`` at ``path`` (keys and indexes split by '/')."""

    def edit(data: Record) -> None:
        *parents, last = path.split("/")
        node: Any = data
        for key in parents:
            node = node[int(key) if key.isdigit() else key]
        node[int(last) if last.isdigit() else last] = value

    return edit


def _swap_plays(deck: int, a: int, b: int) -> Callable[[Record], None]:
    def edit(data: Record) -> None:
        plays = data["decks"][deck]["plays"]
        plays[a], plays[b] = plays[b], plays[a]

    return edit


def _jack_on_top(data: Record) -> None:
    # deck 1: put the JS of deal 3 on top of the middle and the 3H where it was
    deck = data["decks"][0]
    hand = deck["deals"][2][0]
    assert hand[0] == "JS"
    hand[0], deck["middle"][3] = deck["middle"][3], "JS"


CASES = [
    # (edit, deck, play, message)
    (_set("decks/1/middle/2", "XX"), 2, None, "middle: 'XX' is not a card"),
    (_set("decks/0/plays/4", "1Z"), 1, 5, "play: '1Z' is not a card"),
    # R1.2: ASCII only, no surrounding spaces
    (_set("decks/0/plays/4", " JC"), 1, 5, "play: ' JC' is not a card"),
    (_set("decks/0/plays/4", "JC "), 1, 5, "play: 'JC ' is not a card"),
    (_set("decks/1/middle/2", "9\u017f"), 2, None, "middle: '9\u017f' is not a card"),
    (_set("decks/0/deals/0/0/0", "\uff21S"), 1, None, "deal 1, seat 0: '\uff21S' is not a card"),
    (_set("decks/0/deals/1/2/3", 7), 1, None, "deal 2, seat 2: 7 is not a card"),
    (_set("decks/1/deals/0/0/0", "AD"), 2, None,
     "the deal is not 52 distinct cards (twice: AD; missing: 8C)"),
    (_jack_on_top, 1, None, "a jack (JS) is face up on top of the middle"),
    (_set("decks/0/middle", ["5C", "KD", "9S"]), 1, None, "the middle must hold 4 cards, not 3"),
    (_set("decks/1/deals/2", [["AS"]]), 2, None, "deal 3 must give cards to 4 seats, not 1"),
    (_set("decks/0/deals/0/1", ["4D", "JD", "QC"]), 1, None, "deal 1 gives seat 1 3 cards, not 4"),
    (_swap_plays(0, 6, 7), 1, 7, "seat 2 does not hold JH"),
    (_set("decks/0/plays/8", "4C"), 1, 9, "seat 0 does not hold 4C"),  # played already
    (_set("decks/1/plays/0", "AC"), 2, 1, "seat 1 does not hold AC"),  # a middle card
    (_set("decks/1/dealer", 2), 2, None,
     "the dealer must be seat 0 (one seat after the last), not 2"),
    (_set("decks/1/dealer", 4), 2, None, "dealer must be a seat from 0 to 3, not 4"),
    (_set("decks/0/plays/47", None), 1, 48, "play: None is not a card"),
    (lambda d: d["decks"][0]["plays"].pop(), 1, None,
     "the deck stops after 47 plays but another deck follows"),
    (lambda d: d["decks"][1]["plays"].extend(["2C"] * 39), 2, 49,
     "a deck has 48 plays, this one 49"),
    (_set("target", 30), 2, None, "the match was already over before this deck"),
    (_set("decks/1", "deck"), 2, None, "a deck must be a JSON object"),
    (_set("decks/1/plays", "7D"), 2, None, "plays must be a list"),
    (_set("decks", []), None, None, "the record holds no deck"),
    (_set("decks", {}), None, None, "decks must be a list"),
    (_set("players", 3), None, None, "players must be 4 or 2, not 3"),
    (_set("players", "4"), None, None, "players must be 4 or 2, not '4'"),
    (_set("target", 0), None, None, "target must be a positive number of points, not 0"),
    (_set("target", True), None, None, "target must be a positive number of points, not True"),
    # A new user's `{}` was told "players must be 4 or 2, not None".
    (lambda d: d.pop("players"), None, None, 'the record has no "players" (R10)'),
    (lambda d: d.pop("target"), None, None, 'the record has no "target" (R10)'),
    (lambda d: d.pop("decks"), None, None, 'the record has no "decks" (R10)'),
    (lambda d: d["decks"][1].pop("dealer"), 2, None, 'has no "dealer" (R10)'),
    (lambda d: d["decks"][0].pop("middle"), 1, None, 'has no "middle" (R10)'),
    (lambda d: d["decks"][0].pop("deals"), 1, None, 'has no "deals" (R10)'),
]  # fmt: skip


@pytest.mark.parametrize(("edit", "deck", "play", "message"), CASES)
def test_r10_broken_record_names_the_deck_and_play(
    edit: Callable[[Record], None], deck: int | None, play: int | None, message: str
) -> None:
    data = copy.deepcopy(base())
    edit(data)
    with pytest.raises(RecordError) as caught:
        _load(data)
    err = caught.value
    assert (err.deck, err.play) == (deck, play)
    where = ", ".join(part for part in (deck and f"deck {deck}", play and f"play {play}") if part)
    assert str(err) == (f"{where}: {message}" if where else message)
    assert "\n" not in str(err)


def test_r10_the_base_record_is_good() -> None:
    _load(base())  # so that each case above fails for its one edit


def test_r10_a_deck_after_the_end_of_a_two_player_match() -> None:
    data = record_json(
        2,
        30,
        deck_json(2, 1, MIDDLE_A, PLAYS_A),  # 18-38: seat 1 wins at 30
        deck_json(2, 0, MIDDLE_C, PLAYS_C, played=0),
    )
    with pytest.raises(RecordError, match=r"^deck 2: the match was already over before this deck$"):
        _load(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ("", "not valid JSON"),
        ("[1, 2]", "a record must be a JSON object"),
        ('"record"', "a record must be a JSON object"),
        ("[" * 100_000, "not valid JSON"),
        (b"\xff\xfe{", "not valid JSON"),
    ],
)
def test_r10_malformed_json(text: str | bytes, message: str) -> None:
    with pytest.raises(RecordError, match=message) as caught:
        loads_record(text)
    assert caught.value.deck is None and caught.value.play is None


def test_r10_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"cannot read the file: No such file"):
        read_record(tmp_path / "nope.json")
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path)  # a folder


def test_r10_too_large(monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps(base())
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", len(text) - 1)
    with pytest.raises(RecordError, match="larger than"):
        loads_record(text)


def test_r10_parse_record_checks_form_only() -> None:
    # A jack on top passes the form check; replay refuses it (R2.2).
    data = copy.deepcopy(base())
    _jack_on_top(data)
    record = parse_record(data)
    with pytest.raises(RecordError, match="deck 1: a jack"):
        replay(record)
