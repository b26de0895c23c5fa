"""Test clients of the table protocol, and the check that no message leaks a hidden card.

:class:`Player` speaks the protocol over any :class:`Transport` (a real
``websockets`` connection, or the in-process fake of ``test_hub.py``), keeps
the seat's state from the messages it gets, and plays a random card of its
hand when its clock starts.  :func:`leaks` checks a seat's messages against
the match record afterwards (R7.7).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from pishti.engine import Deck, Match, card_text, team_of
from pishti.records import MatchRecord


class Transport(Protocol):
    async def send(self, text: str) -> None: ...

    async def recv(self) -> str: ...

    async def close(self) -> None: ...


class Closed(Exception):
    """The server closed the connection."""


class Player:
    """One seat's client.

    With ``batch`` the client says ``hello`` with ``"batch": true`` and takes each
    ``events`` message apart into its ``event`` messages.

    Attributes:
        frames: every message received, in order (parsed JSON).
        messages: the same, with each ``events`` message replaced by its events.
        seq: the last event number seen.  hand: the seat's cards.
        errors: the ``error`` messages received, but for a ``continue`` refused because
        its pause had ended meanwhile (``late_continues``, R7.8).
        over: the ``match_over`` event, once seen.
    """

    def __init__(
        self,
        transport: Transport,
        token: str,
        *,
        rng: random.Random | None = None,
        autoplay: bool = True,
        batch: bool = False,
    ) -> None:
        self.transport = transport
        self.batch = batch
        self.frames: list[dict[str, Any]] = []
        self.token = token
        self.rng = rng or random.Random(0)
        self.autoplay = autoplay
        self.messages: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.late_continues: list[dict[str, Any]] = []  # refused: the pause was over
        self.seat: int | None = None
        self.seq = 0
        self.hand: list[str] = []
        self.to_play: int | None = None
        self.over: dict[str, Any] | None = None
        self.welcome: dict[str, Any] | None = None
        self.seats: dict[int, dict[str, Any]] = {}
        self.autopilot = False
        self.played = 0
        self._asked = -1  # the turn (its mark) this client last played in
        self._turn_mark = -1  # the event number that gave this seat its current turn
        self.pause: int | None = None  # the deck whose count the table pauses after (R7.8)
        self._continued = -1  # the last deck this client pressed Continue for

    async def send(self, message: dict[str, Any]) -> None:
        await self.transport.send(json.dumps(message))

    async def hello(self, last_seq: int | None = None) -> dict[str, Any]:
        """Say hello; return the ``welcome`` (its missed events, if any, follow)."""
        hello: dict[str, Any] = {"type": "hello", "token": self.token, "last_seq": last_seq}
        if self.batch:
            hello["batch"] = True
        await self.send(hello)
        message = await self.recv()
        if message["type"] != "welcome":
            raise AssertionError(f"expected a welcome, got {message}")
        return message

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        try:
            text = await asyncio.wait_for(self.transport.recv(), timeout)
        except (asyncio.CancelledError, TimeoutError):
            raise
        except Exception as exc:
            raise Closed(str(exc)) from exc
        message: dict[str, Any] = json.loads(text)
        self.frames.append(message)
        if message["type"] == "events":
            # A batching client's message: its events, in order, as if each came alone.
            assert self.batch, message
            assert set(message) == {"type", "events"} and message["events"], message
            for item in message["events"]:
                assert set(item) == {"seq", "event"}, item
                single = {"type": "event", **item}
                self.messages.append(single)
                self.apply(single)
            return message
        assert not (self.batch and message["type"] == "event"), message
        self.messages.append(message)
        self.apply(message)
        return message

    def apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "welcome":
            self.welcome = message
            self.seat = message["seat"]
            if not message["resumed"]:  # else the missed events follow, numbered on
                self.seq = message["seq"]
                self._snapshot(message)
        elif kind == "error":
            if message.get("ref") == "continue" and self.pause != self._continued:
                # The pause this Continue answered ended while it was on its way (the
                # 15 s ran out, or a reconnect's replayed events held the deal behind
                # it): the refusal is the protocol's answer, not a fault.
                self.late_continues.append(message)
            else:
                self.errors.append(message)
        elif kind == "event":
            assert message["seq"] == self.seq + 1, (self.seq, message)
            self.seq = message["seq"]
            self._event(message["event"])

    def _snapshot(self, message: dict[str, Any]) -> None:
        table = message["table"]
        for seat in table["seats"]:
            self.seats[seat["seat"]] = seat
        view = message["view"]
        if view is not None:
            self.hand = list(view["hand"])
            self.to_play = view["to_play"]
            if view["finished"] and self.over is None:
                self.over = {"totals": view["totals"], "winner": view["winner"]}
        clock = table["clock"]
        self.to_play = None if clock is None else clock["seat"]
        pause = table.get("pause")
        self.pause = None if pause is None else pause["deck"]
        if self.to_play == self.seat:
            self._turn_mark = message["seq"]
        self.autopilot = bool(self.seat is not None and self.seats[self.seat]["autopilot"])

    def _event(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "cards_dealt":
            self.hand = list(event["hands"][self.seat])
        elif kind == "card_played":
            self.to_play = None
            if event["seat"] == self.seat:
                self.hand.remove(event["card"])
        elif kind == "clock":
            self.to_play = event["seat"]
            if self.to_play == self.seat:
                self._turn_mark = self.seq
        elif kind == "pause":
            self.pause = event["deck"]
        elif kind == "pause_waiting" and self.seat in event["waiting"]:
            if self.seat not in event["ready"]:  # back: waited for again (R7.8)
                self._continued = min(self._continued, event["deck"] - 1)
        elif kind == "deck_started":
            self.pause = None
        elif kind == "match_over":
            self.over = event
            self.to_play = None
        elif kind == "seat_changed":
            self.seats[event["seat"]["seat"]] = event["seat"]
        elif kind == "autopilot" and event["seat"] == self.seat:
            self.autopilot = event["on"]

    @property
    def my_turn(self) -> bool:
        return self.to_play is not None and self.to_play == self.seat and self.over is None

    async def play_random(self) -> None:
        card = self.rng.choice(self.hand)
        self._asked = self._turn_mark
        self.played += 1
        await self.send({"type": "play", "card": card, "seq": self.seq})

    async def run(
        self, until: Callable[[Player], bool] | None = None, timeout: float = 60.0
    ) -> None:
        """Receive and play (when ``autoplay``) until ``until(self)`` or the match is over."""
        done = until or (lambda p: p.over is not None)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not done(self):
            if self.autoplay and self.pause is not None and self._continued < self.pause:
                # The player has read the count: Continue (R7.8).
                self._continued = self.pause
                await self.send({"type": "continue", "deck": self.pause})
            if (
                self.autoplay
                and self.my_turn
                and not self.autopilot
                and self._asked < self._turn_mark
            ):
                await self.play_random()
            remaining = end - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"seat {self.seat} waited too long (seq {self.seq})")
            try:
                await self.recv(timeout=remaining)
            except TimeoutError:
                raise TimeoutError(self.describe()) from None

    def describe(self) -> str:
        """The client's state and last messages, for a test that got stuck."""
        last = "\n".join(json.dumps(m) for m in self.messages[-8:])
        return (
            f"seat {self.seat} seq {self.seq} to_play {self.to_play} asked {self._asked} "
            f"mark {self._turn_mark} autopilot {self.autopilot} hand {self.hand}\n{last}"
        )

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [
            m["event"]
            for m in self.messages
            if m["type"] == "event" and (kind is None or m["event"]["type"] == kind)
        ]


