"""Plug-in bots that misbehave, each in one way, for the guard's tests."""

from __future__ import annotations

import threading
import time
from typing import ClassVar

from pishti.engine import Card, SeatView


class Int64:
    """Behaves as ``numpy.int64`` does at the boundary: equal to the int it
    holds (so ``x in view.legal_cards`` is True), hashable alike, an index,
    yet not an ``int``."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return other == self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __index__(self) -> int:
        return self.value

    def __int__(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"np.int64({self.value})"


class _Base:
    name = "bad"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.moves = 0

    def choose(self, view: SeatView) -> Card:
        self.moves += 1
        return self.answer(view)  # type: ignore[no-any-return]

    def answer(self, view: SeatView) -> object:
        return min(view.legal_cards)


class WrongCard(_Base):
    """Plays a card it does not hold on its third move."""

    def answer(self, view: SeatView) -> object:
        if self.moves == 3:
            return next(c for c in range(52) if c not in view.hand)
        return min(view.legal_cards)


class ReturnsNone(_Base):
    def answer(self, view: SeatView) -> object:
        return None


class ReturnsText(_Base):
    def answer(self, view: SeatView) -> object:
        return "7H"


class ReturnsFloat(_Base):
    def answer(self, view: SeatView) -> object:
        return float(min(view.legal_cards))


class ReturnsTrue(_Base):
    def answer(self, view: SeatView) -> object:
        return True


class ReturnsNumpy(_Base):
    def answer(self, view: SeatView) -> object:
        return Int64(min(view.legal_cards))


class Raises(_Base):
    """Raises on its second move."""

    def answer(self, view: SeatView) -> object:
        if self.moves == 2:
            raise ZeroDivisionError("division by zero")
        return min(view.legal_cards)


class Exits(_Base):
    """Calls ``sys.exit(3)`` on its second move."""

    def answer(self, view: SeatView) -> object:
        if self.moves == 2:
            raise SystemExit(3)
        return min(view.legal_cards)


class SlowFirst(_Base):
    """Takes 0.5 s over its first move, then plays at once."""

    def answer(self, view: SeatView) -> object:
        if self.moves == 1:
            time.sleep(0.5)
        return min(view.legal_cards)


class HeldFirst(_Base):
    """Its first move waits (in C, where a stop cannot land) until the test sets
    ``release`` (10 s at most), then it plays at once: a slow move whose end the
    test chooses, however loaded the machine."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.release = threading.Event()

    def answer(self, view: SeatView) -> object:
        if self.moves == 1:
            self.release.wait(10)
        return min(view.legal_cards)


class HeldWatcher(HeldFirst):
    """:class:`HeldFirst` whose observe hook keeps every event."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.events: list[object] = []

    def observe(self, event: object) -> None:
        self.events.append(event)


class Hangs(_Base):
    """Never returns from its second move (a busy loop)."""

    def answer(self, view: SeatView) -> object:
        if self.moves == 2:
            while True:
                pass
        return min(view.legal_cards)


class NoSeed:
    """Cannot be built as ``NoSeed(seed)``."""

    name = "no-seed"

    def __init__(self) -> None:
        pass

    def choose(self, view: SeatView) -> Card:
        return min(view.legal_cards)


CALLS = [0]


class Interrupts(_Base):
    """Acts as Ctrl-C on the 250th move made in this process (in the second
    duplicate match at two players to 51)."""

    def answer(self, view: SeatView) -> object:
        CALLS[0] += 1
        if CALLS[0] == 250:
            raise KeyboardInterrupt
        return min(view.legal_cards)


class Watcher(_Base):
    """Counts what its observe hook is told; plays its lowest card."""

    name = "watcher"
    LOG: ClassVar[list[tuple[int | None, str, int]]] = []

    def observe(self, event: object) -> None:
        Watcher.LOG.append((self.seed, type(event).__name__, getattr(event, "deck", -1)))


class BadObserver(_Base):
    """Its observe hook raises at the first card played."""

    def observe(self, event: object) -> None:
        if type(event).__name__ == "CardPlayed":
            raise KeyError("no such card")


class ReturnsRealNumpy(_Base):
    """Returns ``numpy.int64``, as a bot computing with numpy arrays does."""

    def answer(self, view: SeatView) -> object:
        import numpy as np

        return np.int64(min(view.legal_cards))


class SlowLast(_Base):
    """Takes 0.3 s (in C) over the last card of every deck; its observe hook
    logs the kind and deck of every event it is told."""

    name = "slow-last"
    LOG: ClassVar[list[tuple[str, int]]] = []

    def answer(self, view: SeatView) -> object:
        if view.stock_size == 0 and len(view.hand) == 1:
            time.sleep(0.3)
        return min(view.legal_cards)

    def observe(self, event: object) -> None:
        SlowLast.LOG.append((type(event).__name__, getattr(event, "deck", -1)))
