"""The bot levels: legal, reproducible, and playing the way each level is documented to."""

from __future__ import annotations

import random

import pytest

from pishti.bots import LEVELS, make_bot
from pishti.bots.knowledge import Knowledge
from pishti.bots.standard import TACTICS, card_values, standard_card
from pishti.engine import JACK, Match, card_text, parse_card, seat_view
from pishti.engine.cards import CARD_POINTS
from tests.layouts import fill_layout, hidden_twin, layout_match

CHEAP_LEVELS = ["random", "novice", "standard"]


def _choice(level: str, match: Match, seed: int = 1) -> str:
    seat = match.to_play
    assert seat is not None
    return card_text(make_bot(level, seed).choose(seat_view(match, seat)))


def _play_match(levels: list[str], seed: int, players: int = 4, target: int = 51) -> list[int]:
    match = Match(players, target, seed=seed)
    bots = [make_bot(levels[s % len(levels)], seed * 10 + s) for s in range(players)]
    plays = []
    while not match.finished:
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        card = bots[seat].choose(view)
        assert card in view.legal_cards
        plays.append(card)
        match.play(card)
    return plays


@pytest.mark.parametrize("level", CHEAP_LEVELS)
@pytest.mark.parametrize("players", [4, 2])
def test_a_level_plays_legal_cards_and_is_reproducible_from_its_seed(
    level: str, players: int
) -> None:
    first = _play_match([level], seed=5, players=players)
    assert first == _play_match([level], seed=5, players=players)
    assert len(first) % 48 == 0


def test_every_registered_level_is_named_after_its_key() -> None:
    assert list(LEVELS) == ["random", "novice", "standard", "expert"]
    for name in LEVELS:
        assert make_bot(name, 0).name == name


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level 'grandmaster'"):
        make_bot("grandmaster")


# -- novice ------------------------------------------------------------------


def test_novice_captures_with_the_top_cards_rank_before_a_jack() -> None:
    middle, deals = fill_layout(4, {"0/0": "JH 9D 3D AC"}, middle_top="9S")
    assert _choice("novice", layout_match(middle, deals)) == "9D"


def test_novice_captures_with_a_jack_when_no_card_matches() -> None:
    middle, deals = fill_layout(4, {"0/0": "JH 8D 3D AC"}, middle_top="9S")
    assert _choice("novice", layout_match(middle, deals)) == "JH"


def test_novice_throws_its_lowest_value_card() -> None:
    middle, deals = fill_layout(4, {"0/0": "TD AC 2C 3D"}, middle_top="9S")
    assert _choice("novice", layout_match(middle, deals)) == "3D"


# -- standard ----------------------------------------------------------------


def test_standard_makes_a_pishti() -> None:
    middle, deals = fill_layout(
        4, {"0/0": "JH 3D 7S KC", "0/1": "7H 2D 6D 4S", "0/2": "4H 5D 9C 3C"}, middle_top="9S"
    )
    match = layout_match(middle, deals)
    match.play_text("JH")  # seat 0 takes the pile: the table is empty
    match.play_text("4S")  # seat 1 leads a lone 4S
    assert _choice("standard", match) == "4H"  # seat 2: pishti (R4.1)


def test_standard_takes_with_the_rank_and_keeps_its_jack() -> None:
    middle, deals = fill_layout(4, {"0/0": "JH 9D 3D 5H"}, middle_top="9S")
    assert _choice("standard", layout_match(middle, deals)) == "9D"


def test_standard_keeps_a_jack_for_a_pile_worth_taking() -> None:
    # Early in the deck a lone low card is not worth a jack.
    middle, deals = fill_layout(
        4, {"0/0": "JH 3D 7S KC", "0/1": "7H 2D 6D 4S", "0/2": "JD 6H 8C KD"}, middle_top="9S"
    )
    match = layout_match(middle, deals)
    match.play_text("JH")
    match.play_text("4S")
    assert _choice("standard", match) != "JD"


