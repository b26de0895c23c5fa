"""Connection trouble is shown and recovers by itself; closing the page tells the server."""

from __future__ import annotations

import contextlib
import json
import time
import urllib.request
from typing import Any

from driver import Player


class SocketTap:
    """Sits between the page and the server's WebSocket: records what the page
    sends and can cut the connection as a restarting server would."""

    def __init__(self, page: Any) -> None:
        self.sent: list[dict[str, Any]] = []
        self.routes: list[tuple[Any, Any]] = []
        page.route_web_socket("**/ws/tables/*", self.handle)

    def handle(self, ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            with contextlib.suppress(ValueError):
                self.sent.append(json.loads(message))
            server.send(message)

        ws.on_message(from_page)
        self.routes.append((ws, server))

    def types(self) -> list[str]:
        return [str(m.get("type")) for m in self.sent]

    def cut(self) -> None:
        """Close the latest connection on both sides (1012: the server restarts)."""
        ws, server = self.routes[-1]
        server.close()
        ws.close(code=1012, reason="restarting")


def test_lost_connection_shows_reconnecting_and_recovers(open_page: Any) -> None:
    page = open_page()
    tap = SocketTap(page)
    player = Player(page)
    player.create_table("Alice", players=2, target=51)
    player.add_bot(1, "standard")
    player.start()
    for _ in range(3):
        assert player.what_now() == "turn"
        player.play_turn()
    assert player.what_now() == "turn"
    hand = player.hand()
    before = len(tap.routes)
    tap.cut()
    banner = page.locator("#connection")
    banner.wait_for(state="visible")
    assert "reconnecting" in banner.inner_text()
    # It comes back by itself, says so, and the table is as it was.
    page.wait_for_function("() => document.querySelector('#connection').dataset.state === 'back'")
    banner.wait_for(state="hidden")
    assert len(tap.routes) == before + 1
    hellos = [m for m in tap.sent if m.get("type") == "hello"]
    assert hellos[-1]["last_seq"] is not None and hellos[-1]["last_seq"] > 0
    assert player.what_now() == "turn"
    assert player.hand() == hand
    # Play on to the end of the deck: its count, or the end of the match if a team
    # reached 51 in this one deck (R6.3: pishtis can make it, 4 x 10 + 16).
    while player.what_now() == "turn":
        player.play_turn()
    if player.what_now() == "count":
        assert player.read_count()["deck"] == 0
    else:
        assert player.what_now() == "end"
        assert player.read_count(".end-screen .end-card > .count-table")["deck"] == 0


def test_reload_tells_the_server_the_page_closed_and_returns_to_the_seat(open_page: Any) -> None:
    page = open_page()
    tap = SocketTap(page)
    player = Player(page)
    player.create_table("Alice", players=2, target=51)
    player.add_bot(1, "novice")
    player.start()
    assert player.what_now() == "turn"
    hand = player.hand()
    page.reload()
    page.wait_for_selector(".table-screen .hand .hand-card")
    assert "closing" in tap.types()  # the 10-second hold of R7.4
    assert player.what_now() == "turn"
    assert player.hand() == hand
    assert page.inner_text(".seat.pos-bottom .seat-name") == "Alice"


def test_three_timeouts_put_the_seat_on_autopilot_until_take_over(
    open_page: Any, fast_server: str
) -> None:
    page = open_page(base_url=fast_server)
    player = Player(page)
    player.create_table("Alice", players=2, target=51, tempo="fast")
    player.add_bot(1, "standard")
    player.start()
    # Alice does not play: the table plays for her, and after three timeouts in
    # a row her seat is on autopilot (R7.2, R7.3).
    page.wait_for_selector("#take-over", timeout=30_000)
    assert "autopilot" in page.inner_text(".seat.pos-bottom .seat-tags")
    page.click("#take-over")
    page.wait_for_selector(".autopilot-banner", state="hidden")


def test_a_play_refused_as_stale_is_sent_again_and_the_player_notices_nothing(
    open_page: Any,
) -> None:
    # After a restart a play could be refused as stale although the seat still held
    # the turn; the client then showed "The table moved on" and put the card back.
    # Here the first play leaves the page answering event 0, as a play from before
    # the turn would: the server refuses it as stale.
    page = open_page()
    sent: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []

    def handle(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            sent.append(msg)
            if msg.get("type") == "play" and sum(m.get("type") == "play" for m in sent) == 1:
                message = json.dumps({**msg, "seq": 0})
            server.send(message)

        def from_server(message: str | bytes) -> None:
            with contextlib.suppress(ValueError):
                answers.append(json.loads(message))
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket("**/ws/tables/*", handle)
    player = Player(page)
    player.create_table("Alice", players=2, target=51)
    player.add_bot(1, "standard")
    player.start()
    assert player.what_now() == "turn"
    hand = player.hand()
    player.play_turn()
    page.wait_for_function(
        f"() => document.querySelectorAll('.hand .hand-card').length < {len(hand)}"
    )
    plays = [m for m in sent if m.get("type") == "play"]
    assert len(plays) == 2 and plays[0]["card"] == plays[1]["card"]
    assert [a["code"] for a in answers if a.get("type") == "error"] == ["stale"]
    assert page.locator(".toast").count() == 0
    assert len(player.hand()) == len(hand) - 1


def test_a_silently_dead_connection_is_noticed_and_replaced(open_page: Any) -> None:
    # A phone that lost its network gets no close: the page pings every 5 s and
    # counts the connection lost after 12 s without a frame, then connects again.
    page = open_page()
    routes: list[dict[str, Any]] = []

    def handle(ws: Any) -> None:
        server = ws.connect_to_server()
        route: dict[str, Any] = {"frozen": False, "sent": []}

        def from_page(message: str | bytes) -> None:
            if not route["frozen"]:
                route["sent"].append(json.loads(message))
                server.send(message)

        def from_server(message: str | bytes) -> None:
            if not route["frozen"]:
                ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)
        routes.append(route)

    page.route_web_socket("**/ws/tables/*", handle)
    player = Player(page)
    player.create_table("Alice", players=2, target=51)
    player.add_bot(1, "standard")
    player.start()
    assert player.what_now() == "turn"
    hand = player.hand()
    page.wait_for_timeout(6000)
    assert any(m["type"] == "ping" for m in routes[-1]["sent"])  # pings every 5 s
    before = len(routes)
    routes[-1]["frozen"] = True  # nothing passes any more, and nothing is closed
    frozen_at = time.monotonic()
    page.wait_for_function(
        "() => document.querySelector('#connection').dataset.state === 'back'", timeout=25000
    )
    back = time.monotonic() - frozen_at
    assert 6.0 <= back <= 17.0, back  # 12 s after the last frame heard, then a new connection
    assert len(routes) == before + 1
    hello = routes[-1]["sent"][0]
    assert hello["type"] == "hello" and hello["last_seq"] > 0
    assert player.what_now() == "turn"
    assert player.hand() == hand


def test_a_table_on_another_node_for_a_moment_is_asked_again(browser: Any, server: str) -> None:
    """With several nodes a table's requests may get ``503 other_node`` for a moment
    (docs/deploy.md: a table just made by another node, a failover).  The page showed
    the error (the lobby not found, the seat not taken); it now asks again after
    ``Retry-After``.  Here the first two answers to the lobby and to the join are 503."""
    request = urllib.request.Request(
        f"{server}/api/tables",
        data=json.dumps({"name": "Ann", "players": 2}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as r:
        table_id = json.load(r)["table_id"]
    refused = {
        "code": "other_node",
        "message": f"table {table_id} is being played on another node (n2): try again in a moment",
    }
    asked: list[str] = []

    def handle(route: Any) -> None:
        method = route.request.method
        if asked.count(method) < 2:
            route.fulfill(
                status=503,
                headers={"Retry-After": "1"},
                content_type="application/json",
                body=json.dumps({"error": refused}),
            )
        else:
            route.continue_()
        asked.append(method)

    context = browser.new_context(base_url=server, viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.route(f"**/api/tables/{table_id}**", handle)
        Player(page).sit_by_link(f"/t/{table_id}", "Bora", 1)
        assert asked[:6] == ["GET"] * 3 + ["POST"] * 3
        assert page.locator(".form-error").count() == 0
    finally:
        context.close()
