"""The table log: every kind of change a table makes, as a frozen typed class, and its stored form.

A table is its log: replaying its changes in order (:meth:`pishti.server.table.Table.restore`)
rebuilds it exactly, with the same events and event numbers.  Every stored table
depends on this format, so each row of ``table_log`` holds the version it was
written in, and :func:`decode` reads every version it knows (upgrading older
ones) or refuses with a :class:`LogFormatError`.

Versions:

- **1**: the first server's rows.  No change holds a deck: replaying one deals
  the decks again from the table's seed (``random.Random(f"{seed}:{m}:{n}")``,
  the first dealer from ``f"{seed}:{m}:dealer"``), which
  ``tests/engine/test_golden_deal.py`` pins.
- **2**: a change that deals decks (a start, a rematch, the play that ends a
  deck) holds their layouts (:class:`DeckLayout`), so replaying it no longer
  depends on the shuffle code at all.  A version 1 row reads as a version 2 one
  without layouts.
- **3**: the pause between decks (R7.8).  The play that
  ends a deck deals nothing; a :class:`Ready` row for each Continue and a
  :class:`Deal` row, holding the next deck's layout, follow it.  Older rows read
  as plays that deal the next deck at once (``deals_on``): the first play of
  the next deck does in version 1, the play that ends a deck in version 2.
- **4**: the seeds of provably fair deals (R11): ``server_seed`` and
  ``seat_seed`` rows, and ``"seeds"`` and ``"next_server_seed"`` in a start or
  a rematch.
- **5**: a person whose connection drops during the pause between decks is
  still waited for ``pause_return`` seconds (R7.8): the :class:`Connected` row
  keeps them waited for, and a :class:`StopWaiting` row ends that.  Older
  ``connected`` rows read as ones that stop waiting for the person at once
  (``keeps_waiting`` false), as the server that wrote them did.

Every change names its kind in its stored JSON (``{"kind": "play", "seat": 2,
"card": "TD", "how": "player"}``); a change that carries a choice (a bot's
card, a timeout's card) carries its outcome, never a random draw.  The log is
kept by the server alone: it is never sent to a seat (R7.7).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeGuard

from pishti.engine import CardError, Deck, card_text, parse_card

LOG_VERSION = 5
"""The version of the rows this server writes."""
FIRST_VERSION = 1
"""The oldest version this server reads."""

How = Literal["player", "bot", "timeout", "autopilot"]
"""Who chose a card played: the seat's player, its bot, the standard bot on a
timeout (R7.2), or the autopilot (R7.3)."""
HOWS: frozenset[str] = frozenset({"player", "bot", "timeout", "autopilot"})
Reason = Literal["left", "hold"]
"""Why a bot took a person's seat for good: the person left (R7.5), or the hold
of a lost connection expired (R7.4)."""
REASONS: frozenset[str] = frozenset({"left", "hold"})


class LogFormatError(ValueError):
    """A stored change this server cannot read: an unknown version or kind, a
    missing or mistyped field, a bad card or deck layout."""


# -- decks ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckLayout:
    """How one deck was dealt (R2): its dealer, the four middle cards (the face-up
    top card last) and ``deals[k][seat]``, the four cards of each seat in deal ``k``.

    Stored as ``{"dealer": 2, "middle": "7H AS TD 3C", "deals": [["9C KD JH 6S",
    ...], ...]}``.
    """

    dealer: int
    middle: tuple[int, ...]
    deals: tuple[tuple[tuple[int, ...], ...], ...]

    @classmethod
    def of(cls, deck: Deck) -> DeckLayout:
        """The layout of a deck just dealt."""
        return cls(deck.dealer, tuple(deck.middle), deck.deals)

    def deck(self, players: int) -> Deck:
        """The deck this layout deals (:meth:`Deck.from_layout`).

        Raises:
            DealError: the layout breaks R2 or R8.1 (not 52 distinct cards ...).
        """
        return Deck.from_layout(players, self.dealer, self.middle, self.deals)

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {
            "dealer": self.dealer,
            "middle": _cards_text(self.middle),
            "deals": [[_cards_text(hand) for hand in deal] for deal in self.deals],
        }

    @classmethod
    def from_json(cls, data: object) -> DeckLayout:
        """Read the stored form.

        Raises:
            LogFormatError: not a layout (card errors included; R2 is checked by :meth:`deck`).
        """
        if not isinstance(data, Mapping):
            raise LogFormatError(f"a deck layout must be an object, not {data!r}")
        deals = data.get("deals")
        if not isinstance(deals, list) or not all(isinstance(d, list) for d in deals):
            raise LogFormatError(f"a deck layout's deals must be lists, not {deals!r}")
        return cls(
            _int(data, "dealer"),
            _parse_cards(data.get("middle")),
            tuple(tuple(_parse_cards(hand) for hand in deal) for deal in deals),
        )


def _cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def _parse_cards(text: object) -> tuple[int, ...]:
    if not isinstance(text, str):
        raise LogFormatError(f"cards must be text such as '7H AS', not {text!r}")
    try:
        return tuple(parse_card(t) for t in text.split())
    except CardError as exc:
        raise LogFormatError(str(exc)) from None


# -- the changes -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sit:
    """A person took ``seat`` before the start (R7.6); ``token`` is the SHA-256 of
    the seat token (never the token)."""

    KIND: ClassVar[str] = "sit"
    seat: int
    name: str
    token: str

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "sit", "seat": self.seat, "name": self.name, "token": self.token}


@dataclass(frozen=True, slots=True)
class AddBot:
    """The owner put a bot of ``level`` in ``seat`` before the start (R7.6)."""

    KIND: ClassVar[str] = "bot"
    seat: int
    level: str

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "bot", "seat": self.seat, "level": self.level}


@dataclass(frozen=True, slots=True)
class Free:
    """``seat`` was emptied before the start: its person left, or the owner took its bot out."""

    KIND: ClassVar[str] = "free"
    seat: int

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "free", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Start:
    """The owner started the first match; empty seats got standard bots (R7.6).
    ``decks``: the first deck's layout (empty in version 1 rows).  ``seeds``: each
    seat's seed, 32 hex digits, by seat (R11.1); empty in rows written before R11.
    ``next_seed``: the next match's server seed, 64 hex digits, drawn now so that
    its commitment is published before any seed for that match is taken (R11.1);
    empty in rows older than version 4."""

    KIND: ClassVar[str] = "start"
    decks: tuple[DeckLayout, ...] = ()
    seeds: tuple[str, ...] = ()
    next_seed: str = ""

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        out = _with_seeds({"kind": "start"}, self.seeds, self.next_seed)
        return _with_decks(out, self.decks)


@dataclass(frozen=True, slots=True)
class Rematch:
    """The owner started a new match at the finished table; ``decks``, ``seeds`` and
    ``next_seed`` as :class:`Start`."""

    KIND: ClassVar[str] = "rematch"
    decks: tuple[DeckLayout, ...] = ()
    seeds: tuple[str, ...] = ()
    next_seed: str = ""

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        out = _with_seeds({"kind": "rematch"}, self.seeds, self.next_seed)
        return _with_decks(out, self.decks)


@dataclass(frozen=True, slots=True)
class Play:
    """``seat`` played ``card`` (R1.2 text), chosen as ``how`` says (R3.1, R7.2, R7.3).
    ``decks``: the next deck's layout when this play ended a deck and the match
    goes on (empty otherwise, and in version 1 rows)."""

    KIND: ClassVar[str] = "play"
    seat: int
    card: str
    how: How
    decks: tuple[DeckLayout, ...] = ()
    deals_on: bool = False
    """Read from a row older than version 3: the match deals on without the pause
    (R7.8 came later).  Never stored."""

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        out = {"kind": "play", "seat": self.seat, "card": self.card, "how": self.how}
        return _with_decks(out, self.decks)


@dataclass(frozen=True, slots=True)
class Autopilot:
    """``seat`` went on autopilot (``on``) or its player took over (R7.3)."""

    KIND: ClassVar[str] = "autopilot"
    seat: int
    on: bool

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "autopilot", "seat": self.seat, "on": self.on}


@dataclass(frozen=True, slots=True)
class Connected:
    """The connection of ``seat``'s person opened (``on``) or was lost (R7.4).

    A connection lost during the pause between decks leaves the person waited for,
    as one who has not pressed Continue, until they come back or a
    :class:`StopWaiting` (R7.8)."""

    KIND: ClassVar[str] = "connected"
    seat: int
    on: bool
    keeps_waiting: bool = True
    """False when read from a row older than version 5: a connection lost during
    the pause stopped the pause waiting for the person at once.  Never stored."""

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "connected", "seat": self.seat, "on": self.on}


@dataclass(frozen=True, slots=True)
class Replace:
    """A standard bot took ``seat`` for good (R7.4, R7.5), for ``reason``."""

    KIND: ClassVar[str] = "replace"
    seat: int
    reason: Reason

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "replace", "seat": self.seat, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Ready:
    """``seat``'s player pressed Continue during the pause between decks (R7.8)."""

    KIND: ClassVar[str] = "ready"
    seat: int

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "ready", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class StopWaiting:
    """The pause between decks no longer waits for ``seat``'s person, whose connection
    dropped during it ``pause_return`` seconds before and has not come back (R7.8)."""

    KIND: ClassVar[str] = "stop_waiting"
    seat: int

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "stop_waiting", "seat": self.seat}


