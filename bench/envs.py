"""Benchmark the research environments: steps per second with observations built.

- PettingZoo ``pishti_v0``: ``env()`` (PettingZoo's wrappers, as users get it)
  and ``raw_env`` (without them), one-deck episodes, 4 and 2 players.  Each
  step is what a learning loop does: ``last()`` (which builds the
  observation and the action mask), a uniformly random card of the mask,
  ``step()``; the steps that only take the agents out after the end are
  not counted.
- Gymnasium ``PishtiEnv``: steps of the agent's seat (each also plays the
  bots' cards up to its next turn), against ``random`` and ``standard`` bots.
- OpenSpiel ``python_pishti``: actions applied (the 52 chance actions of the
  deal included) with the observation tensor of the player to act.

    python bench/envs.py [--seconds 2] [--runs 3]

Prints the steps per second of each run and the median; the last line is the
medians as JSON.  Time is CPU time of the process (``time.process_time``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

import numpy as np


def pettingzoo_steps(players: int, wrapped: bool, seconds: float, seed: int) -> float:
    """Steps per second of ``pishti_v0`` with random legal cards."""
    from pishti.envs import pishti_v0

    env = pishti_v0.env(players) if wrapped else pishti_v0.raw_env(players)
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    clock = time.process_time
    start = clock()
    while clock() - start < seconds:
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)  # the agents leave: not counted as steps
            else:
                env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
                steps += 1
        env.reset()
    return steps / (clock() - start)


def gymnasium_steps(players: int, opponents: str, seconds: float, seed: int) -> float:
    """Agent steps per second of ``PishtiEnv`` with random legal cards."""
    from pishti.envs.gym_env import PishtiEnv

    env = PishtiEnv(players, opponents=opponents)
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    steps = 0
    clock = time.process_time
    start = clock()
    while clock() - start < seconds:
        obs, _, done, _, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        steps += 1
        if done:
            obs, _ = env.reset()
    return steps / (clock() - start)


def openspiel_steps(players: int, seconds: float, seed: int) -> float:
    """Actions per second of ``python_pishti``, chance included, observing the player to act."""
    import pyspiel

    import pishti.envs.openspiel_game  # noqa: F401 - registers the game

    game = pyspiel.load_game("python_pishti", {"players": players})
    rng = random.Random(seed)
    steps = 0
    clock = time.process_time
    start = clock()
    while clock() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.observation_tensor(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (clock() - start)


def main() -> None:
    """Run every measure and print the figures (the last line is JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds of one run")
    parser.add_argument("--runs", type=int, default=3, help="runs per measure")
    args = parser.parse_args()
    measures: dict[str, Callable[[float, int], float]] = {
        "pettingzoo_env_4p": lambda s, seed: pettingzoo_steps(4, True, s, seed),
        "pettingzoo_raw_env_4p": lambda s, seed: pettingzoo_steps(4, False, s, seed),
        "pettingzoo_env_2p": lambda s, seed: pettingzoo_steps(2, True, s, seed),
        "gymnasium_random_4p": lambda s, seed: gymnasium_steps(4, "random", s, seed),
        "gymnasium_standard_4p": lambda s, seed: gymnasium_steps(4, "standard", s, seed),
        "openspiel_4p": lambda s, seed: openspiel_steps(4, s, seed),
    }
    figures: dict[str, int] = {}
    for name, measure in measures.items():
        rates = [measure(args.seconds, run + 1) for run in range(args.runs)]
        figures[name] = round(statistics.median(rates))
        shown = ", ".join(f"{r:,.0f}" for r in rates)
        print(f"{name}: {figures[name]:,} steps/s median of {args.runs} ({shown})")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
