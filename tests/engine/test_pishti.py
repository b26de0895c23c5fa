"""Pishti and jack pishti (R4)."""

from __future__ import annotations

import random

from pishti.engine import CAPTURE, JACK_PISHTI, LAID, PISHTI, Match, deal_deck, seat_view
from support import MIDDLE_A, MIDDLE_C, PLAYS_A, PLAYS_C, cards, deck_from_plays, play_all

OUTCOMES_A = [
    LAID, CAPTURE, LAID, PISHTI, LAID, JACK_PISHTI, LAID, CAPTURE,  # 1-8
    LAID, LAID, CAPTURE, LAID, PISHTI, LAID, LAID, LAID,  # 9-16
    *[LAID] * 16,  # 17-32
    CAPTURE, *[LAID] * 12, CAPTURE, LAID, CAPTURE,  # 33-48
]  # fmt: skip


def test_r4_outcome_of_every_play_of_scenario_a() -> None:
    deck = deck_from_plays(4, 3, MIDDLE_A, PLAYS_A)
    assert play_all(deck, PLAYS_A) == OUTCOMES_A


def test_r4_1_a_single_card_taken_with_its_rank_is_a_pishti() -> None:
    deck = deck_from_plays(4, 3, MIDDLE_A, PLAYS_A)
    play_all(deck, "4C 4D 7C")
    assert deck.pile == cards("7C")
    assert deck.play(cards("7D")[0]) == PISHTI
    assert deck.pishtis == [0, 1] and deck.jack_pishtis == [0, 0]
    assert deck.taken[1][-2:] == cards("7C 7D")


def test_r4_2_a_single_jack_taken_with_a_jack_is_a_jack_pishti() -> None:
    deck = deck_from_plays(4, 3, MIDDLE_A, PLAYS_A)
    play_all(deck, "4C 4D 7C 7D JC")
    assert deck.play(cards("JD")[0]) == JACK_PISHTI
    # 20 points, not a pishti as well (R4.2)
    assert deck.jack_pishtis == [0, 1] and deck.pishtis == [0, 1]


def test_r4_3_a_jack_on_a_single_non_jack_is_a_plain_capture() -> None:
    deck = deck_from_plays(4, 3, MIDDLE_A, PLAYS_A)
    play_all(deck, "4C 4D 7C 7D JC JD 8C")
    assert deck.pile == cards("8C")
    assert deck.play(cards("JH")[0]) == CAPTURE
    assert deck.pishtis == [0, 1] and deck.jack_pishtis == [0, 1]
    assert deck.pile == []


def test_r4_4_first_capture_is_never_a_pishti() -> None:
    # Scripted: 4D takes 4C on the opening pile of four.
    deck = deck_from_plays(4, 3, MIDDLE_A, PLAYS_A)
    play_all(deck, "4C")
    assert deck.play(cards("4D")[0]) == CAPTURE
    # Random decks: the first capture always takes at least 5 cards, never a pishti.
    for seed in range(300):
        rng = random.Random(seed)
        deck = deal_deck(rng, 4, seed % 4)
        while deck.face_down_team is None:
            size = len(deck.pile)
            outcome = deck.play(rng.choice(deck.hands[deck.to_play]))
        assert outcome == CAPTURE and size >= 4, seed


def test_r4_5_last_card_never_makes_a_pishti() -> None:
    deck = deck_from_plays(4, 3, MIDDLE_A, PLAYS_A)
    play_all(deck, PLAYS_A.rsplit(" ", 1)[0])
    assert deck.pile == cards("TH") and len(deck.plays) == 47
    assert deck.play(cards("TS")[0]) == CAPTURE  # a single TH taken by TS: plain
    assert deck.pishtis == [1, 1]
    assert deck.counts is not None and deck.counts[1].pishtis == 1


def test_r4_5_last_card_jack_on_a_single_jack_is_plain_too() -> None:
    # Scenario C with JD moved to the end (QS takes its place at play 23):
    # ... 46 JH takes the pile, 47 JD on the empty table, 48 JS takes the single JD.
    plays = PLAYS_C.replace(" JD ", " QS ").replace(" QS KS JH JS", " KS JH JD JS")
    deck = deck_from_plays(4, 3, MIDDLE_C, plays)
    outcomes = play_all(deck, plays)
    assert cards(plays)[-2:] == cards("JD JS")
    assert outcomes[-1] == CAPTURE
    assert deck.jack_pishtis == [0, 0]


def test_r4_6_pishti_cards_are_kept_face_up_for_every_seat() -> None:
    deck = deck_from_plays(4, 3, MIDDLE_A, PLAYS_A)

    def source(number: int, dealer: int):  # type: ignore[no-untyped-def]
        return deck

    match = Match(4, target=500, first_dealer=3, deck_source=source)
    for card in cards("4C 4D 7C 7D JC JD 8C JH 2C QC QD 6C 6D"):
        match.play(card)
    assert deck.pishti_cards == [cards("6D"), cards("7D JD")]
    for seat in range(4):
        view = seat_view(match, seat)
        assert view.pishti_cards == (tuple(cards("6D")), tuple(cards("7D JD")))
