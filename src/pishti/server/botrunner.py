"""Bots think off the event loop, each move with a deadline (R7.2).

:class:`ThreadedRunner` is the server's
:data:`~pishti.server.turns.BotRunner`: every bot's choice, whatever its level
(and the standard bot that plays when a clock runs out), runs in a thread of
its own, so a table's event loop never waits for a bot and other tables go on.
When the choice comes back, the card is handed to the table on the loop.
When it does not come back within ``deadline`` seconds, the move is handed
over as failed (``done(-1)``): the table then plays the standard bot's card
(:meth:`Turns._fallback <pishti.server.turns.Turns._fallback>`, R7.2) and
logs it.  The late thread is stopped (an exception raised inside it, see
:func:`pishti.bots.guard.stop_thread`) and whatever it returns is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable

from pishti.bots.guard import stop_thread

log = logging.getLogger("pishti.server.bots")

DEFAULT_DEADLINE = 5.0
"""Seconds a bot may think over one move in the server (``--bot-deadline``)."""


class ThreadedRunner:
    """Runs each bot choice in a thread, with a deadline (module doc).

    Attributes:
        deadline: seconds a choice may take.
        late: choices that ran over the deadline so far (for study and tests).
    """

    def __init__(self, deadline: float = DEFAULT_DEADLINE) -> None:
        """Raises ValueError: ``deadline`` is not a positive number of seconds."""
        if not deadline > 0:
            raise ValueError(f"deadline must be positive seconds, not {deadline!r}")
        self.deadline = deadline
        self.late = 0

    def __call__(self, level: str, choose: Callable[[], int], done: Callable[[int], None]) -> None:
        """Start ``choose()`` in a thread; call ``done(card)`` on the running loop
        when it returns, or ``done(-1)`` once the deadline has passed."""
        loop = asyncio.get_running_loop()
        finished = False

        def finish(card: int) -> None:
            nonlocal finished
            if finished:
                return
            finished = True
            timer.cancel()
            done(card)

        def work() -> None:
            # The stop raised after the deadline may land anywhere in here: catch it all.
            try:
                try:
                    card = choose()
                except BaseException:  # stopped, or a failure choose let out
                    card = -1
                if not finished:
                    # A closed loop (RuntimeError): the server stopped meanwhile.
                    with contextlib.suppress(RuntimeError):
                        loop.call_soon_threadsafe(finish, card)
            except BaseException:
                pass

        thread = threading.Thread(target=work, name=f"bot {level}", daemon=True)

        def overtime() -> None:
            if finished:
                return
            self.late += 1
            log.warning(
                "the %s bot took longer than %g s: the standard bot plays", level, self.deadline
            )
            stop_thread(thread)
            finish(-1)

        timer = loop.call_later(self.deadline, overtime)
        thread.start()
