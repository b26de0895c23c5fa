"""bench/headroom.py: the oracles see the real cards, and grabber's rule weighs placements."""

from __future__ import annotations

import random
import sys

import pytest

from pishti.bots import make_bot
from pishti.bots.determinize import Determinizer, Placement
from pishti.engine import Match, seat_view
from pishti.engine.view import SeatView
from tests.benches import bench_module

headroom = bench_module("headroom")


def _position(players: int, plays: int, seed: int = 3) -> tuple[Match, SeatView]:
    """A match of grabbers after ``plays`` cards, and the view of the seat to play."""
    match = Match(players, 10_000, seed=seed)
    bots = [make_bot("grabber", s) for s in range(players)]
    for _ in range(plays):
        view = seat_view(match, match.to_play)
        match.play(bots[view.seat].choose(view))
    return match, seat_view(match, match.to_play)


def test_the_true_placement_lays_out_the_real_deck() -> None:
    match, view = _position(4, 21)
    built = Determinizer(view).build(headroom.true_placement(match.deck))
    assert built.hands == match.deck.hands
    # The deals to come are the real ones; a deal played is laid out in the order played.
    now = match.deck.deal_index
    assert built.deal_index == now
    assert built.deals[now:] == match.deck.deals[now:]
    for laid, real in zip(built.deals, match.deck.deals, strict=True):
        assert [sorted(h) for h in laid] == [sorted(h) for h in real]
    assert built.middle == match.deck.middle
    assert built.pile == match.deck.pile


def _all_cards(p: Placement) -> list[int]:
    return sorted([c for h in p.hands for c in h] + list(p.down) + p.stock)


def test_true_hands_keep_every_card_and_only_move_the_rest() -> None:
    match, view = _position(2, 5)
    determinizer = Determinizer(view)
    rng = random.Random(1)
    guess = determinizer.propose(rng)
    known = view.face_down is not None
    placed = headroom.with_true_hands(guess, match.deck, view.seat, known, rng)
    assert placed.hands == [list(h) for h in match.deck.hands]
    assert _all_cards(placed) == _all_cards(guess)
    assert len(placed.stock) == len(guess.stock) and len(placed.down) == 3
    # Built, the deck is the real one now (hands and pile) with another stock.
    built = determinizer.build(placed)
    assert built.hands == match.deck.hands and built.pile == match.deck.pile


def test_grabbers_rule_rules_out_a_hand_it_would_have_captured_from() -> None:
    # Find a deal in which the other seat threw on a pile it did not take.
    for plays in range(3, 40):
        match, view = _position(2, plays)
        determinizer = Determinizer(view)
        threw = [
            (seat, card, before)
            for seat, card, before, later in determinizer.checks
            if before.pile and not headroom.grabber_take([card], before.pile[-1], 0, 2)
        ]
        if threw:
            break
    else:
        raise AssertionError("no throw on a pile found")
    seat, _, before = threw[0]
    real = headroom.true_placement(match.deck)
    assert headroom.grabber_likelihood(determinizer.checks, real, view.seat) > headroom.MISS
    # The same placement with a card of the top card's rank swapped into that hand.
    top_rank = before.pile[-1] >> 2
    rank_cards = [c for c in real.stock if c >> 2 == top_rank]
    if not rank_cards:
        rank_cards = [c for c in real.down if c >> 2 == top_rank]
    assert rank_cards, "the test position needs a card of that rank in the stock"
    hands = [list(h) for h in real.hands]
    swapped_out = hands[seat][0]
    hands[seat][0] = rank_cards[0]
    stock = [swapped_out if c == rank_cards[0] else c for c in real.stock]
    down = tuple(swapped_out if c == rank_cards[0] else c for c in real.down)
    wrong = Placement(hands, down, stock)
    assert headroom.grabber_likelihood(determinizer.checks, wrong, view.seat) <= headroom.MISS


def test_the_cards_oracle_runs_and_prints_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    # 16 sampled decks a move: the line is the same with the level's 128, which took 25 s.
    figures = headroom.main(
        ["cards", "--matches", "1", "--target", "51", "--seed", "5", "--samples", "16"]
    )
    assert set(figures) == {"less_grabber", "standard_less_grabber", "less_standard"}
    out = capsys.readouterr().out
    assert out.startswith("cards (opportunist prior), 2 players, 1 duplicate match to 51, seed 5")
    assert f"told expert less standard (paired) {figures['less_standard'].text()}" in out
    assert "headroom" not in sys.modules  # the plug-in's module is gone after the run


def test_bad_arguments_are_a_usage_line(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in (
        ["bogus"],
        ["cards", "--matches", "0"],
        ["cards", "--target", "-3"],
        ["cards", "--samples", "0"],
    ):
        with pytest.raises(SystemExit) as stopped:
            headroom.main(bad)
        assert stopped.value.code == 2
        assert "usage: " in capsys.readouterr().err


def test_the_samples_option_sets_the_search_budget() -> None:
    level = headroom.bot_class("cards", "level")(1)
    assert (level.samples, level.endgame_samples) == (128, 48)
    quick = headroom.bot_class("policy", "opportunist", 16)(1)
    assert (quick.samples, quick.endgame_samples) == (16, 16)
    assert quick.way == "policy"
