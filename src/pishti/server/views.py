"""The server's messages, each built for one seat from what that seat may see (R7.7).

Game state reaches a seat only through :func:`pishti.engine.seat_view` (the
snapshot) and :func:`seat_copy` (events).  **Visibility is opt-in**: every
event type is listed here with what a seat may see of it
(:data:`ENGINE_EVENTS`, :data:`PUBLIC_TABLE_EVENTS`); an event of a type not
listed is refused (:class:`UndeclaredEvent`), so a new event with a hidden
field cannot reach a seat by default.  The protocol's JSON is built here and
nowhere else: the table's own events (:mod:`pishti.server.events`) are typed
values, and :data:`TABLE_EVENTS` gives each type's JSON.  Messages are JSON
text, cards in the short form of R1.2.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pishti.engine import Event, card_text, event_for_seat, seat_view, team_of
from pishti.engine.events import (
    CardPlayed,
    CardsDealt,
    DeckCounted,
    DeckStarted,
    JackPishti,
    MatchOver,
    PileCaptured,
    Pishti,
)
from pishti.engine.fair import commitment
from pishti.server.events import (
    AutopilotSwitched,
    ClockStarted,
    MatchStarted,
    OwnerChanged,
    Paused,
    PauseWaiting,
    Payload,
    ReadyPressed,
    RematchStarted,
    SeatChanged,
    SeatInfo,
    TableEvent,
    TimedOut,
    WatchingSwitched,
)
from pishti.server.protocol import ErrorCode
from pishti.server.reducer import seat_info
from pishti.server.table import Numbered, Table

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def dumps(message: dict[str, Any]) -> str:
    """Compact JSON text of a message."""
    return _dumps(message)


class UndeclaredEvent(Exception):
    """An event of a type whose visibility is not declared here: never sent (R7.7)."""


def _public(event: Event, seat: int | None) -> Event:
    """Every seat sees all of the event."""
    return event


ENGINE_EVENTS: dict[type[Event], Callable[[Event, int | None], Event]] = {
    DeckStarted: event_for_seat,  # the three face-down middle cards are hidden (R2.2)
    CardsDealt: event_for_seat,  # a seat sees its own hand only
    PileCaptured: event_for_seat,  # face-down cards: only the team that took them (R7.7)
    CardPlayed: _public,
    Pishti: _public,
    JackPishti: _public,
    DeckCounted: _public,
    MatchOver: _public,
}
"""What a seat may see of each engine event: ``ENGINE_EVENTS[type](event, seat)``; ``seat``
None is a spectator, who sees what is public only: no hand, never a face-down card (R7.7)."""


def seat_json(info: SeatInfo) -> dict[str, Any]:
    """The public Seat object of the protocol."""
    return {
        "seat": info.seat,
        "team": team_of(info.seat),
        "name": info.name,
        "kind": info.kind,
        "level": info.level,
        "connected": info.connected,
        "autopilot": info.autopilot,
        "left": info.left,
    }


def _seat_changed(e: SeatChanged) -> dict[str, Any]:
    return {"type": e.type, "seat": seat_json(e.seat)}


def _owner_changed(e: OwnerChanged) -> dict[str, Any]:
    return {"type": e.type, "owner_seat": e.owner_seat}


def _match_started(e: MatchStarted) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": e.type,
        "match": e.match,
        "players": e.players,
        "target": e.target,
        "tempo": e.tempo,
    }
    if e.commitment is not None:  # R11.1: public, and never the server seed
        out["commitment"] = e.commitment
        out["seat_seeds"] = list(e.seat_seeds)
        out["next_commitment"] = e.next_commitment
    return out


def _watching(e: WatchingSwitched) -> dict[str, Any]:
    return {"type": e.type, "on": e.on}


def _clock(e: ClockStarted) -> dict[str, Any]:
    return {"type": e.type, "seat": e.seat, "remaining": e.remaining, "tempo": e.tempo}


def _timed_out(e: TimedOut) -> dict[str, Any]:
    return {"type": e.type, "seat": e.seat}


def _autopilot(e: AutopilotSwitched) -> dict[str, Any]:
    return {"type": e.type, "seat": e.seat, "on": e.on}


def _rematch(e: RematchStarted) -> dict[str, Any]:
    return {"type": e.type, "match": e.match}


def _paused(e: Paused) -> dict[str, Any]:
    return {"type": e.type, "deck": e.deck, "seconds": e.seconds, "waiting": list(e.waiting)}


def _pause_waiting(e: PauseWaiting) -> dict[str, Any]:
    return {"type": e.type, "deck": e.deck, "waiting": list(e.waiting), "ready": list(e.ready)}


def _ready(e: ReadyPressed) -> dict[str, Any]:
    return {"type": e.type, "seat": e.seat}


@dataclass(frozen=True, slots=True)
class TableView:
    """What a seat may see of one type of table event: ``build(event, seat)`` is its
    protocol JSON for ``seat``; ``public`` says it is the same for every seat."""

    build: Callable[[Any, int | None], dict[str, Any]]
    public: bool


def _public_table_event(build: Callable[[Any], dict[str, Any]]) -> TableView:
    """Every seat sees all of the event: its JSON is the same for each."""
    return TableView(lambda event, seat: build(event), public=True)


TABLE_EVENTS: dict[type[TableEvent], TableView] = {
    SeatChanged: _public_table_event(_seat_changed),
    OwnerChanged: _public_table_event(_owner_changed),
    MatchStarted: _public_table_event(_match_started),
    ClockStarted: _public_table_event(_clock),
    TimedOut: _public_table_event(_timed_out),
    AutopilotSwitched: _public_table_event(_autopilot),
    RematchStarted: _public_table_event(_rematch),
    Paused: _public_table_event(_paused),
    ReadyPressed: _public_table_event(_ready),
    WatchingSwitched: _public_table_event(_watching),
    PauseWaiting: _public_table_event(_pause_waiting),
}
"""What a seat may see of each of the table's own events, as protocol JSON:
``TABLE_EVENTS[type](event, seat)``.  Each is public: none holds a card, a token
or the seed."""

PUBLIC_TABLE_EVENTS = frozenset(cls.type for cls in TABLE_EVENTS)
"""The ``"type"`` of every table event (all public)."""


def engine_copy(event: Event, seat: int | None) -> Event:
    """``seat``'s copy of an engine event (:data:`ENGINE_EVENTS`).

    Raises:
        UndeclaredEvent: no visibility is declared for the event's type.
    """
    rule = ENGINE_EVENTS.get(type(event))
    if rule is None:
        raise UndeclaredEvent(f"{type(event).__name__}: no visibility is declared")
    return rule(event, seat)


def table_view(event: TableEvent) -> TableView:
    """The declared visibility of a table event's type (:data:`TABLE_EVENTS`).

    Raises:
        UndeclaredEvent: no visibility is declared for the event's type.
    """
    view = TABLE_EVENTS.get(type(event))
    if view is None:
        raise UndeclaredEvent(f"table event {type(event).__name__}: no visibility is declared")
    return view


def table_event_json(event: TableEvent, seat: int | None) -> dict[str, Any]:
    """``seat``'s copy of a table event, as protocol JSON (:data:`TABLE_EVENTS`).

    Raises:
        UndeclaredEvent: no visibility is declared for the event's type.
    """
    return table_view(event).build(event, seat)


def event_json(payload: Payload, seat: int | None) -> dict[str, Any]:
    """``seat``'s copy of any event, as protocol JSON: what the declared visibility
    of its type lets it see (R7.7).

    Raises:
        UndeclaredEvent: no visibility is declared for the event's type.
    """
    if isinstance(payload, Event):
        return engine_copy(payload, seat).as_json()
    return table_event_json(payload, seat)


def fair_json(table: Table) -> dict[str, Any]:
    """What is public of the provably fair deals (R11.1): the commitment and seat seeds
    of the match being played (or the last one; null before the first and for a
    match dealt before R11), and the commitment of the next match, to which the
    seeds sent now contribute.  Never a server seed (R7.7)."""
    fair = table.state.fair
    return {
        "match": table.match_no if fair is not None else None,
        "commitment": fair.commitment if fair is not None else None,
        "seat_seeds": [s.hex() for s in fair.seat_seeds] if fair is not None else None,
        "next_match": table.match_no + 1,
        "next_commitment": commitment(table.state.next_seed()),
    }


def lobby_json(table: Table) -> dict[str, Any]:
    """The public lobby of ``GET /api/tables/{id}``: settings, status, owner, seats and
    the commitments and seat seeds of the provably fair deals (R11.1, never a server seed)."""
    s = table.settings
    return {
        "table_id": table.table_id,
        "players": s.players,
        "target": s.target,
        "tempo": s.tempo,
        "status": table.status,
        "owner_seat": table.owner,
        "match": table.match_no,
        "seats": [seat_json(seat_info(table.seats, seat)) for seat in range(s.players)],
        "fair": fair_json(table),
        "watching": table.state.watching,
        "watchers": table.watchers,
    }


def deck_counts_json(table: Table) -> list[dict[str, Any]]:
    """Every counted deck of the match so far (R5.5), with the match totals after it."""
    match = table.match
    if match is None:
        return []
    out = []
    totals = [0, 0]
    for number, deck in enumerate(match.decks):
        if deck.counts is None:
            continue
        totals[0] += deck.counts[0].points
        totals[1] += deck.counts[1].points
        out.append(
            {
                "deck": number,
                "teams": [deck.counts[0].as_json(), deck.counts[1].as_json()],
                "last_capture_team": deck.last_capture_team,
                "totals": list(totals),
            }
        )
    return out


def clock_json(table: Table) -> dict[str, Any] | None:
    """The running clock (R7.1): ``{"seat", "remaining", "tempo"}`` in seconds, or None."""
    seat = table.to_play
    if seat is None:
        return None
    remaining = table.turns.remaining()
    return {"seat": seat, "remaining": round(remaining, 3), "tempo": table.tempo_seconds}


def pause_json(table: Table) -> dict[str, Any] | None:
    """The pause between decks (R7.8): ``{"deck", "remaining", "waiting", "ready"}``
    (the seconds left at most, or None before its timer runs; the seats it waits
    for; those that pressed Continue), or None when there is no pause."""
    match = table.match
    if not table.state.pausing or match is None:
        return None
    remaining = table.turns.pause_remaining()
    return {
        "deck": match.deck_number,
        "remaining": None if remaining is None else round(remaining, 3),
        "waiting": sorted(table.state.pause_waits_for()),
        "ready": sorted(table.state.ready),
    }


def table_json(table: Table) -> dict[str, Any]:
    """The snapshot's ``table`` object: the lobby plus clock, totals, winner and deck counts."""
    out = lobby_json(table)
    match = table.match
    out["clock"] = clock_json(table)
    out["pause"] = pause_json(table)
    out["totals"] = list(match.totals) if match is not None else [0, 0]
    out["winner"] = match.winner if match is not None else None
    out["deck_counts"] = deck_counts_json(table)
    return out


