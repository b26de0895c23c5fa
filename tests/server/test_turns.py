"""Turns and clocks (pishti.server.turns): the automatic moves of a table."""

from __future__ import annotations

from pishti.bots import LEVELS, Bot, make_bot
from pishti.engine import SeatView, card_text, seat_view
from pishti.server.clock import VirtualScheduler
from pishti.server.table import CollectingSink, Table, TableSettings, Timing, hash_token
from pishti.server.turns import derived_seed

BOT_DELAY = 0.5


class BrokenBot:
    """A bot level whose every choice fails."""

    name = "broken"

    def choose(self, view: SeatView) -> int:
        raise RuntimeError("this bot always fails")


def bots(level: str, seed: int | None) -> Bot:
    return BrokenBot() if level == "broken" else make_bot(level, seed)


def test_a_bot_that_fails_is_replaced_for_the_move_by_the_standard_bot_r7_2() -> None:
    clock = VirtualScheduler()
    sink = CollectingSink()
    table = Table(
        "T1",
        TableSettings(2, 51, "fast"),
        "s1",
        scheduler=clock,
        sink=sink,
        bots=bots,
        levels=[*LEVELS, "broken"],
        timing=Timing(bot_delay=BOT_DELAY),
    )
    table.sit("ann", hash_token("a"), 0)
    table.connect(0)
    table.add_bot(0, 1, "broken")
    table.start(0)
    standard = make_bot("standard", derived_seed("s1", 1, 1, "standard"))
    plays = 0
    not_first = 0
    while plays < 12:
        assert table.match is not None
        if table.to_play == 0:
            card = make_bot("standard", 0).choose(seat_view(table.match, 0))
            table.play(0, card_text(card), table.seq)
            continue
        view = seat_view(table.match, 1)
        expected = card_text(standard.choose(view))
        not_first += expected != card_text(view.legal_cards[0])
        before = len(sink.commits)
        clock.advance(BOT_DELAY)
        played = sink.commits[before].change.as_json()
        assert (played["kind"], played["seat"], played["how"]) == ("play", 1, "bot")
        assert played["card"] == expected
        plays += 1
    assert not_first > 0  # the standard bot's card is not merely the first legal one
