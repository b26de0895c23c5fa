"""A restart does not start a new turn: the seat to play may still answer the events it
saw before the restart (R7.1, docs/protocol.md "Moves and event numbers")."""

from __future__ import annotations

from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from server.players import Player
from server.test_e2e import create, join, player
from serving import ServerProcess


async def reconnect(srv: ServerProcess, table_id: str, old: Player) -> Player:
    p = Player(await connect(f"{srv.ws}/ws/tables/{table_id}"), old.token, autoplay=False)
    p.messages, p.seq, p.hand = list(old.messages), old.seq, list(old.hand)
    p.seats, p.to_play = old.seats, old.to_play
    welcome = await p.hello(last_seq=old.seq)
    assert welcome["resumed"] is True
    return p


@pytest.mark.parametrize("answer", ["last_before_restart", "just_before_restart_clock"])
async def test_after_a_restart_the_seat_to_play_may_answer_an_event_from_before_it(
    tmp_path: Path, answer: str
) -> None:
    # Found by a black-box client: 8 times in 34 kills a play answering the event
    # just before the restart's clock was refused as stale.
    srv = ServerProcess(tmp_path / "restart.db", "--bot-delay", "0", "--log-level", "warning")
    try:
        srv.start()
        t = await create(srv, players=2, target=51, tempo="relaxed")
        other = await join(srv, t["table_id"], "p1", 1)
        a = await player(srv, t["table_id"], t["token"], 1, autoplay=False)
        b = await player(srv, t["table_id"], other, 2, autoplay=False)
        await a.hello()
        await b.hello()
        await a.send({"type": "start"})
        for p in (a, b):
            await p.run(until=lambda p: p.to_play is not None, timeout=10)
        mover = a if a.my_turn else b
        before = mover.seq
        srv.kill()
        srv.start()
        again = await reconnect(srv, t["table_id"], mover)
        # The restart's events: the seats' connections dropped, the clock restarted;
        # then this seat's connection came back.
        await again.run(
            until=lambda p: any(
                m["type"] == "event" and m["seq"] > before and m["event"]["type"] == "clock"
                for m in p.messages
            ),
            timeout=10,
        )
        restart_clock = max(
            m["seq"]
            for m in again.messages
            if m["type"] == "event" and m["event"]["type"] == "clock"
        )
        assert restart_clock > before
        assert again.to_play == again.seat  # the same seat holds the turn
        seq = before if answer == "last_before_restart" else restart_clock - 1
        card = again.hand[0]
        await again.send({"type": "play", "card": card, "seq": seq})
        await again.run(until=lambda p: card not in p.hand or bool(p.errors), timeout=10)
        assert again.errors == []
        played = again.events("card_played")[-1]
        assert played["card"] == card and played["seat"] == again.seat
        await again.transport.close()
    finally:
        srv.stop()
