"""Accessibility audit (axe-core) of every screen, desktop and phone, in both
languages: no critical and no serious violation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from driver import Player

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"

AUDIT = """async () => {
  // The experimental rules too (label-content-name-mismatch is one of them).
  const rules = {};
  for (const r of axe.getRules(['experimental'])) rules[r.ruleId] = { enabled: true };
  const result = await axe.run(document, { resultTypes: ['violations'], rules });
  return result.violations
    .filter(v => v.impact === 'critical' || v.impact === 'serious')
    .map(v => `${v.impact} ${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`);
}"""

AUTOPILOT = """(on) => {
  const store = window.pishtiApp.store;
  store.state.table.seats[store.state.seat].autopilot = on;
  store.notify([]);
}"""

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


class Auditor:
    """Runs axe on a page's current screen and keeps what it found, by screen."""

    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}
        self.screens: list[str] = []

    def __call__(self, page: Any, screen: str) -> None:
        if not page.evaluate("() => typeof axe !== 'undefined'"):
            page.add_script_tag(path=str(AXE))
        # Let animations end so colours are measured as the player sees them.
        page.evaluate("() => document.getAnimations().forEach(a => a.finish())")
        violations: list[str] = page.evaluate(AUDIT)
        self.screens.append(screen)
        if violations:
            self.found[screen] = violations


@pytest.mark.parametrize(
    ("locale", "viewport", "to_end"),
    [
        ("en-US", DESKTOP, True),
        ("tr-TR", PHONE, True),
        ("tr-TR", DESKTOP, False),
        ("en-US", PHONE, False),
    ],
    ids=["english-desktop", "turkish-phone", "turkish-desktop", "english-phone"],
)
def test_every_screen_passes_the_audit(
    open_page: Any, locale: str, viewport: dict[str, int], to_end: bool
) -> None:
    """Two of the four play on to the end screen (a match to 101 points has a
    count between decks); the others stop after the first count."""
    audit = Auditor()
    page = open_page(locale=locale, viewport=viewport, label="owner")
    player = Player(page)
    page.goto("/")
    page.wait_for_selector("#create-table")
    audit(page, "start")
    page.goto("/how-to-play")
    page.wait_for_selector("#howto-title")
    audit(page, "how to play")
    link = player.create_table("Alice", players=4, target=101)
    audit(page, "lobby (owner)")
    visitor = open_page(locale=locale, viewport=viewport, label="visitor")
    visitor.goto(link)
    visitor.wait_for_selector("#visitor-name")
    audit(visitor, "lobby (visitor)")
    for seat in (1, 2, 3):
        player.add_bot(seat)
    player.start()
    visitor.reload()
    visitor.wait_for_selector(".match-on")
    audit(visitor, "a running match's link")
    assert player.what_now() == "turn"
    audit(page, "table (your turn)")
    page.click("#leave")
    page.wait_for_selector("#leave-dialog[open]")
    audit(page, "leave dialog")
    page.click("#leave-cancel")
    # Autopilot: the banner with Take over, as the seat shows it (R7.3).
    page.evaluate(AUTOPILOT, True)
    page.wait_for_selector("#take-over")
    audit(page, "autopilot")
    page.evaluate(AUTOPILOT, False)
    counted = False
    for _ in range(600):
        now = player.what_now()
        if now == "end":
            break
        if now == "count":
            if not counted:
                player.take_count(before_close=lambda: audit(page, "count"))
                counted = True
            else:
                player.take_count()
            if not to_end:
                break
            continue
        player.play_turn()
    assert counted
    if to_end:
        assert player.what_now() == "end"
        audit(page, "end")
    # The same seat opened in another tab: the first offers to play here (4409).
    other = page.context.new_page()
    other.goto(link)
    other.wait_for_selector(".end-screen" if to_end else ".table-screen")
    page.wait_for_selector("#play-here")
    audit(page, "seat taken in another tab")
    other.close()
    assert audit.found == {}, "\n".join(
        f"{screen}: {v}" for screen, vs in audit.found.items() for v in vs
    )
