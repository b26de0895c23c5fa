"""The garbage collector of a server process: no pauses while tables play.

A server holds thousands of long-lived objects (every connection keeps a
hundred or so in the WebSocket layer, and every waiting ``receive`` a dozen
more) while each move makes a few short-lived ones.  With CPython's default
thresholds a full collection walked the 4,000 connections' half a million
objects every few seconds and stopped the event loop for 300 to 550 ms; with
a higher threshold for the young generation, each young collection still
walked 100,000 objects or so and stopped it for about 80 ms
(``docs/server.md``, Load).

Reference counting frees almost every object the moment it is no longer
used; the collector is needed only for reference cycles.  So :class:`Collector`:

- moves every object that exists into the permanent generation
  (``gc.freeze``) every ``freeze_every`` seconds.  That takes no time (it
  links lists), and frozen objects are still freed by reference counting;
- raises the young generation's threshold from 700 new objects to
  ``young``, so that between two freezes CPython seldom starts a collection
  at all, and one that it starts finds at most a second's new objects;
- every ``sweep_every`` seconds *sweeps*: unfreezes everything and runs one
  full collection, which frees the cycles that died since the last sweep.
  That is the one pause left (about half a second at 4,000 connections,
  every ten minutes by default); it is logged with what it freed.

The cost is memory: a cycle that dies waits for the next sweep.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("pishti.server.collector")

FREEZE_EVERY = 1.0
"""Seconds between two freezes."""
SWEEP_EVERY = 600.0
"""Seconds between two sweeps (full collections)."""
YOUNG_THRESHOLD = 50_000
"""New objects (allocations less deallocations) that start a collection of the
young generation; CPython's default is 700."""


class Collector:
    """Freezes the heap every ``freeze_every`` seconds and sweeps it every ``sweep_every``.

    Args:
        freeze_every: seconds between freezes (above 0).
        sweep_every: seconds between sweeps (above 0).
        young: the young generation's threshold while it runs (at least 1).

    Raises:
        ValueError: an interval is not above 0, or ``young`` is below 1.
    """

    def __init__(
        self,
        freeze_every: float = FREEZE_EVERY,
        sweep_every: float = SWEEP_EVERY,
        young: int = YOUNG_THRESHOLD,
    ) -> None:
        if freeze_every <= 0 or sweep_every <= 0:
            raise ValueError("the collector's intervals must be above 0 seconds")
        if young < 1:
            raise ValueError("the young generation's threshold must be at least 1")
        self.freeze_every = freeze_every
        self.sweep_every = sweep_every
        self.young = young
        self._thresholds = gc.get_threshold()
        self.sweeps = 0
        self.freed = 0
        """Objects the sweeps have freed, in all."""
        self._timers: list[asyncio.TimerHandle] = []

    def start(self) -> None:
        """Sweep once, then freeze and sweep on the running loop's timers.

        Raises:
            RuntimeError: no event loop is running.
        """
        loop = asyncio.get_running_loop()
        self._thresholds = gc.get_threshold()
        gc.set_threshold(self.young, *self._thresholds[1:])
        self.sweep()
        self._timers = [
            loop.call_later(self.freeze_every, self._freeze),
            loop.call_later(self.sweep_every, self._sweep),
        ]

    def stop(self) -> None:
        """Stop the timers, give every object back to the collector and put its
        thresholds back."""
        for timer in self._timers:
            timer.cancel()
        self._timers = []
        gc.unfreeze()
        gc.set_threshold(*self._thresholds)

    def freeze(self) -> None:
        """Move every object to the permanent generation now."""
        gc.freeze()

    def sweep(self) -> int:
        """Unfreeze, collect every generation, freeze again; returns the objects freed."""
        started = time.perf_counter()
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        self.sweeps += 1
        self.freed += freed
        log.info(
            "swept the heap: %d objects freed in %.0f ms",
            freed,
            1000 * (time.perf_counter() - started),
        )
        return freed

    def _freeze(self) -> None:
        self.freeze()
        self._timers[0] = asyncio.get_running_loop().call_later(self.freeze_every, self._freeze)

    def _sweep(self) -> None:
        self.sweep()
        self._timers[1] = asyncio.get_running_loop().call_later(self.sweep_every, self._sweep)
