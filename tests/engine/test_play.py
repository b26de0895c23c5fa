"""Playing cards: seats, turns, captures, the face-down cards (R1.3, R3)."""

from __future__ import annotations

import pytest

from pishti.engine import CAPTURE, LAID, IllegalPlay, team_of
from support import MIDDLE_A, PLAYS_A, cards, deck_from_plays, play_all


def _deck_a():  # type: ignore[no-untyped-def]
    return deck_from_plays(4, 3, MIDDLE_A, PLAYS_A)


def test_r1_3_partners_sit_opposite() -> None:
    # R1.3: team 0 is seats 0 and 2, team 1 is seats 1 and 3.
    assert [team_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_r1_3_play_passes_to_the_next_seat_and_partners_share_captures() -> None:
    deck = _deck_a()
    seats = []
    for card in cards("4C 4D 7C 7D JC JD 8C JH 2C QC QD"):
        seats.append(deck.to_play)
        deck.play(card)
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]
    # seat 1 took with 4D, seat 3 with 7D and JH: one pile for team 1;
    # seat 2's QD capture goes to team 0.
    assert deck.taken[1] == cards("5C KD 9S 3H 4C 4D 7C 7D JC JD 8C JH")
    assert deck.taken[0] == cards("2C QC QD")


def test_r3_1_any_card_of_the_hand_no_suit_to_follow() -> None:
    deck = _deck_a()
    assert deck.hands[0] == cards("4C JC 2C 6D")
    # seat 0 may play its 2C on the 3H although it holds no heart and no three
    assert deck.play(cards("2C")[0]) == LAID
    assert deck.top_card == cards("2C")[0]


def test_r3_1_a_card_not_in_the_hand_is_refused_and_nothing_changes() -> None:
    deck = _deck_a()
    before = (list(deck.hands[0]), list(deck.pile), deck.to_play, list(deck.plays))
    for bad in ("4D", "AS"):  # seat 1's card, a card still in the stock
        with pytest.raises(IllegalPlay, match=f"seat 0 does not hold {bad}"):
            deck.play(cards(bad)[0])
    with pytest.raises(IllegalPlay, match="does not hold 99"):
        deck.play(99)
    assert (list(deck.hands[0]), list(deck.pile), deck.to_play, list(deck.plays)) == before


def test_r3_2_same_rank_takes_the_whole_pile() -> None:
    deck = _deck_a()
    play_all(deck, "4C 4D 7C 7D JC JD 8C JH 2C QC")
    assert deck.pile == cards("2C QC")
    assert deck.play(cards("QD")[0]) == CAPTURE
    assert deck.pile == [] and deck.top_card is None
    assert deck.taken[0] == cards("2C QC QD")


def test_r3_3_a_jack_takes_the_whole_pile_whatever_its_top() -> None:
    deck = _deck_a()
    play_all(deck, f"{PLAYS_A.split(' JS ')[0]}")
    assert len(deck.pile) == 19 and deck.top_card == cards("9D")[0]
    assert deck.play(cards("JS")[0]) == CAPTURE
    assert deck.pile == []
    assert len(deck.taken[0]) == 3 + 2 + 20
    assert deck.taken[0][-1] == cards("JS")[0]


def test_r3_3_a_jack_on_an_empty_table_starts_a_pile() -> None:
    deck = _deck_a()
    play_all(deck, "4C 4D 7C 7D")
    assert deck.pile == []
    taken = [list(t) for t in deck.taken]
    assert deck.play(cards("JC")[0]) == LAID
    assert deck.pile == cards("JC") and deck.top_card == cards("JC")[0]
    assert [list(t) for t in deck.taken] == taken


def test_r3_4_any_other_card_stays_on_the_pile() -> None:
    deck = _deck_a()
    assert deck.play(cards("4C")[0]) == LAID
    assert deck.pile == cards("5C KD 9S 3H 4C")
    assert deck.taken == [[], []]


def test_r3_5_after_a_capture_the_next_seat_starts_a_new_pile() -> None:
    deck = _deck_a()
    play_all(deck, "4C 4D")
    assert deck.pile == [] and deck.to_play == 2
    play_all(deck, "7C")
    assert deck.pile == cards("7C")


def test_r3_6_first_capture_takes_the_face_down_cards() -> None:
    deck = _deck_a()
    assert deck.face_down_team is None
    play_all(deck, "4C 4D")
    assert deck.face_down_team == 1
    assert deck.taken[1] == cards("5C KD 9S 3H 4C 4D")
    # a later capture by the other team does not change who took them
    play_all(deck, "7C 7D JC JD 8C JH 2C QC QD")
    assert deck.face_down_team == 1
    assert deck.last_capture_team == 0
