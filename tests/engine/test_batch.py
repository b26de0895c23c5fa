"""The batch engine (pishti.engine.batch) against the reference Deck, and its own checks."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from test_pishti import OUTCOMES_A  # noqa: E402

from pishti.engine import DealError, IllegalPlay, deal_deck  # noqa: E402
from pishti.engine.batch import (  # noqa: E402
    DeckBatch,
    deal_batch,
    random_cards,
    reference_differences,
)
from support import (  # noqa: E402
    MIDDLE_A,
    MIDDLE_C,
    PLAYS_A,
    PLAYS_B,
    PLAYS_C,
    cards,
    deck_from_plays,
)


@pytest.mark.parametrize("players", [4, 2])
def test_batch_plays_as_the_reference_on_random_deals(players: int) -> None:
    batch = deal_batch(np.random.default_rng(players), 2000, players)
    assert reference_differences(batch, np.random.default_rng(10 + players)) == []
    assert batch.over


@pytest.mark.parametrize("players", [4, 2])
def test_batch_plays_as_the_reference_on_the_reference_deals(players: int) -> None:
    rng = random.Random(players)
    decks = [deal_deck(rng, players, i % players) for i in range(1000)]
    batch = DeckBatch.from_decks(decks)
    assert reference_differences(batch, np.random.default_rng(3)) == []


def test_a_difference_is_found() -> None:
    batch = deal_batch(np.random.default_rng(1), 50, 4)
    batch.pile[7, 1] += 1  # one ace more in deck 7's pile than its cards hold
    found = reference_differences(batch, np.random.default_rng(1))
    assert len(found) == 1 and found[0].startswith("deck 7: counts")


def _scenario(middle: str, plays: str) -> tuple[DeckBatch, list[int]]:
    deck = deck_from_plays(4, 3, middle, plays)
    batch = DeckBatch.from_decks([deck])
    outcomes = [int(batch.play(np.array([card]))[0]) for card in cards(plays)]
    return batch, outcomes


def test_r4_r5_scenario_a_by_hand() -> None:
    batch, outcomes = _scenario(MIDDLE_A, PLAYS_A)
    assert outcomes == OUTCOMES_A
    team0, team1 = batch.counts(0)
    # support.py works these out by hand: 18 and 38 points, team 1 most cards.
    assert (team0.cards, team0.aces, team0.jacks, team0.points) == (25, 2, 1, 18)
    assert (team1.cards, team1.most_cards, team1.pishtis, team1.jack_pishtis) == (27, True, 1, 1)
    assert team1.points == 38
    assert batch.face_down_team.tolist() == [1]


def test_r5_1_scenario_b_last_pile_to_the_last_capture() -> None:
    batch, _ = _scenario(MIDDLE_A, PLAYS_B)
    assert batch.points is not None and batch.points.tolist() == [[23, 33]]
    assert batch.counts(0)[0].cards == 40


def test_r5_3_scenario_c_nobody_has_most_cards() -> None:
    batch, _ = _scenario(MIDDLE_C, PLAYS_C)
    assert batch.points is not None and batch.points.tolist() == [[4, 9]]
    assert not batch.counts(0)[0].most_cards and not batch.counts(0)[1].most_cards


def test_r3_1_a_card_not_held_is_refused_and_nothing_changes() -> None:
    batch = deal_batch(np.random.default_rng(2), 3, 4)
    before = batch.hands.copy()
    cards_ = random_cards(batch, np.random.default_rng(0))
    cards_[1] = next(c for c in range(52) if c not in batch.hands[1, batch.to_play[1]])
    with pytest.raises(IllegalPlay, match="deck 1: seat"):
        batch.play(cards_)
    assert batch.plays == 0 and (batch.hands == before).all()


def test_the_deck_over_refuses_plays() -> None:
    batch = deal_batch(np.random.default_rng(2), 3, 2)
    rng = np.random.default_rng(0)
    for _ in range(48):
        batch.play(random_cards(batch, rng))
    with pytest.raises(IllegalPlay, match="over"):
        batch.play(np.zeros(3, dtype=np.int64))
    assert not batch.legal_mask().any()


def test_legal_mask_is_the_hand_to_play() -> None:
    batch = deal_batch(np.random.default_rng(4), 5, 4)
    batch.play(random_cards(batch, np.random.default_rng(0)))
    mask = batch.legal_mask()
    for i in range(5):
        deck_hand = batch.hands[i, batch.to_play[i]]
        assert sorted(np.nonzero(mask[i])[0].tolist()) == sorted(deck_hand[deck_hand >= 0])
        assert mask[i].sum() == 4


def test_r2_2_no_jack_on_top_and_every_deal_valid() -> None:
    batch = deal_batch(np.random.default_rng(9), 3000, 4, dealer=2)
    assert not (batch.middle[:, 3] >> 2 == 10).any()
    DeckBatch.from_layout(4, batch.dealer, batch.middle, batch.deals)  # checks all 3000
    assert (batch.to_play == 3).all()


def test_from_layout_names_the_broken_deck() -> None:
    batch = deal_batch(np.random.default_rng(9), 4, 4)
    deals = batch.deals.copy()
    deals[2, 0, 0, 0] = deals[2, 0, 0, 1]  # a card twice in deck 2
    with pytest.raises(DealError, match="deck 2: the deal is not 52 distinct cards"):
        DeckBatch.from_layout(4, batch.dealer, batch.middle, deals)
