"""Deck layouts for tests: matches from given deals, and deals that differ only in hidden cards."""

from __future__ import annotations

import random
from collections.abc import Sequence

from pishti.engine import Card, Deck, Match, deal_deck, parse_cards, team_of


def layout_match(
    middle: str,
    deals: Sequence[Sequence[str]],
    *,
    dealer: int = 3,
    target: int = 101,
    seed: int = 0,
) -> Match:
    """A match whose first deck is laid out as given (text cards, R1.2); later decks are random.

    ``deals[k][s]`` is a space-separated hand, e.g. ``"AS 2C 7D QH"``.
    """
    players = len(deals[0])
    first = Deck.from_layout(
        players,
        dealer,
        parse_cards(middle.split()),
        [[parse_cards(hand.split()) for hand in deal] for deal in deals],
    )
    rng = random.Random(seed)

    def source(number: int, dealer_now: int) -> Deck:
        return first if number == 0 else deal_deck(rng, players, dealer_now)

    return Match(players, target, first_dealer=dealer, deck_source=source)


def fill_layout(
    players: int, fixed: dict[str, str], middle_top: str = "5C"
) -> tuple[str, list[list[str]]]:
    """Complete a first deck from a few fixed hands.

    ``fixed`` maps ``"deal/seat"`` (e.g. ``"0/1"``) to a hand; every other hand
    and the three face-down cards get the remaining cards in card order.
    Returns ``(middle, deals)`` for :func:`layout_match`.
    """
    from pishti.engine import card_text

    n_deals = 48 // (4 * players)
    used = set(parse_cards(middle_top.split()))
    for hand in fixed.values():
        used.update(parse_cards(hand.split()))
    spare = [c for c in range(52) if c not in used and c >> 2 != 10]
    spare += [c for c in range(52) if c not in used and c >> 2 == 10]
    deals: list[list[str]] = []
    for k in range(n_deals):
        row = []
        for s in range(players):
            hand = fixed.get(f"{k}/{s}")
            if hand is None:
                hand = " ".join(card_text(spare.pop(0)) for _ in range(4))
            row.append(hand)
        deals.append(row)
    down = " ".join(card_text(spare.pop(0)) for _ in range(3))
    assert not spare
    return f"{down} {middle_top}", deals


def hidden_twin(match: Match, seat: int, rng: random.Random) -> Match:
    """Return a copy of ``match``'s current deck in which every card ``seat`` may not
    see (other hands, the stock, face-down cards its team did not take, R7.7) is
    shuffled among those places, with the same plays made so far.

    Raises:
        AssertionError: the match has played more than one deck.
    """
    assert len(match.decks) == 1
    deck = match.deck
    current = deck.deal_index - 1
    hidden: list[Card] = []
    for s in range(deck.players):
        if s != seat:
            hidden += deck.hands[s]
    for deal in deck.deals[current + 1 :]:
        for hand in deal:
            hidden += hand
    own_team_knows = deck.face_down_team == team_of(seat)
    if not own_team_knows:
        hidden += deck.middle[:3]
    rng.shuffle(hidden)
    it = iter(hidden)
    middle = list(deck.middle) if own_team_knows else [next(it), next(it), next(it), deck.middle[3]]
    deals: list[list[list[Card]]] = []
    for k, deal in enumerate(deck.deals):
        row = []
        for s, hand in enumerate(deal):
            if k < current or (k == current and s == seat):
                row.append(list(hand))
            elif k == current:
                held = deck.hands[s]
                played = [c for c in hand if c not in held]
                row.append(played + [next(it) for _ in held])
            else:
                row.append([next(it) for _ in hand])
        deals.append(row)
    twin_deck = Deck.from_layout(deck.players, deck.dealer, middle, deals)
    twin = Match(
        deck.players, match.target, first_dealer=deck.dealer, deck_source=lambda n, d: twin_deck
    )
    for card in deck.plays:
        twin.play(card)
    return twin
