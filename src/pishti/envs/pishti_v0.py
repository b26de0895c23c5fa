"""Pishti as a PettingZoo AEC environment: four players in two partnerships, or two players.

``env(players=4, target=None, render_mode=None)`` plays one deck per episode
(``target=None``) or a whole match to 51, 101 or 151 points (R6.1).  Agents are
``player_0`` .. ``player_3`` (seats, R1.3: ``player_0`` and ``player_2`` are team 0).
Every card is played through :class:`~pishti.engine.match.Match`, the engine
the table server plays.

- Action: a card, 0..51 (``rank * 4 + suit``, see :mod:`pishti.engine.cards`);
  only the cards of the hand may be played (R3.1), as the ``action_mask`` says.
  Any other action raises :class:`~pishti.engine.errors.IllegalPlay` and
  changes nothing.
- Observation: ``{"observation": float32 vector, "action_mask": int8 (52,)}``;
  the vector (:mod:`pishti.envs.encoding`) holds what the seat may see (R7.7).
- Reward: when a deck is counted, each team's deck points less the other
  team's (R5.2): zero-sum between teams, and both partners get their team's.
  Nothing in between.
- Termination: after the deck (one-deck episodes), or when the match is over
  (R6.3; a match stopped at the 99-deck cap, R6.4, ends the same way).
- Seeds: ``reset(seed=n)`` seeds the deals; later resets without a seed go on
  from that generator, so a seed fixes a whole run of episodes.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pishti.engine.cards import card_text
from pishti.engine.deck import Deck, deal_deck
from pishti.engine.errors import IllegalPlay
from pishti.engine.match import TARGETS, Match, NoMoreDecks
from pishti.envs.encoding import (
    Observation,
    PlayedCards,
    action_mask,
    observation_from_match,
    observation_high,
    observation_size,
)

ONE_DECK_TARGET = 10**9
"""The match target used for one-deck episodes: no deck reaches it, the episode ends after one."""

ObsDict = dict[str, Any]


def env(players: int = 4, target: int | None = None, render_mode: str | None = None) -> AECEnv:
    """The environment in PettingZoo's OrderEnforcingWrapper (reset before step, as its games).

    A card out of bounds is refused by the environment itself (``IllegalPlay``),
    so PettingZoo's AssertOutOfBoundsWrapper, which would slow every step, is
    not added.

    Args:
        players: 4 (two teams, R1.3) or 2 (R1.4).
        target: None for one deck per episode, else 51, 101 or 151 (R6.1).
        render_mode: None, ``"human"`` (prints) or ``"ansi"`` (returns text).
    Raises:
        ValueError: a player count, target or render mode not listed above.
    """
    return _OrderEnforcing(raw_env(players, target, render_mode))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]  # untyped
    """PettingZoo's OrderEnforcingWrapper with ``last()`` asked of the environment at once.

    The inherited ``last()`` reads five attributes through the wrapper's
    ``__getattr__``, which took a third of a step's time; this one makes the
    same check (no ``last()`` before ``reset()``) and returns the same tuple.
    ``agents`` and ``agent_selection``, read at every turn of ``agent_iter``,
    are properties with the same check for the same reason.
    """

    @property
    def agents(self) -> list[str]:
        """The agents still in the episode (read at every turn of ``agent_iter``)."""
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        """The agent to act (read at every turn of ``agent_iter``)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent: str = self.env.agent_selection
        return agent

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, summed reward, terminated, truncated and info of the agent to act."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo is untyped
    """The unwrapped environment (see the module's description and :func:`env`)."""

    metadata = {  # noqa: RUF012 - PettingZoo reads it from the class
        "render_modes": ["human", "ansi"],
        "name": "pishti_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self, players: int = 4, target: int | None = None, render_mode: str | None = None
    ) -> None:
        """Build the environment; :meth:`reset` deals.  Errors as :func:`env`."""
        super().__init__()
        if players not in (2, 4):
            raise ValueError(f"players must be 4 or 2, not {players!r}")
        if target is not None and target not in TARGETS:
            raise ValueError(f"target must be None or one of {TARGETS}, not {target!r}")
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.players = players
        self.target = target
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agents = self.possible_agents[:]
        size = observation_size(players)
        space = spaces.Dict(
            {
                "observation": spaces.Box(
                    np.zeros(size, dtype=np.float32), observation_high(players), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, (52,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(52))
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._rng = random.Random()
        self.match: Match | None = None
        self._played = PlayedCards()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent``: the same for every agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(52)``: a card."""
        return self.action_spaces[agent]

    def _one_deck(self, number: int, dealer: int) -> Deck:
        """The deck source of one-deck episodes: the first deck, then no more."""
        if number:
            raise NoMoreDecks
        return deal_deck(self._rng, self.players, dealer)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new deck (or match); ``seed`` seeds this and the following episodes."""
        if seed is not None:
            self._rng = random.Random(seed)
        if self.target is None:
            self.match = Match(
                self.players, ONE_DECK_TARGET, rng=self._rng, deck_source=self._one_deck
            )
        else:
            self.match = Match(self.players, self.target, rng=self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rewarded = False
        seat = self.match.to_play
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> ObsDict:
        """What ``agent``'s seat may see (R7.7), and the cards it may play."""
        assert self.match is not None, "call reset() first"
        seat = self._seat[agent]
        observation: Observation = observation_from_match(self.match, seat, self.target is not None)
        return {"observation": observation, "action_mask": action_mask(self.match, seat)}

    def step(self, action: int) -> None:
        """Play card ``action`` for the agent to act (R3).

        Raises:
            IllegalPlay: the card is not in its hand; nothing changes.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        match = self.match
        assert match is not None
        seat = self._seat[agent]
        card = int(action)
        deck = match.deck
        if card not in deck.hands[seat]:
            text = card_text(card) if 0 <= card < 52 else repr(action)
            raise IllegalPlay(f"{agent} does not hold {text}")
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if self._rewarded:  # the rewards of the last step are over
            for name in rewards:
                rewards[name] = 0.0
            self._rewarded = False
        match.play(card, seat)
        if deck.counts is not None:  # this card ended the deck: it is counted (R5.2)
            margin = float(deck.counts[0].points - deck.counts[1].points)
            for name, seat_ in self._seat.items():
                rewards[name] = margin if seat_ & 1 == 0 else -margin
            self._rewarded = True
            self._accumulate_rewards()
        to_play = match.to_play
        if to_play is None:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[to_play]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """Print (``"human"``) or return (``"ansi"``) the table as every seat's hand would
        show it to a spectator of the whole game: every hand, the top card and the score."""
        if self.render_mode is None or self.match is None:
            return None
        match = self.match
        deck = match.deck
        lines = [
            f"deck {match.deck_number}  dealer {deck.dealer}  to play {match.to_play}"
            f"  totals {match.totals[0]}-{match.totals[1]}",
            "pile: "
            + (f"{card_text(deck.pile[-1])} on {len(deck.pile) - 1}" if deck.pile else "empty"),
        ]
        for seat, hand in enumerate(deck.hands):
            lines.append(f"player_{seat}: " + " ".join(card_text(c) for c in hand))
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
