"""The deal: shuffle, dealer, middle, hands, first seat (R2.1-R2.4)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pishti.engine import ALL_CARDS, DealError, Deck, Match, card_text, deal_deck
from pishti.engine.cards import is_jack
from pishti.engine.deck import shuffled_cards
from support import MIDDLE_A, PLAYS_A, cards, deals_from_plays, play_all


def _deal_order(deck: Deck) -> list[int]:
    """The stock as dealt: deal by deal, the seat after the dealer first."""
    first = (deck.dealer + 1) % deck.players
    out: list[int] = []
    for deal in deck.deals:
        for i in range(deck.players):
            out.extend(deal[(first + i) % deck.players])
    return out


def _seeds_turning_up_a_jack(count: int) -> list[int]:
    """Seeds whose shuffle puts a jack face up on the middle (R2.2)."""
    found = []
    seed = 0
    while len(found) < count:
        if is_jack(shuffled_cards(random.Random(seed))[3]):
            found.append(seed)
        seed += 1
    return found


# -- R2.1 ---------------------------------------------------------------------


def test_r2_1_shuffle_is_a_permutation_and_seeded() -> None:
    a = shuffled_cards(random.Random(5))
    assert sorted(a) == list(ALL_CARDS)
    assert a == shuffled_cards(random.Random(5))
    assert a != shuffled_cards(random.Random(6))


def test_r2_1_shuffle_spreads_every_card_over_the_positions() -> None:
    # R2.1 uniform shuffle: over 5200 seeded shuffles each card sits in the top
    # position about 100 times (binomial, sd ~ 10); the bounds are 5 sd wide.
    rng = random.Random(2024)
    tops = Counter(shuffled_cards(rng)[0] for _ in range(5200))
    assert set(tops) == set(ALL_CARDS)
    assert min(tops.values()) >= 50 and max(tops.values()) <= 150
    # and the ace of spades is spread over all 52 positions
    ace = cards("AS")[0]
    where = Counter(shuffled_cards(rng).index(ace) for _ in range(5200))
    assert len(where) == 52


def test_r2_1_first_dealer_is_drawn_at_random() -> None:
    dealers = Counter(Match(4, seed=s).decks[0].dealer for s in range(400))
    assert set(dealers) == {0, 1, 2, 3}
    assert min(dealers.values()) >= 60  # each about 100
    two = Counter(Match(2, seed=s).decks[0].dealer for s in range(200))
    assert set(two) == {0, 1} and min(two.values()) >= 60


@pytest.mark.parametrize("players", [4, 2])
def test_r2_1_the_deal_moves_one_seat_to_the_right_after_every_deck(players: int) -> None:
    rng = random.Random(11)
    match = Match(players, target=151, seed=3)
    while not match.finished:
        match.play(rng.choice(match.legal_cards()))
    first = match.decks[0].dealer
    assert len(match.decks) >= 3
    assert [d.dealer for d in match.decks] == [
        (first + k) % players for k in range(len(match.decks))
    ]


# -- R2.2 ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 2])
def test_r2_2_middle_is_three_face_down_then_a_face_up_non_jack(players: int) -> None:
    for seed in range(300):
        deck = deal_deck(random.Random(seed), players, seed % players)
        assert len(deck.middle) == 4
        assert not is_jack(deck.middle[3]), seed
        assert deck.pile == list(deck.middle)  # the face-up card is the pile's top
        assert deck.top_card == deck.middle[3]


def test_r2_2_a_jack_turned_up_goes_back_into_the_stock() -> None:
    seeds = _seeds_turning_up_a_jack(12)
    for seed in seeds:
        shuffled = shuffled_cards(random.Random(seed))
        deck = deal_deck(random.Random(seed), 4, 1)
        dealt = _deal_order(deck)
        turned = [c for c in shuffled[3:] if is_jack(c)]
        top = next(c for c in shuffled[3:] if not is_jack(c))
        # the face-down cards are untouched, the top is the next non-jack
        assert deck.middle[:3] == tuple(shuffled[:3])
        assert deck.middle[3] == top and not is_jack(deck.middle[3])
        # the jack that was turned up is now dealt to a seat
        assert shuffled[3] in dealt
        assert sorted(deck.middle + tuple(dealt)) == list(ALL_CARDS)
        # only jacks moved: the other cards keep their order
        rest = [c for c in shuffled[3:] if not is_jack(c) and c != top]
        assert [c for c in dealt if not is_jack(c)] == rest
        assert sorted(c for c in dealt if is_jack(c)) == sorted(turned)


class _Rigged(random.Random):
    """A generator whose ``randrange`` answers from a list: where the jack goes back."""

    def __init__(self, seed: int, positions: list[int]) -> None:
        super().__init__(seed)
        self.positions = positions
        self.asked: list[tuple[int, ...]] = []

    def randrange(self, *args: int) -> int:  # type: ignore[override]
        self.asked.append(args)
        return self.positions.pop(0)


def test_r2_2_returned_jack_lands_at_the_drawn_position_as_often_as_needed() -> None:
    seed = next(
        s for s in _seeds_turning_up_a_jack(50) if not is_jack(shuffled_cards(random.Random(s))[4])
    )
    shuffled = shuffled_cards(random.Random(seed))
    jack = shuffled[3]
    # Drawn position 0 puts the jack straight back on top: it is turned up again
    # and returned again, this time at 48, the very end of the stock.
    rng = _Rigged(seed, [0, 48])
    deck = deal_deck(rng, 4, 2)
    assert rng.asked == [(49,), (49,)]  # one of the 49 places around the 48 other cards
    assert deck.middle[3] == shuffled[4]
    last_seat = 2  # the dealer receives the last four cards of the last deal
    assert deck.deals[2][last_seat][-1] == jack
    # position 5: the jack becomes the fifth card of the stock (after the new top)
    rng = _Rigged(seed, [5])
    deck = deal_deck(rng, 4, 2)
    assert _deal_order(deck)[4] == jack
    assert _deal_order(deck)[:4] == shuffled[5:9]


def test_r2_2_from_layout_refuses_a_jack_on_top() -> None:
    deals = deals_from_plays(4, 3, cards(PLAYS_A))
    with pytest.raises(DealError, match=r"a jack \(JC\) is face up"):
        Deck.from_layout(4, 3, cards("5C KD 9S JC"), _swap(deals, "JC", "3H"))


def _swap(deals: list[list[list[int]]], a: str, b: str) -> list[list[list[int]]]:
    x, y = cards(f"{a} {b}")
    return [[[y if c == x else c for c in hand] for hand in deal] for deal in deals]


# -- R2.3 ---------------------------------------------------------------------


def test_r2_3_three_deals_of_four_cards_each_nothing_added_to_the_middle() -> None:
    deck = deal_deck(random.Random(8), 4, 0)
    assert len(deck.deals) == 3
    assert all(len(deal) == 4 and all(len(h) == 4 for h in deal) for deal in deck.deals)
    assert [len(h) for h in deck.hands] == [4, 4, 4, 4]
    assert deck.stock_size == 32
    for k in range(3):
        assert deck.deal_index == k + 1
        for _ in range(16):
            assert len(deck.pile) + sum(map(len, deck.hands)) <= 52
            pile_before = len(deck.pile)
            card = deck.hands[deck.to_play][0]
            outcome = deck.play(card)
            if outcome == 0 and not deck.over:
                assert len(deck.pile) == pile_before + 1  # nothing else lands on the pile
        if k < 2:
            assert [list(h) for h in deck.deals[k + 1]] == deck.hands  # the next four each
            assert deck.stock_size == 16 * (1 - k)
    assert deck.over and deck.stock_size == 0


def test_r2_3_deal_gives_four_consecutive_stock_cards_per_seat_after_the_dealer() -> None:
    seed = next(s for s in range(100) if not is_jack(shuffled_cards(random.Random(s))[3]))
    shuffled = shuffled_cards(random.Random(seed))
    deck = deal_deck(random.Random(seed), 4, 1)  # seat 2 is first to receive
    assert deck.middle == tuple(shuffled[:4])
    assert deck.deals[0][2] == tuple(shuffled[4:8])
    assert deck.deals[0][3] == tuple(shuffled[8:12])
    assert deck.deals[0][0] == tuple(shuffled[12:16])
    assert deck.deals[0][1] == tuple(shuffled[16:20])
    assert deck.deals[2][1] == tuple(shuffled[48:52])


def test_r2_3_hands_refill_only_when_every_hand_is_empty() -> None:
    deck = Deck.from_layout(4, 3, cards(MIDDLE_A), deals_from_plays(4, 3, cards(PLAYS_A)))
    play_all(deck, "4C 4D 7C 7D JC JD 8C JH 2C QC QD 6C 6D AC 2D")
    assert [len(h) for h in deck.hands] == [0, 0, 0, 1] and deck.deal_index == 1
    play_all(deck, "KC")
    assert [len(h) for h in deck.hands] == [4, 4, 4, 4] and deck.deal_index == 2
    assert deck.hands[0] == cards("3C 9C 6H 5H")


# -- R2.4 ---------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_r2_4_seat_after_the_dealer_plays_first_in_every_deal(dealer: int) -> None:
    rng = random.Random(dealer)
    deck = deal_deck(rng, 4, dealer)
    seats = []
    for n in range(48):
        if n % 16 == 0:
            assert deck.to_play == (dealer + 1) % 4, (dealer, n)
        seats.append(deck.to_play)
        deck.play(rng.choice(deck.hands[deck.to_play]))
    # R1.3: after seat i comes seat (i + 1) % 4
    assert seats == [(dealer + 1 + n) % 4 for n in range(48)]


def test_r2_4_match_reports_the_first_seat() -> None:
    match = Match(4, seed=9, first_dealer=2)
    started = match.events[0]
    assert started.type == "deck_started"
    assert (started.dealer, started.first_seat) == (2, 3)  # type: ignore[attr-defined]
    assert match.to_play == 3


# -- checked layouts ----------------------------------------------------------


def _layout_a() -> tuple[list[int], list[list[list[int]]]]:
    return cards(MIDDLE_A), deals_from_plays(4, 3, cards(PLAYS_A))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m, d: (3, 0, m, d), "players must be 4 or 2"),
        (lambda m, d: (4, 4, m, d), "dealer must be a seat from 0 to 3"),
        (lambda m, d: (4, 0, m[:3], d), "the middle must hold 4 cards, not 3"),
        (lambda m, d: (4, 0, m, d[:2]), "a 4-player deck has 3 deals, not 2"),
        (lambda m, d: (4, 0, m, [d[0][:3], d[1], d[2]]), "deal 1 must give cards to 4 seats"),
        (
            lambda m, d: (4, 0, m, [d[0], [d[1][0] + [0], *d[1][1:]], d[2]]),
            "deal 2 gives seat 0 5 cards, not 4",
        ),
        (
            lambda m, d: (4, 0, [m[0], m[0], m[2], m[3]], d),
            r"not 52 distinct cards \(twice: 5C; missing: KD\)",
        ),
        (lambda m, d: (2, 0, m, d), "a 2-player deck has 6 deals, not 3"),
    ],
)
def test_r2_from_layout_refuses_a_broken_deal(change, message: str) -> None:  # type: ignore[no-untyped-def]
    middle, deals = _layout_a()
    with pytest.raises(DealError, match=message):
        Deck.from_layout(*change(middle, deals))


def test_r2_from_layout_accepts_the_hand_made_deal() -> None:
    middle, deals = _layout_a()
    deck = Deck.from_layout(4, 3, middle, deals)
    assert [card_text(c) for c in deck.middle] == ["5C", "KD", "9S", "3H"]
    assert deck.hands[0] == cards("4C JC 2C 6D")
    assert deck.to_play == 0
