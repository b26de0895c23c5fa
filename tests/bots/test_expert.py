"""The expert: determinization, playouts, exact endgames and its choice rule."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from pishti.bots import expert, make_bot
from pishti.bots.determinize import Determinizer, systematic_resample
from pishti.bots.expert import ExpertBot, pick_card
from pishti.bots.knowledge import Knowledge, unseen_cards
from pishti.bots.opponents import (
    GREEDY,
    OPPORTUNIST,
    RANDOM,
    STANDARD,
    greedy_policy,
    opportunist_capture,
)
from pishti.bots.playout import (
    clone_deck,
    deck_margin,
    distinct_cards,
    evaluate,
    most_cards_chance,
    playout,
    solve,
)
from pishti.engine import Deck, Match, parse_cards, seat_view
from pishti.engine.cards import card_text
from tests.layouts import fill_layout, layout_match


def _position(seed: int, plays: int, players: int = 4) -> Match:
    match = Match(players, 101, seed=seed)
    bots = [make_bot("standard", s) for s in range(players)]
    for _ in range(plays):
        seat = match.to_play
        assert seat is not None
        match.play(bots[seat].choose(seat_view(match, seat)))
    return match


# -- determinization -----------------------------------------------------------


@pytest.mark.parametrize(("players", "plays"), [(4, 0), (4, 21), (4, 40), (2, 13), (2, 44)])
def test_sampled_decks_agree_with_everything_the_seat_has_seen(players: int, plays: int) -> None:
    match = _position(3, plays, players)
    seat = match.to_play
    assert seat is not None
    view = seat_view(match, seat)
    determinizer = Determinizer(view)
    rng = random.Random(1)
    differ = 0
    for deck in determinizer.draw(rng, 12, 48):
        assert deck.to_play == seat
        assert deck.hands[seat] == list(view.hand)
        assert deck.plays == [p.card for p in view.history]
        assert [len(h) for h in deck.hands] == list(view.hand_sizes)
        assert deck.stock_size == view.stock_size
        assert deck.middle[3] == view.face_up
        assert (deck.pile[-1] if deck.pile else None) == view.top_card
        assert len(deck.pile) == view.pile_size
        if view.face_down is not None:
            assert deck.middle[:3] == view.face_down
        placed = [c for s, h in enumerate(deck.hands) if s != seat for c in h]
        placed += [c for deal in deck.deals[deck.deal_index :] for h in deal for c in h]
        if view.face_down is None:
            placed += deck.middle[:3]
        assert sorted(placed) == unseen_cards(view)
        differ += deck.hands != match.deck.hands
    assert differ > 0


def test_a_seat_that_passed_on_a_rank_is_rarely_dealt_it() -> None:
    # Seat 1 laid a card on a seven without taking it: it holds no seven.
    match = _position(4, 0)
    while True:
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        if Knowledge.from_view(view).voids[(seat + 3) % 4] and len(view.history) % 16 < 12:
            break
        match.play(make_bot("standard", 0).choose(view))
    passer = (seat + 3) % 4
    voids = Knowledge.from_view(view).voids[passer]
    determinizer = Determinizer(view)
    rng = random.Random(2)
    held = sum(
        1
        for deck in (determinizer.sample(rng) for _ in range(200))
        for c in deck.hands[passer]
        if voids >> (c >> 2) & 1
    )
    uniform = (
        sum(1 for c in unseen_cards(view) if voids >> (c >> 2) & 1)
        * 200
        * len(view.hand)
        / len(unseen_cards(view))
    )
    assert held < 0.3 * uniform


def test_likelihood_is_lower_for_placements_the_plays_contradict() -> None:
    match = _position(6, 6)
    seat = match.to_play
    assert seat is not None
    view = seat_view(match, seat)
    determinizer = Determinizer(view)
    truth = determinizer.propose(random.Random(0))
    truth.hands = [list(h) for h in match.deck.hands]
    truth.down = match.deck.middle[:3]
    assert determinizer.likelihood(truth) == 1.0  # the standard bots made these plays
    rng = random.Random(3)
    values = [determinizer.likelihood(determinizer.propose(rng)) for _ in range(60)]
    assert min(values) < 1.0
    assert all(0.0 < v <= 1.0 for v in values)


# -- playouts and endgames -----------------------------------------------------


def test_clone_deck_copies_every_slot_and_shares_no_list() -> None:
    deck = _position(2, 9).deck
    copy = clone_deck(deck)
    for name in Deck.__slots__:
        original = getattr(deck, name)
        assert getattr(copy, name) == original, name
        if isinstance(original, list):
            assert getattr(copy, name) is not original, name
    copy.play(copy.hands[copy.to_play][0])
    assert len(copy.plays) == len(deck.plays) + 1


def test_playout_plays_the_deck_out_with_the_standard_policy() -> None:
    match = _position(5, 10)
    seat = match.to_play
    assert seat is not None
    view = seat_view(match, seat)
    deck = clone_deck(match.deck)
    knowledge = Knowledge.from_view(view)
    knowledge.face_down = deck.middle[:3]
    value = playout(deck, knowledge, view.team)
    assert deck.over
    assert value == deck_margin(deck, view.team)
    # The same position played by standard bots through the match gives the same deck.
    bots = [make_bot("standard", s) for s in range(4)]
    while match.deck_number == 0:
        s = match.to_play
        assert s is not None
        match.play(bots[s].choose(seat_view(match, s)))
    assert deck.plays == match.decks[0].plays


def test_evaluate_counts_taken_points_and_most_cards_chances() -> None:
    assert most_cards_chance(27, 10) == 1.0
    assert most_cards_chance(20, 6) == 0.0
    # need 3 of 6: normal with mean 3, spread 0.75 * sqrt(6), continuity 1/2
    assert most_cards_chance(24, 6) == pytest.approx(0.5 * math.erfc(-0.5 / (0.75 * math.sqrt(12))))
    deck = _position(1, 0).deck
    assert evaluate(deck, 0) == 0.0
    deck = _position(1, 20).deck
    assert evaluate(deck, 0) == pytest.approx(-evaluate(deck, 1))


def _brute_force(deck: Deck, team: int) -> int:
    if deck.over:
        return deck_margin(deck, team)
    values = []
    for card in set(deck.hands[deck.to_play]):
        child = clone_deck(deck)
        child.play(card)
        values.append(_brute_force(child, team))
    return max(values) if deck.to_play & 1 == team else min(values)


@pytest.mark.parametrize(("players", "left"), [(4, 7), (4, 8), (2, 6), (2, 5)])
def test_solve_matches_a_brute_force_search(players: int, left: int) -> None:
    for seed in range(4):
        match = _position(seed, 48 - left, players)
        deck = match.deck
        for team in (0, 1):
            assert solve(clone_deck(deck), team) == _brute_force(deck, team)


def _brute_force_by_policies(deck: Deck, team: int, policies: list[int]) -> float:
    # Every card of every hand tried, no pruning: the team at its best; the
    # other team at its best (standard), by its rule (greedy, an
    # opportunist's capture) or as the mean of its hand (random, an
    # opportunist with no capture).
    if deck.over:
        return deck_margin(deck, team)
    seat = deck.to_play
    hand = deck.hands[seat]
    values = []
    for card in hand:
        child = clone_deck(deck)
        child.play(card)
        values.append(_brute_force_by_policies(child, team, policies))
    if seat & 1 == team or policies[seat] == STANDARD:
        return max(values) if seat & 1 == team else min(values)
    top = deck.pile[-1] if deck.pile else None
    if policies[seat] == GREEDY:
        return values[hand.index(greedy_policy(hand, top))]
    take = opportunist_capture(hand, top) if policies[seat] == OPPORTUNIST else None
    if take is not None:
        return values[hand.index(take)]
    return sum(values) / len(values)


@pytest.mark.parametrize(("players", "left"), [(4, 8), (4, 6), (2, 6), (2, 5)])
def test_solve_by_policies_matches_a_brute_force_search(players: int, left: int) -> None:
    rng = random.Random(players * 100 + left)
    differ = 0
    for seed in range(6):
        deck = _position(seed, 48 - left, players).deck
        for team in (0, 1):
            policies = [rng.choice((GREEDY, RANDOM, OPPORTUNIST)) for _ in range(players)]
            if players == 4:  # one seat of the other team at its best
                policies[1 - team + 2 * rng.randrange(2)] = STANDARD
            value = solve(clone_deck(deck), team, policies=policies)
            assert value == pytest.approx(_brute_force_by_policies(deck, team, policies), abs=1e-9)
            differ += value != solve(clone_deck(deck), team)
    assert differ >= 2  # the policies do change values


def test_distinct_cards_keeps_one_card_per_rank_and_points() -> None:
    hand = parse_cards(["7C", "7H", "TD", "TS", "AC", "AS"])
    # 7C and 7H play alike, and so do the aces; TD (3 points) differs from TS.
    assert [card_text(c) for c in distinct_cards(hand)] == ["AC", "7C", "TD", "TS"]


# -- the choice ----------------------------------------------------------------


def test_pick_card_keeps_the_default_unless_another_card_is_clearly_better() -> None:
    values = {1: [0.0, 0.0, 0.0, 0.0], 2: [1.0, -1.0, 1.0, -1.0], 3: [2.0, 1.0, 2.0, 1.0]}
    card, gain, se = pick_card(values, 1, 1.0)
    assert (card, gain) == (3, 1.5)
    assert se == pytest.approx(0.2886751, abs=1e-6)
    assert pick_card({1: [0.0, 0.0], 2: [1.0, -0.5]}, 1, 1.0) == (1, 0.0, 0.0)
    assert pick_card({1: [0.0, 0.0], 2: [1.0, -0.5]}, 1, 0.0)[0] == 2


def test_expert_is_legal_and_reproducible_from_its_seed() -> None:
    for plays in (0, 17, 33, 45):
        match = _position(9, plays)
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        first = ExpertBot(5, samples=16)
        card = first.choose(view)
        assert card in view.legal_cards
        assert ExpertBot(5, samples=16).choose(view) == card
        assert first.choose(view) == card  # no hidden state carried between calls


def test_an_exact_endgame_can_play_the_other_team_by_the_model() -> None:
    # Against grabber (read as playing at random), at the 38th card of the
    # first deck of this match, the level (both teams at their best in the
    # exact endgame) plays 8H; the same expert playing the other team by the
    # model's policies there keeps the default, 7H.
    match = Match(4, 101, seed=5)
    level, by_model = ExpertBot(3), ExpertBot(3, model_endgame=(4,))
    others = [make_bot("grabber", s) for s in range(4)]
    while len(match.deck.plays) < 37:
        seat = match.to_play
        assert seat is not None
        view = seat_view(match, seat)
        bot = others[seat] if seat else level
        card = bot.choose(view)
        if seat == 0:
            by_model.choose(view)  # the same model of the match
        match.play(card)
    view = seat_view(match, 0)
    assert view.stock_size == 0
    assert card_text(level.choose(view)) == "8H"
    assert card_text(by_model.choose(view)) == "7H"
    assert level.last_search[0] == by_model.last_search[0] == 48  # 48 decks solved
    assert level.model is not None and by_model.model is not None
    assert level.model.weights(1) == by_model.model.weights(1)
    assert max(level.model.weights(1)) == level.model.weights(1)[RANDOM]


def test_expert_plays_an_obvious_card_without_searching() -> None:
    # Seat 0 takes the opening pile, seat 1 leads a lone 4S, seat 2 holds 4H: a pishti.
    middle, deals = fill_layout(
        4, {"0/0": "JH 3D 7S KC", "0/1": "4S 2D 6D 9C", "0/2": "4H 5D 8C 3C"}, middle_top="9S"
    )
    match = layout_match(middle, deals)
    match.play_text("JH")
    match.play_text("4S")
    bot = ExpertBot(1, samples=32)
    assert card_text(bot.choose(seat_view(match, 2))) == "4H"
    assert bot.last_search == (0, 0.0, 0.0)


def test_expert_refuses_a_budget_of_nothing() -> None:
    with pytest.raises(ValueError):
        ExpertBot(1, samples=0)
    with pytest.raises(ValueError):
        ExpertBot(1, time_limit=0.0)


def test_expert_refuses_a_model_endgame_that_is_not_counts_of_players() -> None:
    for bad in [None, 4, True, "4", ("4",), (3,), (4.0,)]:
        with pytest.raises(ValueError, match="model_endgame must be counts of players"):
            ExpertBot(1, model_endgame=bad)  # type: ignore[arg-type]
    assert ExpertBot(1).model_endgame == ()
    assert ExpertBot(1, model_endgame=[4, 2]).model_endgame == (4, 2)


def test_expert_time_limit_stops_the_search() -> None:
    match = _position(2, 1)
    seat = match.to_play
    assert seat is not None
    assert len(distinct_cards(match.legal_cards())) > 1
    bot = ExpertBot(3, samples=10_000, time_limit=0.001, obvious=float("inf"))
    card = bot.choose(seat_view(match, seat))
    assert card in match.legal_cards()
    used = bot.last_search[0]
    assert 8 <= used < 10_000


def test_expert_refuses_an_unknown_clock() -> None:
    with pytest.raises(ValueError, match="clock must be 'wall' or 'cpu'"):
        ExpertBot(1, time_limit=0.03, clock="sun")  # type: ignore[arg-type]


class _Ticks:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.parametrize(("players", "plays"), [(4, 5), (2, 40)])
def test_expert_cpu_time_limit_is_read_on_the_cpu_clock(
    monkeypatch: pytest.MonkeyPatch, players: int, plays: int
) -> None:
    # The search (4 players, 5 cards played) and the exact endgame (2 players,
    # last deal) both stop at the first check past MIN_SAMPLES once the CPU
    # clock is over the limit; the wall clock is not read for the limit.
    match = _position(2, plays, players)
    seat = match.to_play
    assert seat is not None
    assert len(distinct_cards(match.legal_cards())) > 1
    view = seat_view(match, seat)
    monkeypatch.setitem(expert.CLOCKS, "cpu", _Ticks())
    bot = ExpertBot(3, samples=10_000, time_limit=0.5, clock="cpu", obvious=float("inf"))
    assert bot.choose(view) in match.legal_cards()
    assert bot.last_search[0] == expert.MIN_SAMPLES
    wall = ExpertBot(3, samples=20, endgame_samples=20, time_limit=1000.0, obvious=float("inf"))
    wall.choose(view)
    assert wall.last_search[0] in (16, 20)  # pruned after 16 samples, or all of them


def test_expert_time_limit_not_reached_changes_nothing_within_a_round() -> None:
    # With at most ROUND samples, a limit never reached plays exactly as the level.
    match = _position(5, 9)
    seat = match.to_play
    assert seat is not None
    view = seat_view(match, seat)
    for samples in (expert.ROUND, 20):
        timed = ExpertBot(8, samples=samples, time_limit=1000.0, clock="cpu", obvious=math.inf)
        plain = ExpertBot(8, samples=samples, obvious=math.inf)
        assert timed.choose(view) == plain.choose(view)
        assert timed.last_search == plain.last_search
        assert timed.last_search[0] > 0


def test_timed_expert_plugins_share_a_cpu_budget_on_either_core() -> None:
    # bench/timed_expert.py, the arena plug-ins of docs/bots.md's same-time figures.
    spec = Path(__file__).resolve().parents[2] / "bench" / "timed_expert.py"
    match = _position(2, 5)
    seat = match.to_play
    assert seat is not None
    view = seat_view(match, seat)
    for name, fast in (("FastExpert", True), ("ReferenceExpert", False)):
        bot = make_bot(f"{spec}:{name}", 4)
        assert isinstance(bot, ExpertBot)
        assert (bot.fast, bot.clock, bot.time_limit, bot.samples) == (fast, "cpu", 0.03, 4096)
        assert bot.choose(view) in match.legal_cards()


def test_expert_all_seats_play_a_whole_match() -> None:
    match = Match(2, 51, seed=4)
    bots = [ExpertBot(s, samples=8) for s in range(2)]
    while not match.finished:
        seat = match.to_play
        assert seat is not None
        match.play(bots[seat].choose(seat_view(match, seat)))
    # R6.3: the match ends once a team is at or past the target with the higher score.
    totals = match.totals
    assert max(totals) >= 51
    assert totals[0] != totals[1]
    assert match.winner == (0 if totals[0] > totals[1] else 1)
    # The totals are the sum of the decks' counts (R5.5).
    decks = [deck.counts for deck in match.decks if deck.counts is not None]
    assert [sum(c[team].points for c in decks) for team in (0, 1)] == list(totals)


def test_systematic_resampling_draws_each_item_in_proportion_to_its_weight() -> None:
    for seed in range(20):
        chosen = systematic_resample("abcd", [0.0, 1.0, 3.0, 0.0], 4, random.Random(seed))
        assert chosen == ["b", "c", "c", "c"]
    # Shares that do not divide evenly come rounded up or down, never anything else.
    counts = {
        "".join(systematic_resample("xy", [1.0, 2.0], 4, random.Random(seed))) for seed in range(50)
    }
    assert counts == {"xyyy", "xxyy"}


def test_the_chance_to_keep_a_card_of_a_void_rank_is_checked() -> None:
    match = Match(2, 51, seed=4)
    determinizer = Determinizer(seat_view(match, match.to_play))
    for bad in (-0.1, 1.5, True, "0"):
        with pytest.raises(ValueError, match="from 0 to 1"):
            determinizer.set_void_keep(bad)  # type: ignore[arg-type]
    determinizer.set_void_keep(0.0)
