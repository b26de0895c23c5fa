"""Properties of many seeded random matches, four and two players (R1-R6, R8, R10, R7.7).

Each example is a seed; the match deals from it and every card played is a
uniformly random legal one from a second generator.  The number of examples
comes from the Hypothesis profile (tests/conftest.py): 100 matches per test
by default.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from pishti.engine import (
    ALL_CARDS,
    TARGETS,
    CardsDealt,
    Deck,
    DeckCounted,
    DeckStarted,
    Match,
    MatchOver,
    PileCaptured,
    deal_deck,
    decide,
    event_for_seat,
    seat_view,
    team_of,
)
from pishti.engine.cards import CARD_POINTS, is_jack
from pishti.records import dumps_record, loads_record, match_record, replay, replay_json

seeds = st.integers(min_value=0, max_value=2**63)
players_st = st.sampled_from([4, 2])
targets = st.sampled_from(TARGETS)


def random_match(seed: int, players: int, target: int) -> Match:
    rng = random.Random(seed ^ 0x5EED)
    match = Match(players, target, seed=seed)
    while not match.finished:
        match.play(rng.choice(match.legal_cards()))
    return match


def stock_of(deck: Deck) -> list[int]:
    return [c for deal in deck.deals[deck.deal_index :] for hand in deal for c in hand]


def check_cards_accounted_for(deck: Deck) -> None:
    """R1.1, R2.3: hands + pile + stock + taken are always the 52 cards, once each."""
    everything = [c for hand in deck.hands for c in hand]
    everything += deck.pile + stock_of(deck) + deck.taken[0] + deck.taken[1]
    assert sorted(everything) == list(ALL_CARDS)


@given(seeds, players_st, targets)
def test_every_card_accounted_for_seats_in_order_points_add_up(
    seed: int, players: int, target: int
) -> None:
    rng = random.Random(seed ^ 0x5EED)
    match = Match(players, target, seed=seed)
    n_deals = 12 // players
    while not match.finished:
        deck = match.deck
        if not deck.plays:  # a new deck
            assert len(deck.deals) == n_deals  # R2.3, R8.1
            assert not is_jack(deck.middle[3])  # R2.2
            check_cards_accounted_for(deck)
        seat = match.to_play
        # R1.3, R2.4, R8.1: play n of the deck comes from seat dealer + 1 + n
        assert seat == (deck.dealer + 1 + len(deck.plays)) % players
        match.play(rng.choice(match.legal_cards()))
        check_cards_accounted_for(deck)
    # R2.1: the deal moves one seat to the right after every deck
    first = match.decks[0].dealer
    assert [d.dealer for d in match.decks] == [
        (first + k) % players for k in range(len(match.decks))
    ]
    totals = [0, 0]
    for number, deck in enumerate(match.decks, start=1):
        assert deck.counts is not None and len(deck.plays) == 48  # R6.2
        assert deck.pile == [] and deck.last_capture_team is not None  # R5.1
        cards = [c.cards for c in deck.counts]
        assert sum(cards) == 52
        card_points = sum(CARD_POINTS[c] for t in deck.taken for c in t)
        assert card_points == 13
        pishti_points = sum(10 * c.pishtis + 20 * c.jack_pishtis for c in deck.counts)
        most = 0 if cards == [26, 26] else 3  # R5.3
        assert [c.most_cards for c in deck.counts] == [n >= 27 for n in cards]
        assert sum(c.points for c in deck.counts) == 13 + most + pishti_points  # R5.4
        assert len(deck.pishti_cards[0]) + len(deck.pishti_cards[1]) == (
            sum(c.pishtis + c.jack_pishtis for c in deck.counts)
        )
        totals = [totals[t] + deck.counts[t].points for t in (0, 1)]
        winner, finished = decide((totals[0], totals[1]), target, number)
        assert finished == (number == len(match.decks))  # R6.3, R6.4
    assert totals == match.totals and winner == match.winner


@given(seeds, players_st, targets)
def test_replaying_the_record_gives_the_same_match(seed: int, players: int, target: int) -> None:
    match = random_match(seed, players, target)
    again = replay(loads_record(dumps_record(match_record(match))))
    assert (again.totals, again.finished, again.winner) == (match.totals, True, match.winner)
    assert [d.counts for d in again.decks] == [d.counts for d in match.decks]
    assert again.events == match.events
    assert replay_json(again) == replay_json(match)


@given(seeds, players_st)
def test_a_seat_never_sees_a_card_it_may_not_see(seed: int, players: int) -> None:
    rng = random.Random(seed ^ 0x5EED)
    match = Match(players, 51, seed=seed)
    seen_events = 0
    while not match.finished:
        deck = match.deck
        played = set(deck.plays)
        for seat in range(players):
            team = team_of(seat)
            view = seat_view(match, seat)
            assert view.hand == tuple(deck.hands[seat])
            assert view.top_card is None or view.top_card in played | {deck.middle[3]}
            assert {p.card for p in view.history} == played
            took = deck.face_down_team == team
            assert view.face_down == (deck.middle[:3] if took else None)
        new = match.play(rng.choice(match.legal_cards()))
        seen_events += len(new)
        for event in new:
            for seat in range(players):
                mine = event_for_seat(event, seat)
                if isinstance(mine, DeckStarted):
                    assert mine.middle is None
                elif isinstance(mine, CardsDealt):
                    assert all(h == () for s, h in enumerate(mine.hands) if s != seat)
                elif isinstance(mine, PileCaptured) and mine.took_face_down:
                    assert (mine.face_down is not None) == (team_of(seat) == mine.team)
    assert seen_events == len(match.events) - 2
    assert isinstance(match.events[-1], MatchOver)
    assert sum(isinstance(e, DeckCounted) for e in match.events) == len(match.decks)


@given(seeds, players_st, targets)
def test_same_seed_same_match(seed: int, players: int, target: int) -> None:
    a = random_match(seed, players, target)
    b = random_match(seed, players, target)
    assert a.events == b.events
    assert [d.deals for d in a.decks] == [d.deals for d in b.decks]


@given(seeds, players_st, st.integers(0, 3))
def test_face_up_middle_card_is_never_a_jack(seed: int, players: int, dealer: int) -> None:
    deck = deal_deck(random.Random(seed), players, dealer % players)
    assert not is_jack(deck.middle[3])  # R2.2
    assert deck.top_card == deck.middle[3]
    dealt = [c for deal in deck.deals for hand in deal for c in hand]
    assert Counter(deck.middle + tuple(dealt)) == Counter(ALL_CARDS)  # R1.1
    assert [len(h) for h in deck.hands] == [4] * players  # R2.3
