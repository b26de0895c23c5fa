"""Match records (R10): write the record of a match, read one back, check it.

A record is a JSON object ``{"players", "target", "decks": [{"dealer",
"middle", "deals", "plays"}]}`` holding every card of every deck, and, for a
match dealt by R11, its seeds (``"fair"``).  It is never given to anyone at the
match while it is played (R7.7).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from pishti.engine.cards import Card, card_text, parse_card
from pishti.engine.errors import CardError
from pishti.engine.fair import SEAT_SEED_BYTES, SERVER_SEED_BYTES, FairSeeds
from pishti.engine.match import Match
from pishti.records.errors import RecordError

MAX_RECORD_BYTES = 16 * 1024 * 1024
"""Records larger than this (16 MiB) are refused: 99 decks take well under 1 MiB."""


@dataclass(frozen=True, slots=True)
class DeckRecord:
    """One deck of a record, cards as ints: ``deals[k][s]`` are seat ``s``'s cards in deal ``k``."""

    dealer: int
    middle: tuple[Card, ...]
    deals: tuple[tuple[tuple[Card, ...], ...], ...]
    plays: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A parsed match record (R10): ``players`` 4 or 2, ``target`` in points, its decks.

    ``fair``: the seeds of a match dealt by R11 and the commitment published
    before it (R11.9), or None (a record without seeds cannot be verified).
    """

    players: int
    target: int
    decks: tuple[DeckRecord, ...]
    fair: FairSeeds | None = None
    commitment: str | None = None

    def as_json(self) -> dict[str, Any]:
        """Return the R10 JSON form, cards as text (R1.2)."""
        out: dict[str, Any] = {
            "players": self.players,
            "target": self.target,
            "decks": [
                {
                    "dealer": d.dealer,
                    "middle": [card_text(c) for c in d.middle],
                    "deals": [[[card_text(c) for c in hand] for hand in deal] for deal in d.deals],
                    "plays": [card_text(c) for c in d.plays],
                }
                for d in self.decks
            ],
        }
        if self.fair is not None:
            out["fair"] = fair_json(self.fair, self.commitment)
        return out


def fair_json(seeds: FairSeeds, commitment: str | None = None) -> dict[str, Any]:
    """The record's ``"fair"`` object (R11.9): match number, seeds in hex, commitment
    (the one published, else the SHA-256 of the server seed)."""
    return {
        "match": seeds.match,
        "server_seed": seeds.server_seed.hex(),
        "commitment": seeds.commitment if commitment is None else commitment,
        "seat_seeds": [s.hex() for s in seeds.seat_seeds],
    }


def match_record(match: Match, fair: FairSeeds | None = None) -> MatchRecord:
    """Return the record of ``match``, finished or not (R10), with the seeds it was
    dealt from (R11.9) when ``fair`` is given.

    It holds every hidden card and the server seed: never give it to a seat of a
    match in play (R7.7).
    """
    return MatchRecord(
        players=match.players,
        target=match.target,
        decks=tuple(
            DeckRecord(deck.dealer, deck.middle, deck.deals, tuple(deck.plays))
            for deck in match.decks
        ),
        fair=fair,
    )


def dumps_record(record: MatchRecord) -> str:
    """Return the record as one line of JSON text."""
    return json.dumps(record.as_json(), separators=(", ", ": "))


def write_record(record: MatchRecord, path: str | Path) -> None:
    """Write the record to ``path`` as one line of JSON (UTF-8), replacing the file.

    Raises:
        OSError: the file cannot be written.
    """
    Path(path).write_text(dumps_record(record) + "\n", encoding="utf-8")


def _card(text: Any, deck: int | None, play: int | None, what: str) -> Card:
    try:
        return parse_card(text)
    except CardError:
        raise RecordError(f"{what}: {text!r} is not a card", deck, play) from None


def _list(value: Any, what: str, deck: int | None) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"{what} must be a list", deck)
    return value


def _int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_record(data: Any) -> MatchRecord:
    """Check the shape and card texts of a record's JSON value and convert it.

    This checks the form only; :func:`pishti.records.replay.replay` checks the
    deal (52 distinct cards, no jack on top, R2) and every play.

    Raises:
        RecordError: a missing or ill-typed field, or a text that is not a card.
    """
    if not isinstance(data, dict):
        raise RecordError("a record must be a JSON object")
    for field in ("players", "target", "decks"):
        if field not in data:
            raise RecordError(f'the record has no "{field}" (R10)')
    players = data.get("players")
    if not _int(players) or players not in (2, 4):
        raise RecordError(f"players must be 4 or 2, not {players!r}")
    target = data.get("target")
    if not _int(target) or target <= 0:
        raise RecordError(f"target must be a positive number of points, not {target!r}")
    decks = []
    for i, raw in enumerate(_list(data.get("decks"), "decks", None), start=1):
        if not isinstance(raw, dict):
            raise RecordError("a deck must be a JSON object", i)
        for field in ("dealer", "middle", "deals"):
            if field not in raw:
                raise RecordError(f'has no "{field}" (R10)', i)
        dealer = raw.get("dealer")
        if not _int(dealer) or not 0 <= dealer < players:
            raise RecordError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}", i)
        middle = tuple(_card(t, i, None, "middle") for t in _list(raw.get("middle"), "middle", i))
        deals = []
        for k, deal in enumerate(_list(raw.get("deals"), "deals", i), start=1):
            hands = []
            for s, hand in enumerate(_list(deal, f"deal {k}", i)):
                cards = _list(hand, f"deal {k}, seat {s}", i)
                hands.append(tuple(_card(t, i, None, f"deal {k}, seat {s}") for t in cards))
            deals.append(tuple(hands))
        plays = tuple(
            _card(t, i, n, "play")
            for n, t in enumerate(_list(raw.get("plays", []), "plays", i), start=1)
        )
        decks.append(DeckRecord(dealer, middle, tuple(deals), plays))
    fair, commitment = _fair(data.get("fair"), players)
    return MatchRecord(players, target, tuple(decks), fair, commitment)


def _hex(value: Any, size: int, what: str) -> bytes:
    if not isinstance(value, str) or len(value) != 2 * size:
        raise RecordError(f"fair: {what} must be {size} bytes in hex, not {value!r}")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise RecordError(f"fair: {what} must be {size} bytes in hex, not {value!r}") from None


def _fair(data: Any, players: int) -> tuple[FairSeeds | None, str | None]:
    """Read a record's ``"fair"`` object (R11.9), or (None, None) when it has none."""
    if data is None:
        return None, None
    if not isinstance(data, dict):
        raise RecordError("fair must be a JSON object")
    match = data.get("match", 1)
    if not _int(match) or match < 1:
        raise RecordError(f"fair: match must be a number from 1, not {match!r}")
    server_seed = _hex(data.get("server_seed"), SERVER_SEED_BYTES, "server_seed")
    commitment = data.get("commitment")
    if not isinstance(commitment, str):
        raise RecordError(f"fair: commitment must be text, not {commitment!r}")
    seats = data.get("seat_seeds")
    if not isinstance(seats, list) or len(seats) != players:
        raise RecordError(f"fair: seat_seeds must be a list of {players} seeds")
    seat_seeds = tuple(
        _hex(seed, SEAT_SEED_BYTES, f"seat seed {n}") for n, seed in enumerate(seats)
    )
    return FairSeeds(server_seed, seat_seeds, match), commitment


def loads_record(text: str | bytes) -> MatchRecord:
    """Parse a record from JSON text.

    Raises:
        RecordError: not JSON, too large, or not of the record's form.
    """
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"the record is larger than {MAX_RECORD_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"not valid JSON: {exc}") from None
    return parse_record(data)


def read_record(path: str | Path) -> MatchRecord:
    """Read and parse the record in the file at ``path``.

    Raises:
        RecordError: the file cannot be read, or as :func:`loads_record`.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read the file: {exc.strerror or exc}") from None
    return loads_record(raw)
