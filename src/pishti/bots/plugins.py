"""Bots from other modules: a spec ``"module:Class"`` names a plug-in bot.

The plug-in interface: ``Class(seed)`` (``seed`` an ``int`` or ``None``) returns
an object with a ``name`` (str) and ``choose(view) -> card``, where ``view``
is a :class:`~pishti.engine.view.SeatView` (R7.7) and the card one of
``view.legal_cards`` (see :class:`pishti.bots.base.Bot`).  ``Class`` may be any
callable, and ``module`` any importable module (a dotted name).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable

from pishti.bots.base import Bot


def is_plugin_spec(spec: str) -> bool:
    """True when ``spec`` has the plug-in form ``module:Class``."""
    return ":" in spec


def load_plugin(spec: str) -> Callable[[int | None], Bot]:
    """Import the factory named by ``spec`` (``"module:Class"``, ``Class`` may be dotted),
    through :func:`pkgutil.resolve_name`.

    Raises:
        ValueError: ``spec`` is malformed, the module cannot be imported, or it
            has no such attribute, or the attribute is not callable.
    """
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"a plug-in bot is given as module:Class, not {spec!r}")
    try:
        target: object = pkgutil.resolve_name(spec)
    except ImportError as exc:
        raise ValueError(f"cannot import the bot module {module_name!r}: {exc}") from None
    except (AttributeError, ValueError):
        raise ValueError(f"module {module_name!r} has no {attribute!r}") from None
    if not callable(target):
        raise ValueError(f"{spec!r} is not a class or function that builds a bot")
    factory: Callable[[int | None], Bot] = target
    return factory


def make_plugin_bot(spec: str, seed: int | None) -> Bot:
    """Build the plug-in bot ``spec`` with ``seed`` and check that it is a bot.

    Raises:
        ValueError: as :func:`load_plugin`, or the object built has no ``name``
            or no ``choose`` method.
    """
    bot = load_plugin(spec)(seed)
    if not isinstance(bot, Bot) or not callable(getattr(bot, "choose", None)):
        raise ValueError(f"{spec!r} did not build a bot (it needs a name and choose(view))")
    return bot
