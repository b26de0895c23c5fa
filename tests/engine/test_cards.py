"""Cards and their text (R1.1, R1.2)."""

from __future__ import annotations

import pytest

from pishti.engine import (
    ALL_CARDS,
    CardError,
    card_symbol,
    card_text,
    cards_text,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from pishti.engine.cards import CARD_POINTS, is_jack


def test_r1_1_one_deck_of_52_distinct_cards_13_ranks_4_suits() -> None:
    # R1.1: 52 cards, no jokers; every rank in every suit exactly once.
    assert len(ALL_CARDS) == 52
    texts = cards_text(ALL_CARDS)
    assert len(set(texts)) == 52
    assert sorted({t[0] for t in texts}) == sorted("A23456789TJQK")
    assert sorted({t[1] for t in texts}) == sorted("CDHS")
    for rank in "A23456789TJQK":
        assert sum(t[0] == rank for t in texts) == 4


def test_r1_1_rank_and_suit_of_a_card() -> None:
    # R1.1: card = rank * 4 + suit; ace 0 ... jack 10 ... king 12; C D H S.
    assert rank_of(parse_card("AS")) == 0
    assert rank_of(parse_card("JD")) == 10
    assert rank_of(parse_card("KC")) == 12
    assert suit_of(parse_card("KC")) == 0
    assert suit_of(parse_card("2D")) == 1
    assert suit_of(parse_card("QH")) == 2
    assert suit_of(parse_card("7S")) == 3
    assert [is_jack(parse_card(t)) for t in ("JC", "JS", "TC", "QS")] == [True, True, False, False]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TD", "TD"),  # R1.2 the ten of diamonds
        ("10d", "TD"),  # R1.2 10 for T, lower case
        ("10D", "TD"),
        ("td", "TD"),
        ("2c", "2C"),
        ("jh", "JH"),
        ("aS", "AS"),
        ("10S", "TS"),
        ("Kh", "KH"),
    ],
)
def test_r1_2_input_accepts_10_and_lower_case_output_is_short_upper(
    text: str, expected: str
) -> None:
    assert card_text(parse_card(text)) == expected


def test_r1_2_exact_card_numbers() -> None:
    # R1.2 and the int encoding: TD is rank 9, suit 1.
    assert parse_card("TD") == 9 * 4 + 1 == parse_card("10d")
    assert parse_card("2C") == 4
    assert parse_card("JH") == 10 * 4 + 2
    assert parse_cards(["AC", "10s", "kd"]) == [0, 39, 49]


@pytest.mark.parametrize("bad", ["XX", "", "1D", "11D", "T", "TDD", "ZC", "JX", "10", "0D", "🂡"])
def test_r1_2_bad_text_is_a_card_error(bad: str) -> None:
    with pytest.raises(CardError, match="not a card"):
        parse_card(bad)


REFUSED_FORMS = [
    " 6S",  # a space before
    "4S ",  # a space after
    " AS ",
    "\t7C",
    "7C\n",
    "7 C",
    "9\u017f",  # LATIN SMALL LETTER LONG S: Unicode upper-cases it to S
    "\u0131S",  # dotless i (no rank, but upper-cases to I)
    "K\u212a",  # KELVIN SIGN, which lower-cases to k
    "\uff21S",  # FULLWIDTH LATIN CAPITAL LETTER A
    "A\uff33",  # FULLWIDTH S
    "\u0669S",  # ARABIC-INDIC DIGIT NINE
    "\uff11\uff10D",  # fullwidth 10
    "1\u2070D",  # a superscript zero
    "\u00bdS",
    "10\u00a0D",  # a no-break space inside
    "T\u200bD",  # a zero-width space inside
    "010D",
    "+2C",
]
"""Texts that look like cards to a lenient reader and that R1.2 does not allow."""


@pytest.mark.parametrize("bad", REFUSED_FORMS)
def test_r1_2_only_ascii_without_spaces_is_read(bad: str) -> None:
    # R1.2 allows 10 for T and lower case, nothing more: no surrounding spaces, no
    # Unicode case mapping or digits.
    with pytest.raises(CardError, match="not a card"):
        parse_card(bad)


def test_r1_2_non_strings_and_bad_numbers_are_card_errors() -> None:
    with pytest.raises(CardError):
        parse_card(5)  # type: ignore[arg-type]
    with pytest.raises(CardError):
        parse_cards(["AS", "XX"])
    for bad in (-1, 52, True, "AS"):
        with pytest.raises(CardError):
            card_text(bad)  # type: ignore[arg-type]


def test_r1_2_every_card_round_trips_through_its_text() -> None:
    for card in ALL_CARDS:
        text = card_text(card)
        assert len(text) == 2 and text == text.upper()
        assert parse_card(text) == card
        assert parse_card(text.lower()) == card


def test_card_symbol_for_people() -> None:
    assert card_symbol(parse_card("TD")) == "10\u2666"
    assert card_symbol(parse_card("AS")) == "A\u2660"


def test_r5_2_card_points_table() -> None:
    # R5.2: each ace 1, each jack 1, the two of clubs 2, the ten of diamonds 3.
    points = {card_text(c): p for c, p in enumerate(CARD_POINTS) if p}
    assert points == {
        "AC": 1, "AD": 1, "AH": 1, "AS": 1,
        "JC": 1, "JD": 1, "JH": 1, "JS": 1,
        "2C": 2, "TD": 3,
    }  # fmt: skip
    assert sum(CARD_POINTS) == 13
