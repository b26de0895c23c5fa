"""The pause between decks (R7.8) as two people live it in the browser: whom the table
waits for follows the `pause_waiting` event; a page closed and opened again, or
reloaded, during the pause comes back to the count with the pause as it is; and a
server killed during the pause and started again restores it, the pages reconnect by
themselves, and the next deck is dealt once both have pressed Continue.

The module has a server of its own, with a pause of 60 s at most (so a busy machine
never runs out of it between two steps), started again on the same port and file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from driver import Player

from serving import ServerProcess

PAUSE = """() => {
  const pause = window.pishtiApp.store.state.table.pause;
  return pause && { deck: pause.deck, waiting: pause.waiting, ready: pause.ready };
}"""

SET_LANGUAGE = "async (lang) => (await import('/static/js/i18n.js')).setLanguage(lang)"

DIALOG_OPEN = "() => Boolean(document.querySelector('#count-dialog')?.open)"

# While the server is down the browser says that it cannot connect: that is expected.
OUTAGE = re.compile(r"WebSocket connection to .* failed|ERR_CONNECTION_REFUSED")


class Errors:
    """Page errors and console errors of the test's pages; while ``ignore`` is set,
    console errors it matches are expected (the server is down)."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.ignore: re.Pattern[str] | None = None

    def watch(self, page: Any, label: str) -> None:
        page.on("pageerror", lambda exc: self.errors.append(f"{label} page error: {exc}"))
        page.on("console", lambda msg: self._console(label, msg))

    def _console(self, label: str, msg: Any) -> None:
        if msg.type != "error" or (self.ignore and self.ignore.search(msg.text)):
            return
        self.errors.append(f"{label} console error: {msg.text}")


@pytest.fixture(scope="module")
def pause_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("pause-server") / "pishti.db"
    server = ServerProcess(db, "--bot-delay", "0", "--pause", "60", "--log-level", "warning")
    server.start()
    yield server
    server.stop()


def pause(page: Any) -> dict[str, Any] | None:
    value: dict[str, Any] | None = page.evaluate(PAUSE)
    return value


def turn_line(page: Any, text: str) -> None:
    """Wait until the turn line starts with ``text``."""
    try:
        page.wait_for_function(
            "(text) => document.querySelector('#turn-line').textContent.startsWith(text)",
            arg=text,
        )
    except Exception:
        now = page.inner_text("#turn-line")
        raise AssertionError(f"the turn line reads {now!r}, not {text!r}...") from None


def play_to_the_count(players: list[Player]) -> None:
    """Both people play their cards until both see the first deck's count."""
    for _ in range(2000):
        now = [p.peek() for p in players]
        if all(n == "count" for n in now):
            return
        for player, what in zip(players, now, strict=True):
            if what == "turn":
                player.play_turn()
        if "turn" not in now:
            players[0].page.wait_for_timeout(50)
    raise AssertionError("the deck did not end")


