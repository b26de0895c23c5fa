"""The expert's opponent model: a population of policies, learnt from what a seat has seen."""

from __future__ import annotations

import math
import random

import pytest

from pishti.bots import make_bot
from pishti.bots.determinize import Determinizer
from pishti.bots.expert import ExpertBot
from pishti.bots.knowledge import Knowledge
from pishti.bots.opponents import (
    EPSILON,
    FLOOR,
    GREEDY,
    OPPORTUNIST,
    PRIOR,
    PRIOR_OPPORTUNIST,
    RANDOM,
    STANDARD,
    OpponentModel,
    greedy_policy,
    opportunist_capture,
    play_likelihoods,
)
from pishti.bots.playout import clone_deck, mixed_playout, playout
from pishti.bots.standard import card_values
from pishti.engine import Match, parse_card, parse_cards, seat_view


def test_greedy_policy_takes_then_spends_a_jack_then_throws_the_cheapest() -> None:
    hand = parse_cards(["JH", "9D", "AC", "4S"])
    assert greedy_policy(hand, parse_card("9S")) == parse_card("9D")
    assert greedy_policy(hand, parse_card("5S")) == parse_card("JH")
    assert greedy_policy(hand, None) == parse_card("4S")
    # The opportunist takes as the greedy policy does, and has no card of its own otherwise.
    assert opportunist_capture(hand, parse_card("9S")) == parse_card("9D")
    assert opportunist_capture(hand, parse_card("5S")) == parse_card("JH")
    assert opportunist_capture(hand, None) is None
    assert opportunist_capture(parse_cards(["9D", "4S"]), parse_card("5S")) is None


def test_a_play_is_judged_with_room_for_mistakes() -> None:
    k = Knowledge(4, parse_card("9S"))  # a 9S face up on three hidden cards
    hand = parse_cards(["9D", "3C", "3H", "KS"])
    # Three policies take with the 9D (R3.2); a random seat plays it one time in four.
    std, greedy, rand, opportunist = play_likelihoods(hand, parse_card("9D"), 1, k)
    assert std == greedy == opportunist == pytest.approx(1 - EPSILON + EPSILON / 4)
    assert rand == 0.25
    # Laying a 3 there is a mistake for them, but not ruled out; the two 3s play alike.
    std, greedy, rand, opportunist = play_likelihoods(hand, parse_card("3C"), 1, k)
    assert std == greedy == opportunist == pytest.approx(EPSILON * 2 / 4)
    assert rand == 0.5
    # With nothing to take, the opportunist throws at random; greedy throws a 3 (no points).
    hand = parse_cards(["3C", "3H", "KS", "4D"])
    std, greedy, rand, opportunist = play_likelihoods(hand, parse_card("KS"), 1, k)
    assert greedy == pytest.approx(EPSILON / 4)
    assert rand == opportunist == 0.25


def test_a_play_judged_softly_is_likely_by_what_the_standard_policy_values_it() -> None:
    k = Knowledge(4, parse_card("9S"))
    hand = parse_cards(["9D", "3C", "3H", "KS"])
    values = card_values(hand, 1, k)
    best = max(values)
    weights = [math.exp((v - best) / 0.5) for v in values]
    total = sum(weights)
    # The two 3s play alike: their shares add up.
    std, greedy, rand, opportunist = play_likelihoods(hand, parse_card("3H"), 1, k, 0.5)
    assert std == pytest.approx((1 - EPSILON) * (weights[1] + weights[2]) / total + EPSILON / 2)
    # The other policies are judged as without a temperature.
    assert (greedy, rand, opportunist) == play_likelihoods(hand, parse_card("3H"), 1, k)[1:]
    # Taking the 9S is worth far more than any other card: nearly the exact rule's figure.
    std, *_ = play_likelihoods(hand, parse_card("9D"), 1, k, 0.5)
    assert std == pytest.approx((1 - EPSILON) * weights[0] / total + EPSILON / 4)
    assert std > 0.99 * (1 - EPSILON + EPSILON / 4)
    # Softly, every card keeps some likelihood and they add up to 1 over the hand.
    cards = parse_cards(["9D", "3C", "KS"])
    assert sum(play_likelihoods(hand, c, 1, k, 0.5)[0] for c in cards) == pytest.approx(1)
    # A lone card is forced: every policy plays it.
    assert play_likelihoods(hand[:1], hand[0], 1, k, 0.5) == (1.0, 1.0, 1.0, 1.0)
    for bad in (0.0, -0.0, -1.0, math.nan, math.inf, -math.inf, True, False, "0.5"):
        with pytest.raises(ValueError, match="temperature"):
            OpponentModel(2, temperature=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="temperature"):
            ExpertBot(1, temperature=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="temperature"):
            play_likelihoods(hand, parse_card("9D"), 1, k, bad)  # type: ignore[arg-type]
    assert OpponentModel(2, temperature=1).temperature == 1