_CARD = re.compile(r"^(?:[A2-9TJQK]|10)[CDHS]$")


def cards_in(value: Any, out: list[str]) -> list[str]:
    """Every card-like string anywhere in a JSON value (names excluded)."""
    if isinstance(value, str):
        if _CARD.match(value):
            out.append(value)
    elif isinstance(value, list):
        for v in value:
            cards_in(v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            if k != "name":
                cards_in(v, out)
    return out


def visible_timeline(record: MatchRecord) -> list[list[set[str]]]:
    """``timeline[g][seat]``: the cards ``seat`` may have seen after ``g`` plays of the
    match (R7.7): its own cards dealt so far, every card played, every face-up
    card, and the face-down cards its team took."""
    decks = record.decks
    players = record.players

    def source(number: int, dealer: int) -> Deck:
        d = decks[number]
        return Deck.from_layout(players, d.dealer, d.middle, d.deals)

    match = Match(players, record.target, first_dealer=decks[0].dealer, deck_source=source)
    played: set[str] = set()

    def now() -> list[set[str]]:
        out = []
        for seat in range(players):
            seen = set(played)
            for deck in match.decks:
                seen.add(card_text(deck.middle[3]))
                for k in range(deck.deal_index):
                    seen.update(card_text(c) for c in deck.deals[k][seat])
                if deck.face_down_team == team_of(seat):
                    seen.update(card_text(c) for c in deck.middle[:3])
            out.append(seen)
        return out

    timeline = [now()]
    for d in decks:
        for card in d.plays:
            match.play(card)
            played.add(card_text(card))
            timeline.append(now())
    return timeline


def placed(
    messages: list[dict[str, Any]], until_rematch: bool = True
) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Each message with its index and its place in time: the plays of the match made
    by then, counted from the ``card_played`` events got (a welcome's snapshot by its
    deck number and history).  ``until_rematch``: stop at a ``rematch`` event."""
    g = 0
    for n, message in enumerate(messages):
        kind = message["type"]
        if kind == "welcome" and message.get("view") is not None:
            view = message["view"]
            g = 48 * view["deck"] + len(view["history"])
        elif kind == "event" and message["event"]["type"] == "card_played":
            g += 1
        elif until_rematch and kind == "event" and message["event"]["type"] == "rematch":
            return
        yield n, g, message


def leaks(record: MatchRecord, seat: int, messages: list[dict[str, Any]]) -> list[str]:
    """The cards in ``seat``'s messages that it could not see at the time (R7.7), as
    readable lines; empty when nothing leaked (messages placed in time by
    :func:`placed`)."""
    timeline = visible_timeline(record)
    problems = []
    for n, g, message in placed(messages):
        allowed = timeline[min(g, len(timeline) - 1)][seat]
        bad = sorted(set(cards_in(message, [])) - allowed)
        if bad:
            problems.append(f"seat {seat}, message {n} ({message['type']}): {bad} in {message}")
    return problems
