"""The OpenSpiel game python_pishti: OpenSpiel's own checks, R7.7, and its algorithms on it."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyspiel")

import numpy as np
import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import mcts, outcome_sampling_mccfr

import pishti.envs.openspiel_game  # noqa: F401 - registers python_pishti
from pishti.engine import JACK, card_text


def _dealt(game, rng: random.Random):
    state = game.new_initial_state()
    while state.is_chance_node():
        cards, probs = zip(*state.chance_outcomes(), strict=True)
        assert abs(sum(probs) - 1.0) < 1e-9
        state.apply_action(rng.choice(cards))
    return state


@pytest.mark.parametrize("players", [4, 2])
def test_openspiel_random_sim_test_with_serialization(players: int) -> None:
    game = pyspiel.load_game("python_pishti", {"players": players})
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_loaded_by_its_string_name() -> None:
    game = pyspiel.load_game("python_pishti(players=2)")
    assert game.num_players() == 2
    with pytest.raises(ValueError, match="players must be 4 or 2"):
        pyspiel.load_game("python_pishti", {"players": 3})


def test_r2_2_the_face_up_card_is_never_a_jack() -> None:
    state = pyspiel.load_game("python_pishti").new_initial_state()
    first = [card for card, _ in state.chance_outcomes()]
    assert len(first) == 48 and all(card >> 2 != JACK for card in first)
    state.apply_action(first[0])
    assert len(state.chance_outcomes()) == 51


@pytest.mark.parametrize("players", [4, 2])
def test_r5_2_returns_are_the_team_margin_of_the_deck(players: int) -> None:
    game = pyspiel.load_game("python_pishti", {"players": players})
    rng = random.Random(players)
    for _ in range(5):
        state = _dealt(game, rng)
        assert state.current_player() == 0  # the dealer is the last seat (R2.4)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        counts = state.deck.counts
        margin = counts[0].points - counts[1].points
        assert state.returns() == [margin if s % 2 == 0 else -margin for s in range(players)]


CARD_PARTS = ("hand", "face_down", "dealt", "top", "face_up", "played", "pishti_cards", "plays")


def test_r7_7_observations_hold_no_hidden_card() -> None:
    game = pyspiel.load_game("python_pishti", {"players": 4})
    observers = [
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall))
        for recall in (False, True)
    ]
    rng = random.Random(7)
    for _ in range(3):
        state = _dealt(game, rng)
        while not state.is_terminal():
            deck = state.deck
            for player in range(4):
                hidden = [c for s, h in enumerate(deck.hands) if s != player for c in h]
                if deck.face_down_team != player % 2:
                    hidden += list(deck.middle[:3])
                for observer in observers:
                    observer.set_from(state, player)
                    for name in CARD_PARTS:
                        if name in observer.dict:
                            assert not observer.dict[name][..., hidden].any(), name
                    text = observer.string_from(state, player)
                    assert not set(text.replace(":", " ").split()) & {card_text(c) for c in hidden}
                assert np.array_equal(state.observation_tensor(player), observers[0].tensor)
                assert np.array_equal(state.information_state_tensor(player), observers[1].tensor)
            state.apply_action(rng.choice(state.legal_actions()))


def test_openspiel_mcts_plays_a_legal_card() -> None:
    game = pyspiel.load_game("python_pishti", {"players": 2})
    state = _dealt(game, random.Random(1))
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    assert bot.step(state) in state.legal_actions()


def test_openspiel_outcome_sampling_mccfr_runs() -> None:
    game = pyspiel.load_game("python_pishti", {"players": 2})
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(3):
        solver.iteration()
    policy = solver.average_policy()
    state = _dealt(game, random.Random(2))
    probs = policy.action_probabilities(state)
    assert sorted(probs) == state.legal_actions()
    assert abs(sum(probs.values()) - 1.0) < 1e-9


def test_openspiel_rl_environment_plays_a_deck() -> None:
    env = rl_environment.Environment(pyspiel.load_game("python_pishti", {"players": 4}), seed=3)
    step = env.reset()
    rng = random.Random(3)
    plays = 0
    while not step.last():
        player = step.observations["current_player"]
        step = env.step([rng.choice(step.observations["legal_actions"][player])])
        plays += 1
    assert plays == 48
    assert sum(step.rewards) == 0 and step.rewards[0] == step.rewards[2]