def view_json(table: Table, seat: int | None) -> dict[str, Any] | None:
    """The snapshot's ``view`` object: ``seat``'s R7.7 view, or None before the first match.

    ``seat`` None is a spectator: what every seat sees alike (seat 0's view without
    its hand and without the face-down cards), so ``hand`` is empty and
    ``face_down`` null (R7.7).
    """
    if table.match is None:
        return None
    v = seat_view(table.match, 0 if seat is None else seat)
    if seat is None:
        v = dataclasses.replace(v, hand=(), face_down=None)
    return {
        "seat": seat,
        "team": None if seat is None else v.team,
        "players": v.players,
        "target": v.target,
        "deck": v.deck,
        "dealer": v.dealer,
        "hand": [card_text(c) for c in v.hand],
        "face_up": card_text(v.face_up),
        "top_card": None if v.top_card is None else card_text(v.top_card),
        "pile_size": v.pile_size,
        "hand_sizes": list(v.hand_sizes),
        "stock_size": v.stock_size,
        "to_play": v.to_play,
        "pishti_cards": [[card_text(c) for c in cards] for cards in v.pishti_cards],
        "face_down": None if v.face_down is None else [card_text(c) for c in v.face_down],
        "face_down_team": v.face_down_team,
        "taken_counts": list(v.taken_counts),
        "history": [
            {"seat": p.seat, "card": card_text(p.card), "outcome": p.outcome} for p in v.history
        ],
        "totals": list(v.totals),
        "finished": v.finished,
        "winner": v.winner,
    }


