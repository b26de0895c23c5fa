"""Schedulers: when things happen at a table (R7.1 clocks, R7.4 holds, bot delays).

The table state machine never sleeps or reads the time itself: it asks a
:class:`Scheduler`.  :class:`AsyncioScheduler` runs on the event loop;
:class:`VirtualScheduler` runs in virtual time so that tests of 60 s holds take
no real time.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A scheduled call that can be cancelled."""

    def cancel(self) -> None:
        """Cancel the call; cancelling twice or after it ran does nothing."""
        ...


class Scheduler(Protocol):
    """Time and timers, in seconds."""

    def now(self) -> float:
        """The current time in seconds (monotonic, any origin)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback()`` after ``delay`` seconds (0 or less: as soon as possible)."""
        ...


class AsyncioScheduler:
    """The real scheduler: the running asyncio event loop's clock and timers."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Use ``loop``, or the running loop when None."""
        self.loop = loop or asyncio.get_running_loop()

    def now(self) -> float:
        """The loop's monotonic time, in seconds."""
        return self.loop.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Schedule ``callback`` on the loop after ``delay`` seconds."""
        return self.loop.call_later(max(0.0, delay), callback)


class _VirtualTimer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class VirtualScheduler:
    """A scheduler in virtual time for tests: time moves only by :meth:`advance`.

    Timers due at the same time run in the order they were scheduled; a timer
    scheduled by a callback for a time already reached runs within the same
    :meth:`advance`.
    """

    def __init__(self, start: float = 0.0) -> None:
        """Start the virtual clock at ``start`` seconds."""
        self._now = start
        self._heap: list[tuple[float, int, _VirtualTimer]] = []
        self._order = itertools.count()

    def now(self) -> float:
        """The virtual time, in seconds."""
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Schedule ``callback`` at ``now() + max(delay, 0)`` virtual seconds."""
        timer = _VirtualTimer(self._now + max(0.0, delay), callback)
        heapq.heappush(self._heap, (timer.when, next(self._order), timer))
        return timer

    def pending(self) -> list[float]:
        """The times of the timers still to run, earliest first."""
        return sorted(t.when for _, _, t in self._heap if not t.cancelled)

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` ahead, running every timer that falls due, in order.

        Raises:
            ValueError: ``seconds`` is negative.
        """
        if seconds < 0:
            raise ValueError(f"time cannot go back ({seconds} s)")
        end = self._now + seconds
        while self._heap and self._heap[0][0] <= end:
            when, _, timer = heapq.heappop(self._heap)
            if timer.cancelled:
                continue
            self._now = max(self._now, when)
            timer.cancelled = True
            timer.callback()
        self._now = end
