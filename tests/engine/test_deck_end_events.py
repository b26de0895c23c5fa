"""What the events and views say at a deck's end, as docs/protocol.md describes them
(R5.1, R4.6): checked over many random matches."""

from __future__ import annotations

import random

import pytest

from pishti.engine import Match, seat_view
from pishti.engine.events import CardPlayed, DeckCounted, DeckStarted, PileCaptured


@pytest.mark.parametrize("players", [4, 2])
def test_r5_1_the_last_card_leaves_an_empty_pile_and_last_pile_says_what_went(
    players: int,
) -> None:
    rng = random.Random(players)
    ends = {"captured": 0, "laid": 0}
    for seed in range(12):
        match = Match(players=players, target=101, seed=seed)
        events: list[object] = []
        while not match.finished:
            seat = match.to_play
            events.extend(match.play(rng.choice(match.hand(seat)), seat))
        for i, event in enumerate(events):
            if not isinstance(event, DeckCounted):
                continue
            last = max(j for j in range(i) if isinstance(events[j], CardPlayed))
            played = events[last]
            assert isinstance(played, CardPlayed)
            # R5.1: after the deck's last card the pile is empty, captured or not.
            assert played.pile_size == 0
            before = max(
                (j for j in range(last) if isinstance(events[j], CardPlayed)),
            )
            previous = events[before]
            assert isinstance(previous, CardPlayed)
            captured = isinstance(events[last + 1], PileCaptured)
            if captured:
                ends["captured"] += 1
                assert event.last_pile == 0
            else:
                ends["laid"] += 1
                # the pile before the last card, and the last card itself
                assert event.last_pile == previous.pile_size + 1
    assert ends["captured"] > 0 and ends["laid"] > 0  # both cases were seen


def test_r4_6_pishti_cards_in_the_view_are_of_this_deck_only() -> None:
    rng = random.Random(5)
    checked = 0
    for seed in range(30):
        match = Match(players=2, target=151, seed=seed)
        had_pishti = False
        while not match.finished:
            seat = match.to_play
            for event in match.play(rng.choice(match.hand(seat)), seat):
                if isinstance(event, DeckStarted) and had_pishti:
                    view = seat_view(match, 0)
                    assert view.pishti_cards == ((), ())
                    checked += 1
                    had_pishti = False
            if not match.finished and any(seat_view(match, 0).pishti_cards):
                had_pishti = True
    assert checked > 0
