"""Bots that play Pishti from what their seat may see, and the registry of levels."""

from __future__ import annotations

from collections.abc import Callable

from pishti.bots.base import Bot, RandomBot

LEVELS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
}
"""Bot levels by name: each is built as ``LEVELS[name](seed)``."""


def make_bot(level: str, seed: int | None = None) -> Bot:
    """Build the bot of ``level`` (a name in :data:`LEVELS`) seeded with ``seed``.

    Raises:
        ValueError: unknown level.
    """
    try:
        factory = LEVELS[level]
    except KeyError:
        raise ValueError(
            f"unknown bot level {level!r}; known: {', '.join(sorted(LEVELS))}"
        ) from None
    return factory(seed)


__all__ = ["LEVELS", "Bot", "RandomBot", "make_bot"]
