"""Counting a deck (R5)."""

from __future__ import annotations

import pytest

from pishti.engine import Deck, TeamCount
from pishti.engine.deck import count_team
from support import (
    MIDDLE_A,
    MIDDLE_C,
    PLAYS_A,
    PLAYS_B,
    PLAYS_C,
    cards,
    deck_from_plays,
    play_all,
)


def _played(middle: str, plays: str, players: int = 4, dealer: int = 3) -> Deck:
    deck = deck_from_plays(players, dealer, middle, plays)
    play_all(deck, plays)
    assert deck.over
    return deck


def test_r5_1_leftover_pile_goes_to_the_last_team_to_capture() -> None:
    deck = _played(MIDDLE_A, PLAYS_B)
    # seat 3 (team 1) played the last card; team 0 captured last (KS, play 45)
    assert deck.plays[-1] == cards("TS")[0]
    assert deck.last_capture_team == 0
    assert deck.final_pile == tuple(cards("TH AS TS"))
    assert deck.taken[0][-3:] == cards("TH AS TS")
    assert deck.pile == []
    assert [len(t) for t in deck.taken] == [40, 12]


def test_r5_1_nothing_left_when_the_last_card_captures() -> None:
    deck = _played(MIDDLE_A, PLAYS_A)
    assert deck.final_pile == ()
    assert deck.last_capture_team == 1


def test_r5_1_a_jack_left_on_the_table_goes_to_the_last_capturer() -> None:
    deck = _played(MIDDLE_C, PLAYS_C)
    assert deck.final_pile == tuple(cards("JS"))
    assert deck.last_capture_team == 0 and deck.taken[0][-1] == cards("JS")[0]


def test_r5_2_count_of_scenario_a() -> None:
    deck = _played(MIDDLE_A, PLAYS_A)
    assert deck.counts == (
        TeamCount(25, 2, 1, True, True, False, 1, 0, 18),
        TeamCount(27, 2, 3, False, False, True, 1, 1, 38),
    )


def test_r5_2_count_of_scenario_b() -> None:
    deck = _played(MIDDLE_A, PLAYS_B)
    assert deck.counts == (
        TeamCount(40, 4, 1, True, True, True, 1, 0, 23),
        TeamCount(12, 0, 3, False, False, False, 1, 1, 33),
    )


@pytest.mark.parametrize(
    ("taken", "pishtis", "jack_pishtis", "expected"),
    [
        ("AC AD AH AS", 0, 0, TeamCount(4, 4, 0, False, False, False, 0, 0, 4)),
        ("JC JD", 0, 0, TeamCount(2, 0, 2, False, False, False, 0, 0, 2)),
        ("2C 3C", 0, 0, TeamCount(2, 0, 0, True, False, False, 0, 0, 2)),
        ("TD TC", 0, 0, TeamCount(2, 0, 0, False, True, False, 0, 0, 3)),
        ("2D TH", 2, 1, TeamCount(2, 0, 0, False, False, False, 2, 1, 40)),
        ("AC 2C TD JH", 1, 0, TeamCount(4, 1, 1, True, True, False, 1, 0, 17)),
    ],
)
def test_r5_2_points_of_each_item(
    taken: str, pishtis: int, jack_pishtis: int, expected: TeamCount
) -> None:
    # R5.2: ace 1, jack 1, two of clubs 2, ten of diamonds 3, pishti 10, jack pishti 20
    assert count_team(cards(taken), pishtis, jack_pishtis) == expected


def test_r5_3_most_cards_needs_27() -> None:
    from pishti.engine import ALL_CARDS

    plain = [c for c in ALL_CARDS if c not in cards("AC AD AH AS JC JD JH JS 2C TD")]
    assert len(plain) == 42
    assert count_team(plain[:26], 0, 0).most_cards is False
    assert count_team(plain[:26], 0, 0).points == 0
    assert count_team(plain[:27], 0, 0).most_cards is True
    assert count_team(plain[:27], 0, 0).points == 3


def test_r5_3_at_26_each_nobody_scores_most_cards() -> None:
    deck = _played(MIDDLE_C, PLAYS_C)
    assert deck.counts == (
        TeamCount(26, 1, 3, False, False, False, 0, 0, 4),
        TeamCount(26, 3, 1, True, True, False, 0, 0, 9),
    )


def test_r5_4_card_points_16_uneven_13_at_26_each() -> None:
    for plays, total in ((PLAYS_A, 16), (PLAYS_B, 16)):
        deck = _played(MIDDLE_A, plays)
        assert deck.counts is not None
        pishti_points = sum(10 * c.pishtis + 20 * c.jack_pishtis for c in deck.counts)
        assert sum(c.points for c in deck.counts) - pishti_points == total
    deck = _played(MIDDLE_C, PLAYS_C)
    assert deck.counts is not None
    assert sum(c.points for c in deck.counts) == 13


def test_r5_5_count_holds_every_line_of_the_table() -> None:
    deck = _played(MIDDLE_A, PLAYS_A)
    assert deck.counts is not None
    assert deck.counts[0].as_json() == {
        "cards": 25,
        "aces": 2,
        "jacks": 1,
        "two_of_clubs": True,
        "ten_of_diamonds": True,
        "most_cards": False,
        "pishtis": 1,
        "jack_pishtis": 0,
        "points": 18,
    }
