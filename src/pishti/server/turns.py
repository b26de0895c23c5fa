"""Turns and clocks of one table: deadlines, timeouts, autopilot, holds and bot moves (R7.1-R7.5).

A :class:`Turns` watches a live table and makes the changes nobody asks for:

- **The clock** (R7.1): the seat to play has ``tempo`` seconds; when they run
  out the standard bot's card is played for it (a timeout, R7.2), and after
  three timeouts in a row the seat is on autopilot (R7.3; the reducer counts).
- **Bot moves**: a bot's seat, or a seat on autopilot, plays after
  ``bot_delay`` seconds (so people can follow).  Its choice runs through the
  injected :data:`BotRunner`, which may think off the event loop; a card that
  comes back after the turn moved on is dropped.  A bot that fails or chooses
  no legal card is replaced for that move by the standard bot (R7.2).
- **Holds** (R7.4): a person whose connection is lost keeps the seat for 60 s
  (10 s after the client said the game was closed); then a standard bot takes
  it for good (R7.5).

It never changes the table's state itself: it hands changes to the table
(:meth:`Table.commit <pishti.server.table.Table.commit>`), which applies them
through the reducer like any other.

- **The pause between decks** (R7.8): after a count the next deck is dealt
  once every person seated and connected (not on autopilot) has pressed
  Continue, or after ``pause`` seconds; no clock runs meanwhile.  A person
  whose connection drops during it is still waited for ``pause_return``
  seconds (the reducer keeps them :attr:`~pishti.server.reducer.TableState.away`);
  then a :class:`~pishti.server.changes.StopWaiting` ends that.

Moving every bot's thinking off the event loop, with a deadline, is the
server's :data:`BotRunner` (:class:`pishti.server.botrunner.ThreadedRunner`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from pishti.bots import Bot
from pishti.engine import SeatView, card_text, seat_view
from pishti.server.changes import Deal, How, Play, Replace, StopWaiting
from pishti.server.clock import Scheduler, Timer
from pishti.server.reducer import STANDARD, Outcome

if TYPE_CHECKING:
    from pishti.server.table import Table, Timing

log = logging.getLogger("pishti.server.turns")

BotFactory = Callable[[str, int | None], Bot]
BotRunner = Callable[[str, Callable[[], int], Callable[[int], None]], None]
"""``runner(level, choose, done)``: call ``done(choose())``, now or later (a slow bot
level may think in a thread: ``choose`` reads only an immutable seat view)."""


def run_inline(level: str, choose: Callable[[], int], done: Callable[[int], None]) -> None:
    """The default :data:`BotRunner`: choose at once, on the caller's thread."""
    done(choose())


def derived_seed(*parts: object) -> int:
    """A bot's seed derived from the table's secret seed and ``parts`` (64 bits of SHA-256)."""
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


