"""The errors the engine raises.  All derive from :class:`PishtiError`."""

from __future__ import annotations


class PishtiError(Exception):
    """Base class of every error the pishti package raises on bad input."""


class CardError(PishtiError, ValueError):
    """A text or number that is not a card (R1.2)."""


class IllegalPlay(PishtiError):
    """A play the rules do not allow: out of turn, a card not in hand, after the end (R3.1)."""


class DealError(PishtiError, ValueError):
    """A deal that breaks R2: not 52 distinct cards, wrong counts, a jack on top of the middle."""
