"""Provably fair deals (R11): every deck of a match derived from seeds anyone can check.

A match's deals come from a 32-byte server seed, published first as its
SHA-256 (the commitment), and one 16-byte seed per seat, fixed after the
commitment.  :func:`fair_deck` and :func:`fair_first_dealer` derive the decks
and the first dealer exactly as R11 writes them down, with nothing but
SHA-256 and HMAC-SHA256, so a third party can re-implement and check them.

Pure game logic: no server, no database, no clock.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pishti.engine.cards import ALL_CARDS, JACK, Card
from pishti.engine.deck import CARDS_PER_HAND, Deck
from pishti.engine.match import Match

SERVER_SEED_BYTES = 32
"""Length of the server seed (R11.1)."""
SEAT_SEED_BYTES = 16
"""Length of each seat seed (R11.1)."""


@dataclass(frozen=True, slots=True)
class FairSeeds:
    """The seeds of one match (R11.1).

    Attributes:
        server_seed: 32 bytes, secret until the match is over.
        seat_seeds: one 16-byte seed per seat, in seat order.
        match: the match's number at its table, from 1.
    """

    server_seed: bytes
    seat_seeds: tuple[bytes, ...]
    match: int = 1

    @property
    def commitment(self) -> str:
        """The SHA-256 of the server seed, in lower-case hex (R11.1)."""
        return commitment(self.server_seed)

    @property
    def key(self) -> bytes:
        """The match key K (R11.2)."""
        return match_key(self.server_seed, self.seat_seeds)


def commitment(server_seed: bytes) -> str:
    """The commitment to a server seed: its SHA-256 in lower-case hex (R11.1)."""
    return hashlib.sha256(server_seed).hexdigest()


def match_key(server_seed: bytes, seat_seeds: Sequence[bytes]) -> bytes:
    """K = SHA-256(server seed ‖ seat seed 0 ‖ seat seed 1 ‖ ...) (R11.2).

    Raises:
        ValueError: a seed of the wrong length (R11.1).
    """
    if len(server_seed) != SERVER_SEED_BYTES:
        raise ValueError(
            f"the server seed must be {SERVER_SEED_BYTES} bytes, not {len(server_seed)}"
        )
    for seat, seed in enumerate(seat_seeds):
        if len(seed) != SEAT_SEED_BYTES:
            raise ValueError(f"seat {seat}'s seed must be {SEAT_SEED_BYTES} bytes, not {len(seed)}")
    return hashlib.sha256(server_seed + b"".join(seat_seeds)).digest()


class ByteStream:
    """The byte stream of one label (R11.3): block ``j`` is
    HMAC-SHA256(K, ASCII ``label + "/" + j``), the blocks one after another."""

    __slots__ = ("_buffer", "_counter", "_key", "_label", "used")

    def __init__(self, key: bytes, label: str) -> None:
        """Start the stream of ``label`` under the match key ``key``."""
        self._key = key
        self._label = label
        self._counter = 0
        self._buffer = b""
        self.used = 0
        """Bytes read so far."""

    def block(self, j: int) -> bytes:
        """Block ``j`` of the stream (32 bytes)."""
        message = f"{self._label}/{j}".encode("ascii")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def read(self, n: int) -> bytes:
        """The next ``n`` bytes of the stream."""
        while len(self._buffer) < n:
            self._buffer += self.block(self._counter)
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        self.used += n
        return out

    def below(self, n: int) -> int:
        """A uniform integer from 0 to ``n - 1`` (R11.4): four bytes big-endian,
        redrawn while at or above the largest multiple of ``n`` below 2**32."""
        limit = (1 << 32) - (1 << 32) % n
        while True:
            u = int.from_bytes(self.read(4), "big")
            if u < limit:
                return u % n


def deck_label(match: int, deck: int) -> str:
    """The stream label of deck ``deck`` (from 1) of match ``match`` (R11.3)."""
    return f"pishti/deal/{match}/{deck}"


def dealer_label(match: int) -> str:
    """The stream label of the first dealer of match ``match`` (R11.3)."""
    return f"pishti/dealer/{match}"


def fair_first_dealer(seeds: FairSeeds, players: int) -> int:
    """The first deck's dealer (R2.1, R11.7): a uniform seat from the dealer stream."""
    return ByteStream(seeds.key, dealer_label(seeds.match)).below(players)


def fair_order(seeds: FairSeeds, deck: int) -> tuple[list[Card], list[Card], ByteStream]:
    """The shuffle of deck ``deck`` (from 1) and its face-up card (R11.5, R11.6).

    Returns:
        ``(middle, stock, stream)``: the four middle cards (face-up top card
        last, never a jack), the 48 cards of the stock in dealing order, and
        the stream (to see how many bytes were read).
    """
    stream = ByteStream(seeds.key, deck_label(seeds.match, deck))
    cards = list(ALL_CARDS)
    for i in range(51, 0, -1):  # R11.5: Fisher-Yates from the last position down
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    top = cards[3]
    stock = cards[4:]
    while top >> 2 == JACK:  # R2.2, R11.6: back into the stock at a uniform position
        stock.insert(stream.below(len(stock) + 1), top)
        top = stock.pop(0)
    return [*cards[:3], top], stock, stream


def fair_deck(seeds: FairSeeds, deck: int, players: int, dealer: int) -> Deck:
    """Deal deck ``deck`` (from 1) of the match of ``seeds`` (R11, R2, R8.1).

    Args:
        seeds: the match's seeds.  deck: the deck's number in the match, from 1.
        players: 4 or 2.  dealer: the deck's dealer (R2.1).
    Returns:
        The deck: the middle and the deals of R11.6 and R11.7.
    Raises:
        ValueError: ``players`` not 4 or 2, ``dealer`` not a seat, or a seed of the
            wrong length.
    """
    if players not in (2, 4):
        raise ValueError(f"players must be 4 or 2, not {players!r}")
    if not 0 <= dealer < players:
        raise ValueError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
    middle, stock, _ = fair_order(seeds, deck)
    per_deal = CARDS_PER_HAND * players
    first = (dealer + 1) % players
    deals = []
    for k in range(len(stock) // per_deal):
        packets = stock[k * per_deal : (k + 1) * per_deal]
        hands: list[tuple[Card, ...]] = [()] * players
        for i in range(players):  # R2.3, R2.4: the seat after the dealer takes the first packet
            hands[(first + i) % players] = tuple(packets[4 * i : 4 * i + 4])
        deals.append(tuple(hands))
    return Deck(players, dealer, middle, deals)


def fair_match(players: int, target: int, seeds: FairSeeds, **kwargs: Any) -> Match:
    """A match whose every deck and first dealer come from ``seeds`` (R11).

    Args:
        players: 4 or 2.  target: points (R6.1).  seeds: the match's seeds, one
            seat seed per seat.  kwargs: passed on to :class:`Match`
            (``pause_between_decks``).
    Raises:
        ValueError: as :class:`Match`, or a seat seed count that is not ``players``.
    """
    if len(seeds.seat_seeds) != players:
        raise ValueError(f"a {players}-player match needs {players} seat seeds")

    def source(number: int, dealer: int) -> Deck:
        return fair_deck(seeds, number + 1, players, dealer)

    return Match(
        players,
        target,
        first_dealer=fair_first_dealer(seeds, players),
        deck_source=source,
        **kwargs,
    )
