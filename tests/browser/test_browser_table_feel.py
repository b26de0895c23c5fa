"""How the table feels to a player: every play told and kept in a short record,
time running out told, a card clicked out of turn answered, focus where the
player acts next, leaving asked in the table's language, text large enough to
read, sound off until turned on, the rules page, the app installable."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from driver import Player

from conftest import CHROMIUM, CHROMIUM_ARGS

# Everything the live region says, kept in the page for the test to read.
LISTEN = """() => {
  window.__said = [];
  const region = document.getElementById('announcer');
  new MutationObserver(() => { if (region.textContent) window.__said.push(region.textContent); })
    .observe(region, { childList: true, characterData: true, subtree: true });
}"""

FOCUSED = "() => { const el = document.activeElement; return el && (el.id || el.className); }"

# As if `seat` (or the other seat, -1) were to play.
TO_PLAY = """(seat) => {
  const store = window.pishtiApp.store;
  store.state.view.to_play = seat < 0 ? 1 - store.state.seat : store.state.seat;
  store.notify([]);
}"""

# A pishti event as the server sends it (without its number, so the real ones still follow).
PISHTI = """([type, team, card]) => {
  window.pishtiApp.store.dispatch({ type: 'event', event: { type, seat: team, team, card } });
}"""

SMALL_TEXT = """() => [...document.querySelectorAll('body *')].filter(el => {
  if (el.closest('.visually-hidden')) return false;
  const text = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
  const r = el.getBoundingClientRect();
  const size = parseFloat(getComputedStyle(el).fontSize);
  return text && r.width > 1 && r.height > 1 && size < 14;
}).map(el => `${el.className || el.tagName}: ${getComputedStyle(el).fontSize} ${el.textContent}`)"""


def test_every_play_is_recorded_and_captures_are_read_out(open_page: Any) -> None:
    page = open_page()
    player = Player(page)
    player.create_table("Alice", players=4, target=51)
    # Focus goes where the player acts next: the owner adds a bot.
    assert page.evaluate(FOCUSED) == "add-bot-1"
    for seat in (1, 2, 3):
        player.add_bot(seat)
    page.evaluate(LISTEN)
    player.start()
    captures: list[tuple[str, int]] = []
    for _ in range(40):
        now = player.what_now()
        if now != "turn":
            break
        # On the player's turn the focus is on a card of the hand.
        page.wait_for_function("() => document.activeElement.classList.contains('hand-card')")
        plays = page.eval_on_selector_all(
            "#plays .play",
            "els => els.map(e => [e.dataset.seat, e.dataset.card, e.textContent])",
        )
        # The record keeps the last four plays, the player's own last among them.
        assert 1 <= len(plays) <= 4
        for _seat, card, text in plays:
            took = re.search(r"took (\d+)", text)
            if took:
                captures.append((card, int(took.group(1))))
        player.play_turn()
    said = page.evaluate("() => window.__said")
    assert any(" played " in s for s in said), said
    assert captures, "no capture in the record of plays"
    # Each capture in the record was read out with the same card and count.
    read = re.findall(r"took (\d+) cards with the ([^.!]+)[.!]", " ".join(said))
    names = {
        card: page.evaluate(
            "async (c) => (await import('/static/js/cards.js')).cardName(c)", card
        ).lower()
        for card, _ in captures
    }
    heard = {(n, name.lower()) for n, name in read}
    for card, n in captures:
        assert (str(n), names[card]) in heard, (card, n, heard)


def test_a_card_out_of_turn_is_answered_and_leaving_asks_in_the_tables_language(
    open_page: Any,
) -> None:
    page = open_page(locale="tr-TR")
    page.on("dialog", lambda d: pytest.fail(f"a browser dialog opened: {d.message}"))
    player = Player(page)
    player.create_table("Ayşe", players=2, target=51)
    player.add_bot(1)
    player.start()
    assert player.what_now() == "turn"
    # As if the other seat were to play: a click on a card shakes it and says whose turn it is.
    page.evaluate(TO_PLAY, -1)
    card = player.hand()[0]
    page.click(f".hand-card[data-card='{card}']", force=True)  # it says aria-disabled
    page.wait_for_selector(f".hand-card.nudge[data-card='{card}']")
    assert re.fullmatch(r"Henüz değil: sıra .+ oyuncusunda\.", page.inner_text("#table-notice"))
    assert player.hand()[0] == card  # nothing was played
    page.evaluate(TO_PLAY, 0)
    # R4.7: a pishti's points are in the score the moment it is made (a jack pishti's 20).
    assert player.scores() == [0, 0]
    page.evaluate(PISHTI, ["pishti", 0, "7S"])
    page.evaluate(PISHTI, ["jack_pishti", 1, "JH"])
    assert player.scores() == [10, 20]
    assert page.inner_text(".scorebar .score.team-us .score-value") == "10"
    # Leave: an in-page dialog in Turkish; Kal (stay) keeps the seat.
    page.click("#leave")
    page.wait_for_selector("#leave-dialog[open]")
    assert page.inner_text("#leave-title") == "Oyundan ayrılıyor musunuz?"
    assert page.evaluate(FOCUSED) == "leave-cancel"
    page.click("#leave-cancel")
    page.wait_for_function("() => !document.querySelector('#leave-dialog').open")
    assert page.locator(".table-screen").count() == 1
    assert page.evaluate(FOCUSED) == "leave"
    page.click("#leave")
    page.click("#leave-confirm")
    page.wait_for_selector("#start-notice")
    notice = page.inner_text("#start-notice")
    assert notice == "Oyundan ayrıldınız: bundan sonra yerinizde bir bot oynuyor."


def test_a_timeout_is_told_and_the_seconds_show(open_page: Any, fast_server: str) -> None:
    page = open_page(base_url=fast_server)
    player = Player(page)
    player.create_table("Alice", players=2, target=51, tempo="fast")
    player.add_bot(1, "standard")
    page.evaluate(LISTEN)
    player.start()
    # Alice does not play: her clock's last seconds show, then the table plays for her (R7.2).
    page.wait_for_selector(".seat.pos-bottom .clock-secs:not([hidden])", timeout=30_000)
    page.wait_for_selector("#table-notice:not([hidden])", timeout=30_000)
    text = page.inner_text("#table-notice")
    match = re.fullmatch(r"Time ran out: the table played the (.+) for you\.", text)
    assert match, text
    assert text in page.evaluate("() => window.__said")
    mine = page.locator("#plays .play.team-us", has_text="time ran out")
    assert mine.count() >= 1
    played = mine.last.get_attribute("data-card")
    name = page.evaluate("async (c) => (await import('/static/js/cards.js')).cardName(c)", played)
    assert name == match.group(1)


def test_text_is_large_enough_to_read_on_a_phone(open_page: Any) -> None:
    page = open_page(viewport={"width": 360, "height": 640})
    player = Player(page)
    player.create_table("Alice", players=4, target=51)
    for seat in (1, 2, 3):
        player.add_bot(seat)
    player.start()
    assert player.what_now() == "turn"
    page.evaluate(
        """() => { const v = window.pishtiApp.store.state.view;
                   v.pishti_cards = [['7S'], ['5H']]; window.pishtiApp.store.notify([]); }"""
    )
    small = page.evaluate(SMALL_TEXT)
    assert small == [], "\n".join(small)
    size = page.evaluate(
        "() => document.querySelector('.records .pishti-cards .card').getBoundingClientRect().width"
    )
    assert size >= 26


def test_sound_is_off_until_turned_on_and_the_choice_is_kept(open_page: Any) -> None:
    page = open_page()
    page.goto("/")
    page.wait_for_selector("#create-table")
    toggle = page.locator("#sound-toggle")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    page.reload()
    page.wait_for_selector("#create-table")
    assert page.locator("#sound-toggle").get_attribute("aria-pressed") == "true"


def test_the_rules_page_in_both_languages(open_page: Any) -> None:
    page = open_page(locale="tr-TR")
    page.goto("/")
    page.click("#start-howto")
    page.wait_for_selector("#howto-title")
    assert page.inner_text("#howto-title") == "Pişti nasıl oynanır"
    assert page.locator(".howto-figure .card").count() == 2
    assert page.locator(".howto-figure .count-table").count() == 1
    page.click(".lang-switch [data-lang='en']")
    page.wait_for_selector("#howto-title >> text=How to play Pişti")


def test_the_client_installs_as_an_app(browser: Any, server: str, tmp_path: Path) -> None:
    """Chromium's own installability check (a profile on disk: never in incognito)."""
    if True:
        context = browser.browser_type.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            base_url=server,
        )
        try:
            page = context.new_page()
            page.goto("/")
            page.wait_for_selector("#create-table")
            state = page.evaluate("async () => (await navigator.serviceWorker.ready).active.state")
            assert state in ("activating", "activated")
            cdp = context.new_cdp_session(page)
            assert cdp.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
            manifest = cdp.send("Page.getAppManifest")
            assert manifest["errors"] == []
            # The service worker keeps the client's files.
            cached = page.evaluate(
                """async () => { const c = await caches.open('pishti-client-v1');
                                 return (await c.keys()).map(r => new URL(r.url).pathname); }"""
            )
            assert "/static/js/screens/table.js" in cached
        finally:
            context.close()
