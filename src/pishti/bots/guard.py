"""A guard around a bot that may misbehave: a plug-in cannot hurt a match.

:class:`GuardedBot` asks its bot for a card and checks the answer at the
boundary, before the card reaches the engine:

- the answer must be one of ``view.legal_cards`` *and* a plain ``int``
  (``type(card) is int``): ``True`` would pass for the card 1 and a
  ``numpy.int64`` compares equal to a card and fails later, so both are
  refused (a bot converts with ``int(card)``);
- an exception raised by ``choose`` (any ``BaseException``, ``SystemExit``
  included) is caught; without a time limit the bot runs on the caller's
  own thread, where a ``KeyboardInterrupt`` is the person's Ctrl-C, so that
  one passes on;
- with a time limit (``move_time`` seconds), ``choose`` runs in a helper
  thread; a call still running when the limit passes is stopped (an
  exception is raised inside it; a bot blocked in a C call, such as
  ``time.sleep``, stops when that call returns).  At the bot's next move the
  guard waits up to ``move_time`` for the stopped call to end; if it has not,
  the bot is reported busy for that move.

The optional ``observe(event)`` hook (:class:`pishti.bots.base.Bot`) is
called under the same guard (:meth:`GuardedBot.observe`).  An event that
comes while a stopped call is still running is kept, not lost: the guard
passes the kept events to the hook, in order, as soon as the bot is free
(at its next event or move, or when the match ends: :meth:`GuardedBot.finish`),
so a bot that keeps state sees every play of the deck even after one of its
moves ran over.

Each of these raises :class:`BotFault` with one line saying what the bot
returned or raised.  What to do then is the caller's: the table, ``pishti
play`` and the arena play the standard bot's card for that seat (R7.2).
:func:`fault_line` words the whole report: bot, seat, match, deck, what.
"""

from __future__ import annotations

import ctypes
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pishti.bots.base import Bot
from pishti.engine.cards import Card, card_text
from pishti.engine.events import Event
from pishti.engine.view import SeatView

DEFAULT_MOVE_TIME = 2.0
"""Seconds a plug-in bot may take per move before it is stopped (``--move-time``)."""

RETURNED = "returned"
RAISED = "raised"
OVERTIME = "overtime"
BUSY = "busy"


class MoveTimeout(BaseException):
    """Raised inside a bot's thread to stop a move that ran over its time."""


class BotFault(Exception):
    """A bot failed to give a legal card.

    Attributes:
        kind: :data:`RETURNED` (not a legal card), :data:`RAISED`,
            :data:`OVERTIME` (stopped after ``move_time`` seconds) or
            :data:`BUSY` (still running an earlier, stopped move).
        what: one line saying what it returned or raised, e.g.
            ``"returned 7 (numpy.int64), not one of its cards 2C 7S JD"``.
    """

    def __init__(self, kind: str, what: str) -> None:
        super().__init__(what)
        self.kind = kind
        self.what = what


def describe_value(value: object) -> str:
    """``value`` and its type for a report, shortened: ``'7H' (str)``."""
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    try:
        text = repr(value)
    except Exception:  # a repr that fails is one more misbehaviour; say what we can
        text = "?"
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({name})"


def check_card(value: object, view: SeatView) -> Card:
    """Return ``value`` when it is one of ``view.legal_cards`` and a plain int.

    Raises:
        BotFault: (kind :data:`RETURNED`) anything else: another card, None,
            text, a float, a bool, a numpy integer.
    """
    legal = view.legal_cards
    if type(value) is int and value in legal:
        return value
    cards = " ".join(card_text(c) for c in sorted(legal))
    if type(value) is int and 0 <= value < 52:
        what = (
            f"returned {card_text(value)} ({value}), a card it does not hold (its cards: {cards})"
        )
    elif _int_like(value):
        # The number may well be a card it holds: what is wrong is the type.
        what = (
            f"returned {describe_value(value)}, not a plain int: cards are plain ints, "
            f"use int(card) (its cards: {cards})"
        )
    else:
        what = f"returned {describe_value(value)}, not one of its cards ({cards})"
    raise BotFault(RETURNED, what)


def _int_like(value: object) -> bool:
    if type(value) is int or isinstance(value, bool):
        return False
    try:
        int(value)  # type: ignore[call-overload]
    except Exception:
        return False
    return hasattr(value, "__index__")


def exception_text(exc: BaseException) -> str:
    """``"ZeroDivisionError: division by zero"``, on one line and shortened."""
    try:
        message = str(exc)
    except Exception:
        message = ""
    line = " ".join(message.split())
    if len(line) > 160:
        line = line[:157] + "..."
    name = type(exc).__name__
    return f"{name}: {line}" if line else name


def stop_thread(thread: threading.Thread) -> None:
    """Raise :class:`MoveTimeout` inside ``thread`` (CPython's async exception)."""
    ident = thread.ident
    if ident is None:
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(MoveTimeout))


@dataclass(slots=True)
class _Call:
    """One call of ``choose`` in a helper thread and what it gave."""

    card: object = None
    error: BaseException | None = None


