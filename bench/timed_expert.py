"""The expert on a CPU-time budget per move, as arena plug-ins: fast core or reference.

The ``expert`` level's budget is 128 sampled decks per move, on which its fast
core and the reference path (``ExpertBot(fast=False)``) play the same moves.
These plug-ins give both the same CPU time per move instead: ``CPU_MS``
milliseconds on the move's own thread (``ExpertBot(time_limit=...,
clock="cpu")``, which the machine's other load does not stretch), with room for
up to ``MAX_SAMPLES`` sampled decks (and as many exact endgames), so the faster
core samples more decks in the same time.  Paired on the same deals against
the standard bot (docs/bots.md, "Strength at the same time per move")::

    pishti arena bench/timed_expert.py:FastExpert standard \\
        --compare bench/timed_expert.py:ReferenceExpert \\
        --players 2 --matches 40 --target 51 --seed 19 --move-time 0 --json

The fast core is compiled when ``./dev compile`` was run (``fastplay.NATIVE``).
"""

from __future__ import annotations

from pishti.bots.expert import ExpertBot

CPU_MS = 30
"""CPU milliseconds per move, about the level's median move."""
MAX_SAMPLES = 4096
"""Sampled decks (and exact endgames) a move may use before its time is up."""


class FastExpert(ExpertBot):
    """The expert on its fast core with ``CPU_MS`` of CPU time per move."""

    FAST = True
    """Which core: the fast one (True) or the reference path (False)."""

    def __init__(self, seed: int | None = None) -> None:
        """Build it with the arena's ``seed``."""
        super().__init__(
            seed,
            samples=MAX_SAMPLES,
            endgame_samples=MAX_SAMPLES,
            time_limit=CPU_MS / 1000,
            clock="cpu",
            fast=self.FAST,
        )


class ReferenceExpert(FastExpert):
    """The expert on the reference path (``fast=False``) with the same CPU time."""

    FAST = False