def welcome_message(table: Table, seat: int | None, resumed: bool) -> str:
    """The ``welcome`` message for ``seat`` (None: a spectator, with ``seat``, ``team``
    null and ``watching`` true).

    With ``resumed`` false it carries the full snapshot (``table`` and ``view``);
    with ``resumed`` true they are null and the missed events follow it.
    """
    message: dict[str, Any] = {
        "type": "welcome",
        "seat": seat,
        "team": None if seat is None else team_of(seat),
        "owner": seat is not None and table.owner == seat,
        "seq": table.seq,
        "resumed": resumed,
        "table": None if resumed else table_json(table),
        "view": None if resumed else view_json(table, seat),
    }
    if seat is None:
        message["watching"] = True
    return dumps(message)


class EventRenderer:
    """Renders one numbered event for each seat, encoding each distinct seat copy
    once (most events are the same for every seat).

    :meth:`fragment` is ``{"seq": N, "event": {...}}`` as JSON text: the body of
    an ``event`` message, and one item of an ``events`` message.
    """

    __slots__ = ("_by_seat", "_message", "_public", "item")

    def __init__(self, item: Numbered) -> None:
        """Render ``item`` = ``(seq, payload)``."""
        self.item = item
        self._public: str | None = None
        self._by_seat: dict[int | None, str] = {}
        self._message: dict[str, str] = {}

    def fragment(self, seat: int | None) -> str:
        """``seat``'s copy of the event with its number, as JSON text (R7.7)."""
        seq, payload = self.item
        if isinstance(payload, Event):
            filtered = engine_copy(payload, seat)
            if filtered is not payload:
                text = self._by_seat.get(seat)
                if text is None:
                    text = dumps({"seq": seq, "event": filtered.as_json()})
                    self._by_seat[seat] = text
                return text
            if self._public is None:
                self._public = dumps({"seq": seq, "event": payload.as_json()})
            return self._public
        view = table_view(payload)
        if not view.public:
            text = self._by_seat.get(seat)
            if text is None:
                text = dumps({"seq": seq, "event": view.build(payload, seat)})
                self._by_seat[seat] = text
            return text
        if self._public is None:
            self._public = dumps({"seq": seq, "event": view.build(payload, seat)})
        return self._public

    def for_seat(self, seat: int | None) -> str:
        """The ``event`` message text for ``seat`` (R7.7)."""
        fragment = self.fragment(seat)
        text = self._message.get(fragment)
        if text is None:
            text = '{"type":"event",' + fragment[1:]
            self._message[fragment] = text
        return text


