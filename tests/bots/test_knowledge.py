"""Card counting and inference from a seat's view (R7.7)."""

from __future__ import annotations

import random

import pytest

from pishti.bots.knowledge import Knowledge, chance_to_hold, unseen_cards
from pishti.engine import JACK, Match, parse_card, seat_view
from tests.layouts import fill_layout, layout_match


def test_unseen_cards_at_the_start_of_a_deck() -> None:
    match = Match(4, 101, seed=3)
    view = seat_view(match, match.to_play)
    unseen = unseen_cards(view)
    assert len(unseen) == 52 - 4 - 1  # own hand and the face-up card are seen
    assert not set(unseen) & set(view.hand)
    assert view.face_up not in unseen
    assert unseen == sorted(unseen)


@pytest.mark.parametrize("players", [4, 2])
def test_knowledge_follows_a_whole_deck(players: int) -> None:
    rng = random.Random(players)
    match = Match(players, 101, seed=11)
    while len(match.decks) == 1:
        seat = match.to_play
        view = seat_view(match, seat)
        k = Knowledge.from_view(view)
        assert k.pile_size == view.pile_size
        assert (k.pile[-1] if k.pile else None) == view.top_card
        assert tuple(k.taken_counts) == view.taken_counts
        assert k.plays_left == 48 - len(view.history)
        by_rank, count, points = k.unseen_for(seat, view.hand)
        unseen = unseen_cards(view)
        assert count == len(unseen)
        assert by_rank == [sum(1 for c in unseen if c >> 2 == r) for r in range(13)]
        assert points == _points(unseen)
        match.play(rng.choice(match.legal_cards()))


def _points(cards: list[int]) -> int:
    from pishti.engine.cards import CARD_POINTS

    return sum(CARD_POINTS[c] for c in cards)


def test_a_seat_that_lays_on_a_top_card_is_void_in_its_rank_until_the_next_deal() -> None:
    # Dealer 3: seat 0 plays first onto the face-up 9S, seat 1 lays 4D on the 7H.
    middle, deals = fill_layout(4, {"0/0": "7H 2D 3D 6C", "0/1": "4D 8D 8H QS"}, middle_top="9S")
    match = layout_match(middle, deals)
    match.play_text("7H")
    match.play_text("4D")
    k = Knowledge.from_view(seat_view(match, 2))
    seven = parse_card("7H") >> 2
    assert k.voids[1] == 1 << seven
    assert k.voids[0] == 1 << (parse_card("9S") >> 2)
    while match.deck.deal_index == 1:
        match.play(match.legal_cards()[0])
    k = Knowledge.from_view(seat_view(match, 2))
    assert k.voids == [0, 0, 0, 0]


def test_face_down_cards_count_as_seen_only_for_the_team_that_took_them() -> None:
    middle, deals = fill_layout(4, {"0/0": "JH 2D 3D 6C"}, middle_top="9S")
    match = layout_match(middle, deals)
    match.play_text("JH")  # seat 0 takes the pile and the face-down cards (R3.6)
    down = match.deck.middle[:3]
    for seat in range(4):
        view = seat_view(match, seat)
        k = Knowledge.from_view(view)
        _, count, _ = k.unseen_for(seat, view.hand)
        seen_down = seat % 2 == 0
        assert (view.face_down == down) is seen_down
        assert count == 52 - 2 - len(view.hand) - (3 if seen_down else 0)
        assert k.taken_counts == [5, 0]
        assert k.pile == [] and k.pile_hidden == 0


def test_chance_to_hold_is_hypergeometric() -> None:
    assert chance_to_hold(4, 40, 0) == 0.0
    assert chance_to_hold(1, 10, 3) == pytest.approx(0.3)
    assert chance_to_hold(2, 10, 1) == pytest.approx(0.2)
    assert chance_to_hold(2, 4, 3) == 1.0
    # 1 - C(36,4)/C(40,4): 4 wanted among 40, a hand of 4.
    assert chance_to_hold(4, 40, 4) == pytest.approx(1 - (36 * 35 * 34 * 33) / (40 * 39 * 38 * 37))
    assert JACK == 10
