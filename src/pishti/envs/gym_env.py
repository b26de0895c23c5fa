"""Pishti as a Gymnasium environment: one seat against bots (partner and opponents).

``gymnasium.make("pishti.envs:PishtiEnv-v0", players=4, target=None,
opponents="standard")`` (or :class:`PishtiEnv` directly).  The agent plays
``seat`` (0 by default); the other seats are bots of the levels in
:data:`pishti.bots.LEVELS` (or plug-ins ``"module:Class"``), each choosing
from its own :func:`~pishti.engine.view.seat_view` (R7.7).  Cards are played
through :class:`~pishti.engine.match.Match`, as in :mod:`pishti.envs.pishti_v0`,
with the same observation (:mod:`pishti.envs.encoding`) and rewards: when a
deck is counted, the agent's team's deck points less the other team's (R5.2).

An action that is not a card of the hand (see ``action_mask``) ends the
episode with ``illegal_reward`` and ``info["illegal"] = True``, as PettingZoo's
classic games do; nothing is played.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from pishti.bots import Bot, make_bot
from pishti.engine.cards import card_text
from pishti.engine.deck import Deck, deal_deck
from pishti.engine.match import TARGETS, Match, NoMoreDecks
from pishti.engine.view import seat_view
from pishti.envs.encoding import (
    PlayedCards,
    action_mask,
    observation_from_match,
    observation_high,
    observation_size,
)

ONE_DECK_TARGET = 10**9
"""The match target used for one-deck episodes: no deck reaches it."""

ObsDict = dict[str, Any]


class PishtiEnv(gymnasium.Env[ObsDict, np.int64]):
    """One seat of a Pishti table against bots (see the module's description).

    Args:
        players: 4 (two teams, R1.3) or 2 (R1.4).
        target: None for one deck per episode, else 51, 101 or 151 (R6.1).
        seat: the agent's seat; its partner is ``seat + 2`` with four players.
        opponents: the bot level of the other team's seats.
        partner: the bot level of the partner (four players); None: as ``opponents``.
        illegal_reward: the reward of a card not in the hand (the episode ends).
        render_mode: None, ``"human"`` (prints) or ``"ansi"`` (returns text).
    Raises:
        ValueError: an argument not listed above, or an unknown bot level.
    """

    metadata = {"render_modes": ["human", "ansi"]}  # noqa: RUF012 - Gymnasium reads it

    def __init__(
        self,
        players: int = 4,
        target: int | None = None,
        seat: int = 0,
        opponents: str = "standard",
        partner: str | None = None,
        illegal_reward: float = -100.0,
        render_mode: str | None = None,
    ) -> None:
        if players not in (2, 4):
            raise ValueError(f"players must be 4 or 2, not {players!r}")
        if target is not None and target not in TARGETS:
            raise ValueError(f"target must be None or one of {TARGETS}, not {target!r}")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1}, not {seat!r}")
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.players = players
        self.target = target
        self.seat = seat
        self.levels = {
            s: (partner or opponents) if (s - seat) % 2 == 0 else opponents
            for s in range(players)
            if s != seat
        }
        for level in set(self.levels.values()):
            make_bot(level, 0)  # refuse an unknown level now, not at the first reset
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        size = observation_size(players)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    np.zeros(size, dtype=np.float32), observation_high(players), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, (52,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(52)
        self._rng = random.Random()
        self.bots: dict[int, Bot] = {}
        self.match: Match | None = None
        self._played = PlayedCards()
        self._counted = 0
        self._ended = False

    def _one_deck(self, number: int, dealer: int) -> Deck:
        if number:
            raise NoMoreDecks
        return deal_deck(self._rng, self.players, dealer)

    def _observation(self) -> ObsDict:
        assert self.match is not None
        return {
            "observation": observation_from_match(
                self.match, self.seat, self.target is not None, self._played
            ),
            "action_mask": action_mask(self.match, self.seat),
        }

    def _counted_reward(self) -> float:
        """The team's deck margin of every deck counted since the last call (R5.2)."""
        match = self.match
        assert match is not None
        counted = len(match.decks) - (match.deck.counts is None)
        reward = 0.0
        team = self.seat & 1
        while self._counted < counted:
            counts = match.decks[self._counted].counts
            assert counts is not None
            reward += counts[team].points - counts[1 - team].points
            self._counted += 1
        return reward

    def _bots_play(self) -> float:
        """Let the bots play until the agent's turn or the end; return the reward meanwhile."""
        match = self.match
        assert match is not None
        reward = 0.0
        while match.to_play is not None and match.to_play != self.seat:
            seat = match.to_play
            match.play(self.bots[seat].choose(seat_view(match, seat)), seat)
            reward += self._counted_reward()
        return reward

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Deal a new deck (or match) and let the bots play up to the agent's first turn.

        ``seed`` seeds the deals and the bots of this and the following episodes.
        """
        super().reset(seed=seed)
        draw = self.np_random.integers
        self._rng = random.Random(int(draw(2**62)))
        self.bots = {s: make_bot(level, int(draw(2**62))) for s, level in self.levels.items()}
        if self.target is None:
            self.match = Match(
                self.players, ONE_DECK_TARGET, rng=self._rng, deck_source=self._one_deck
            )
        else:
            self.match = Match(self.players, self.target, rng=self._rng)
        self._counted = 0
        self._ended = False
        self._bots_play()  # no deck is counted before the agent's first card
        if self.render_mode == "human":
            self.render()
        return self._observation(), {}

    def step(self, action: int | np.int64) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        """Play card ``action`` for the agent, then the bots up to its next turn.

        Returns:
            observation, reward (points, see the module), terminated, truncated
            (always False: a match ends by its own rules, R6.3, R6.4), info.
        Raises:
            RuntimeError: the episode is over (call ``reset``).
        """
        match = self.match
        if match is None or match.to_play is None or self._ended:
            raise RuntimeError("the episode is over: call reset()")
        card = int(action)
        if card not in match.deck.hands[self.seat]:
            self._ended = True
            return self._observation(), self.illegal_reward, True, False, {"illegal": True}
        match.play(card, self.seat)
        reward = self._counted_reward() + self._bots_play()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, match.to_play is None, False, {}

    def render(self) -> str | None:
        """Print (``"human"``) or return (``"ansi"``) the agent's view of the table."""
        if self.render_mode is None or self.match is None:
            return None
        view = seat_view(self.match, self.seat)
        text = (
            f"deck {view.deck}  seat {view.seat}  to play {view.to_play}"
            f"  totals {view.totals[0]}-{view.totals[1]}\n"
            f"top {card_text(view.top_card) if view.top_card is not None else '--'}"
            f" on a pile of {view.pile_size}\n"
            f"hand: {' '.join(card_text(c) for c in view.hand)}"
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text
