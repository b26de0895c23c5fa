"""The Gymnasium environment PishtiEnv-v0: Gymnasium's checker, rewards, seeds, bots."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("gymnasium")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import pishti.envs  # noqa: F401 - registers PishtiEnv-v0
from pishti.envs.gym_env import PishtiEnv


@pytest.mark.parametrize(
    ("players", "target", "opponents"),
    [(4, None, "standard"), (2, None, "novice"), (4, 51, "random")],
)
def test_gymnasium_check_env(players: int, target: int | None, opponents: str) -> None:
    check_env(PishtiEnv(players, target, opponents=opponents))


def test_registered_and_made_by_name() -> None:
    env = gymnasium.make("pishti.envs:PishtiEnv-v0", players=2, opponents="random")
    obs, info = env.reset(seed=3)
    assert obs["observation"].shape == (378,) and obs["action_mask"].sum() == 4
    assert info == {}
    check_env(env.unwrapped)  # with the spec: the render modes are checked too


def _episode(env: PishtiEnv, seed: int | None, rng: random.Random) -> tuple[float, list[int]]:
    obs, _ = env.reset(seed=seed)
    total, cards, done = 0.0, [], False
    while not done:
        card = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        cards.append(card)
        obs, reward, done, truncated, _ = env.step(card)
        assert not truncated
        total += reward
    return total, cards


@pytest.mark.parametrize(("players", "seat"), [(4, 0), (4, 1), (2, 1)])
def test_r5_2_the_reward_is_the_team_s_deck_margin(players: int, seat: int) -> None:
    env = PishtiEnv(players, None, seat=seat, opponents="novice", partner="standard")
    rng = random.Random(2)
    for episode in range(10):
        total, cards = _episode(env, episode, rng)
        counts = env.match.deck.counts
        team = seat & 1
        assert total == counts[team].points - counts[1 - team].points
        assert len(cards) == 48 // players
        assert [p.card for p in env.match.history if p.seat == seat] == cards


def test_a_match_episode_sums_to_the_match_margin() -> None:
    env = PishtiEnv(4, 51, opponents="random")
    total, _ = _episode(env, 5, random.Random(5))
    assert env.match.finished
    assert total == env.match.totals[0] - env.match.totals[1]


def test_a_seed_fixes_the_episode() -> None:
    env = PishtiEnv(4, None, opponents="standard")
    first = _episode(env, 9, random.Random(1))
    again = _episode(env, 9, random.Random(1))
    other = _episode(env, 10, random.Random(1))
    assert first == again and first != other


def test_an_illegal_card_ends_the_episode_with_its_reward() -> None:
    env = PishtiEnv(4, None, illegal_reward=-50.0)
    obs, _ = env.reset(seed=1)
    card = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    history = env.match.history
    _, reward, done, _, info = env.step(card)
    assert (reward, done, info) == (-50.0, True, {"illegal": True})
    assert env.match.history == history
    with pytest.raises(RuntimeError, match="over"):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        PishtiEnv(opponents="grandmaster")
    with pytest.raises(ValueError, match="seat"):
        PishtiEnv(2, seat=2)
    with pytest.raises(ValueError, match="target"):
        PishtiEnv(4, 100)
