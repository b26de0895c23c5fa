"""The garbage collector's settings for a server process.

A server holds thousands of long-lived objects (every connection keeps a
hundred or so in the WebSocket layer) while each move makes a few short-lived
ones.  With CPython's default thresholds the young generation is collected
many times a second and a full collection, walking every object, runs every
few seconds; at 4,000 connections a full collection stopped the event loop
for 300 to 550 ms, so a move made during it waited that long
(``docs/server.md``, Load).

:func:`tune_collector` makes collections rarer and the full ones cheaper:

- the objects that exist when the server starts (modules, classes, the
  application) are moved to the permanent generation (``gc.freeze``), so no
  collection walks them again;
- the young generation is collected after ``young`` new objects instead of
  700, so a move's objects are usually freed by reference counting before a
  collection would have moved them to an older generation, and the older
  generations (collected after 10 collections of the one below, as by
  default) fill up, and are walked, far more rarely.

Reference counting frees almost everything; the collector only finds cycles,
and it still does, only less often.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 50_000
"""New objects (allocations less deallocations) between collections of the young
generation; CPython's default is 700."""


def tune_collector(young: int = YOUNG_THRESHOLD) -> tuple[int, int, int]:
    """Collect now, freeze what exists, and raise the collector's thresholds.

    Call it once, after the server's modules are imported and before it serves.

    Args:
        young: the threshold of the young generation (objects, at least 1).

    Returns:
        The thresholds before the change (``gc.get_threshold()``).

    Raises:
        ValueError: ``young`` is below 1.
    """
    if young < 1:
        raise ValueError("the young generation's threshold must be at least 1")
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(young, before[1], before[2])
    return before
