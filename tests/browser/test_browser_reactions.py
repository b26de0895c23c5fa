"""Quick reactions in the browser: sent from the palette, shown over the sender's avatar
with the sender's name at every seat and to a spectator, read out, refused when faster
than one every 2 s, and silenced for one person by another (docs/client.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from driver import Player
from test_browser_accessibility import AUDIT, AXE

LAYOUT_CHECK = (Path(__file__).parent / "layout_check.js").read_text()
PHONE_SIDEWAYS = {"width": 844, "height": 390}

# Two reactions sent back to back: the second comes sooner than 2 s after the first.
TWO_AT_ONCE = """() => {
  for (const preset of ['good_game', 'bravo']) {
    document.querySelector('#react-toggle').click();
    document.querySelector(`#react-${preset}`).click();
  }
}"""

BUBBLE = """(seat) => {
  const el = document.querySelector(`.seat[data-seat='${seat}'] .reaction`);
  if (!el) return null;
  return { name: el.querySelector('.reaction-name').textContent,
           text: el.querySelector('.reaction-text').textContent,
           reaction: el.dataset.reaction };
}"""

# Each preset of the palette, and its button: the emoji are drawn as SVG (👏 showed as an
# empty box in Debian's Chromium without a colour-emoji font), the phrases are text.
DRAWN = """() => [...document.querySelectorAll('#react-toggle, #react-panel .react-preset')]
  .map(b => {
    const icon = b.querySelector('svg[aria-hidden=true]');
    return { id: b.id, label: b.getAttribute('aria-label'), text: b.textContent,
             shape: icon ? icon.getBBox().width : null,
             pixels: icon ? icon.getBoundingClientRect().width : null };
  })"""

INSIDE = """(selector) => {
  const r = document.querySelector(selector).getBoundingClientRect();
  return r.width > 0 && r.left >= 0 && r.top >= 0
    && r.right <= window.innerWidth && r.bottom <= window.innerHeight;
}"""


def bubble(page: Any, seat: int, reaction: str) -> dict[str, str]:
    """Wait for ``reaction`` over ``seat``'s avatar; return its name and text."""
    page.wait_for_selector(f".seat[data-seat='{seat}'] .reaction[data-reaction='{reaction}']")
    shown: dict[str, str] = page.evaluate(BUBBLE, seat)
    return shown


def live(page: Any, text: str) -> None:
    """Wait until the reactions' live region reads ``text`` out."""
    page.wait_for_function(
        "(text) => document.querySelector('#reactions-live').textContent === text", arg=text
    )


