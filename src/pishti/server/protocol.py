"""The strict schemas of every message a client sends (see ``docs/protocol.md``).

Each WebSocket message is one JSON object with a ``type``; :func:`parse_message`
validates it against exactly one model below (unknown fields, wrong types and
unknown types are refused).  HTTP bodies are validated by :class:`CreateTable`
and :class:`JoinTable`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

import regex
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)

ErrorCode = Literal[
    "bad_message",
    "too_large",
    "rate_limited",
    "unauthorized",
    "seat_gone",
    "not_found",
    "other_node",
    "not_owner",
    "not_your_turn",
    "card_not_held",
    "stale",
    "bad_state",
    "seat_taken",
    "table_full",
    "name_taken",
    "spectator",
    "watching_off",
    "watchers_full",
    "no_peer",
]
"""Every ``error`` code the WebSocket may send (docs/protocol.md)."""

ReactionPreset = Literal[
    "good_game",
    "bravo",
    "pishti",
    "come_on",
    "oops",
    "thanks",
    "clap",
    "laugh",
    "wow",
    "sad",
]
"""The quick reactions a seated person may send (``react``), by id: six short phrases
("İyi oyun!", "Bravo!", "Pişti!", "Hadi ama!", "Eyvah!", "Sağ olun!" and their English
forms), then four emoji (👏 😄 😮 😢).  The client holds their texts in both languages."""

SEQ_MAX = 2**53
"""Event numbers stay below this (JSON's exact integers)."""

NAME_JOINERS = frozenset("\u200c\u200d")
"""The only format characters a name may hold: the zero-width non-joiner and joiner,
which scripts such as Persian and emoji sequences (a family) need."""
BLANK_LETTERS = frozenset("\u115f\u1160\u2800\u3164\uffa0")
"""Letters and symbols that show as nothing: the Hangul fillers and the Braille blank."""
MAX_MARKS = 4
"""Combining marks allowed on one character (more pile up over the other names)."""
EMOJI_PRESENTATION = "\ufe0f"
"""Variation selector 16: asks for an emoji's coloured form ("❤️"); allowed right after
an emoji only."""

_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_PICTOGRAPHIC = regex.compile(r"\p{Extended_Pictographic}")


def hidden_characters(value: str) -> list[str]:
    """The default-ignorable code points of ``value`` (Unicode's property: they show
    as nothing) that a name may not hold: every one but the joiners of
    :data:`NAME_JOINERS` and an emoji's presentation selector right after an emoji.
    Returns them as ``U+XXXX`` texts, in order."""
    found = []
    for i, char in enumerate(value):
        if char in NAME_JOINERS or not _IGNORABLE.match(char):
            continue
        if char == EMOJI_PRESENTATION and i > 0 and _PICTOGRAPHIC.match(value[i - 1]):
            continue
        found.append(f"U+{ord(char):04X}")
    return found


def name_key(name: str) -> str:
    """What a name looks like, to tell two names apart: NFKC, case-folded, with the
    default-ignorable code points it may hold (joiners) left out and runs of spaces
    as one.  Two names with the same key may not sit at one table."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = unicodedata.normalize("NFKC", folded)
    shown = _IGNORABLE.sub("", folded)
    return " ".join(shown.split())


def visible_name(value: str) -> str:
    """Check a display name (already trimmed): no control, format (invisible,
    direction-changing) or separator characters but spaces, no default-ignorable
    code point but those :func:`hidden_characters` allows, at least one
    character that shows, and at most :data:`MAX_MARKS` marks on a character.

    Raises:
        ValueError: the name breaks one of these, with the reason.
    """
    if not value:
        raise ValueError("must hold a character that shows")
    marks = 0
    shows = False
    for char in value:
        category = unicodedata.category(char)
        if category[0] == "M":
            marks += 1
            if marks > MAX_MARKS:
                raise ValueError(f"must not stack more than {MAX_MARKS} marks on a character")
            continue
        marks = 0
        if category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp") or (
            category == "Cf" and char not in NAME_JOINERS
        ):
            raise ValueError(
                "must not hold control, invisible or direction-changing characters"
                f" (U+{ord(char):04X})"
            )
        if category[0] in "LNPS" and char not in BLANK_LETTERS:
            shows = True
    if not shows:
        raise ValueError("must hold a character that shows")
    hidden = hidden_characters(value)
    if hidden:
        raise ValueError(
            "must not hold control, invisible or direction-changing characters"
            f" ({', '.join(hidden)})"
        )
    return value


Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, max_length=24),
    AfterValidator(visible_name),
]
"""A display name: up to 24 characters after trimming spaces (see :func:`visible_name`)."""
SeatNumber = Annotated[int, Field(ge=0, le=3)]
Seq = Annotated[int, Field(ge=0, lt=SEQ_MAX)]
Token = Annotated[str, StringConstraints(min_length=1, max_length=128)]
Level = Annotated[str, StringConstraints(min_length=1, max_length=32)]
CardText = Annotated[str, StringConstraints(min_length=2, max_length=3)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Hello(_Strict):
    """``hello``: authenticate with a seat ``token``; ``last_seq``: the last event seen, or
    None; ``batch``: send the events of one change as one ``events`` message."""

    type: Literal["hello"]
    token: Token
    last_seq: Seq | None = None
    batch: bool = False


class Watch(_Strict):
    """``watch``: instead of ``hello``, watch the table as a spectator (no token, no seat);
    ``last_seq`` and ``batch`` as in :class:`Hello`."""

    type: Literal["watch"]
    last_seq: Seq | None = None
    batch: bool = False


class SetWatching(_Strict):
    """``watching``: the owner allows (``on``) or stops spectators at the table."""

    type: Literal["watching"]
    on: bool


class Play(_Strict):
    """``play``: play ``card`` (R1.2 text) in answer to event ``seq``, the last one seen."""

    type: Literal["play"]
    card: CardText
    seq: Seq


class TakeOver(_Strict):
    """``take_over``: leave autopilot (R7.3)."""

    type: Literal["take_over"]


class Continue(_Strict):
    """``continue``: the player has read the count of ``deck`` (R7.8)."""

    type: Literal["continue"]
    deck: Annotated[int, Field(ge=0, lt=SEQ_MAX)]


class AddBot(_Strict):
    """``add_bot``: the owner puts a bot of ``level`` in the empty ``seat`` (R7.6)."""

    type: Literal["add_bot"]
    seat: SeatNumber
    level: Level


class RemoveBot(_Strict):
    """``remove_bot``: the owner empties a bot's ``seat`` before the start."""

    type: Literal["remove_bot"]
    seat: SeatNumber


class Start(_Strict):
    """``start``: the owner starts the match (R7.6)."""

    type: Literal["start"]


class Leave(_Strict):
    """``leave``: leave for good; a bot takes the seat (R7.5)."""

    type: Literal["leave"]


class Closing(_Strict):
    """``closing``: the player closed the game; the hold is 10 s (R7.4)."""

    type: Literal["closing"]


class Rematch(_Strict):
    """``rematch``: the owner starts a new match at the finished table."""

    type: Literal["rematch"]


def _seat_seed(value: str) -> str:
    """Check a seat seed: 32 lower-case hex digits (16 bytes, R11.1)."""
    if len(value) != 32 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("must be 16 bytes as 32 lower-case hex digits")
    return value


class Seed(_Strict):
    """``seed``: the player's own seed for the next match's deals (R11.1): 16 random
    bytes as 32 lower-case hex digits, sent after the commitment was shown."""

    type: Literal["seed"]
    seed: Annotated[str, AfterValidator(_seat_seed)]


SDP_MAX = 12_000
"""The longest session description an ``offer`` or ``answer`` carries, in characters (a
browser's offer of audio and video is 4 to 7 thousand)."""
CANDIDATE_MAX = 512
"""The longest ICE candidate line, in characters."""
CANDIDATES_MAX = 8
"""ICE candidates one ``ice`` message carries at most."""
SIGNAL_TYPES = frozenset({"offer", "answer", "ice", "media"})
"""The table talk's signalling messages (voice and video, docs/protocol.md): relayed to
table mates, never part of the table's state."""
SIGNAL_FRAME_MAX = 12 * SDP_MAX + 1024
"""The largest frame a signalling message within the field limits needs, in bytes: an
``sdp`` of :data:`SDP_MAX` characters each written as JSON's longest escape (a character
beyond U+FFFF as two ``\\uXXXX``, 12 bytes), and the rest of the message.  So any session
description within :data:`SDP_MAX` fits, however the client escapes it."""
_SIGNAL_NAMES = tuple(f'"{kind}"' for kind in SIGNAL_TYPES)


def signal_type(text: str) -> str | None:
    """The ``type`` of a frame that names a signalling message (:data:`SIGNAL_TYPES`),
    read before the frame is validated (the table talk's messages are counted by a rate
    limit of their own); None for any other frame, or one that is not a JSON object.
    It reads the ``type`` as :func:`parse_message` does (a ``type`` given twice: the
    last), so a frame is counted as the message it is handled as."""
    if not any(name in text for name in _SIGNAL_NAMES):
        return None  # most frames: no JSON to read
    kind = _ref_of(text)
    return kind if kind in SIGNAL_TYPES else None


Sdp = Annotated[str, StringConstraints(min_length=1, max_length=SDP_MAX)]


class _Description(_Strict):
    """A WebRTC session description ``sdp`` for the person at seat ``to``."""

    to: SeatNumber
    sdp: Sdp


class Offer(_Description):
    """``offer``: a WebRTC session description offered to the person at seat ``to`` (the
    lower seat of two offers, docs/protocol.md).  Relayed, never stored."""

    type: Literal["offer"]


class Answer(_Description):
    """``answer``: the session description answering the ``offer`` of seat ``to``."""

    type: Literal["answer"]


class Candidate(_Strict):
    """One ICE candidate: its ``candidate`` line (empty: no more candidates), and the
    media section it belongs to by id (``mid``) and by index (``mline``)."""

    candidate: Annotated[str, StringConstraints(max_length=CANDIDATE_MAX)]
    mid: Annotated[str, StringConstraints(max_length=32)] | None = None
    mline: Annotated[int, Field(ge=0, le=63)] | None = None


class Ice(_Strict):
    """``ice``: 1 to :data:`CANDIDATES_MAX` ICE candidates for the person at seat ``to``.
    A candidate holds a network address: it goes to that table mate only."""

    type: Literal["ice"]
    to: SeatNumber
    candidates: Annotated[list[Candidate], Field(min_length=1, max_length=CANDIDATES_MAX)]


class Media(_Strict):
    """``media``: whether this person's microphone (``mic``) and camera (``cam``) are on;
    told to the persons seated at the table (not kept past the connection)."""

    type: Literal["media"]
    mic: bool
    cam: bool


class React(_Strict):
    """``react``: a seated person sends the quick reaction ``reaction``, one of the presets
    of :data:`ReactionPreset` (no free text, nothing to moderate)."""

    type: Literal["react"]
    reaction: ReactionPreset


class Ping(_Strict):
    """``ping``: answered by ``pong``."""

    type: Literal["ping"]


AnyClientMessage: TypeAlias = (
    Hello
    | Watch
    | SetWatching
    | Play
    | TakeOver
    | Continue
    | AddBot
    | RemoveBot
    | Start
    | Leave
    | Closing
    | Rematch
    | Seed
    | React
    | Ping
    | Offer
    | Answer
    | Ice
    | Media
)
"""Any one message a client may send."""

ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = frozenset(
    {"hello", "play", "take_over", "add_bot", "remove_bot", "start", "leave", "closing"}
    | {"rematch", "ping", "continue", "seed", "watch", "watching", "react"}
    | SIGNAL_TYPES
)


class BadMessage(Exception):
    """A client message that is not valid: ``message`` says why, ``ref`` is its type if known."""

    def __init__(self, message: str, ref: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.ref = ref


_WHOLE_NUMBER_ERRORS = frozenset({"int_type", "int_parsing", "int_from_float"})
_OBJECT_ERRORS = frozenset({"model_attributes_type", "model_type", "dict_type"})


def _expected(text: object) -> str:
    """pydantic's list of allowed values (``'relaxed', 'normal' or 'fast'``) in JSON's quotes."""
    return str(text).replace("'", '"')


def explain(error: Mapping[str, Any], where: str, whole: str = "the message") -> str:
    """One line for people about one pydantic validation ``error`` of the field at
    ``where`` (dotted; empty for ``whole``, the message or the body as a whole):
    what is wrong, in the protocol's words, never the validator's.  Bounds are
    given as numbers; :data:`SEQ_MAX` as ``2^53 (9007199254740992)``."""
    kind = str(error.get("type", ""))
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    if kind == "json_invalid":
        return f"{whole} is not valid JSON"
    if kind in _OBJECT_ERRORS or (kind == "missing" and not where):
        text = "must be a JSON object"
    elif kind == "missing":
        text = "is required"
    elif kind in _WHOLE_NUMBER_ERRORS:
        text = "must be a whole number"
    elif kind in ("bool_type", "bool_parsing"):
        text = "must be true or false"
    elif kind == "string_type":
        text = "must be a string"
    elif kind == "string_unicode":
        text = "must be valid Unicode text"
    elif kind == "string_too_short":
        least = ctx.get("min_length", 1)
        text = "must not be empty" if least == 1 else f"must be at least {least} characters"
    elif kind == "string_too_long":
        text = f"must be at most {ctx.get('max_length', '?')} characters"
    elif kind == "too_short":
        text = f"must hold at least {ctx.get('min_length', 1)} items"
    elif kind == "too_long":
        text = f"must hold at most {ctx.get('max_length', '?')} items"
    elif kind == "list_type":
        text = "must be a list"
    elif kind == "greater_than_equal":
        text = f"must be {ctx.get('ge')} or more"
    elif kind == "less_than_equal":
        text = f"must be {ctx.get('le')} or less"
    elif kind == "less_than":
        bound = ctx.get("lt")
        text = f"must be below 2^53 ({SEQ_MAX})" if bound == SEQ_MAX else f"must be below {bound}"
    elif kind == "literal_error":
        text = f"must be {_expected(ctx.get('expected', '?'))}"
    elif kind == "extra_forbidden":
        text = f"is not a field of {'this message' if whole == 'the message' else whole}"
    elif kind == "string_pattern_mismatch":
        text = "is not in the expected form"
    elif kind == "value_error":  # our own validators' words
        text = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    else:
        text = "is not valid"
    return f"{where}: {text}" if where else f"{whole} {text}"


def _ref_of(text: str) -> str | None:
    """The ``type`` of a message that failed validation, when it is a known one."""
    import json

    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: arrays nested a thousand deep
        return None
    if isinstance(data, dict):
        kind = data.get("type")
        if isinstance(kind, str) and kind in MESSAGE_TYPES:
            return kind
    return None


def parse_message(text: str) -> AnyClientMessage:
    """Validate one client message (JSON text) against its schema.

    Raises:
        BadMessage: not JSON, not an object, an unknown ``type``, or wrong,
            missing or extra fields.
    """
    try:
        return _ADAPTER.validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        kind = first.get("type", "")
        if kind == "json_invalid":
            reason = "not valid JSON"
        elif kind == "model_attributes_type" or kind == "union_tag_not_found":
            reason = 'a message must be a JSON object with a "type"'
        elif kind == "union_tag_invalid":
            reason = "unknown message type"
        else:
            reason = explain(first, where)
        raise BadMessage(reason, _ref_of(text)) from None


def _whole_number(value: object) -> object:
    """Refuse floats and bools where a whole number is asked for (``2.0`` is not ``2``)."""
    if type(value) is not int:
        raise ValueError("must be a whole number")
    return value


IDENTITY_PATTERN = r"^[A-Za-z0-9_-]{32,128}$"
"""A browser identity key: 32 to 128 URL-safe characters (the client sends 43)."""
Identity = Annotated[str, StringConstraints(pattern=IDENTITY_PATTERN)]
"""A browser's identity key (docs/server.md, "History and ratings"); only its hash is kept."""


class CreateTable(_Strict):
    """``POST /api/tables``: the creator's display ``name`` and the settings (R6.1, R7.1),
    and the browser's ``identity`` key when it keeps one."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    name: Name
    players: Annotated[Literal[4, 2], BeforeValidator(_whole_number)] = 4
    target: Annotated[Literal[51, 101, 151], BeforeValidator(_whole_number)] = 101
    tempo: Literal["relaxed", "normal", "fast"] = "normal"
    identity: Identity | None = None


class JoinTable(_Strict):
    """``POST /api/tables/{id}/join``: a display ``name``, the wished ``seat`` (None: any)
    and the browser's ``identity`` key when it keeps one."""

    name: Name
    seat: SeatNumber | None = None
    identity: Identity | None = None
