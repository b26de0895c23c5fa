"""bench/inference.py: the forecasts of the next seat's holdings, on a position they cannot miss."""

from __future__ import annotations

import math
import random

import pytest

from pishti.bots import make_bot
from pishti.bots.opponents import PRIOR_OPPORTUNIST, OpponentModel
from pishti.engine import JACK, LAID, Match, seat_view
from tests.benches import bench_module

inference = bench_module("inference")


def _last_deal_case() -> tuple:
    """Seat 0 of a two-player match in the deck's last deal, its team holding the
    face-down cards: every unseen card is in the other hand (R2.3, R3.6)."""
    for seed in range(50):
        match = Match(2, 10_000, seed=seed)
        bots = [make_bot("standard", s) for s in range(2)]
        while match.deck_number == 0:
            view = seat_view(match, match.to_play)
            if (
                view.seat == 0
                and view.stock_size == 0
                and view.face_down is not None
                and view.hand_sizes == (3, 3)
            ):
                hands = [list(h) for h in match.deck.hands]
                return view, hands, OpponentModel(2), OpponentModel(2, PRIOR_OPPORTUNIST)
            match.play(bots[view.seat].choose(view))
    raise AssertionError("no such position in 50 matches")


@pytest.mark.parametrize(
    "way", ["uniform", "voids", "likelihood", "model", "opportunist", "hard voids"]
)
def test_a_hand_that_is_known_is_forecast_right_every_way(way: str) -> None:
    case = _last_deal_case()
    hands = case[1]
    # Every placement gives seat 1 its true hand, so every forecast is
    # 1 or 0 (kept within [0.01, 0.99]) and right.
    placed = inference.placements(case, way, random.Random(3))
    assert len(placed) == 32
    assert all(sorted(p.hands[1]) == sorted(hands[1]) for p in placed)
    assert inference.next_seat_log_loss([case], way) == pytest.approx(-math.log(0.99))


def test_laid_on_a_pile_counts_this_deal_only() -> None:
    match = Match(4, 101, seed=12)
    bots = [make_bot("standard", s) for s in range(4)]
    assert inference.laid_on_a_pile(seat_view(match, match.to_play)) == [False] * 4
    for _ in range(16):  # the whole first deal
        view = seat_view(match, match.to_play)
        match.play(bots[view.seat].choose(view))
    view = seat_view(match, match.to_play)
    assert len(view.history) == 16
    assert inference.laid_on_a_pile(view) == [False] * 4  # a new deal
    first = view.history[0]
    # In the example of docs/bots.md seat 0 lays 4S (15) on the face-up 6H: laid on a pile.
    assert (first.seat, first.card, first.outcome) == (0, 15, LAID)
    match = Match(4, 101, seed=12)
    view = seat_view(match, match.to_play)
    match.play(bots[0].choose(view))
    assert inference.laid_on_a_pile(seat_view(match, match.to_play)) == [True, False, False, False]


def test_hard_voids_give_no_jack_to_a_seat_that_laid_on_a_pile() -> None:
    match = Match(4, 101, seed=12)
    bots = [make_bot("standard", s) for s in range(4)]
    while True:
        view = seat_view(match, match.to_play)
        laid = inference.laid_on_a_pile(view)
        if view.seat == 0 and laid[1] and view.hand_sizes[1] >= 2:
            break
        match.play(bots[view.seat].choose(view))
    case = (view, [list(h) for h in match.deck.hands], OpponentModel(4), OpponentModel(4))
    jacks = lambda placed: sum(any(c >> 2 == JACK for c in p.hands[1]) for p in placed)  # noqa: E731
    # Uniform placements give seat 1 a jack now and then; hard voids never do.
    assert jacks(inference.placements(case, "uniform", random.Random(5))) > 0
    assert jacks(inference.placements(case, "hard voids", random.Random(5))) == 0