def test_standard_spends_a_jack_on_a_pile_holding_the_ten_of_diamonds() -> None:
    middle, deals = fill_layout(4, {"0/0": "TD 6D 3D 5H", "0/1": "JH 8C 4C 5S"}, middle_top="9S")
    match = layout_match(middle, deals)
    match.play_text("TD")
    assert _choice("standard", match) == "JH"


def test_standard_leads_a_rank_that_is_gone_onto_an_empty_table() -> None:
    # Seat 0 takes with JH; seat 1 must lead onto the empty table.  Three sixes
    # are out (two played earlier cannot be arranged in one deal, so seat 1
    # holds a pair of sixes and the face-up card is the third): 6C is safe.
    middle, deals = fill_layout(4, {"0/0": "JH 2D 3D 7S", "0/1": "6C 6H KD QD"}, middle_top="6S")
    match = layout_match(middle, deals)
    match.play_text("JH")
    assert _choice("standard", match) in ("6C", "6H")


def test_standard_never_leads_a_jack_onto_an_empty_table_when_it_has_another_card() -> None:
    middle, deals = fill_layout(4, {"0/0": "JH 2D 3D 7S", "0/1": "JD 6H KD QD"}, middle_top="6S")
    match = layout_match(middle, deals)
    match.play_text("JH")
    assert _choice("standard", match) != "JD"


# -- hidden information (R7.7) ----------------------------------------------


@pytest.mark.parametrize("level", [*CHEAP_LEVELS, "expert"])
def test_a_choice_depends_only_on_what_the_seat_may_see(level: str) -> None:
    rng = random.Random(7)
    differing = 0
    for seed in range(6):
        match = Match(4, 101, seed=seed)
        driver = make_bot("novice", seed)
        stop = rng.randrange(47)
        for _ in range(stop):
            seat = match.to_play
            assert seat is not None
            match.play(driver.choose(seat_view(match, seat)))
        seat = match.to_play
        assert seat is not None
        twin = hidden_twin(match, seat, rng)
        if seat_view(match, seat) != seat_view(twin, seat):
            raise AssertionError("the twin deal must look the same to the seat")
        others = [tuple(match.deck.hands[s]) for s in range(4) if s != seat]
        twin_others = [tuple(twin.deck.hands[s]) for s in range(4) if s != seat]
        assert _choice(level, match, seed) == _choice(level, twin, seed)
        differing += others != twin_others
    # Every one of the six positions really hides something the twin changed.
    assert differing == 6


def _knowledge(pile: str, players: int = 4) -> Knowledge:
    """A mid-deck position after the first capture: ``pile`` on the table."""
    k = Knowledge(players, parse_card("9S"))
    k.pile = [parse_card(c) for c in pile.split()]
    k.pile_hidden = 0
    k.pile_points = sum(CARD_POINTS[c] for c in k.pile)
    k.plays_left = 10
    return k


def test_standard_values_a_capture_more_in_the_last_deal() -> None:
    # The last capture takes what is left (R5.1): last_take scaled by plays left.
    hand = [parse_card("7C"), parse_card("3D")]
    k = _knowledge("4C 7H")
    before = card_values(hand, 0, k)
    k.stock_size = 0
    after = card_values(hand, 0, k)
    assert after[0] - before[0] == pytest.approx(TACTICS.last_take * 9 / 10)
    assert after[1] == before[1]


def test_standard_leaves_a_valuable_card_where_only_its_partner_can_take_it() -> None:
    # Every jack is gone and the next seat passed on aces this deal: the ace is
    # safe on the pile for the partner, the five may be taken.
    k = _knowledge("4C 8H")
    k.unseen[JACK] = 0
    k.voids[1] = 1 << 0
    hand = [parse_card("AS"), parse_card("5D")]
    assert card_text(standard_card(hand, 0, k)) == "AS"
    k.voids[1] = 0  # without the void the ace stays in hand
    assert card_text(standard_card(hand, 0, k)) == "5D"
