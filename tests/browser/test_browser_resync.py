"""A gap in the event numbers: the client asks for a fresh snapshot and is whole again."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from driver import Player


class GapTap:
    """Sits between the page and the server's WebSocket: records the hellos the page
    sends and, once armed, drops one ``event`` message the server sends."""

    def __init__(self, page: Any) -> None:
        self.hellos: list[dict[str, Any]] = []
        self.welcomes: list[dict[str, Any]] = []
        self.armed = False
        self.dropped: int | None = None
        page.route_web_socket("**/ws/tables/*", self.handle)

    def handle(self, ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            with contextlib.suppress(ValueError, AttributeError):
                data = json.loads(message)
                if data.get("type") == "hello":
                    self.hellos.append(data)
            server.send(message)

        def from_server(message: str | bytes) -> None:
            data: dict[str, Any] = {}
            with contextlib.suppress(ValueError):
                data = json.loads(message)
            if data.get("type") == "welcome":
                self.welcomes.append(data)
            if self.armed and data.get("type") == "event":
                self.armed = False
                self.dropped = int(data["seq"])
                return
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)


def test_a_missed_event_brings_a_fresh_snapshot_not_a_resume_past_the_gap(
    open_page: Any,
) -> None:
    page = open_page()
    tap = GapTap(page)
    player = Player(page)
    player.create_table("Alice", players=2, target=51)
    player.add_bot(1, "standard")
    player.start()
    assert player.what_now() == "turn"
    assert len(tap.hellos) == 1
    tap.armed = True  # the first event of Alice's play is lost on the way
    player.play_turn()
    # The next event shows the gap: the client connects again, without last_seq,
    # so the welcome carries the whole state (a resume from past the gap would
    # never bring the lost event back).
    for _ in range(200):
        if len(tap.welcomes) >= 2:
            break
        page.wait_for_timeout(100)
    assert tap.dropped is not None
    assert len(tap.hellos) == 2
    assert tap.hellos[-1].get("last_seq") is None
    assert tap.welcomes[-1]["resumed"] is False and tap.welcomes[-1]["table"] is not None
    assert tap.welcomes[-1]["seq"] >= tap.dropped
    # And play goes on from the fresh state.
    assert player.what_now() == "turn"
    player.play_turn()