def test_the_pause_through_a_drop_a_reload_and_a_server_restart(
    browser: Any, pause_server: ServerProcess
) -> None:
    errors = Errors()
    contexts = [
        browser.new_context(base_url=pause_server.http, viewport={"width": 1280, "height": 800})
        for _ in range(2)
    ]
    for context in contexts:
        context.set_default_timeout(20_000)
    try:
        ayse_page, mehmet_page = (c.new_page() for c in contexts)
        errors.watch(ayse_page, "Ayşe")
        errors.watch(mehmet_page, "Mehmet")
        ayse, mehmet = Player(ayse_page), Player(mehmet_page)
        link = ayse.create_table("Ayşe", players=4, target=101)
        mehmet.sit_by_link(link, "Mehmet", 1)
        ayse.start()
        mehmet_page.wait_for_selector(".table-screen .hand")
        play_to_the_count([ayse, mehmet])
        count = mehmet.read_count()
        assert count is not None and count["deck"] == 0

        # Neither has pressed Continue: each is told that the table waits for them too.
        turn_line(ayse_page, "Waiting for you and Mehmet to press Continue; next deal in")
        # Ayşe presses Continue: her table says it waits for Mehmet, his that it waits
        # for him (it once named nobody and read "Dealing…").
        ayse.take_count()
        turn_line(ayse_page, "Waiting for Mehmet to press Continue; next deal in")
        turn_line(mehmet_page, "Waiting for you to press Continue; next deal in")
        # Mehmet closes the page: the table still waits for him, 10 s at most, and says
        # so (pause_waiting once dropped him at once while the deal still waited)...
        mehmet_page.close()
        ayse_page.wait_for_function(
            "() => window.pishtiApp.store.state.table.seats[1].connected === false"
        )
        assert pause(ayse_page) == {"deck": 0, "waiting": [0, 1], "ready": [0]}
        turn_line(ayse_page, "Waiting for Mehmet to press Continue; next deal in")
        # ... and when he opens it again within those 10 s, it waits for him again;
        # his page is back on the count of deck 1, no card dealt, no clock running.
        mehmet_page = contexts[1].new_page()
        errors.watch(mehmet_page, "Mehmet again")
        mehmet = Player(mehmet_page)
        mehmet_page.goto(link)
        mehmet_page.wait_for_function(DIALOG_OPEN)
        assert mehmet_page.inner_text("#count-dialog-title") == "Deck 1: the count"
        assert mehmet.read_count() == count
        mehmet_page.wait_for_function(
            "() => /in \\d+ s at most/.test(document.querySelector('#pause-note').textContent)"
        )
        assert mehmet_page.locator(".hand .hand-card").count() == 0
        assert mehmet_page.locator(".ring[data-level='ok'], .ring[data-level='low']").count() == 0
        assert pause(mehmet_page) == {"deck": 0, "waiting": [0, 1], "ready": [0]}
        turn_line(ayse_page, "Waiting for Mehmet to press Continue; next deal in")
        assert pause(ayse_page) == {"deck": 0, "waiting": [0, 1], "ready": [0]}

        # Ayşe reloads after her Continue: she is waited for again and reads the count again.
        ayse_page.reload()
        ayse_page.wait_for_function(DIALOG_OPEN)
        assert ayse.read_count() == count
        assert pause(ayse_page) == {"deck": 0, "waiting": [0, 1], "ready": []}
        turn_line(ayse_page, "Waiting for you and Mehmet to press Continue; next deal in")
        mehmet.close_count()
        turn_line(mehmet_page, "Waiting for Ayşe to press Continue; next deal in")
        turn_line(ayse_page, "Waiting for you to press Continue; next deal in")
        # The same in Turkish.  Switching the language with her count open shows it again
        # in that language; it once closed the count and pressed Continue for her.
        ayse_page.evaluate(SET_LANGUAGE, "tr")
        turn_line(ayse_page, "Masa sizi bekliyor: Devam'a basınca yeni dağıtım; en çok")
        ayse_page.wait_for_function(DIALOG_OPEN)
        assert ayse_page.inner_text("#count-dialog-title") == "1. el: sayım"
        ayse_page.evaluate(SET_LANGUAGE, "en")
        turn_line(ayse_page, "Waiting for you to press Continue; next deal in")
        ayse_page.wait_for_function(DIALOG_OPEN)
        assert ayse_page.inner_text("#count-dialog-title") == "Deck 1: the count"
        assert pause(ayse_page) == {"deck": 0, "waiting": [0, 1], "ready": [1]}

        # The server is killed during the pause and started again: the pages reconnect
        # by themselves, the pause is restored and waits for both, no card is dealt.
        pause_server.kill()
        errors.ignore = OUTAGE
        pause_server.start()
        for page in (ayse_page, mehmet_page):
            page.wait_for_function(
                "() => { const s = window.pishtiApp.store.state; const p = s.table.pause;"
                " return p && p.waiting.length === 2 && p.ready.length === 0; }",
                timeout=60_000,
            )
        errors.ignore = None
        # Mehmet had pressed Continue before the restart: he is back, so is waited for
        # again and sees the count again; Ayşe's is still open.
        mehmet_page.wait_for_function(DIALOG_OPEN)
        assert ayse_page.evaluate(DIALOG_OPEN)
        assert mehmet_page.locator(".hand .hand-card").count() == 0
        mehmet.close_count()
        turn_line(mehmet_page, "Waiting for Ayşe to press Continue; next deal in")
        ayse.close_count()
        # Both pressed Continue: the next deck is dealt and play goes on.
        for page in (ayse_page, mehmet_page):
            page.wait_for_function(
                "() => document.querySelector('#deck-number').textContent === 'Deck 2'"
            )
            page.wait_for_selector(".hand .hand-card")
        assert pause(ayse_page) is None
        for _ in range(200):
            now = [p.peek() for p in (ayse, mehmet)]
            if "turn" in now:
                player = (ayse, mehmet)[now.index("turn")]
                card = player.hand()[0]
                player.page.click(f".hand .hand-card[data-card='{card}']")
                player.page.wait_for_function(
                    "(card) => !document.querySelector(`.hand .hand-card[data-card='${card}']`)",
                    arg=card,
                )
                break
            ayse_page.wait_for_timeout(50)
        else:
            raise AssertionError("nobody got a turn after the restart")
    finally:
        for context in contexts:
            context.close()
    assert errors.errors == [], "\n".join(errors.errors)