DealReason = Literal["ready", "time"]
"""Why the pause between decks ended: everyone it waited for pressed Continue,
or its time was up (R7.8)."""
DEAL_REASONS: frozenset[str] = frozenset({"ready", "time"})


@dataclass(frozen=True, slots=True)
class Deal:
    """The pause between decks ended (R7.8, for ``reason``) and the next deck was
    dealt; ``decks``: its layout."""

    KIND: ClassVar[str] = "deal"
    reason: DealReason
    decks: tuple[DeckLayout, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return _with_decks({"kind": "deal", "reason": self.reason}, self.decks)


@dataclass(frozen=True, slots=True)
class Watching:
    """The owner allowed (``on``) or stopped spectators watching the table (R7.7)."""

    KIND: ClassVar[str] = "watching"
    on: bool

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "watching", "on": self.on}


@dataclass(frozen=True, slots=True)
class ServerSeed:
    """The server seed of match ``match`` (R11.1): 32 bytes from :mod:`secrets` as 64
    lower-case hex digits, drawn when the table was made (for its first match).
    Its commitment is public at once; the seed itself leaves the server only in
    the match's record, once the match is over (R7.7)."""

    KIND: ClassVar[str] = "server_seed"
    match: int
    seed: str

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "server_seed", "match": self.match, "seed": self.seed}


