"""Chance is pinned: tables kept in a database were dealt by this exact code.

A table's deck ``n`` of match ``m`` is dealt from ``random.Random(f"{seed}:{m}:{n}")``
and its first dealer drawn from ``random.Random(f"{seed}:{m}:dealer")``.  A table
whose log does not hold its decks' layouts is rebuilt by dealing them again, so a
change to :func:`shuffled_cards` or :func:`deal_deck` that alters their output
would silently change tables already stored: this test fails first.
"""

from __future__ import annotations

import random

from pishti.engine import card_text, deal_deck
from pishti.engine.deck import shuffled_cards


def test_the_shuffle_of_a_pinned_seed_is_exactly_this_order() -> None:
    order = " ".join(card_text(c) for c in shuffled_cards(random.Random("golden-seed-1:1:0")))
    assert order == (
        "7H AS TD 3C 8S QD 2D 4C 9C KD JH 6S KC 7D 7C 6D QS 5C 5D 8C 9H JS KS 3D 2H 4S "
        "5H 6H QH AC 4H QC 5S JD 8D TC 3S AD 9D KH 3H TH JC 2S 8H AH TS 2C 4D 6C 7S 9S"
    )


def test_the_deal_of_a_pinned_seed_is_exactly_this_deal() -> None:
    deck = deal_deck(random.Random("golden-seed-1:1:0"), 4, 2)
    assert deck.dealer == 2
    assert [card_text(c) for c in deck.middle] == ["7H", "AS", "TD", "3C"]
    assert [[" ".join(card_text(c) for c in hand) for hand in deal] for deal in deck.deals] == [
        ["9C KD JH 6S", "KC 7D 7C 6D", "QS 5C 5D 8C", "8S QD 2D 4C"],
        ["2H 4S 5H 6H", "QH AC 4H QC", "5S JD 8D TC", "9H JS KS 3D"],
        ["3H TH JC 2S", "8H AH TS 2C", "4D 6C 7S 9S", "3S AD 9D KH"],
    ]


def test_the_first_dealer_of_a_pinned_seed() -> None:
    assert random.Random("golden-seed-1:1:dealer").randrange(4) == 2