def test_the_count_stays_closed_while_continue_is_on_its_way(
    browser: Any, pause_server: ServerProcess
) -> None:
    """A render between sending Continue and the table's answer (here: one's own quick
    reaction coming back) once opened the count again, for the next deck to close it
    under the player's hand.  The page's WebSocket runs through a relay that holds
    Continue until the reaction is back."""
    errors = Errors()
    context = browser.new_context(
        base_url=pause_server.http, viewport={"width": 1280, "height": 800}
    )
    context.set_default_timeout(20_000)
    held: list[str] = []
    relay: dict[str, Any] = {}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        relay["server"] = server

        def to_server(message: str | bytes) -> None:
            if relay.get("hold") and isinstance(message, str) and '"continue"' in message:
                held.append(message)
            else:
                server.send(message)

        ws.on_message(to_server)

    try:
        page = context.new_page()
        errors.watch(page, "Ayşe")
        page.route_web_socket(re.compile(r"/ws/tables/"), route)
        ayse = Player(page)
        ayse.create_table("Ayşe", players=2, target=101)
        ayse.add_bot(1)
        ayse.start()
        for _ in range(200):
            now = ayse.what_now()
            if now == "count":
                break
            ayse.play_turn()
        else:
            raise AssertionError("the deck did not end")
        assert pause(page) == {"deck": 0, "waiting": [0], "ready": []}

        relay["hold"] = True
        page.click("#count-close")
        for _ in range(200):
            if held:
                break
            page.wait_for_timeout(50)
        assert len(held) == 1 and '"deck":0' in held[0].replace(" ", ""), held
        assert not page.evaluate(DIALOG_OPEN)
        # A reaction goes out and comes back: the screen renders, the pause unchanged.
        page.evaluate(
            "() => { document.querySelector('#react-toggle').click();"
            " document.querySelector('#react-good_game').click(); }"
        )
        page.wait_for_selector(".seat .reaction[data-reaction='good_game']")
        assert pause(page) == {"deck": 0, "waiting": [0], "ready": []}
        assert not page.evaluate(DIALOG_OPEN), (
            "the count opened again while Continue was on its way"
        )

        # Continue arrives: the next deck is dealt, the count stays closed.
        relay["hold"] = False
        relay["server"].send(held.pop())
        page.wait_for_function(
            "() => document.querySelector('#deck-number').textContent === 'Deck 2'"
        )
        page.wait_for_selector(".hand .hand-card")
        assert not page.evaluate(DIALOG_OPEN)
        assert pause(page) is None
    finally:
        context.close()
    assert errors.errors == [], "\n".join(errors.errors)