def test_a_strict_opportunist_all_but_rules_out_a_capture_it_did_not_make() -> None:
    k = Knowledge(4, parse_card("9S"))
    hand = parse_cards(["9D", "3C", "3H", "KS"])
    # It could take with the 9D and laid a 3: the opportunist's share is 0.01 * 2/4.
    std, greedy, rand, opportunist = play_likelihoods(
        hand, parse_card("3C"), 1, k, opportunist_epsilon=0.01
    )
    assert opportunist == pytest.approx(0.01 * 2 / 4)
    assert std == greedy == pytest.approx(EPSILON * 2 / 4) and rand == 0.5
    _, _, _, opportunist = play_likelihoods(hand, parse_card("9D"), 1, k, opportunist_epsilon=0.01)
    assert opportunist == pytest.approx(1 - 0.01 + 0.01 / 4)
    # With nothing to take it still throws at random, however strict.
    hand = parse_cards(["3C", "3H", "KS", "4D"])
    _, _, rand, opportunist = play_likelihoods(
        hand, parse_card("KS"), 1, k, opportunist_epsilon=0.01
    )
    assert rand == opportunist == 0.25


def test_a_model_with_a_smaller_floor_lets_a_policy_fall_lower() -> None:
    logs = [-60.0, -60.0, -60.0, 0.0]
    for floor in (FLOOR, 0.01):
        model = OpponentModel(2, PRIOR_OPPORTUNIST, floor=floor)
        model.record(0, 0, [[0.0] * 4, logs])
        w = model.weights(1)
        assert w == pytest.approx([floor / (1 + 3 * floor)] * 3 + [1 / (1 + 3 * floor)])
    for bad in ({"floor": 1.0}, {"floor": -0.1}, {"opportunist_epsilon": 0.0}):
        with pytest.raises(ValueError):
            OpponentModel(2, **bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            ExpertBot(1, **bad)  # type: ignore[arg-type]
    expert = ExpertBot(1, floor=0.01, opportunist_epsilon=0.01)
    model = expert._follow(seat_view(Match(2, 51, seed=1), 0))
    assert model is not None and (model.floor, model.opportunist_epsilon) == (0.01, 0.01)


def test_the_model_starts_at_the_prior_and_learns_from_evidence() -> None:
    model = OpponentModel(2)
    assert model.weights(1) == pytest.approx(PRIOR)
    # Two deals where seat 1's plays are 10 times likelier under greedy.
    for deal in (0, 1):
        logs = [math.log(0.01), math.log(0.1), math.log(0.02), math.log(0.5)]
        model.record(0, deal, [[0.0] * 4, logs])
    w = model.weights(1)
    raw = [PRIOR[0] * 1e-4, PRIOR[1] * 1e-2, PRIOR[2] * 4e-4]
    total = sum(raw)
    expected = [max(FLOOR, r / total) for r in raw]
    # The opportunist's prior is 0 in the level's model: its evidence is never weighed.
    assert w == pytest.approx([e / sum(expected) for e in expected] + [0.0])
    assert w[GREEDY] > 0.9 and min(w[:3]) >= FLOOR / sum(expected)
    # A later, longer account of the same deal replaces the earlier one.
    model.record(0, 1, [[0.0] * 4, [0.0] * 4])
    assert model.weights(1)[GREEDY] < w[GREEDY]
    assert model.weights(0) == pytest.approx(PRIOR)


def test_draws_follow_the_weights() -> None:
    model = OpponentModel(2)
    rng = random.Random(3)
    draws = [model.draw(1, rng) for _ in range(5000)]
    for policy in (STANDARD, GREEDY, RANDOM):
        assert abs(draws.count(policy) / 5000 - PRIOR[policy]) < 0.03
    assert OPPORTUNIST not in draws
    model = OpponentModel(2, PRIOR_OPPORTUNIST)
    draws = [model.draw(1, rng) for _ in range(5000)]
    for policy in (STANDARD, GREEDY, RANDOM, OPPORTUNIST):
        assert abs(draws.count(policy) / 5000 - PRIOR_OPPORTUNIST[policy]) < 0.03


def test_a_prior_must_weigh_every_policy() -> None:
    bad = ((0.5, 0.5, 0.0), (1.0, 0.0, 0.0, -0.1), (0.0, 0.0, 0.0, 0.0))
    bad += ((math.nan, 1, 1, 1), (math.inf, 1, 1, 1), (1, True, 0, 0), "abcd", 5)  # type: ignore[assignment]
    for prior in bad:
        with pytest.raises(ValueError, match="prior"):
            OpponentModel(2, prior)
        with pytest.raises(ValueError, match="prior"):
            ExpertBot(1, prior=prior)


def _play_against(opponent: str, players: int = 2, decks: int = 2) -> ExpertBot:
    match = Match(players, 151, seed=5)
    expert = ExpertBot(1, samples=16)
    bots = [expert if s == 0 else make_bot(opponent, s) for s in range(players)]
    while match.deck_number < decks:
        seat = match.to_play
        assert seat is not None
        match.play(bots[seat].choose(seat_view(match, seat)))
    return expert


def test_the_expert_learns_who_plays_like_the_standard_bot_and_who_does_not() -> None:
    model = _play_against("standard").model
    assert model is not None
    assert model.weights(1)[STANDARD] > 0.8
    model = _play_against("random").model
    assert model is not None
    assert model.weights(1)[RANDOM] > 0.8


def test_a_new_match_starts_a_new_model() -> None:
    expert = _play_against("random")
    old = expert.model
    match = Match(2, 101, seed=9)
    if match.to_play != 0:
        match.play(make_bot("random", 1).choose(seat_view(match, 1)))
    expert.choose(seat_view(match, 0))
    assert expert.model is not old and expert.model is not None
    assert expert.model.weights(1) == pytest.approx(PRIOR)


def test_the_fixed_expert_keeps_no_model() -> None:
    match = Match(2, 101, seed=4)
    expert = ExpertBot(1, samples=8, adaptive=False)
    seat = match.to_play
    assert seat is not None
    expert.choose(seat_view(match, seat))
    assert expert.model is None


def test_a_mixed_playout_with_standard_seats_is_the_standard_playout() -> None:
    match = Match(4, 101, seed=2)
    seat = match.to_play
    assert seat is not None
    view = seat_view(match, seat)
    deck = Determinizer(view).sample(random.Random(1))
    k = Knowledge.from_view(view)
    k.face_down = deck.middle[:3]
    a, b = clone_deck(deck), clone_deck(deck)
    plain = playout(a, k.copy(), view.team)
    mixed = mixed_playout(b, k.copy(), view.team, [STANDARD] * 4, random.Random(0))
    assert plain == mixed and a.plays == b.plays
    c = clone_deck(deck)
    mixed_playout(c, k.copy(), view.team, [GREEDY] * 4, random.Random(0))
    assert c.counts is not None and c.plays != a.plays


def test_weighing_with_a_model_records_the_deals_evidence() -> None:
    match = Match(2, 101, seed=6)
    bots = [make_bot("random", s) for s in range(2)]
    for _ in range(5):
        seat = match.to_play
        assert seat is not None
        match.play(bots[seat].choose(seat_view(match, seat)))
    seat = match.to_play
    assert seat is not None
    model = OpponentModel(2)
    Determinizer(seat_view(match, seat), model=model).resample(random.Random(2), 8, 32)
    ((key, logs),) = model.evidence.items()
    assert key == (0, 0)
    assert logs[seat] == [0.0, 0.0, 0.0, 0.0]
    assert all(v < 0 for v in logs[1 - seat])
