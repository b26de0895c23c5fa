"""The PettingZoo environment pishti_v0: the API checks, rewards, seeds and R7.7."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, seed_test

from pishti.engine import IllegalPlay, seat_view
from pishti.envs import pishti_v0
from pishti.envs.encoding import (
    FACE_DOWN,
    SCALARS,
    observation_from_match,
    observation_from_view,
)


@pytest.mark.parametrize(("players", "target"), [(4, None), (2, None), (4, 51), (2, 101)])
def test_pettingzoo_api_test(players: int, target: int | None) -> None:
    api_test(pishti_v0.env(players, target), num_cycles=400)


@pytest.mark.parametrize("players", [4, 2])
def test_pettingzoo_seed_test(players: int) -> None:
    seed_test(lambda: pishti_v0.env(players, 51), num_cycles=300)


def _play_episode(env, rng: random.Random, check) -> dict[str, float]:
    """Play one episode with random legal cards, calling ``check(env, agent)`` before
    each step; return each agent's summed rewards."""
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        check(env, agent)
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return total


def test_r7_7_no_observation_holds_a_hidden_card() -> None:
    rng = random.Random(5)
    checked = [0]

    def check(env, _agent) -> None:
        match = env.unwrapped.match
        deck = match.deck
        for seat, name in enumerate(env.possible_agents):
            obs = env.observe(name)["observation"]
            cards = obs[:SCALARS].reshape(7, 52)
            # every card another seat holds: nowhere in this seat's observation
            for other, hand in enumerate(deck.hands):
                if other != seat:
                    assert not cards[:, hand].any()
            # the face-down cards: only once this seat's team took them (R3.6)
            if deck.face_down_team != seat & 1:
                assert not cards[:, list(deck.middle[:3])].any()
            else:
                assert obs[FACE_DOWN : FACE_DOWN + 52][list(deck.middle[:3])].all()
            # and the whole vector is the one built from the seat's SeatView
            view = seat_view(match, seat)
            whole = env.unwrapped.target is not None
            assert np.array_equal(obs, observation_from_view(view, whole))
        checked[0] += 1

    for players, target, episodes in ((4, None, 60), (2, None, 60), (4, 51, 3), (2, 51, 3)):
        env = pishti_v0.env(players, target)
        env.reset(seed=players)
        for _ in range(episodes):
            _play_episode(env, rng, check)
            env.reset()
    assert checked[0] > 60 * 48 + 60 * 48


@pytest.mark.parametrize("players", [4, 2])
def test_r5_2_rewards_are_the_deck_margin_for_the_team(players: int) -> None:
    env = pishti_v0.env(players, None)
    env.reset(seed=11)
    rng = random.Random(1)
    for _ in range(20):
        total = _play_episode(env, rng, lambda env, agent: None)
        counts = env.unwrapped.match.deck.counts
        margin = counts[0].points - counts[1].points
        for seat, name in enumerate(env.possible_agents):
            assert total[name] == (margin if seat % 2 == 0 else -margin)
        env.reset()


def test_r6_a_match_episode_sums_to_the_match_margin() -> None:
    env = pishti_v0.env(4, 51)
    env.reset(seed=3)
    total = _play_episode(env, random.Random(3), lambda env, agent: None)
    match = env.unwrapped.match
    assert match.finished
    assert total["player_0"] == match.totals[0] - match.totals[1] == -total["player_1"]
    assert total["player_2"] == total["player_0"]


def test_a_seed_fixes_the_run_of_episodes() -> None:
    def first_hands(seed: int) -> list[list[int]]:
        env = pishti_v0.env(4, None)
        env.reset(seed=seed)
        hands = []
        for _ in range(3):
            hands.append(list(env.unwrapped.match.deck.hands[0]))
            env.reset()
        return hands

    assert first_hands(7) == first_hands(7)
    assert first_hands(7) != first_hands(8)


def test_r3_1_a_card_not_held_is_refused_and_nothing_changes() -> None:
    env = pishti_v0.env(4, None)
    env.reset(seed=1)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    before = env.observe(agent)["observation"]
    with pytest.raises(IllegalPlay, match=f"{agent} does not hold"):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], before)


def test_observation_from_match_off_turn_has_an_empty_mask() -> None:
    env = pishti_v0.env(4, None)
    env.reset(seed=2)
    match = env.unwrapped.match
    off = (match.to_play + 1) % 4
    assert not env.observe(f"player_{off}")["action_mask"].any()
    obs = observation_from_match(match, off, False)
    assert obs[:52].sum() == 4  # its hand all the same


def test_render_ansi_shows_the_table() -> None:
    env = pishti_v0.env(2, None, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert text.startswith("deck 0") and "player_1:" in text


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="players"):
        pishti_v0.env(3)
    with pytest.raises(ValueError, match="target"):
        pishti_v0.env(4, 77)
    with pytest.raises(ValueError, match="render_mode"):
        pishti_v0.env(4, None, render_mode="rgb_array")


def test_the_numbers_after_the_cards_are_where_the_encoding_says() -> None:
    env = pishti_v0.env(4, 101)
    env.reset(seed=6)
    match = env.unwrapped.match
    seat = match.to_play
    partner = (seat + 2) % 4
    obs = env.observe(f"player_{partner}")["observation"]
    after = obs[SCALARS:].tolist()
    # pile 4 / 52, stock 32 / 48, every hand 4 / 4, nothing taken, no face-down team
    assert after[:10] == pytest.approx([4 / 52, 32 / 48, 1, 1, 1, 1, 0, 0, 0, 0])
    # the seat to play is two seats on from the partner, the dealer one seat before it
    assert after[10:14] == [0, 0, 1, 0]
    assert after[14:18] == [0, 1, 0, 0]
    assert after[18:] == [0, 0]  # no match points yet


@pytest.mark.parametrize(
    ("module", "needs"),
    [("pishti.envs", "gymnasium.envs.registration"), ("pishti.engine.batch", "numpy")],
)
def test_a_missing_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, module: str, needs: str
) -> None:
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, needs, None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, module, raising=False)  # imported or not, yet
    with pytest.raises(ImportError, match=r"pip install 'pishti\[research\]'"):
        importlib.import_module(module)
