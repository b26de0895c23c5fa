"""The two-player game (R1.4, R8)."""

from __future__ import annotations

import random

from pishti.engine import Deck, Match, TeamCount, deal_deck, team_of
from support import MIDDLE_A, MIDDLE_C, PLAYS_A, PLAYS_C, cards, deck_from_plays, play_all


def test_r1_4_each_seat_is_its_own_team() -> None:
    assert [team_of(0), team_of(1)] == [0, 1]


def test_r8_1_six_deals_of_four_cards_each() -> None:
    deck = deal_deck(random.Random(3), 2, 0)
    assert len(deck.deals) == 6
    assert all(len(deal) == 2 and all(len(h) == 4 for h in deal) for deal in deck.deals)
    assert deck.stock_size == 40
    rng = random.Random(3)
    refills = 0
    for n in range(48):
        if n and n % 8 == 0:
            refills += 1
            assert deck.deal_index == refills + 1 and deck.stock_size == 40 - 8 * refills
            assert deck.to_play == 1  # R8.1 the non-dealer plays first in every deal
        deck.play(rng.choice(deck.hands[deck.to_play]))
    assert refills == 5 and deck.over


def test_r8_1_play_alternates_and_the_non_dealer_plays_first() -> None:
    for dealer in (0, 1):
        deck = deal_deck(random.Random(dealer), 2, dealer)
        seats = []
        while not deck.over:
            seats.append(deck.to_play)
            deck.play(deck.hands[deck.to_play][0])
        assert seats == [(dealer + 1 + n) % 2 for n in range(48)]


def test_r8_1_the_deal_alternates_between_decks() -> None:
    rng = random.Random(1)
    match = Match(2, target=151, seed=8)
    while not match.finished:
        match.play(rng.choice(match.legal_cards()))
    first = match.decks[0].dealer
    assert len(match.decks) >= 3
    assert [d.dealer for d in match.decks] == [(first + k) % 2 for k in range(len(match.decks))]


def test_r8_2_scenario_a_head_to_head() -> None:
    # With two seats, play n of scenario A comes from seat (n - 1) % 2: the same
    # teams as with four, so the same count (R8.2: the rules are unchanged).
    deck = deck_from_plays(2, 1, MIDDLE_A, PLAYS_A)
    assert deck.hands == [cards("4C 7C JC 8C"), cards("4D 7D JD JH")]
    play_all(deck, PLAYS_A)
    assert deck.counts == (
        TeamCount(25, 2, 1, True, True, False, 1, 0, 18),
        TeamCount(27, 2, 3, False, False, True, 1, 1, 38),
    )
    assert deck.pishti_cards == [cards("6D"), cards("7D JD")]


def test_r8_2_most_cards_needs_27_with_two_players_too() -> None:
    deck = deck_from_plays(2, 1, MIDDLE_C, PLAYS_C)
    play_all(deck, PLAYS_C)
    assert deck.counts is not None
    assert [c.cards for c in deck.counts] == [26, 26]
    assert [c.most_cards for c in deck.counts] == [False, False]
    assert [c.points for c in deck.counts] == [4, 9]


def test_r8_2_match_ends_as_with_four() -> None:
    # dealer 1 then 0: scenario C gives (4, 9) then (9, 4): level at 13, play on.
    def source(number: int, dealer: int) -> Deck:
        return deck_from_plays(2, dealer, MIDDLE_C, PLAYS_C)

    match = Match(2, target=13, first_dealer=1, deck_source=source)
    while match.to_play is not None:
        match.play(match.deck.hands[match.to_play][0])
    assert [d.dealer for d in match.decks] == [1, 0, 1]
    assert match.totals == [17, 22] and match.winner == 1
