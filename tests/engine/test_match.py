"""A whole match: events, targets, the end of the match and the deck cap (R6)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from pishti.engine import (
    DEFAULT_TARGET,
    MAX_DECKS,
    TARGETS,
    CardPlayed,
    CardsDealt,
    Deck,
    DeckCounted,
    DeckStarted,
    IllegalPlay,
    JackPishti,
    Match,
    MatchOver,
    NoMoreDecks,
    PileCaptured,
    Pishti,
    TeamCount,
    decide,
)
from support import (
    MIDDLE_A,
    MIDDLE_C,
    PLAYS_A,
    PLAYS_B,
    PLAYS_C,
    cards,
    deck_from_plays,
)

Source = Callable[[int, int], Deck]


def scripted(*decks: tuple[str, str], players: int = 4, repeat: bool = True) -> Source:
    """A deck source dealing the scenarios in turn (the last one again and again)."""

    def source(number: int, dealer: int) -> Deck:
        if number >= len(decks) and not repeat:
            raise NoMoreDecks
        middle, plays = decks[min(number, len(decks) - 1)]
        return deck_from_plays(players, dealer, middle, plays)

    return source


def play_out(match: Match) -> None:
    """Play every deck the source gives, in its scripted order.

    deck_from_plays puts each seat's cards in its hand in the order they are
    to be played, so each seat plays the first card of its hand.
    """
    while match.to_play is not None:
        deck = match.deck
        match.play(deck.hands[deck.to_play][0])


C = (MIDDLE_C, PLAYS_C)  # dealer odd: team 0 scores 4, team 1 scores 9
A = (MIDDLE_A, PLAYS_A)  # dealer odd: 18 and 38
B = (MIDDLE_A, PLAYS_B)  # dealer odd: 23 and 33


def test_r6_1_targets_and_default() -> None:
    assert TARGETS == (51, 101, 151)
    assert DEFAULT_TARGET == 101
    assert Match(seed=1).target == 101
    assert Match(target=51, seed=1).target == 51
    for bad in (0, -5, True, "101"):
        with pytest.raises(ValueError, match="target must be"):
            Match(target=bad, seed=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="players must be 4 or 2"):
        Match(players=3, seed=1)


def test_r6_2_a_deck_is_played_to_its_end_even_past_the_target() -> None:
    match = Match(4, target=10, first_dealer=3, deck_source=scripted(A))
    for card in cards(PLAYS_A)[:47]:
        match.play(card)
    # team 1 has a pishti and a jack pishti (30 points) but the deck goes on
    assert match.deck.pishtis == [1, 1] and match.deck.jack_pishtis == [0, 1]
    assert not match.finished and match.totals == [0, 0] and match.to_play == 3
    events = match.play(cards("TS")[0])
    assert isinstance(events[-1], MatchOver)
    assert match.finished and match.winner == 1 and match.totals == [18, 38]


def test_r6_3_one_team_at_the_target_wins() -> None:
    match = Match(4, target=9, first_dealer=3, deck_source=scripted(C))
    play_out(match)
    assert (match.totals, match.finished, match.winner, len(match.decks)) == ([4, 9], True, 1, 1)


def test_r6_3_both_past_and_level_plays_another_deck() -> None:
    # dealer 3: (4, 9); dealer 0 mirrors the seats: (9, 4); level 13-13 at the
    # target 13, so a third deck: dealer 1, (4, 9) again, 17-22: team 1 wins.
    match = Match(4, target=13, first_dealer=3, deck_source=scripted(C))
    play_out(match)
    assert [d.dealer for d in match.decks] == [3, 0, 1]
    assert [e.totals for e in match.events if isinstance(e, DeckCounted)] == [
        (4, 9),
        (13, 13),
        (17, 22),
    ]
    assert match.finished and match.winner == 1


def test_r6_3_both_past_the_higher_wins() -> None:
    # dealer 3 deals A: 18-38; dealer 0 deals A mirrored: 38-18; totals 56-56 at
    # target 50 go on; dealer 1 deals C: 60-65, both past: team 1.
    match = Match(4, target=50, first_dealer=3, deck_source=scripted(A, A, C))
    play_out(match)
    assert match.totals == [60, 65] and match.winner == 1 and len(match.decks) == 3


@pytest.mark.parametrize(
    ("totals", "target", "decks", "expected"),
    [
        ((101, 0), 101, 1, (0, True)),  # R6.3 at the target counts
        ((50, 101), 101, 1, (1, True)),
        ((120, 130), 101, 4, (1, True)),  # both past: the higher
        ((140, 102), 101, 4, (0, True)),
        ((105, 105), 101, 4, (None, False)),  # level: another deck
        ((100, 99), 101, 4, (None, False)),
        ((10, 20), 101, 98, (None, False)),
        ((10, 20), 101, 99, (1, True)),  # R6.4 the cap: the higher wins
        ((30, 20), 101, 99, (0, True)),
        ((20, 20), 101, 99, (None, True)),  # R6.4 level at the cap: a draw
        ((120, 120), 101, 99, (None, True)),
    ],
)
def test_r6_3_r6_4_decide(
    totals: tuple[int, int], target: int, decks: int, expected: tuple[int | None, bool]
) -> None:
    assert decide(totals, target, decks) == expected


def test_r6_4_the_match_stops_after_99_decks_higher_score_wins() -> None:
    match = Match(4, target=10**6, first_dealer=3, deck_source=scripted(C))
    play_out(match)
    assert MAX_DECKS == 99
    assert len(match.decks) == 99 and match.finished
    # 50 decks with an odd dealer (4, 9) and 49 with an even one (9, 4)
    assert match.totals == [50 * 4 + 49 * 9, 50 * 9 + 49 * 4] == [641, 646]
    assert match.winner == 1
    over = match.events[-1]
    assert isinstance(over, MatchOver) and over.decks == 99 and over.winner == 1


def test_r6_4_level_at_the_cap_is_a_draw() -> None:
    # 50 odd-dealer C decks (-5 each for team 0), 48 mirrored C decks (+5) and
    # one mirrored B deck (+10): level, 665-665.
    match = Match(4, target=10**6, first_dealer=3, deck_source=scripted(C, B, C))
    play_out(match)
    assert len(match.decks) == 99 and match.totals == [665, 665]
    assert match.finished and match.winner is None
    with pytest.raises(IllegalPlay, match="the match is over"):
        match.play(0)


def test_events_of_the_first_plays() -> None:
    match = Match(4, target=101, first_dealer=3, deck_source=scripted(A))
    started, dealt = match.events
    assert started == DeckStarted(0, 3, 0, cards("3H")[0], tuple(cards(MIDDLE_A)), 48)
    assert isinstance(dealt, CardsDealt) and dealt.deal == 0 and dealt.stock_size == 32
    assert dealt.hands[0] == tuple(cards("4C JC 2C 6D"))
    assert match.play(cards("4C")[0]) == [CardPlayed(0, 0, cards("4C")[0], 5)]
    assert match.play(cards("4D")[0]) == [
        CardPlayed(0, 1, cards("4D")[0], 0),
        PileCaptured(0, 1, 1, cards("4D")[0], 6, True, tuple(cards("5C KD 9S"))),
    ]
    match.play(cards("7C")[0])
    assert match.play(cards("7D")[0]) == [
        CardPlayed(0, 3, cards("7D")[0], 0),
        PileCaptured(0, 3, 1, cards("7D")[0], 2, False, None),
        Pishti(0, 3, 1, cards("7D")[0]),
    ]
    match.play(cards("JC")[0])
    assert match.play(cards("JD")[0])[-1] == JackPishti(0, 1, 1, cards("JD")[0])
    for card in cards("8C JH 2C QC QD 6C 6D AC 2D"):
        match.play(card)
    new = match.play(cards("KC")[0])
    assert [type(e) for e in new] == [CardPlayed, CardsDealt]
    assert new[1].deal == 1 and new[1].stock_size == 16  # type: ignore[attr-defined]


def test_events_at_the_end_of_a_deck_and_of_the_match() -> None:
    match = Match(4, target=30, first_dealer=3, deck_source=scripted(A))
    for card in cards(PLAYS_A)[:47]:
        match.play(card)
    new = match.play(cards("TS")[0])
    assert [type(e) for e in new] == [CardPlayed, PileCaptured, DeckCounted, MatchOver]
    counted = new[2]
    assert counted == DeckCounted(
        0,
        1,
        0,
        (
            TeamCount(25, 2, 1, True, True, False, 1, 0, 18),
            TeamCount(27, 2, 3, False, False, True, 1, 1, 38),
        ),
        (18, 38),
    )
    assert new[3] == MatchOver(0, 1, (18, 38), 1)
    assert new[3].as_json() == {
        "type": "match_over",
        "deck": 0,
        "winner": 1,
        "totals": [18, 38],
        "decks": 1,
    }


def test_next_deck_starts_right_after_the_count() -> None:
    match = Match(4, target=101, first_dealer=3, deck_source=scripted(A, C))
    for card in cards(PLAYS_A)[:47]:
        match.play(card)
    new = match.play(cards("TS")[0])
    assert [type(e) for e in new] == [
        CardPlayed,
        PileCaptured,
        DeckCounted,
        DeckStarted,
        CardsDealt,
    ]
    assert new[3].dealer == 0 and new[3].first_seat == 1  # type: ignore[attr-defined]
    assert match.deck_number == 1 and match.to_play == 1 and match.history == ()


def test_event_json_uses_card_text() -> None:
    match = Match(4, target=101, first_dealer=3, deck_source=scripted(A))
    assert match.events[0].as_json() == {
        "type": "deck_started",
        "deck": 0,
        "dealer": 3,
        "first_seat": 0,
        "top_card": "3H",
        "middle": ["5C", "KD", "9S", "3H"],
        "stock_size": 48,
    }
    assert match.events[1].as_json()["hands"][2] == ["7C", "8C", "QD", "2D"]
    played = match.play(cards("4C")[0])[0]
    assert played.as_json() == {
        "type": "card_played",
        "deck": 0,
        "seat": 0,
        "card": "4C",
        "pile_size": 5,
    }


def test_r3_1_match_refuses_out_of_turn_and_unheld_cards() -> None:
    match = Match(4, target=101, first_dealer=3, deck_source=scripted(A))
    with pytest.raises(IllegalPlay, match="it is seat 0's turn, not seat 2's"):
        match.play(cards("4C")[0], seat=2)
    with pytest.raises(IllegalPlay, match="seat 0 does not hold 4D"):
        match.play(cards("4D")[0])
    assert len(match.events) == 2 and match.history == ()
    match.play_text("4c", seat=0)
    assert match.legal_cards() == tuple(cards("4D JD QC AC"))
    assert match.hand(0) == tuple(cards("JC 2C 6D"))
    assert [(p.seat, p.card, p.outcome) for p in match.history] == [(0, cards("4C")[0], 0)]
    assert "to_play=1" in repr(match) and "top=4C" in repr(match)


def test_r10_source_running_dry_stops_the_match() -> None:
    match = Match(4, target=101, first_dealer=3, deck_source=scripted(C, repeat=False))
    play_out(match)
    assert len(match.decks) == 1 and match.deck.over
    assert match.to_play is None and not match.finished and match.legal_cards() == ()
    with pytest.raises(IllegalPlay, match="no further deck was dealt"):
        match.play(0)


def test_r2_1_same_seed_same_match() -> None:
    def run(seed: int) -> list[dict[str, object]]:
        rng = random.Random(100 + seed)
        match = Match(4, target=51, seed=seed)
        while not match.finished:
            match.play(rng.choice(match.legal_cards()))
        return [e.as_json() for e in match.events]

    assert run(4) == run(4)
    assert run(4) != run(5)


def test_play_refuses_a_bool_for_a_card_and_changes_nothing() -> None:
    # R1.1: a card is an int 0..51; True == 1 must not pass for a card.
    match = Match(4, 101, seed=3)
    hand_before = match.hand(match.deck.to_play)
    with pytest.raises(IllegalPlay, match="not a card: True"):
        match.play(True)
    assert match.hand(match.deck.to_play) == hand_before
    assert match.deck.plays == []


def test_hand_of_a_seat_that_does_not_exist_is_a_clear_error() -> None:
    match = Match(2, 101, seed=3)
    with pytest.raises(ValueError, match="no seat 2 at a 2-player match"):
        match.hand(2)