@dataclass(frozen=True, slots=True)
class SeatSeed:
    """``seat``'s player sent ``seed`` (32 lower-case hex digits) for the next match's
    deals (R11.1), replacing any earlier one; kept until that match starts."""

    KIND: ClassVar[str] = "seat_seed"
    seat: int
    seed: str

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "seat_seed", "seat": self.seat, "seed": self.seed}


@dataclass(frozen=True, slots=True)
class Resume:
    """The server restarted: every connection is gone, the clock restarts (R7.1, R7.4)."""

    KIND: ClassVar[str] = "resume"

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": "resume"}


Change = (
    Sit | AddBot | Free | Start | Rematch | Play | Autopilot | Connected | Replace | Resume
) | (Ready | StopWaiting | Deal | Watching | ServerSeed | SeatSeed)
"""Any change of a table."""

KINDS: dict[str, type[Change]] = {
    cls.KIND: cls
    for cls in (
        *(Sit, AddBot, Free, Start, Rematch, Play, Autopilot, Connected, Replace, Resume),
        *(Ready, StopWaiting, Deal, Watching, ServerSeed, SeatSeed),
    )
}
"""Every kind of change, by the ``kind`` it is stored with."""


def _with_seeds(out: dict[str, Any], seeds: tuple[str, ...], next_seed: str) -> dict[str, Any]:
    if seeds:
        out["seeds"] = list(seeds)
    if next_seed:
        out["next_server_seed"] = next_seed
    return out


def _is_hex(value: object, digits: int) -> TypeGuard[str]:
    return (
        isinstance(value, str)
        and len(value) == digits
        and all(c in "0123456789abcdef" for c in value)
    )