class GuardedBot:
    """A bot whose every answer is checked, and timed when ``move_time`` is set.

    Attributes:
        bot: the bot guarded.  spec: how it was named (``"mybot:Bot"``).
        name: the bot's ``name`` when it is a str, else ``spec``.
        move_time: seconds allowed per move, or None for no limit (then
            ``choose`` runs in the caller's thread).
    """

    def __init__(self, bot: Bot, spec: str, move_time: float | None = DEFAULT_MOVE_TIME) -> None:
        """Guard ``bot``.

        Raises:
            ValueError: ``move_time`` is not a positive, finite number of seconds.
        """
        if move_time is not None and not (move_time > 0 and math.isfinite(move_time)):
            raise ValueError(f"move_time must be positive seconds, not {move_time!r}")
        self.bot = bot
        self.spec = spec
        name = getattr(bot, "name", None)
        self.name = name if isinstance(name, str) and name else spec
        self.move_time = move_time
        self._running: threading.Thread | None = None
        self._kept: list[Event] = []

    @property
    def observes(self) -> bool:
        """True when the bot has the optional ``observe(event)`` hook."""
        return callable(getattr(self.bot, "observe", None))

    def choose(self, view: SeatView) -> Card:
        """Return the bot's card for ``view``, checked (module doc); events
        kept while the bot was busy are passed to its hook first.

        Raises:
            BotFault: the bot returned no legal card, raised, ran over its
                time, or is still busy with a move that ran over; or its hook
                raised or ran over on a kept event (the line then ends with
                ``(in observe)``).
        """
        self._wait()
        self._catch_up(" (in observe)")
        return check_card(self._run(self.bot.choose, view), view)

    def observe(self, event: Event) -> None:
        """Pass ``event`` (the seat's copy, R7.7) to the bot's ``observe`` hook,
        if it has one, under the same guard as :meth:`choose`.  While a
        stopped call still runs, the event is kept for later (module doc)
        and nothing is raised.

        Raises:
            BotFault: the hook raised or ran over the time, on this event or
                on one kept earlier.
        """
        if not self.observes:
            return
        self._kept.append(event)
        if self._running is not None and self._running.is_alive():
            return
        self._running = None
        self._catch_up("")

    def finish(self) -> None:
        """At the end of a match: wait up to ``move_time`` for a stopped call
        to end, then give the bot the events kept for it (module doc), so it
        sees the last plays, the count and the match's end too.

        Raises:
            BotFault: the bot is still running (kind :data:`BUSY`; the kept
                events are not shown to it), or its hook raised or ran over
                on a kept event.
        """
        if not self._kept:
            return
        try:
            self._wait()
        except BotFault:
            self._kept.clear()
            raise BotFault(
                BUSY,
                "is still running a move that was stopped; the match's last events "
                "were not shown to it",
            ) from None
        self._catch_up("")

    def _wait(self) -> None:
        """Wait up to ``move_time`` for a stopped call to end (the wait counts
        as this move's time).

        Raises:
            BotFault: (kind :data:`BUSY`) it is still running.
        """
        running = self._running
        if running is not None:
            running.join(self.move_time)
            if running.is_alive():
                raise BotFault(BUSY, "is still running a move that was stopped for taking too long")
            self._running = None

    def _catch_up(self, suffix: str) -> None:
        """Pass the events kept while the bot was busy to its hook, oldest first.

        Raises:
            BotFault: the hook raised or ran over on one of them (``what``
                then ends with ``suffix``); the events after it stay kept
                when it ran over, and are dropped when it raised.
        """
        hook = getattr(self.bot, "observe", None)
        while self._kept and callable(hook):
            event = self._kept.pop(0)
            try:
                self._run(hook, event)
            except BotFault as fault:
                if fault.kind != OVERTIME:
                    self._kept.clear()
                raise BotFault(fault.kind, fault.what + suffix) from None

    def _run(self, method: Callable[[Any], object], arg: object) -> object:
        """Call ``method(arg)`` under the guard and return what it returned
        (the bot must not be running a stopped call)."""
        if self.move_time is None:
            try:
                return method(arg)
            except KeyboardInterrupt:
                raise  # on the caller's thread: the person's Ctrl-C (module doc)
            except BaseException as exc:  # SystemExit from a bot is its fault too
                raise BotFault(RAISED, f"raised {exception_text(exc)}") from None
        call = _Call()

        def run() -> None:
            try:
                call.card = method(arg)
            except BaseException as exc:  # SystemExit from a bot is its fault too
                call.error = exc

        thread = threading.Thread(target=run, name=f"bot {self.name}", daemon=True)
        thread.start()
        thread.join(self.move_time)
        if thread.is_alive():
            stop_thread(thread)
            thread.join(0.05)
            if thread.is_alive():
                self._running = thread
            raise BotFault(OVERTIME, f"took longer than {self.move_time:g} s and was stopped")
        if call.error is not None:
            raise BotFault(RAISED, f"raised {exception_text(call.error)}")
        return call.card


def fault_line(bot: str, seat: int, match: str, deck: int, fault: BotFault) -> str:
    """The one line that reports a fault, e.g. ``"bot 'mybot:Bot' at seat 1,
    match seed 5, deck 2: raised ZeroDivisionError: division by zero"``.

    ``deck`` is counted from 0 (as :attr:`SeatView.deck`) and shown from 1.
    """
    return f"bot {bot!r} at seat {seat}, {match}, deck {deck + 1}: {fault.what}"
