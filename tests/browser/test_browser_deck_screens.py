"""A whole deck as a new user plays it on a phone held sideways and on a laptop:
the table, the record of plays and the count pause (R7.8) are what docs/client.md
shows (``PISHTI_SCREENSHOTS=docs/screenshots`` renews them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from driver import Player
from test_browser_layout import LAYOUT_CHECK


@pytest.mark.parametrize(
    ("viewport", "prefix", "locale"),
    [
        ({"width": 844, "height": 390}, "phone-landscape-", "tr-TR"),
        ({"width": 1366, "height": 768}, "laptop-", "en-US"),
    ],
    ids=["phone-sideways", "laptop"],
)
def test_a_deck_on_a_phone_held_sideways_and_on_a_laptop(
    open_page: Any, screenshots: Path, viewport: dict[str, int], prefix: str, locale: str
) -> None:
    page = open_page(locale=locale, viewport=viewport)
    player = Player(page, screenshots, prefix, only=frozenset({"table", "count"}))
    player.create_table("Ayşe" if locale == "tr-TR" else "Alice", players=4, target=101)
    for seat in (1, 2, 3):
        player.add_bot(seat)
    player.start()
    for _ in range(40):
        now = player.what_now()
        if now == "count":
            break
        assert now == "turn"
        # The table fits at every turn: no overlap, nothing outside, no scrolling.
        assert page.evaluate(LAYOUT_CHECK) == []
        player.play_turn()
    else:
        raise AssertionError("the deck did not end")
    # The count pause: no card is dealt and no clock runs until Continue (R7.8).
    page.wait_for_function("() => /\\d/.test(document.querySelector('#pause-note').textContent)")
    assert page.locator(".hand .hand-card").count() == 0
    assert page.locator(".ring[data-level='ok'], .ring[data-level='low']").count() == 0
    player.take_count()
    page.wait_for_selector(".hand .hand-card")
    assert page.inner_text("#deck-number") in ("Deck 2", "2. el")
