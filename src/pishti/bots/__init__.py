"""Bots that play Pishti from what their seat may see, and the registry of levels.

A bot has a ``name`` and ``choose(view) -> card`` (see :class:`Bot`); it gets
nothing but its seat's :class:`~pishti.engine.view.SeatView` (R7.7).  Levels:

- ``random``: any legal card (:class:`RandomBot`).
- ``novice``: captures when it can, otherwise throws a low-value card.
- ``standard``: counts cards and plays like a careful human.
- ``expert``: searches sampled deals, learning how the other seats play.

:mod:`pishti.bots.baselines` holds sparring partners of other styles
(:data:`~pishti.bots.baselines.POOL`: ``grabber``, ``hunter``, ``hoarder``,
``sloppy``, and the held-out ``sampler`` and ``miser``), to measure bots
against; they are not levels.

:func:`make_bot` builds a level or a sparring partner by name, or a plug-in
given as ``module:Class``.
"""

from __future__ import annotations

from collections.abc import Callable

from pishti.bots.base import Bot, RandomBot
from pishti.bots.baselines import POOL
from pishti.bots.expert import ExpertBot
from pishti.bots.novice import NoviceBot
from pishti.bots.plugins import is_plugin_spec, make_plugin_bot
from pishti.bots.standard import StandardBot

LEVELS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "novice": NoviceBot,
    "standard": StandardBot,
    "expert": ExpertBot,
}
"""Bot levels by name, weakest first: each is built as ``LEVELS[name](seed)``."""


def make_bot(level: str, seed: int | None = None) -> Bot:
    """Build the bot of ``level`` seeded with ``seed``.

    Args:
        level: a name in :data:`LEVELS` or in :data:`~pishti.bots.baselines.POOL`,
            or a plug-in ``"module:Class"`` (see :mod:`pishti.bots.plugins`).
        seed: makes the bot's choices reproducible; None draws a fresh seed.
    Raises:
        ValueError: unknown level, or a plug-in that cannot be loaded or is no bot.
    """
    if is_plugin_spec(level):
        return make_plugin_bot(level, seed)
    factory = LEVELS.get(level) or POOL.get(level)
    if factory is None:
        known = ", ".join([*LEVELS, *POOL])
        raise ValueError(f"unknown bot level {level!r}; known: {known}") from None
    return factory(seed)


__all__ = [
    "LEVELS",
    "POOL",
    "Bot",
    "ExpertBot",
    "NoviceBot",
    "RandomBot",
    "StandardBot",
    "make_bot",
]