def _seeds(data: Mapping[str, Any]) -> tuple[str, ...]:
    raw = data.get("seeds", [])
    if not isinstance(raw, list) or not all(_is_hex(s, 32) for s in raw):
        raise LogFormatError(f"'seeds' must be a list of 32 lower-case hex digits, not {raw!r}")
    return tuple(raw)


def _hex(data: Mapping[str, Any], key: str, digits: int) -> str:
    value = data.get(key)
    if not _is_hex(value, digits):
        raise LogFormatError(f"{key!r} must be {digits} lower-case hex digits, not {value!r}")
    return value


def _next_seed(data: Mapping[str, Any], version: int) -> str:
    if "next_server_seed" not in data or version < 4:
        return ""
    return _hex(data, "next_server_seed", 64)


def _with_decks(out: dict[str, Any], decks: tuple[DeckLayout, ...]) -> dict[str, Any]:
    if decks:
        out["decks"] = [d.as_json() for d in decks]
    return out


# -- reading -----------------------------------------------------------------------


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise LogFormatError(f"{key!r} must be a whole number, not {value!r}")
    return value


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise LogFormatError(f"{key!r} must be text, not {value!r}")
    return value


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise LogFormatError(f"{key!r} must be true or false, not {value!r}")
    return value


def _choice(data: Mapping[str, Any], key: str, allowed: frozenset[str]) -> Any:
    value = data.get(key)
    if value not in allowed:
        raise LogFormatError(f"{key!r} must be one of {sorted(allowed)}, not {value!r}")
    return value


def _decks(data: Mapping[str, Any], version: int) -> tuple[DeckLayout, ...]:
    raw = data.get("decks", [])
    if version < 2 and raw:
        raise LogFormatError("a version 1 change holds no decks")
    if not isinstance(raw, list):
        raise LogFormatError(f"'decks' must be a list, not {raw!r}")
    return tuple(DeckLayout.from_json(d) for d in raw)


def decode(data: object, version: int) -> Change:
    """Read one stored change of ``version`` (upgrading an older version to the current one).

    Raises:
        LogFormatError: a version this server does not know, an unknown kind, or a
            missing or mistyped field.
    """
    if not FIRST_VERSION <= version <= LOG_VERSION:
        raise LogFormatError(
            f"version {version} is not one this server reads ({FIRST_VERSION} to {LOG_VERSION})"
        )
    if not isinstance(data, Mapping):
        raise LogFormatError(f"a change must be an object, not {data!r}")
    kind = data.get("kind")
    match kind:
        case "sit":
            return Sit(_int(data, "seat"), _str(data, "name"), _str(data, "token"))
        case "bot":
            return AddBot(_int(data, "seat"), _str(data, "level"))
        case "free":
            return Free(_int(data, "seat"))
        case "start":
            return Start(_decks(data, version), _seeds(data), _next_seed(data, version))
        case "rematch":
            return Rematch(_decks(data, version), _seeds(data), _next_seed(data, version))
        case "play":
            return Play(
                _int(data, "seat"),
                _str(data, "card"),
                _choice(data, "how", HOWS),
                _decks(data, version),
                deals_on=version < 3,
            )
        case "autopilot":
            return Autopilot(_int(data, "seat"), _bool(data, "on"))
        case "connected":
            return Connected(_int(data, "seat"), _bool(data, "on"), keeps_waiting=version >= 5)
        case "replace":
            return Replace(_int(data, "seat"), _choice(data, "reason", REASONS))
        case "resume":
            return Resume()
        case "ready" if version >= 3:
            return Ready(_int(data, "seat"))
        case "stop_waiting" if version >= 5:
            return StopWaiting(_int(data, "seat"))
        case "watching":
            return Watching(_bool(data, "on"))
        case "server_seed" if version >= 4:
            return ServerSeed(_int(data, "match"), _hex(data, "seed", 64))
        case "seat_seed" if version >= 4:
            return SeatSeed(_int(data, "seat"), _hex(data, "seed", 32))
        case "deal" if version >= 3:
            return Deal(_choice(data, "reason", DEAL_REASONS), _decks(data, version))
    raise LogFormatError(f"unknown change {kind!r}")
