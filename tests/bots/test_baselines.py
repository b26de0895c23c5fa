"""The sparring partners: legal, reproducible, blind to hidden cards, each in its style."""

from __future__ import annotations

import random

import pytest

from pishti.bots import POOL, make_bot
from pishti.bots.baselines import HELD_OUT, TRAINING, grabber_take, grabber_throws, greedy_card
from pishti.engine import Match, card_text, parse_card, seat_view
from pishti.engine.cards import cards_text
from tests.layouts import fill_layout, hidden_twin, layout_match


def _choice(name: str, match: Match, seed: int = 1) -> str:
    seat = match.to_play
    assert seat is not None
    return card_text(make_bot(name, seed).choose(seat_view(match, seat)))


def _plays(name: str, players: int, seed: int) -> list[int]:
    match = Match(players, 51, seed=seed)
    bots = [make_bot(name if s % 2 == 0 else "standard", seed * 10 + s) for s in range(players)]
    plays = []
    while not match.finished:
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        card = bots[seat].choose(view)
        assert type(card) is int and card in view.legal_cards
        plays.append(card)
        match.play(card)
    return plays


def test_the_pool_is_split_into_training_and_held_out() -> None:
    assert list(TRAINING) == ["grabber", "hunter", "hoarder", "sloppy"]
    assert list(HELD_OUT) == ["sampler", "miser"]
    assert list(POOL) == [*TRAINING, *HELD_OUT]
    for name in POOL:
        assert make_bot(name, 0).name == name


@pytest.mark.parametrize("name", list(POOL))
@pytest.mark.parametrize("players", [4, 2])
def test_a_sparring_partner_plays_legal_cards_and_is_reproducible(name: str, players: int) -> None:
    assert _plays(name, players, 3) == _plays(name, players, 3)


@pytest.mark.parametrize("name", list(POOL))
def test_a_choice_depends_only_on_what_the_seat_may_see(name: str) -> None:
    rng = random.Random(11)
    for seed in range(5):
        match = Match(4, 101, seed=seed)
        driver = make_bot("novice", seed)
        for _ in range(rng.randrange(47)):
            seat = match.to_play
            assert seat is not None
            match.play(driver.choose(seat_view(match, seat)))
        seat = match.to_play
        assert seat is not None
        twin = hidden_twin(match, seat, rng)
        assert seat_view(match, seat) == seat_view(twin, seat)
        assert _choice(name, match, seed) == _choice(name, twin, seed)


def _opening(hand: str, top: str = "9S") -> Match:
    middle, deals = fill_layout(4, {"0/0": hand}, middle_top=top)
    return layout_match(middle, deals)


def test_grabber_spends_a_jack_on_any_pile_and_takes_the_most_points() -> None:
    assert _choice("grabber", _opening("JH 3D 5H 7C")) == "JH"
    # 9D takes the pile with the face-up 9S; the jack would take the same.
    assert _choice("grabber", _opening("JH 9D 5H 7C")) == "9D"


def test_hunter_keeps_a_pair_and_makes_the_pishti() -> None:
    middle, deals = fill_layout(
        4, {"0/0": "JH 3D 7S KC", "0/1": "7H 2D 6D 4S", "0/2": "4H 4D 9C 3C"}, middle_top="9S"
    )
    match = layout_match(middle, deals)
    match.play_text("JH")
    match.play_text("4S")
    assert _choice("hunter", match) == "4D"  # a pishti (R4.1), the lower 4


def test_hoarder_keeps_its_jack_for_a_pile_worth_it() -> None:
    assert _choice("hoarder", _opening("JH 3D 5H 7C")) == "3D"
    # The ten of diamonds (3 points) and the face-up card: the pile is worth a jack.
    assert _choice("hoarder", _opening("JH 3H 5H 7C", top="TD")) == "JH"


def test_miser_lays_the_rank_most_seen_and_leaves_small_piles() -> None:
    # Holding two sevens, the other seats can hold only two: the 7 is the safer card.
    assert _choice("miser", _opening("7D 7C 5H QC", top="6S")) == "7C"


def test_greedy_card_takes_then_jacks_then_throws_the_cheapest() -> None:
    hand = [parse_card(c) for c in ("JH", "9D", "AC", "4S")]
    assert card_text(greedy_card(hand, parse_card("9S"))) == "9D"
    assert card_text(greedy_card(hand, parse_card("5S"))) == "JH"
    assert card_text(greedy_card(hand, None)) == "4S"


def test_grabber_take_prefers_the_pishti_and_the_rank_before_a_jack() -> None:
    hand = [parse_card(c) for c in ("JH", "9D", "9C", "4S")]
    # A pile of one 9: 9C (the lower 9) makes the pishti, worth 10 more than the jack.
    assert card_text(grabber_take(hand, parse_card("9S"), 0, 1) or 0) == "9C"
    # A pile of several cards: the 9 and the jack take the same; the rank goes first.
    assert card_text(grabber_take(hand, parse_card("9S"), 3, 5) or 0) == "9C"
    assert card_text(grabber_take(hand, parse_card("5S"), 3, 5) or 0) == "JH"
    assert grabber_take(hand, None, 0, 0) is None
    assert grabber_take(hand[1:], parse_card("5S"), 3, 5) is None
    assert cards_text(grabber_throws(hand)) == ["4S", "9C", "9D"]
    only_jacks = [parse_card("JH"), parse_card("JS")]
    assert cards_text(grabber_throws(only_jacks)) == ["JH", "JS"]
