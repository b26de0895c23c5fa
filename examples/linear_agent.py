"""A small learning example: a linear card-value agent trained on PishtiEnv-v0.

The agent scores each card of its hand with ``weights @ features(observation,
card)`` and plays the best (with probability ``epsilon`` a random card while
training).  The features are read from the observation vector only (what the
seat may see, R7.7): whether the card captures (R3.2, R3.3), makes a pishti
or a jack pishti (R4.1, R4.2), how many cards it would take, the card points
it would give away or take, whether it spends a jack, and how many unseen
cards could take it back.  The weights are fitted by ridge regression of
each episode's return (the deck's points less the opponent's, R5.2) on the
features of the cards played in it: Monte Carlo value learning.

    python examples/linear_agent.py [--episodes 3000] [--eval 2000] [--opponents random]

Prints the mean deck margin of the untrained agent (all weights 0: a random
card) and of the trained one against the same opponents, each with a 95 %
confidence interval, then the weights.

:class:`LinearBot` plays with the weights of :data:`TRAINED` as a plug-in bot,
so the duplicate arena can measure it against any level::

    pishti arena examples/linear_agent.py:LinearBot novice --players 2 --matches 200
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np
from numpy.typing import NDArray

from pishti.engine.cards import CARD_POINTS, JACK, Card
from pishti.engine.view import SeatView
from pishti.envs.encoding import HAND, PLAYED, SCALARS, TOP, observation_from_view
from pishti.envs.gym_env import PishtiEnv

FEATURES = (
    "bias",
    "captures",
    "pishti",
    "jack pishti",
    "cards taken",
    "card points taken",
    "card points given away",
    "spends a jack",
    "unseen cards that take it",
)
_POINTS = np.array(CARD_POINTS, dtype=np.float64)


def features(observation: NDArray[np.float32], card: int) -> NDArray[np.float64]:
    """The features of playing ``card`` in the position the observation shows."""
    tops = np.flatnonzero(observation[TOP : TOP + 52])
    top = int(tops[0]) if len(tops) else None
    pile = round(float(observation[SCALARS]) * 52)
    rank = card >> 2
    captures = top is not None and (rank == JACK or top >> 2 == rank)
    pishti = captures and pile == 1 and top is not None and top >> 2 == rank
    seen = observation[HAND : HAND + 52] + observation[PLAYED : PLAYED + 52]
    if top is not None:
        seen[top] = 1
    unseen = 1.0 - np.minimum(seen, 1.0)
    unseen[card] = 0.0
    ranks = unseen.reshape(13, 4).sum(axis=1)
    takers = 0.0 if captures else float(ranks[rank] + (ranks[JACK] if rank != JACK else 0))
    return np.array(
        [
            1.0,
            float(captures),
            float(pishti and rank != JACK),
            float(pishti and rank == JACK),
            (pile + 1) * captures,
            (_POINTS[card] + (_POINTS[top] if top is not None else 0.0)) * captures,
            _POINTS[card] * (not captures),
            float(rank == JACK),
            takers,
        ]
    )


def choose(
    weights: NDArray[np.float64],
    observation: NDArray[np.float32],
    mask: NDArray[np.int8],
    rng: random.Random,
    epsilon: float,
) -> tuple[int, NDArray[np.float64]]:
    """The card to play and its features: the best scored card, or a random one."""
    hand = np.flatnonzero(mask).tolist()
    rows = [features(observation, card) for card in hand]
    if rng.random() < epsilon:
        k = rng.randrange(len(hand))
    else:
        scores = [float(weights @ row) for row in rows]
        best = max(scores)
        k = rng.choice([i for i, s in enumerate(scores) if s == best])
    return hand[k], rows[k]


def evaluate(
    weights: NDArray[np.float64], episodes: int, opponents: str, seed: int
) -> tuple[float, float]:
    """Mean deck margin over ``episodes`` decks, and its 95 % half-width."""
    env = PishtiEnv(players=2, opponents=opponents)
    rng = random.Random(seed)
    margins = []
    obs, _ = env.reset(seed=seed)
    for _ in range(episodes):
        total, done = 0.0, False
        while not done:
            card, _ = choose(weights, obs["observation"], obs["action_mask"], rng, 0.0)
            obs, reward, done, _, _ = env.step(card)
            total += float(reward)
        margins.append(total)
        obs, _ = env.reset()
    mean = sum(margins) / episodes
    spread = math.sqrt(sum((m - mean) ** 2 for m in margins) / (episodes - 1))
    return mean, 1.96 * spread / math.sqrt(episodes)


def train(episodes: int, opponents: str, seed: int) -> NDArray[np.float64]:
    """Fit the weights by Monte Carlo ridge regression over ``episodes`` decks."""
    env = PishtiEnv(players=2, opponents=opponents)
    rng = random.Random(seed)
    size = len(FEATURES)
    weights = np.zeros(size)
    xtx = np.eye(size) * 1.0
    xty = np.zeros(size)
    obs, _ = env.reset(seed=seed)
    for episode in range(episodes):
        epsilon = max(0.05, 1.0 - episode / (0.5 * episodes))
        rows, total, done = [], 0.0, False
        while not done:
            card, row = choose(weights, obs["observation"], obs["action_mask"], rng, epsilon)
            rows.append(row)
            obs, reward, done, _, _ = env.step(card)
            total += float(reward)
        for row in rows:
            xtx += np.outer(row, row)
            xty += row * total
        if episode % 50 == 49:
            weights = np.linalg.solve(xtx, xty)
        obs, _ = env.reset()
    return np.linalg.solve(xtx, xty)


TRAINED = np.array([7.79, 3.69, 12.34, 24.04, 0.05, 0.78, -0.33, -0.93, -0.07])
"""The weights of the run quoted in docs/research.md (20,000 decks against random),
in the order of :data:`FEATURES`."""


class LinearBot:
    """A plug-in bot that plays the trained weights (``name`` and ``choose(view)``)."""

    name = "linear"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` breaks ties between cards of the same score."""
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Card:
        """The best scored card of ``view.legal_cards`` (R3.1)."""
        observation = observation_from_view(view, whole_match=True)
        mask = np.zeros(52, dtype=np.int8)
        mask[list(view.legal_cards)] = 1
        card, _ = choose(TRAINED, observation, mask, self.rng, 0.0)
        return card


def main() -> None:
    """Train, evaluate before and after, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3000, help="training decks")
    parser.add_argument("--eval", type=int, default=2000, help="evaluation decks")
    parser.add_argument("--opponents", default="random", help="bot level of the opponent")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    before = evaluate(np.zeros(len(FEATURES)), args.eval, args.opponents, args.seed + 1000)
    start = time.process_time()
    weights = train(args.episodes, args.opponents, args.seed)
    took = time.process_time() - start
    after = evaluate(weights, args.eval, args.opponents, args.seed + 1000)
    print(f"trained on {args.episodes} decks against {args.opponents} in {took:.0f} s CPU")
    print(f"untrained: {before[0]:+.2f} ± {before[1]:.2f} points per deck")
    print(f"trained:   {after[0]:+.2f} ± {after[1]:.2f} points per deck")
    for name, w in zip(FEATURES, weights, strict=True):
        print(f"  {name:28s} {w:+.2f}")


if __name__ == "__main__":
    main()
