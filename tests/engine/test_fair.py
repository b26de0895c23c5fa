"""Provably fair deals (R11): the worked example of RULES.md is a test vector."""

from __future__ import annotations

import hashlib
import hmac
import random
import re
from pathlib import Path

import pytest

from pishti.engine import JACK, Deck, card_text, cards_text, parse_cards
from pishti.engine.fair import (
    ByteStream,
    FairSeeds,
    deck_label,
    fair_deck,
    fair_first_dealer,
    fair_match,
    fair_order,
)

RULES = Path(__file__).resolve().parents[2] / "RULES.md"


def _vector() -> dict[str, str]:
    """The ``key: value`` lines of R11.8's text blocks."""
    text = RULES.read_text(encoding="utf-8")
    section = text[text.index("- R11.8") : text.index("- R11.9")]
    lines: dict[str, str] = {}
    for block in re.findall(r"```text\n(.*?)```", section, re.S):
        for line in block.splitlines():
            key, _, value = line.partition(":")
            lines[key.strip()] = value.strip()
    return lines


V = _vector()


def _hands(text: str) -> list[list[int]]:
    """``seat 0 AS 6S 2S 3C; seat 1 ...`` -> the hands by seat."""
    out = []
    for n, part in enumerate(text.split(";")):
        words = part.split()
        assert words[:2] == ["seat", str(n)]
        out.append(parse_cards(words[2:]))
    return out


def _seeds(players: int) -> FairSeeds:
    return FairSeeds(
        bytes.fromhex(V["server seed"]),
        tuple(bytes.fromhex(V[f"seat seed {s}"]) for s in range(players)),
        1,
    )


def test_the_vector_is_complete() -> None:
    assert len(V) == 19  # every line below is checked by a test here


def test_worked_example_keys_and_stream() -> None:  # R11.1-R11.4
    seeds = _seeds(4)
    assert hashlib.sha256(seeds.server_seed).hexdigest() == V["commitment"] == seeds.commitment
    assert seeds.key.hex() == V["K"]
    # the stream by hand: HMAC-SHA256(K, "pishti/deal/1/1/0")
    block = hmac.new(seeds.key, b"pishti/deal/1/1/0", hashlib.sha256).hexdigest()
    assert block == V["deck 1 block 0"]
    stream = ByteStream(seeds.key, deck_label(1, 1))
    assert stream.block(0).hex() == block
    draws = [stream.below(i + 1) for i in range(51, 46, -1)]
    assert draws == [int(x) for x in V["deck 1 first draws"].split()]
    assert int(block[:8], 16) % 52 == draws[0]


def test_worked_example_first_deal() -> None:  # R11.5-R11.7
    seeds = _seeds(4)
    first = fair_first_dealer(seeds, 4)
    assert first == int(V["first dealer"])
    deck = fair_deck(seeds, 1, 4, first)
    assert " ".join(cards_text(deck.middle)) == V["deck 1 middle"]
    assert [list(h) for h in deck.deals[0]] == _hands(V["deck 1 deal 0"])


def test_worked_example_jack_returned() -> None:  # R2.2, R11.6
    seeds = _seeds(4)
    stream = ByteStream(seeds.key, deck_label(1, 4))
    cards = list(range(52))
    for i in range(51, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    assert " ".join(cards_text(cards[:8])) == V["deck 4 shuffled 0-7"]
    assert cards[3] >> 2 == JACK
    assert stream.below(49) == int(V["deck 4 jack place"])
    middle, stock, _ = fair_order(seeds, 4)
    assert " ".join(cards_text(middle)) == V["deck 4 middle"]
    assert stock.index(cards[3]) == int(V["deck 4 jack place"]) - 1  # one card turned up after it


def test_worked_example_two_players() -> None:  # R8, R11.2, R11.7
    seeds = _seeds(2)
    assert seeds.key.hex() == V["two players K"]
    first = fair_first_dealer(seeds, 2)
    assert first == int(V["two players first dealer"])
    deck = fair_deck(seeds, 1, 2, first)
    assert " ".join(cards_text(deck.middle)) == V["two players deck 1 middle"]
    assert [list(h) for h in deck.deals[0]] == _hands(V["two players deck 1 deal 0"])


def test_rejection_sampling_discards_the_biased_tail() -> None:  # R11.4
    class Fixed(ByteStream):
        def __init__(self, values: list[int]) -> None:
            super().__init__(b"k" * 32, "x")
            self._bytes = b"".join(v.to_bytes(4, "big") for v in values)

        def read(self, n: int) -> bytes:
            out, self._bytes = self._bytes[:n], self._bytes[n:]
            return out

    limit = 2**32 - 2**32 % 52  # 4294967248
    assert Fixed([limit, 2**32 - 1, limit - 1]).below(52) == (limit - 1) % 52
    assert Fixed([105]).below(52) == 1
    assert Fixed([2**32 - 1]).below(2**32 >> 1) == (2**32 >> 1) - 1  # a power of two: no discard


@pytest.mark.parametrize("players", [4, 2])
def test_fair_decks_are_valid_deals(players: int) -> None:  # R2, R8.1
    rng = random.Random(5)
    for _ in range(60):
        seeds = FairSeeds(rng.randbytes(32), tuple(rng.randbytes(16) for _ in range(players)), 3)
        dealer = fair_first_dealer(seeds, players)
        for number in (1, 2):
            deck = fair_deck(seeds, number, players, dealer)
            checked = Deck.from_layout(players, dealer, deck.middle, deck.deals)
            assert checked.middle[3] >> 2 != JACK
            dealer = (dealer + 1) % players


def test_every_seed_and_number_changes_the_deal() -> None:  # R11.2, R11.3
    seeds = _seeds(4)
    base = fair_deck(seeds, 1, 4, 1).deals
    swapped = FairSeeds(
        seeds.server_seed, (seeds.seat_seeds[1], seeds.seat_seeds[0], *seeds.seat_seeds[2:])
    )
    assert fair_deck(swapped, 1, 4, 1).deals != base
    assert fair_deck(FairSeeds(seeds.server_seed, seeds.seat_seeds, 2), 1, 4, 1).deals != base
    assert fair_deck(seeds, 2, 4, 1).deals != base


def test_first_cards_spread_over_the_deck() -> None:  # R2.1: every card can come first
    rng = random.Random(1)
    seen = set()
    for _ in range(600):
        seeds = FairSeeds(rng.randbytes(32), tuple(rng.randbytes(16) for _ in range(4)))
        seen.add(fair_order(seeds, 1)[0][0])
    assert len(seen) == 52


def test_fair_match_deals_every_deck_from_the_seeds() -> None:
    seeds = _seeds(4)
    match = fair_match(4, 51, seeds)
    rng = random.Random(0)
    while not match.finished:
        match.play(rng.choice(match.legal_cards()))
    assert match.decks[0].dealer == 1
    for n, deck in enumerate(match.decks, start=1):
        want = fair_deck(seeds, n, 4, deck.dealer)
        assert (deck.middle, deck.deals) == (want.middle, want.deals)
        assert deck.dealer == (1 + n - 1) % 4
    assert card_text(match.decks[0].middle[3]) == "6C"
