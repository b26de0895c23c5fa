"""The error a broken or illegal match record raises (R10)."""

from __future__ import annotations

from pishti.engine.errors import PishtiError


class RecordError(PishtiError, ValueError):
    """A record that is not valid JSON, not a valid deal, or plays illegally (R10).

    Attributes:
        deck: the deck at fault, counted from 1, or None for the whole record.
        play: the play at fault within that deck, counted from 1, or None.
    The message is one line and names the deck and the play.
    """

    def __init__(self, message: str, deck: int | None = None, play: int | None = None) -> None:
        where = []
        if deck is not None:
            where.append(f"deck {deck}")
        if play is not None:
            where.append(f"play {play}")
        text = (", ".join(where) + ": " + message) if where else message
        super().__init__(text)
        self.deck = deck
        self.play = play