def events_message(fragments: Iterable[str]) -> str:
    """An ``events`` message: several events in order, each a :meth:`EventRenderer.fragment`."""
    return '{"type":"events","events":[' + ",".join(fragments) + "]}"


class BatchRenderer:
    """Renders the events of one change for each seat: an ``event`` message per event,
    or one ``events`` message holding them all.  Seats whose copies are the same
    share the same text (R7.7: each copy still comes from ``event_for_seat``)."""

    __slots__ = ("_frames", "renderers")

    def __init__(self, items: Iterable[Numbered]) -> None:
        """Render ``items``, numbered events in order."""
        self.renderers = [EventRenderer(item) for item in items]
        self._frames: dict[tuple[str, ...], str] = {}

    def messages(self, seat: int | None) -> list[str]:
        """One ``event`` message per event, for ``seat``."""
        return [r.for_seat(seat) for r in self.renderers]

    def batch(self, seat: int | None) -> str:
        """One ``events`` message with every event, for ``seat``."""
        fragments = tuple(r.fragment(seat) for r in self.renderers)
        text = self._frames.get(fragments)
        if text is None:
            text = events_message(fragments)
            self._frames[fragments] = text
        return text


def watchers_message(count: int) -> str:
    """A ``watchers`` message: how many spectators watch the table now (not numbered)."""
    return dumps({"type": "watchers", "count": count})


def no_table(table_id: str) -> str:
    """The ``not_found`` line for an unknown table id (at most 40 of its characters)."""
    shown = table_id if len(table_id) <= 40 else table_id[:40] + "..."
    return f"no table {shown!r}"


def error_message(code: ErrorCode, message: str, ref: str | None) -> str:
    """An ``error`` message: ``code`` from the protocol, a line for people, and the
    ``type`` of the client message that caused it (or null)."""
    return dumps({"type": "error", "code": code, "message": message, "ref": ref})
