"""Match records (R10): write, read back, replay to the same count."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pishti.engine import Match
from pishti.records import (
    MatchRecord,
    dumps_record,
    loads_record,
    match_record,
    parse_record,
    read_record,
    replay,
    replay_json,
    write_record,
)
from support import (
    MIDDLE_A,
    MIDDLE_C,
    PLAYS_A,
    PLAYS_B,
    PLAYS_C,
    cards,
    deck_json,
    record_json,
)

TEAM_A0 = {
    "cards": 25, "aces": 2, "jacks": 1, "two_of_clubs": True, "ten_of_diamonds": True,
    "most_cards": False, "pishtis": 1, "jack_pishtis": 0, "points": 18,
}  # fmt: skip
TEAM_A1 = {
    "cards": 27, "aces": 2, "jacks": 3, "two_of_clubs": False, "ten_of_diamonds": False,
    "most_cards": True, "pishtis": 1, "jack_pishtis": 1, "points": 38,
}  # fmt: skip


def _random_match(seed: int, players: int = 4, target: int = 51) -> Match:
    rng = random.Random(seed)
    match = Match(players, target, rng=rng)
    while not match.finished:
        match.play(rng.choice(match.legal_cards()))
    return match


def test_r10_hand_made_record_replays_to_its_worked_out_count() -> None:
    # deck 1: scenario A, dealer 3 (18-38); deck 2: scenario B with dealer 0,
    # which mirrors the teams (33-23); deck 3: C, dealer 1, cut short after 10 plays.
    record = record_json(
        4,
        101,
        deck_json(4, 3, MIDDLE_A, PLAYS_A),
        deck_json(4, 0, MIDDLE_A, PLAYS_B),
        deck_json(4, 1, MIDDLE_C, PLAYS_C, played=10),
    )
    result = replay_json(replay(parse_record(record)))
    assert result["totals"] == [51, 61]
    assert result["finished"] is False and result["winner"] is None
    first, second, third = result["decks"]
    assert first["complete"] is True
    assert first["teams"] == [TEAM_A0, TEAM_A1]
    assert first["last_capture_team"] == 1 and first["totals"] == [18, 38]
    assert [t["points"] for t in second["teams"]] == [33, 23]
    assert [t["cards"] for t in second["teams"]] == [12, 40]
    assert second["last_capture_team"] == 1  # play 45 (KS) is seat 1's with dealer 0
    assert second["totals"] == [51, 61]
    assert third == {"complete": False, "plays": 10}


def test_r10_minimal_form_plays_may_be_missing() -> None:
    deck = deck_json(2, 1, MIDDLE_A, PLAYS_A)
    del deck["plays"]
    match = replay(parse_record(record_json(2, 51, deck)))
    assert len(match.decks) == 1 and match.deck.plays == []
    assert replay_json(match)["decks"] == [{"complete": False, "plays": 0}]


def test_r10_record_accepts_10_and_lower_case() -> None:
    deck = deck_json(4, 3, MIDDLE_A, PLAYS_A)
    deck["plays"] = [p.lower().replace("t", "10") for p in deck["plays"]]
    assert replay_json(replay(parse_record(record_json(4, 30, deck))))["winner"] == 1


@pytest.mark.parametrize(("seed", "players"), [(1, 4), (2, 2), (3, 4)])
def test_r10_record_of_a_match_replays_to_the_same_match(seed: int, players: int) -> None:
    match = _random_match(seed, players)
    record = match_record(match)
    again = replay(loads_record(dumps_record(record)))
    assert again.totals == match.totals and again.winner == match.winner
    assert again.finished is True
    assert [e.as_json() for e in again.events] == [e.as_json() for e in match.events]
    assert replay_json(again) == replay_json(match)


def test_r10_write_and_read_a_file(tmp_path: Path) -> None:
    match = _random_match(7)
    path = tmp_path / "match.json"
    write_record(match_record(match), path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["players"] == 4 and data["target"] == 51
    assert len(data["decks"]) == len(match.decks)
    first = data["decks"][0]
    assert first["dealer"] == match.decks[0].dealer
    assert len(first["middle"]) == 4 and len(first["deals"]) == 3 and len(first["plays"]) == 48
    assert all(len(card) == 2 and card == card.upper() for card in first["plays"])  # R1.2
    assert read_record(path) == match_record(match)


def test_r10_record_of_an_unfinished_match() -> None:
    rng = random.Random(5)
    match = Match(4, 101, rng=rng)
    for _ in range(48 + 20):
        match.play(rng.choice(match.legal_cards()))
    record = match_record(match)
    assert [len(d.plays) for d in record.decks] == [48, 20]
    result = replay_json(replay(record))
    assert result["decks"][1] == {"complete": False, "plays": 20}
    assert result["finished"] is False and result["winner"] is None
    assert result["totals"] == match.totals


def test_r10_record_as_json_round_trip() -> None:
    record = parse_record(record_json(4, 101, deck_json(4, 3, MIDDLE_A, PLAYS_A)))
    assert isinstance(record, MatchRecord)
    assert record.decks[0].middle == tuple(cards(MIDDLE_A))
    assert record.decks[0].plays == tuple(cards(PLAYS_A))
    assert parse_record(record.as_json()) == record
    assert record.as_json() == record_json(4, 101, deck_json(4, 3, MIDDLE_A, PLAYS_A))
