"""Level ``standard``: a careful human player who counts cards.

Each card in hand gets a value in points for the seat's team (R5.2: card
points, pishtis, and a share of the 3 points for most cards), and the best
card is played:

- **Capture** (R3.2, R3.3): the pile's known card points, the expected points
  of face-down cards still under it (R3.6), a little for each card taken (most
  cards, R5.3), 10 for a pishti and 20 for a jack pishti (R4.1, R4.2, never
  with the deck's last card, R4.5); less what the capturing card was worth
  keeping.  In the deck's last deal a capture is worth a little more: the
  last capture takes what is left on the table (R5.1), so the bot plays for
  the last take.
- **Lay a card**: minus the expected loss when the next seat, an opponent,
  takes the pile: it holds a card of that rank (hypergeometric over the
  cards this seat has not seen, and much less likely when that seat already
  passed on the rank this deal) or spends a jack on a pile worth it.  On an
  empty table this is the pishti risk, so the bot throws a rank that is mostly
  gone; a jack laid on an empty table risks a jack pishti.
- **Keeping cards**: a jack is kept for a pile worth taking, the more so the
  more cards of the deal remain in hand; a card whose rank others still hold
  may capture later; an ace, the two of clubs or the ten of diamonds is
  better used to capture than laid.
- **Partner**: captures are the team's; a valuable card laid on a pile the
  next opponent probably cannot take is left for the partner, who plays next
  but one (R1.3).

:func:`standard_card` is the policy itself; the expert uses it in its playouts.
The weights (:class:`Tactics`) were tuned in duplicate matches against
earlier versions of this bot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pishti.bots.knowledge import Knowledge, chance_to_hold
from pishti.engine.cards import CARD_POINTS, JACK, Card
from pishti.engine.deck import CARDS_PER_HAND, MOST_CARDS
from pishti.engine.view import SeatView


@dataclass(frozen=True, slots=True)
class Tactics:
    """The standard policy's weights, in points (R5.2) unless said otherwise.

    Attributes:
        card_weight: per card taken while most cards (R5.3) is still open.
        card_weight_decided: per card taken once a team holds 27 cards.
        jack_keep: what a jack is worth keeping while other cards of the deal remain in hand.
        jack_keep_per_card: added to ``jack_keep`` for each further card in hand beyond two.
        last_take: added to a capture in the deck's last deal (scaled down as
            the deck nears its end): the last capture takes what is left (R5.1).
        rank_keep: per unseen card of its rank, what a lone card of that rank
            is worth keeping (it may capture later).
        value_keep: share of its card points that an ace, 2C or TD is worth
            keeping to capture with.
        void_factor: how much less likely (a factor, 0..1) a seat holds a rank
            it passed on this deal.
        jack_use_points: the pile worth at which an opponent surely spends a jack.
        partner_share: share of a pile's worth that a pile the next seat leaves
            brings the team (the partner plays next but one, R1.3); doubled with
            two players, where the bot itself plays next but one.
    """

    card_weight: float = 0.35
    card_weight_decided: float = 0.02
    jack_keep: float = 1.6
    jack_keep_per_card: float = 0.5
    last_take: float = 1.0
    rank_keep: float = 0.25
    value_keep: float = 0.1
    void_factor: float = 0.1
    jack_use_points: float = 2.5
    partner_share: float = 0.1


TACTICS = Tactics()
"""The weights the ``standard`` level plays with."""

HOLD_CHANCE: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
    tuple(tuple(chance_to_hold(held, pool, wanted) for wanted in range(5)) for pool in range(53))
    for held in range(CARDS_PER_HAND + 1)
)
"""``HOLD_CHANCE[held][pool][wanted]``: :func:`chance_to_hold`, looked up."""


def standard_card(
    hand: Sequence[Card], seat: int, k: Knowledge, tactics: Tactics = TACTICS
) -> Card:
    """Return the card a careful player at ``seat`` plays from ``hand`` (see module doc).

    Args:
        hand: the seat's cards, at least one.
        seat: the seat to play.
        k: the deck's public knowledge (cards played, pile, sizes, voids).
        tactics: the weights.
    Returns:
        The card of ``hand`` with the best :func:`card_values`; ties go to the
        lower card (the bot is deterministic).
    """
    if len(hand) == 1:
        return hand[0]
    values = card_values(hand, seat, k, tactics)
    best = hand[0]
    best_value = values[0]
    for card, value in zip(hand, values, strict=True):
        if value > best_value or (value == best_value and card < best):
            best, best_value = card, value
    return best


def card_values(
    hand: Sequence[Card], seat: int, k: Knowledge, tactics: Tactics = TACTICS
) -> list[float]:
    """The standard policy's value of playing each card of ``hand``, in points for
    the seat's team (see the module doc), in the order of ``hand``."""
    players = k.players
    team = seat & 1
    t = tactics
    # What this seat has not seen: the public unseen cards less its hand (and
    # less the face-down cards when its team took them, R3.6).
    unseen = k.unseen
    in_hand = [0] * 13
    seen = [0] * 13
    pool = k.unseen_count
    pool_points = k.unseen_points
    for card in hand:
        in_hand[card >> 2] += 1
        seen[card >> 2] += 1
        pool -= 1
        pool_points -= CARD_POINTS[card]
    down = k.face_down
    if down is not None and k.face_down_team == team:
        for card in down:
            seen[card >> 2] += 1
            pool -= 1
            pool_points -= CARD_POINTS[card]
    pile = k.pile
    hidden = k.pile_hidden
    size = len(pile) + hidden
    top_rank = pile[-1] >> 2 if pile else -1
    pile_value = k.pile_points + (hidden * pool_points / pool if pool else 0.0)
    plays_left = k.plays_left
    last_card = plays_left == 1
    taken = k.taken_counts
    weight = t.card_weight if max(taken) < MOST_CARDS else t.card_weight_decided
    size_weight = weight * (size + 1)

    following = (seat + 1) % players
    held = k.hand_sizes[following]
    voids = k.voids[following]
    if held == 0 and k.stock_size:
        held = CARDS_PER_HAND  # the deal ends with this card: new hands come from the stock
        voids = 0
    chances = HOLD_CHANCE[held][pool]
    jack_chance = chances[unseen[JACK] - seen[JACK]]

    many = len(hand)
    jack_keep = t.jack_keep + t.jack_keep_per_card * (many - 2)
    # In the last deal a capture may be the last one, which takes what is left (R5.1).
    last_take = 0.0 if k.stock_size else t.last_take * (plays_left - 1) / plays_left
    share = t.partner_share if players == 4 else 2 * t.partner_share
    rank_keep = t.rank_keep
    value_keep = t.value_keep
    jack_use = t.jack_use_points

    values = []
    for card in hand:
        rank = card >> 2
        points = CARD_POINTS[card]
        others = unseen[rank] - seen[rank]
        if rank == JACK:
            keep = jack_keep
        else:
            keep = rank_keep * others / in_hand[rank] + value_keep * points
        if size and rank in (JACK, top_rank):
            value = pile_value + points + size_weight - keep + last_take
            if size == 1 and rank == top_rank and not last_card:
                value += 20 if rank == JACK else 10
        elif last_card:
            # The pile goes to the team that captured last (R5.1).
            gain = pile_value + points + size_weight
            value = gain if k.last_capture_team == team else -gain
        else:
            match = chances[others]
            if voids >> rank & 1:
                match *= t.void_factor
            worth = pile_value + points + size_weight
            if rank == JACK or (not size and not points):
                # A lone low card is not worth a jack; a laid jack is taken only by a jack.
                take = match
            else:
                use = worth / jack_use
                take = 1.0 - (1.0 - match) * (1.0 - jack_chance * (use if use < 1.0 else 1.0))
            value = -take * worth - keep + (1.0 - take) * share * worth
            if not size:
                value -= match * (20 if rank == JACK else 10)
        values.append(value)
    return values


class StandardBot:
    """Level ``standard``: counts cards and plays :func:`standard_card`.

    Deterministic: the same view always gives the same card; ``seed`` is
    accepted for the common bot signature.
    """

    name = "standard"

    def __init__(self, seed: int | None = None, tactics: Tactics = TACTICS) -> None:
        """``seed`` is unused (the standard bot is deterministic); ``tactics`` are its weights."""
        self.seed = seed
        self.tactics = tactics

    def choose(self, view: SeatView) -> Card:
        """Return the card to play from ``view.legal_cards`` (R3.1, R7.7).

        Raises:
            ValueError: it is not this seat's turn (no legal card).
        """
        legal = view.legal_cards
        if not legal:
            raise ValueError(f"seat {view.seat} has no card to play now")
        return standard_card(legal, view.seat, Knowledge.from_view(view), self.tactics)
