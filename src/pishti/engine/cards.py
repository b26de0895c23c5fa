"""Cards as small integers, and their text notation (R1.1, R1.2).

A card is an ``int`` from 0 to 51: ``rank * 4 + suit``, where ``rank`` indexes
``RANKS`` (``A 2 3 4 5 6 7 8 9 T J Q K``) and ``suit`` indexes ``SUITS``
(``C D H S``).  So ``card >> 2`` is the rank and ``card & 3`` the suit.  Plain
integers keep the engine fast; :func:`card_text` and :func:`parse_card` convert
at the edges (files, logs, the CLI and the wire protocol).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product

from pishti.engine.errors import CardError

Card = int
"""A card: ``rank * 4 + suit``, 0..51 (R1.1)."""

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ACE = 0
JACK = 10
"""Rank indexes of the ace and the jack."""

TWO_OF_CLUBS: Card = 1 * 4 + 0
TEN_OF_DIAMONDS: Card = 9 * 4 + 1
ALL_CARDS: tuple[Card, ...] = tuple(range(52))

_TEXT: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_PARSE: dict[str, Card] = {}
"""Every text R1.2 accepts, and only those: each letter in either case (ASCII only)."""
for _card, _text in enumerate(_TEXT):
    for _form in (_text, "10" + _text[1]) if _text[0] == "T" else (_text,):
        for _cased in product(*({ch.lower(), ch.upper()} for ch in _form)):
            _PARSE["".join(_cased)] = _card

SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}

CARD_POINTS: tuple[int, ...] = tuple(
    3 if c == TEN_OF_DIAMONDS else 2 if c == TWO_OF_CLUBS else 1 if c >> 2 in (ACE, JACK) else 0
    for c in ALL_CARDS
)
"""Card points of each card (R5.2): ace 1, jack 1, two of clubs 2, ten of diamonds 3."""


def rank_of(card: Card) -> int:
    """Return the rank index (0 = ace ... 10 = jack ... 12 = king) of ``card`` (R1.1)."""
    return card >> 2


def suit_of(card: Card) -> int:
    """Return the suit index (0 clubs, 1 diamonds, 2 hearts, 3 spades) of ``card``."""
    return card & 3


def is_jack(card: Card) -> bool:
    """True when ``card`` is a jack (R3.3)."""
    return card >> 2 == JACK


def card_text(card: Card) -> str:
    """Return the short upper-case text of ``card``, e.g. ``"TD"`` (R1.2).

    Raises:
        CardError: ``card`` is not an int from 0 to 51.
    """
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 52:
        raise CardError(f"not a card: {card!r}")
    return _TEXT[card]


def card_symbol(card: Card) -> str:
    """Return ``card`` with a suit symbol for people, e.g. ``"10♦"``."""
    text = card_text(card)
    rank = "10" if text[0] == "T" else text[0]
    return rank + SUIT_SYMBOLS[text[1]]


def parse_card(text: str) -> Card:
    """Parse a card's text (R1.2): ``"TD"``, ``"10d"``, ``"2c"`` ...

    Accepts ``10`` for ``T`` and lower case, and nothing else: no surrounding
    spaces, and ASCII letters only (``"9ſ"``, whose long s Unicode would
    upper-case to ``S``, is not a card).

    Raises:
        CardError: ``text`` is not a card.
    """
    card = _PARSE.get(text) if isinstance(text, str) else None
    if card is None:
        raise CardError(f"not a card: {text!r}")
    return card


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse each text with :func:`parse_card`.

    Raises:
        CardError: one of them is not a card.
    """
    return [parse_card(t) for t in texts]


def cards_text(cards: Iterable[Card]) -> list[str]:
    """Return the short text of each card (R1.2)."""
    return [card_text(c) for c in cards]
