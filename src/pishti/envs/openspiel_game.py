"""Pishti as an OpenSpiel game: ``python_pishti``, registered with ``pyspiel`` on import.

``pyspiel.load_game("python_pishti", {"players": 4})`` (or 2) is one deck:
imperfect information, chance nodes for the deal, zero-sum between teams.
Every card is played through :class:`~pishti.engine.deck.Deck`, the engine's
rules core, laid out with :meth:`Deck.from_layout` once the deal is drawn.

- The dealer is the last seat, so player 0 plays first (R2.4).
- Chance: the first 52 actions deal the deck, each a card drawn uniformly
  from those not yet placed: the face-up card (never a jack, R2.2: drawn from
  the 48 others, which gives the same deals as turning a jack back into the
  stock), the three face-down cards, then deal by deal each seat's four cards
  from the first seat to play on (R2.3, R8.1).
- Players: an action is a card 0..51 (``rank * 4 + suit``); the legal actions
  are the hand (R3.1).
- Returns: at the end, each player's team's deck points less the other
  team's (R5.2).
- Observations (:class:`PishtiObserver`): what the seat may see (R7.7): its
  hand and, once its team took them, the face-down cards (private); the top
  card, the face-up card, the cards played, the pishti cards, the pile and
  stock sizes, the cards taken and the seat to play (public).  The
  information state (perfect recall) adds every card the seat was dealt and
  the order of all plays.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from numpy.typing import NDArray

from pishti.engine.cards import JACK, card_text
from pishti.engine.deck import CARDS_PER_HAND, PLAYS_PER_DECK, Deck

MAX_POINTS = 16 + 2 * 20 + 22 * 10
"""More than one team can score in a deck (all card points and most cards, two
jack pishtis and 22 pishtis): the bound OpenSpiel asks for."""

_GAME_TYPE = pyspiel.GameType(
    short_name="python_pishti",
    long_name="Python Pishti",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 4},
)


class PishtiGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """One deck of Pishti for 4 players (two teams, R1.3) or 2 (R1.4, R8).

    Raises:
        ValueError: ``players`` is not 4 or 2.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", 4))
        if players not in (2, 4):
            raise ValueError(f"players must be 4 or 2, not {players!r}")
        info = pyspiel.GameInfo(
            num_distinct_actions=52,
            max_chance_outcomes=52,
            num_players=players,
            min_utility=-float(MAX_POINTS),
            max_utility=float(MAX_POINTS),
            utility_sum=0.0,
            max_game_length=52 + PLAYS_PER_DECK,
        )
        super().__init__(_GAME_TYPE, info, params)
        self.players = players

    def new_initial_state(self) -> PishtiState:
        """The state before the deal."""
        return PishtiState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> PishtiObserver:
        """The observer of ``iig_obs_type`` (default: the observation, no perfect recall)."""
        return PishtiObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            self.players,
            params,
        )


