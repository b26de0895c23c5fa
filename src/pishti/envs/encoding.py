"""The observation of one seat as a vector of numbers: what the seat may see (R7.7), no more.

Everything is from the seat's side: "own" is the seat's team, seats are
counted from the seat itself in the order of play (0 the seat, 1 the next to
play, ...).  The vector is ``float32`` of :func:`observation_size` numbers:

=====  ======================  ==============================================
start  length                  holds (1.0 for a card that is there, else 0.0)
=====  ======================  ==============================================
0      52                      the seat's hand
52     52                      the pile's top card (R3.5: none on an empty table)
104    52                      the cards played so far in this deck (face up, public)
156    52                      the card turned face up on the middle at the deal (R2.2)
208    52                      the three face-down cards, once the seat's team took them (R3.6)
260    52                      the own team's pishti cards (R4.6)
312    52                      the other team's pishti cards (R4.6)
364    1                       cards in the pile / 52
365    1                       cards still to be dealt / 48
366    players                 cards in each hand / 4, from the seat on
.      2                       cards taken this deck by the own and the other team / 52
.      2                       1.0 if the own / the other team took the face-down cards
.      players                 the seat to play, one-hot from the seat on
.      players                 the dealer, one-hot from the seat on
.      2                       match points of the own and the other team / target
                               (0 when an episode is one deck)
=====  ======================  ==============================================

:func:`observation_from_view` builds it from a :class:`SeatView`, the engine's
one filter of hidden cards, so it cannot hold what the seat may not see; the
environments build the same vector straight from the match, faster
(:func:`observation_from_match`), and the tests check that both agree at every
step.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from pishti.engine.cards import Card
from pishti.engine.deck import Deck
from pishti.engine.match import Match
from pishti.engine.view import SeatView

HAND = 0
TOP = 52
PLAYED = 104
FACE_UP = 156
FACE_DOWN = 208
OWN_PISHTIS = 260
OTHER_PISHTIS = 312
SCALARS = 364
"""Where each part of the vector starts (see the module's table)."""

Observation = NDArray[np.float32]


def observation_size(players: int) -> int:
    """Length of the observation vector for ``players`` (4 or 2): 384 or 378."""
    return SCALARS + 8 + 3 * players


def observation_high(players: int) -> NDArray[np.float32]:
    """The largest value of each number of the vector: 2 for the match points, else 1."""
    high = np.ones(observation_size(players), dtype=np.float32)
    high[-2:] = 2.0
    return high


def _encode(
    players: int,
    seat: int,
    hand: list[Card] | tuple[Card, ...],
    top: Card | None,
    played: list[Card] | PlayedCards,
    face_up: Card,
    face_down: tuple[Card, ...] | None,
    pishti_cards: tuple[list[Card] | tuple[Card, ...], list[Card] | tuple[Card, ...]],
    pile_size: int,
    stock_size: int,
    hand_sizes: list[int],
    taken: tuple[int, int],
    face_down_team: int | None,
    to_play: int | None,
    dealer: int,
    totals: tuple[int, int] | None,
    target: int,
) -> Observation:
    team = seat & 1
    out = np.zeros(observation_size(players), dtype=np.float32)
    ones = [HAND + c for c in hand]
    if top is not None:
        ones.append(TOP + top)
    if isinstance(played, PlayedCards):
        out[PLAYED : PLAYED + 52] = played.plane
    else:
        ones += [PLAYED + c for c in played]
    ones.append(FACE_UP + face_up)
    if face_down is not None:
        ones += [FACE_DOWN + c for c in face_down]
    ones += [OWN_PISHTIS + c for c in pishti_cards[team]]
    ones += [OTHER_PISHTIS + c for c in pishti_cards[1 - team]]
    out[ones] = 1.0
    # the numbers after the cards, written at once (one numpy call instead of one per number)
    scalars = [pile_size / 52, stock_size / 48]
    scalars += [hand_sizes[(seat + k) % players] / 4 for k in range(players)]
    scalars += [taken[team] / 52, taken[1 - team] / 52, 0.0, 0.0]
    if face_down_team is not None:
        scalars[-2 + (face_down_team != team)] = 1.0
    seats = [0.0] * (2 * players)
    if to_play is not None:
        seats[(to_play - seat) % players] = 1.0
    seats[players + (dealer - seat) % players] = 1.0
    scalars += seats
    if totals is None:
        scalars += [0.0, 0.0]
    else:  # past the target only in the last deck: capped at 2
        scalars += [min(totals[team] / target, 2.0), min(totals[1 - team] / target, 2.0)]
    out[SCALARS:] = scalars
    return out


def observation_from_view(view: SeatView, whole_match: bool) -> Observation:
    """The observation of ``view.seat`` from its :class:`SeatView` (R7.7).

    Args:
        whole_match: False when an episode is one deck: the match points are then left at 0.
    """
    return _encode(
        view.players,
        view.seat,
        view.hand,
        view.top_card,
        [play.card for play in view.history],
        view.face_up,
        view.face_down,
        view.pishti_cards,
        view.pile_size,
        view.stock_size,
        list(view.hand_sizes),
        view.taken_counts,
        view.face_down_team,
        view.to_play,
        view.dealer,
        view.totals if whole_match else None,
        view.target,
    )


class PlayedCards:
    """The cards played in a deck as a 52-number plane, kept up to date a card at a time.

    Writing the plane of the deck's (up to 48) plays anew for every
    observation took a tenth of an environment step; :meth:`of` adds only the
    cards played since the last call, and starts again for a new deck.
    """

    def __init__(self) -> None:
        self.plane = np.zeros(52, dtype=np.float32)
        self._deck: Deck | None = None
        self._count = 0

    def of(self, deck: Deck) -> PlayedCards:
        """Bring the plane up to ``deck.plays`` and return ``self``."""
        plays = deck.plays
        if deck is not self._deck or len(plays) < self._count:
            self.plane[:] = 0.0
            self._deck = deck
            self._count = 0
        plane = self.plane
        for card in plays[self._count :]:
            plane[card] = 1.0
        self._count = len(plays)
        return self


def observation_from_match(
    match: Match, seat: int, whole_match: bool, played: PlayedCards | None = None
) -> Observation:
    """The same vector as :func:`observation_from_view` of ``seat_view(match, seat)``.

    Reads the match's state directly, taking only what R7.7 shows the seat.
    ``played``, when given, keeps the plane of played cards between calls.
    """
    deck = match.deck
    team = seat & 1
    return _encode(
        match.players,
        seat,
        deck.hands[seat],
        deck.pile[-1] if deck.pile else None,
        deck.plays if played is None else played.of(deck),
        deck.middle[3],
        deck.middle[:3] if deck.face_down_team == team else None,
        (deck.pishti_cards[0], deck.pishti_cards[1]),
        len(deck.pile),
        deck.stock_size,
        [len(h) for h in deck.hands],
        (len(deck.taken[0]), len(deck.taken[1])),
        deck.face_down_team,
        match.to_play,
        deck.dealer,
        (match.totals[0], match.totals[1]) if whole_match else None,
        match.target,
    )


def action_mask(match: Match, seat: int) -> NDArray[np.int8]:
    """``(52,)`` int8: 1 for each card ``seat`` may play now (R3.1), all 0 off its turn."""
    mask = np.zeros(52, dtype=np.int8)
    if match.to_play == seat:
        mask[match.deck.hands[seat]] = 1
    return mask
