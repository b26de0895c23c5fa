"""Plug-in bots given as module:Class."""

from __future__ import annotations

import pytest

from pishti.bots import make_bot
from pishti.engine import Match, seat_view


def test_a_plugin_bot_is_built_with_its_seed_and_plays() -> None:
    bot = make_bot("tests.bots.sample_plugin:LowestCardBot", 42)
    assert bot.name == "lowest"
    assert bot.seed == 42
    match = Match(4, 101, seed=1)
    view = seat_view(match, match.to_play)
    assert bot.choose(view) == min(view.hand)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:Bot", "cannot import the bot module 'no_such_module_xyz'"),
        ("tests.bots.sample_plugin:Missing", "has no 'Missing'"),
        ("tests.bots.sample_plugin:NotABot", "did not build a bot"),
        (":Bot", "module:Class"),
    ],
)
def test_a_bad_plugin_is_refused_with_a_message(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(spec, 0)