def test_reactions_are_shown_to_the_table_limited_and_silenced(
    open_page: Any, screenshots: Path
) -> None:
    ayse_page = open_page(label="Ayşe")
    ayse = Player(ayse_page)
    link = ayse.create_table("Ayşe", players=4, target=51)
    mehmet_page = open_page(locale="tr-TR", viewport=PHONE_SIDEWAYS, label="Mehmet")
    Player(mehmet_page).sit_by_link(link, "Mehmet", 1)
    watcher = open_page(label="spectator")
    watcher.goto(ayse_page.get_attribute("#watch-link", "href"))
    watcher.wait_for_selector(".lobby-screen")
    ayse.start()  # the empty seats get bots
    mehmet_page.wait_for_selector(".table-screen .hand")
    watcher.wait_for_selector(".table-screen #watching-tag")

    # Ayşe sends two at once: the first reaches every seat and the spectator, each in
    # their own language, with her name; the second is refused and shown to nobody.
    ayse_page.evaluate(TWO_AT_ONCE)
    assert bubble(ayse_page, 0, "good_game") == {
        "name": "You",
        "text": "Good game!",
        "reaction": "good_game",
    }
    assert bubble(mehmet_page, 0, "good_game") == {
        "name": "Ayşe",
        "text": "İyi oyun!",
        "reaction": "good_game",
    }
    # On a phone held sideways the reaction stays inside the window and the table fits.
    assert mehmet_page.evaluate(INSIDE, ".seat[data-seat='0'] .reaction")
    assert mehmet_page.evaluate(LAYOUT_CHECK) == []
    assert bubble(watcher, 0, "good_game")["name"] == "Ayşe"
    live(mehmet_page, "Ayşe: İyi oyun!")
    ayse_page.wait_for_function(
        "() => document.querySelector('#table-notice').textContent"
        " === 'One reaction every 2 seconds: wait a moment and send it again.'"
    )
    live(ayse_page, "One reaction every 2 seconds: wait a moment and send it again.")
    # Bravo never came (it would show for 4 s).
    for page in (ayse_page, mehmet_page, watcher):
        assert page.locator(".reaction[data-reaction='bravo']").count() == 0

    # By keyboard: the palette opens on its first preset, Escape closes it on its button.
    mehmet_page.focus("#react-toggle")
    mehmet_page.keyboard.press("Enter")
    mehmet_page.wait_for_function("() => document.activeElement.id === 'react-good_game'")
    assert mehmet_page.get_attribute("#react-toggle", "aria-expanded") == "true"
    assert mehmet_page.evaluate(INSIDE, "#react-panel")
    # Every preset is drawn whatever fonts the system has: the emoji (and the palette's
    # button) as shapes with a name to read out, the phrases in Latin letters alone.
    drawn = {b["id"]: b for b in mehmet_page.evaluate(DRAWN)}
    named = {"react-toggle": "Hızlı tepkiler", "react-clap": "Alkış", "react-laugh": "Gülme"}
    named |= {"react-wow": "Vay", "react-sad": "Üzgün"}
    for preset, label in named.items():
        assert drawn[preset]["label"] == label and drawn[preset]["text"] == "", drawn[preset]
        assert drawn[preset]["shape"] >= 16 and drawn[preset]["pixels"] >= 16, drawn[preset]
    phrases = {k: b["text"] for k, b in drawn.items() if k not in named}
    assert phrases == {
        "react-good_game": "İyi oyun!",
        "react-bravo": "Bravo!",
        "react-pishti": "Pişti!",
        "react-come_on": "Hadi ama!",
        "react-oops": "Eyvah!",
        "react-thanks": "Sağ olun!",
    }
    assert all(ord(c) < 0x250 for text in phrases.values() for c in text)  # Latin script
    mehmet_page.screenshot(
        path=str(screenshots / "phone-landscape-reactions.png"), animations="disabled"
    )
    if not mehmet_page.evaluate("() => typeof axe !== 'undefined'"):
        mehmet_page.add_script_tag(path=str(AXE))
    mehmet_page.evaluate("() => document.getAnimations().forEach(a => a.finish())")
    assert mehmet_page.evaluate(AUDIT) == []
    # Mehmet silences Ayşe (for himself only) and closes the palette.
    mehmet_page.click("#silence-0")
    assert mehmet_page.get_attribute("#silence-0", "aria-pressed") == "true"
    live(mehmet_page, "Ayşe adlı oyuncunun tepkileri sizin için susturuldu.")
    mehmet_page.keyboard.press("Escape")
    mehmet_page.wait_for_function("() => document.activeElement.id === 'react-toggle'")
    assert mehmet_page.is_hidden("#react-panel")

    # Two seconds on, Ayşe may react again: the spectator sees it, Mehmet does not.
    ayse_page.wait_for_function(
        "() => !document.querySelector('.seat .reaction')", timeout=10_000
    )  # shown for 4 s
    ayse_page.click("#react-toggle")
    ayse_page.click("#react-pishti")
    assert bubble(watcher, 0, "pishti") == {"name": "Ayşe", "text": "Pishti!", "reaction": "pishti"}
    # Mehmet's own reaction comes to him after Ayşe's (the server relays in order): once
    # he sees his, hers would have shown.
    mehmet_page.click("#react-toggle")
    mehmet_page.click("#react-thanks")
    assert bubble(mehmet_page, 1, "thanks") == {
        "name": "Siz",
        "text": "Sağ olun!",
        "reaction": "thanks",
    }
    live(mehmet_page, "Siz: Sağ olun!")
    assert mehmet_page.evaluate(BUBBLE, 0) is None
    assert bubble(ayse_page, 1, "thanks") == {
        "name": "Mehmet",
        "text": "Thanks!",
        "reaction": "thanks",
    }
    ayse_page.screenshot(path=str(screenshots / "table-reaction.png"), animations="disabled")
    # The choice is kept for the table: after a reload Ayşe is still silenced.
    mehmet_page.reload()
    mehmet_page.wait_for_selector(".table-screen .hand")
    mehmet_page.click("#react-toggle")
    assert mehmet_page.get_attribute("#silence-0", "aria-pressed") == "true"