class Turns:
    """The clocks, holds and automatic moves of one live table (see the module)."""

    def __init__(
        self,
        table: Table,
        scheduler: Scheduler,
        timing: Timing,
        bots: BotFactory,
        runner: BotRunner,
    ) -> None:
        """Watch ``table``: ``scheduler`` gives time and timers, ``timing`` the delays,
        ``bots(level, seed)`` builds a bot, ``runner`` runs its choice."""
        self.table = table
        self.scheduler = scheduler
        self.timing = timing
        self.bots = bots
        self.runner = runner
        self.closed = False
        self._turn_id = 0
        """Counts the clocks started: a new one at each turn and at a restart."""
        self._timed_turn = -1
        self._deadline = 0.0
        self._turn_timer: Timer | None = None
        self._turn_key: tuple[int, str] | None = None
        self._holds: dict[int, Timer] = {}
        self._closing: dict[int, bool] = {}
        self._bot_cache: dict[tuple[int, int, str], Bot] = {}
        self._pause_timer: Timer | None = None
        self._pause_ends = 0.0
        self._stop_waiting: dict[int, Timer] = {}
        """The persons who dropped during the pause, each with the timer that stops
        the pause waiting for them."""

    # -- told by the table -------------------------------------------------------

    def changed(self, outcome: Outcome) -> None:
        """A change was applied (live or replayed): a new clock starts if it says so."""
        if outcome.new_clock:
            self._turn_id += 1

    def said_closing(self, seat: int, closing: bool | None) -> None:
        """Remember whether ``seat``'s client said the game was closed (None: forget)."""
        if closing is None:
            self._closing.pop(seat, None)
        else:
            self._closing[seat] = closing

    def dropped(self, seat: int) -> None:
        """``seat``'s connection was marked lost: during the pause between decks, a
        person it still waits for (:attr:`~pishti.server.reducer.TableState.away`)
        is waited for ``pause_return`` seconds more (a reloaded page comes back),
        then no longer (R7.8)."""
        timer = self._stop_waiting.pop(seat, None)
        if timer is not None:
            timer.cancel()
        state = self.table.state
        if not self.closed and state.pausing and seat in state.away:
            self._stop_waiting[seat] = self.scheduler.call_later(
                self.timing.pause_return * self.timing.scale,
                partial(self._on_stop_waiting, seat),
            )

    def _on_stop_waiting(self, seat: int) -> None:
        self._stop_waiting.pop(seat, None)
        state = self.table.state
        # Not when a bot took the seat meanwhile (a hold ended): it is not waited for.
        if not self.closed and state.pausing and seat in state.away & state.pause_waits_for():
            self.table.commit(StopWaiting(seat))

    def remaining(self) -> float:
        """Seconds left on the running clock (0 when none runs)."""
        return max(0.0, self._deadline - self.scheduler.now())

    def pause_remaining(self) -> float | None:
        """Seconds until the pause between decks ends at the latest, or None when
        its timer does not run (R7.8)."""
        if self._pause_timer is None:
            return None
        return max(0.0, self._pause_ends - self.scheduler.now())

    def close(self) -> None:
        """Stop every timer; no further automatic change is made."""
        self.closed = True
        if self._pause_timer is not None:
            self._pause_timer.cancel()
            self._pause_timer = None
        self._cancel_stop_waiting()
        if self._turn_timer is not None:
            self._turn_timer.cancel()
            self._turn_timer = None
        self._turn_key = None
        for timer in self._holds.values():
            timer.cancel()
        self._holds.clear()

    # -- timers ----------------------------------------------------------------------

    def arm(self) -> None:
        """After a live change: (re)arm the turn's timer and the holds."""
        if self.closed:
            return
        self._arm_turn()
        self._arm_holds()
        self._arm_pause()

    def _arm_pause(self) -> None:
        """Deal on once everyone the pause waits for has pressed Continue, or when
        its time is up (R7.8)."""
        state = self.table.state
        if not state.pausing:
            if self._pause_timer is not None:
                self._pause_timer.cancel()
            self._pause_timer = None
            self._cancel_stop_waiting()
            return
        if not state.pause_waits_for() - state.ready:
            if self._pause_timer is not None:
                self._pause_timer.cancel()
            self._pause_timer = None
            self.table.commit(Deal("ready"))
            return
        if self._pause_timer is None:
            seconds = self.timing.pause * self.timing.scale
            self._pause_ends = self.scheduler.now() + seconds
            self._pause_timer = self.scheduler.call_later(seconds, self._on_pause_timer)

    def _cancel_stop_waiting(self) -> None:
        for timer in self._stop_waiting.values():
            timer.cancel()
        self._stop_waiting.clear()

    def _on_pause_timer(self) -> None:
        self._pause_timer = None
        if not self.closed and self.table.state.pausing:
            self.table.commit(Deal("time"))

    def _arm_turn(self) -> None:
        table = self.table
        seat = table.to_play
        if seat is None:
            if self._turn_timer is not None:
                self._turn_timer.cancel()
            self._turn_timer = None
            self._turn_key = None
            return
        now = self.scheduler.now()
        if self._timed_turn != self._turn_id:
            self._timed_turn = self._turn_id
            self._deadline = now + table.tempo_seconds
        st = table.seats[seat]
        mode = "bot" if st.kind == "bot" or st.autopilot else "clock"
        key = (self._turn_id, mode)
        if key == self._turn_key:
            return
        if self._turn_timer is not None:
            self._turn_timer.cancel()
        delay = self.timing.bot_delay if mode == "bot" else self._deadline - now
        self._turn_key = key
        self._turn_timer = self.scheduler.call_later(delay, partial(self._on_turn_timer, key))

    def _on_turn_timer(self, key: tuple[int, str]) -> None:
        if key != self._turn_key or self.closed:
            return
        # The key stays while the bot thinks, so no second timer is armed for this
        # turn; a take over or a play changes it and the bot's card is then dropped.
        self._turn_timer = None
        table = self.table
        seat = table.to_play
        if seat is None or table.match is None:
            return
        st = table.seats[seat]
        how: How
        if key[1] == "bot":
            level = st.level if st.kind == "bot" and st.level else STANDARD
            how = "bot" if st.kind == "bot" else "autopilot"
        else:
            level = STANDARD
            how = "timeout"
        view = seat_view(table.match, seat)
        bot = self._bot(seat, level)

        def choose() -> int:
            try:
                return bot.choose(view)
            except Exception:
                log.exception("table %s: the %s bot failed at seat %d", table.table_id, level, seat)
                return -1

        def done(card: int) -> None:
            if self.closed or key != self._turn_key or table.to_play != seat:
                return
            if not table.may_play(seat, card):
                card = self._fallback(seat, level, view)
            self._turn_key = None
            table.commit(Play(seat, card_text(card), how))

        self.runner(level, choose, done)

    def _fallback(self, seat: int, level: str, view: SeatView) -> int:
        """The card played when the ``level`` bot chose none: the standard bot's (R7.2),
        or the first legal card if the standard bot itself failed."""
        log.error(
            "table %s: the %s bot chose no legal card: the standard bot plays",
            self.table.table_id,
            level,
        )
        if level != STANDARD:
            try:
                card = self._bot(seat, STANDARD).choose(view)
            except Exception:
                log.exception("table %s: the standard bot failed too", self.table.table_id)
            else:
                if self.table.may_play(seat, card):
                    return card
        return view.legal_cards[0]

    def _bot(self, seat: int, level: str) -> Bot:
        """The bot of ``level`` that plays for ``seat`` in this match (from its view only, R7.7)."""
        table = self.table
        key = (table.match_no, seat, level)
        bot = self._bot_cache.get(key)
        if bot is None:
            bot = self.bots(level, derived_seed(table.seed, table.match_no, seat, level))
            self._bot_cache[key] = bot
        return bot

    def _arm_holds(self) -> None:
        table = self.table
        for seat, st in enumerate(table.seats):
            needs = table.status == "playing" and st.kind == "human" and not st.connected
            timer = self._holds.get(seat)
            if needs and timer is None:
                base = self.timing.closing_hold if self._closing.get(seat) else self.timing.hold
                self._holds[seat] = self.scheduler.call_later(
                    base * self.timing.scale, partial(self._on_hold_expired, seat)
                )
            elif not needs and timer is not None:
                timer.cancel()
                del self._holds[seat]

    def _on_hold_expired(self, seat: int) -> None:
        self._holds.pop(seat, None)
        if self.closed:
            return
        table = self.table
        st = table.seats[seat]
        if table.status == "playing" and st.kind == "human" and not st.connected:
            table.commit(Replace(seat, "hold"))
