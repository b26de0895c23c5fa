"""What a seat may see (R7.7): its own hand, public sizes, face-down cards only for their team."""

from __future__ import annotations

import pytest

from pishti.engine import (
    CardError,
    CardPlayed,
    CardsDealt,
    Deck,
    DeckCounted,
    DeckStarted,
    Match,
    PileCaptured,
    Pishti,
    card_text,
    event_for_seat,
    parse_card,
    seat_view,
)
from support import MIDDLE_A, PLAYS_A, cards, deck_from_plays


def _card_texts(value: object) -> set[str]:
    """Every card text anywhere in an event's JSON."""
    if isinstance(value, str):
        try:
            return {card_text(parse_card(value))} if len(value) == 2 else set()
        except CardError:
            return set()
    if isinstance(value, dict):
        return set().union(*(_card_texts(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_card_texts(v) for v in value))
    return set()


def _match() -> Match:
    def source(number: int, dealer: int) -> Deck:
        return deck_from_plays(4, dealer, MIDDLE_A, PLAYS_A)

    return Match(4, target=101, first_dealer=3, deck_source=source)


def test_r7_7_a_seat_sees_only_its_own_hand_and_public_figures() -> None:
    match = _match()
    hands = {0: "4C JC 2C 6D", 1: "4D JD QC AC", 2: "7C 8C QD 2D", 3: "7D JH 6C KC"}
    for seat, hand in hands.items():
        view = seat_view(match, seat)
        assert view.hand == tuple(cards(hand))
        assert (view.seat, view.team, view.players, view.target) == (seat, seat % 2, 4, 101)
        assert view.face_up == view.top_card == cards("3H")[0]
        assert view.pile_size == 4 and view.stock_size == 32
        assert view.hand_sizes == (4, 4, 4, 4)
        assert view.to_play == 0 and view.dealer == 3 and view.deck == 0
        assert view.face_down is None and view.face_down_team is None
        assert view.legal_cards == (view.hand if seat == 0 else ())


def test_r7_7_face_down_cards_only_for_the_team_that_took_them() -> None:
    # R3.6: seat 1's 4D is the first capture: team 1 (seats 1 and 3) may see them.
    match = _match()
    match.play(cards("4C")[0])
    match.play(cards("4D")[0])
    for seat in range(4):
        view = seat_view(match, seat)
        assert view.face_down_team == 1
        expected = tuple(cards("5C KD 9S")) if seat in (1, 3) else None
        assert view.face_down == expected
        assert view.taken_counts == (0, 6) and view.pile_size == 0 and view.top_card is None
        assert view.hand_sizes == (3, 3, 4, 4)
        assert [(p.seat, p.card) for p in view.history] == [
            (0, cards("4C")[0]),
            (1, cards("4D")[0]),
        ]


def test_r7_7_bad_seat() -> None:
    with pytest.raises(ValueError, match="no seat 4"):
        seat_view(_match(), 4)


def test_r7_7_event_for_seat_hides_the_middle_and_other_hands() -> None:
    match = _match()
    started, dealt = match.events
    assert isinstance(started, DeckStarted) and isinstance(dealt, CardsDealt)
    for seat in range(4):
        mine = event_for_seat(started, seat)
        assert isinstance(mine, DeckStarted)
        assert mine.middle is None and mine.top_card == cards("3H")[0]
        assert mine.dealer == 3 and mine.first_seat == 0
        deal = event_for_seat(dealt, seat)
        assert isinstance(deal, CardsDealt)
        assert deal.hands[seat] == dealt.hands[seat] and len(deal.hands[seat]) == 4
        assert all(h == () for s, h in enumerate(deal.hands) if s != seat)
        assert deal.hand_sizes == (4, 4, 4, 4) and deal.stock_size == 32
        assert ("5C" not in str(mine.as_json()) and "KD" not in str(deal.as_json())) or seat == 1


def test_r7_7_event_for_seat_keeps_face_down_cards_for_the_capturing_team_only() -> None:
    match = _match()
    match.play(cards("4C")[0])
    played, captured = match.play(cards("4D")[0])
    assert isinstance(captured, PileCaptured)
    for seat in range(4):
        mine = event_for_seat(captured, seat)
        assert isinstance(mine, PileCaptured)
        assert mine.took_face_down is True and mine.count == 6 and mine.team == 1
        if seat in (1, 3):
            assert mine.face_down == tuple(cards("5C KD 9S"))
        else:
            assert mine.face_down is None
            assert _card_texts(mine.as_json()) == {"4D"}
        assert event_for_seat(played, seat) is played  # public


def test_r7_7_public_events_come_back_unchanged() -> None:
    match = _match()
    for card in cards("4C 4D 7C"):
        match.play(card)
    events = match.play(cards("7D")[0])
    pishti = events[-1]
    assert isinstance(pishti, Pishti) and isinstance(events[0], CardPlayed)
    for seat in range(4):
        assert event_for_seat(pishti, seat) is pishti
    for card in cards(PLAYS_A)[4:]:
        events = match.play(card)
    counted = next(e for e in events if isinstance(e, DeckCounted))
    assert event_for_seat(counted, 0) is counted
