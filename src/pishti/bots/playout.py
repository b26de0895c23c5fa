"""Playouts and exact endgames on sampled decks, for the expert's search.

Every card is played through :meth:`Deck.play`, the one implementation of the
rules; this module only copies decks and chooses cards.  A playout plays the
rest of the deck with the standard policy (:func:`standard_card`) at every
seat; :func:`solve` plays it out exactly (both teams at their best, or the
other team by given policies) when few cards remain.  Values are the deck's
points of one team less the other's (R5.2).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from pishti.bots.knowledge import Knowledge
from pishti.bots.opponents import (
    GREEDY,
    OPPORTUNIST,
    STANDARD,
    check_policies,
    greedy_policy,
    opportunist_capture,
)
from pishti.bots.standard import standard_card
from pishti.engine.cards import CARD_POINTS, Card
from pishti.engine.deck import MOST_CARDS, PLAYS_PER_DECK, Deck


def clone_deck(deck: Deck) -> Deck:
    """Return an independent copy of ``deck`` in its current state (every slot copied)."""
    new = Deck.__new__(Deck)
    new.players = deck.players
    new.dealer = deck.dealer
    new.middle = deck.middle
    new.deals = deck.deals
    new.deal_index = deck.deal_index
    new.hands = [hand[:] for hand in deck.hands]
    new.pile = deck.pile[:]
    new.to_play = deck.to_play
    new._next_seat = deck._next_seat
    new._per_deal = deck._per_deal
    new.plays = deck.plays[:]
    new.taken = [deck.taken[0][:], deck.taken[1][:]]
    new.pishtis = deck.pishtis[:]
    new.jack_pishtis = deck.jack_pishtis[:]
    new.pishti_cards = [deck.pishti_cards[0][:], deck.pishti_cards[1][:]]
    new.face_down_team = deck.face_down_team
    new.last_capture_team = deck.last_capture_team
    new.counts = deck.counts
    new.final_pile = deck.final_pile
    return new


def deck_margin(deck: Deck, team: int) -> int:
    """``team``'s points less the other team's in a counted deck (R5.2).

    Raises:
        ValueError: the deck is not over.
    """
    counts = deck.counts
    if counts is None:
        raise ValueError("the deck is not over")
    return counts[team].points - counts[1 - team].points


def playout(deck: Deck, knowledge: Knowledge, team: int, stop: int = PLAYS_PER_DECK) -> float:
    """Play ``deck`` with the standard policy at every seat, to its end or ``stop``.

    ``knowledge`` must describe ``deck``'s position (it is updated in place);
    each seat decides from it and its own hand only.

    Args:
        stop: stop once this many cards of the deck have been played (48 plays
            the deck out) and :func:`evaluate` the position.
    Returns:
        ``team``'s deck points less the other team's (expected, when stopped early).
    """
    observe = knowledge.observe
    plays = deck.plays
    while deck.counts is None:
        if len(plays) >= stop:
            return evaluate(deck, team)
        seat = deck.to_play
        hand = deck.hands[seat]
        card = hand[0] if len(hand) == 1 else standard_card(hand, seat, knowledge)
        observe(seat, card, deck.play(card))
    counts = deck.counts
    return counts[team].points - counts[1 - team].points


def mixed_playout(
    deck: Deck,
    knowledge: Knowledge,
    team: int,
    policies: Sequence[int],
    rng: random.Random,
    stop: int = PLAYS_PER_DECK,
) -> float:
    """Like :func:`playout`, each seat playing its own policy of
    :data:`~pishti.bots.opponents.POLICIES` (``policies[seat]``: standard,
    greedy, a card drawn from ``rng``, or the opportunist's capture, else a
    card drawn from ``rng``)."""
    observe = knowledge.observe
    plays = deck.plays
    while deck.counts is None:
        if len(plays) >= stop:
            return evaluate(deck, team)
        seat = deck.to_play
        hand = deck.hands[seat]
        if len(hand) == 1:
            card = hand[0]
        else:
            policy = policies[seat]
            if policy == STANDARD:
                card = standard_card(hand, seat, knowledge)
            elif policy == GREEDY:
                card = greedy_policy(hand, deck.pile[-1] if deck.pile else None)
            else:
                take = None
                if policy == OPPORTUNIST:
                    take = opportunist_capture(hand, deck.pile[-1] if deck.pile else None)
                card = hand[rng.randrange(len(hand))] if take is None else take
        observe(seat, card, deck.play(card))
    counts = deck.counts
    return counts[team].points - counts[1 - team].points


def most_cards_chance(held: int, rest: int) -> float:
    """Chance that a team holding ``held`` cards ends the deck with 27 or more
    (R5.3) when ``rest`` cards are still to be taken, each about as likely
    to go either way (a normal approximation; piles make the spread wider
    than a coin per card)."""
    need = MOST_CARDS - held
    if need <= 0:
        return 1.0
    if need > rest:
        return 0.0
    spread = 0.75 * math.sqrt(rest)
    return 0.5 * math.erfc((need - 0.5 - rest / 2) / (spread * math.sqrt(2.0)))


def evaluate(deck: Deck, team: int) -> float:
    """Expected points of ``team`` less the other's in a deck not yet over.

    What each team has taken counts in full (card points, pishtis, R5.2);
    most cards (R5.3) counts as each team's chance of reaching 27; the cards
    still out are as likely to go to either team and count for neither.
    """
    other = 1 - team
    taken = deck.taken
    value = 10.0 * (deck.pishtis[team] - deck.pishtis[other])
    value += 20.0 * (deck.jack_pishtis[team] - deck.jack_pishtis[other])
    value += sum(CARD_POINTS[c] for c in taken[team]) - sum(CARD_POINTS[c] for c in taken[other])
    mine = len(taken[team])
    theirs = len(taken[other])
    rest = 52 - mine - theirs
    value += 3.0 * (most_cards_chance(mine, rest) - most_cards_chance(theirs, rest))
    return value


def distinct_cards(hand: list[Card] | tuple[Card, ...]) -> list[Card]:
    """The cards of ``hand`` that play differently: one per (rank, card points).

    Two cards of one rank and the same card points (7C and 7H, or any two
    aces) have the same effect on every capture and count (R3, R5.2).
    """
    seen: set[int] = set()
    out = []
    for card in sorted(hand):
        key = (card >> 2) * 4 + CARD_POINTS[card]
        if key not in seen:
            seen.add(key)
            out.append(card)
    return out


def solve(
    deck: Deck,
    team: int,
    alpha: float = -1e9,
    beta: float = 1e9,
    policies: Sequence[int] | None = None,
) -> float:
    """The exact value of ``deck`` for ``team``: its seats at their best, the
    other seats at theirs or by the policies given.

    Every hand is known (a sampled deck); ``team``'s seats maximize its deck
    points less the other team's (R5.2).  The other seats minimize it
    (alpha-beta), unless ``policies`` gives a seat of the other team a policy
    of :data:`~pishti.bots.opponents.POLICIES` to play by: ``greedy`` plays
    :func:`~pishti.bots.opponents.greedy_policy`'s card, ``random`` each card
    of its hand alike (the value is their mean), ``opportunist`` its capture
    (:func:`~pishti.bots.opponents.opportunist_capture`), else each card
    alike; ``standard`` plays at its best, as without ``policies``.  The
    cost grows with the product of the hand sizes' factorials: keep it to
    the last few cards of a deck.

    Args:
        policies: per seat, an index of :data:`~pishti.bots.opponents.POLICIES`
            (the entries of ``team``'s seats are not used), or None.
    Returns:
        The value in points; a whole number without ``policies``, a mean
        over the cards of the seats playing alike otherwise.
    Raises:
        ValueError: ``policies`` is not one index of ``POLICIES`` per seat.
    """
    check_policies(policies, deck.players)
    return _solve(deck, team, alpha, beta, policies)


def _solve(
    deck: Deck, team: int, alpha: float, beta: float, policies: Sequence[int] | None
) -> float:
    """:func:`solve`, its ``policies`` checked."""
    if deck.counts is not None:
        counts = deck.counts
        return counts[team].points - counts[1 - team].points
    seat = deck.to_play
    hand = deck.hands[seat]
    maximize = seat & 1 == team
    policy = STANDARD if maximize or policies is None else policies[seat]
    if policy != STANDARD:
        top = deck.pile[-1] if deck.pile else None
        if policy == GREEDY:
            forced: Card | None = greedy_policy(hand, top)
        else:
            forced = opportunist_capture(hand, top) if policy == OPPORTUNIST else None
        if forced is not None:
            child = clone_deck(deck)
            child.play(forced)
            return _solve(child, team, alpha, beta, policies)
        total = 0.0
        for card in hand:  # every card alike, each searched in full
            child = clone_deck(deck)
            child.play(card)
            total += _solve(child, team, -1e9, 1e9, policies)
        return total / len(hand)
    cards = distinct_cards(hand)
    if maximize:
        best: float = -1_000_000
        for card in cards:
            child = clone_deck(deck)
            child.play(card)
            value = _solve(child, team, alpha, beta, policies)
            if value > best:
                best = value
                if best > alpha:
                    alpha = best
                    if alpha >= beta:
                        break
        return best
    best = 1_000_000
    for card in cards:
        child = clone_deck(deck)
        child.play(card)
        value = _solve(child, team, alpha, beta, policies)
        if value < best:
            best = value
            if best < beta:
                beta = best
                if alpha >= beta:
                    break
    return best