class PishtiState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """A deck being dealt (52 chance actions) and then played (48 cards)."""

    def __init__(self, game: PishtiGame) -> None:
        super().__init__(game)
        self.players = game.players
        self.dealer = self.players - 1
        self.drawn: list[int] = []
        self.deck: Deck | None = None

    # -- the deal ---------------------------------------------------------

    def current_player(self) -> int:
        """The seat to play, or CHANCE during the deal, or TERMINAL after the count."""
        if self.deck is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.deck.counts is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.deck.to_play

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Each card not yet placed, equally likely (the first: any card but a jack, R2.2)."""
        left = set(range(52)).difference(self.drawn)
        if not self.drawn:
            left = {c for c in left if c >> 2 != JACK}
        p = 1.0 / len(left)
        return [(card, p) for card in sorted(left)]

    def _legal_actions(self, player: int) -> list[int]:
        """The hand of the seat to play (R3.1), in ascending order."""
        assert self.deck is not None and player == self.deck.to_play
        return sorted(self.deck.hands[player])

    def _apply_action(self, action: int) -> None:
        if self.deck is None:
            self.drawn.append(int(action))
            if len(self.drawn) == 52:
                self.deck = self._lay_out()
        else:
            self.deck.play(int(action))

    def _lay_out(self) -> Deck:
        """The drawn cards as a deal: face-up, face-down, then each seat's packets (R2)."""
        players = self.players
        drawn = self.drawn
        middle = [drawn[1], drawn[2], drawn[3], drawn[0]]
        first = (self.dealer + 1) % players
        deals = []
        at = 4
        for _ in range(PLAYS_PER_DECK // (CARDS_PER_HAND * players)):
            hands: list[list[int]] = [[] for _ in range(players)]
            for k in range(players):
                hands[(first + k) % players] = drawn[at : at + CARDS_PER_HAND]
                at += CARDS_PER_HAND
            deals.append(hands)
        return Deck.from_layout(players, self.dealer, middle, deals)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal:{card_text(action)}"
        return f"Play:{card_text(action)}"

    # -- the end ----------------------------------------------------------

    def is_terminal(self) -> bool:
        """True once the 48 cards are played and the deck counted (R5.1)."""
        return self.deck is not None and self.deck.counts is not None

    def returns(self) -> list[float]:
        """Each player's team's deck points less the other's (R5.2); zeros before the end."""
        if self.deck is None or self.deck.counts is None:
            return [0.0] * self.players
        counts = self.deck.counts
        margin = float(counts[0].points - counts[1].points)
        return [margin if seat & 1 == 0 else -margin for seat in range(self.players)]

    def __str__(self) -> str:
        """Every hand, the pile and the plays: for debugging (shows hidden cards)."""
        if self.deck is None:
            return "dealing: " + " ".join(card_text(c) for c in self.drawn)
        deck = self.deck
        hands = " | ".join(" ".join(card_text(c) for c in hand) for hand in deck.hands)
        pile = " ".join(card_text(c) for c in deck.pile)
        plays = " ".join(card_text(c) for c in deck.plays)
        return f"hands {hands}\npile {pile}\nplays {plays}"


class PishtiObserver:
    """OpenSpiel's observer of a seat (R7.7); see the module's description.

    ``tensor`` is a float32 vector; ``dict`` names its parts (views of it).
    """

    def __init__(self, iig_obs_type: Any, players: int, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.players = players
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = bool(iig_obs_type.public_info)
        self.recall = bool(iig_obs_type.perfect_recall)
        pieces: list[tuple[str, int, tuple[int, ...]]] = [("player", players, (players,))]
        if self.private:
            pieces += [("hand", 52, (52,)), ("face_down", 52, (52,))]
            if self.recall:
                pieces.append(("dealt", 52, (52,)))
        if self.public:
            pieces += [
                ("top", 52, (52,)),
                ("face_up", 52, (52,)),
                ("played", 52, (52,)),
                ("pishti_cards", 104, (2, 52)),
                ("sizes", 6, (6,)),
                ("to_play", players, (players,)),
            ]
            if self.recall:
                pieces.append(("plays", PLAYS_PER_DECK * 52, (PLAYS_PER_DECK, 52)))
        self.tensor: NDArray[np.float32] = np.zeros(sum(p[1] for p in pieces), np.float32)
        self.dict: dict[str, NDArray[np.float32]] = {}
        at = 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[at : at + size].reshape(shape)
            at += size

    def set_from(self, state: PishtiState, player: int) -> None:
        """Fill ``tensor`` with what ``player`` may see of ``state`` (R7.7).

        Team parts (``pishti_cards``, the taken counts) are the player's team first.
        """
        self.tensor.fill(0)
        parts = self.dict
        parts["player"][player] = 1
        deck = state.deck
        if deck is None:
            return
        team = player & 1
        if self.private:
            parts["hand"][deck.hands[player]] = 1
            if deck.face_down_team == team:
                parts["face_down"][list(deck.middle[:3])] = 1
            if self.recall:
                for k in range(deck.deal_index):
                    parts["dealt"][list(deck.deals[k][player])] = 1
        if self.public:
            if deck.pile:
                parts["top"][deck.pile[-1]] = 1
            parts["face_up"][deck.middle[3]] = 1
            parts["played"][deck.plays] = 1
            parts["pishti_cards"][0][deck.pishti_cards[team]] = 1
            parts["pishti_cards"][1][deck.pishti_cards[1 - team]] = 1
            sizes = parts["sizes"]
            sizes[0] = len(deck.pile) / 52
            sizes[1] = deck.stock_size / 48
            sizes[2] = len(deck.taken[team]) / 52
            sizes[3] = len(deck.taken[1 - team]) / 52
            if deck.face_down_team is not None:
                sizes[4 + (deck.face_down_team != team)] = 1
            if deck.counts is None:
                parts["to_play"][deck.to_play] = 1
            if self.recall:
                parts["plays"][np.arange(len(deck.plays)), deck.plays] = 1

    def string_from(self, state: PishtiState, player: int) -> str:
        """The same as text, e.g. ``p0 hand:2C 7H top:KD pile:5 plays:...``."""
        deck = state.deck
        out = [f"p{player}"]
        if deck is None:
            return out[0]
        team = player & 1
        if self.private:
            out.append("hand:" + " ".join(card_text(c) for c in sorted(deck.hands[player])))
            if deck.face_down_team == team:
                out.append("face_down:" + " ".join(card_text(c) for c in deck.middle[:3]))
            if self.recall:
                dealt = [c for k in range(deck.deal_index) for c in deck.deals[k][player]]
                out.append("dealt:" + " ".join(card_text(c) for c in dealt))
        if self.public:
            out.append("top:" + (card_text(deck.pile[-1]) if deck.pile else "--"))
            out.append(f"pile:{len(deck.pile)} face_up:{card_text(deck.middle[3])}")
            out.append(f"taken:{len(deck.taken[team])}/{len(deck.taken[1 - team])}")
            if self.recall:
                out.append("plays:" + " ".join(card_text(c) for c in deck.plays))
            else:
                out.append("played:" + " ".join(card_text(c) for c in sorted(deck.plays)))
                if deck.face_down_team is not None:
                    out.append(
                        f"face_down_team:{'own' if deck.face_down_team == team else 'other'}"
                    )
            if deck.counts is None:
                out.append(f"to_play:{deck.to_play}")
        return " ".join(out)


pyspiel.register_game(_GAME_TYPE, PishtiGame)
