"""Bots from other modules: a spec ``"module:Class"`` names a plug-in bot.

The plug-in interface: ``Class(seed)`` (``seed`` an ``int`` or ``None``) returns
an object with a ``name`` (str) and ``choose(view) -> card``, where ``view``
is a :class:`~pishti.engine.view.SeatView` (R7.7) and the card one of
``view.legal_cards`` (see :class:`pishti.bots.base.Bot`).  ``Class`` may be any
callable.  ``module`` is an importable module (a dotted name) or the path of a
Python file (``./mybot.py:Bot``, ``bots/mybot.py:Bot``).

Whatever goes wrong while loading or building a plug-in (the module does not
import or raises while importing, the class is missing, ``Class(seed)`` raises)
comes back as a :class:`ValueError` with one line that names the plug-in and
says what went wrong; never a traceback.  Guarding its moves is
:mod:`pishti.bots.guard`'s job.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Callable
from types import ModuleType

from pishti.bots.base import Bot
from pishti.bots.guard import exception_text


def is_plugin_spec(spec: str) -> bool:
    """True when ``spec`` has the plug-in form ``module:Class`` (or ``file.py:Class``)."""
    return ":" in spec


def _is_path(module_name: str) -> bool:
    return module_name.endswith(".py") or os.sep in module_name or "/" in module_name


def _import_file(path: str) -> ModuleType:
    """Import the Python file ``path`` as a module of its own (once per process).

    Raises:
        ValueError: no such file, or it fails while importing.
    """
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise ValueError(f"no bot file {path!r}")
    digest = hashlib.sha1(full.encode()).hexdigest()[:12]
    name = f"pishti_plugin_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, full)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import the bot file {path!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        del sys.modules[name]
        raise ValueError(f"the bot file {path!r} failed to import: {exception_text(exc)}") from None
    return module


def load_plugin(spec: str) -> Callable[[int | None], Bot]:
    """Import the factory named by ``spec`` (``"module:Class"``, ``Class`` may be dotted).

    Raises:
        ValueError: ``spec`` is malformed, the module cannot be imported (or
            raises while importing), it has no such attribute, or the
            attribute is not callable.
    """
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise ValueError(f"a plug-in bot is given as module:Class, not {spec!r}")
    target: object
    if _is_path(module_name):
        target = _import_file(module_name)
        for part in attribute.split("."):
            try:
                target = getattr(target, part)
            except AttributeError:
                raise ValueError(f"module {module_name!r} has no {attribute!r}") from None
    else:
        try:
            target = pkgutil.resolve_name(spec)
        except ImportError as exc:
            raise ValueError(f"cannot import the bot module {module_name!r}: {exc}") from None
        except AttributeError as exc:
            if module_name in sys.modules:  # imported: the attribute is missing
                raise ValueError(f"module {module_name!r} has no {attribute!r}") from None
            raise ValueError(
                f"the bot module {module_name!r} failed to import: {exception_text(exc)}"
            ) from None
        except (Exception, SystemExit) as exc:
            raise ValueError(
                f"the bot module {module_name!r} failed to import: {exception_text(exc)}"
            ) from None
    if not callable(target):
        raise ValueError(f"{spec!r} is not a class or function that builds a bot")
    factory: Callable[[int | None], Bot] = target
    return factory


def make_plugin_bot(spec: str, seed: int | None) -> Bot:
    """Build the plug-in bot ``spec`` with ``seed`` and check that it is a bot.

    Raises:
        ValueError: as :func:`load_plugin`, ``Class(seed)`` raised (a missing
            ``seed`` parameter, say), or the object built has no ``name`` or
            no ``choose`` method.
    """
    factory = load_plugin(spec)
    try:
        bot = factory(seed)
    except (Exception, SystemExit) as exc:
        raise ValueError(
            f"the bot {spec!r} could not be built as {spec.rpartition(':')[2]}(seed): "
            f"{exception_text(exc)}"
        ) from None
    if not isinstance(bot, Bot) or not callable(getattr(bot, "choose", None)):
        raise ValueError(f"{spec!r} did not build a bot (it needs a name and choose(view))")
    return bot
