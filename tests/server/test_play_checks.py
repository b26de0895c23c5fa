"""The order in which a play is checked, and the first message's errors, as
docs/protocol.md gives them."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.players import Player
from server.test_e2e import create, join, player
from serving import ServerProcess


async def refused(p: Player, message: dict[str, object]) -> str:
    await p.send(message)
    answer = await p.recv()
    while answer["type"] != "error":  # events of others' changes may come first
        answer = await p.recv()
    assert answer["ref"] == "play"
    code: str = answer["code"]
    return code


async def test_a_play_is_checked_in_the_documented_order(server: ServerProcess) -> None:
    t = await create(server, players=2, target=51, tempo="relaxed")
    other = await join(server, t["table_id"], "p1", 1)
    a = await player(server, t["table_id"], t["token"], 1, autoplay=False)
    b = await player(server, t["table_id"], other, 2, autoplay=False)
    await a.hello()
    await b.hello()
    # No match yet: bad_state comes before everything but the message's form.
    assert await refused(a, {"type": "play", "card": "ZZ", "seq": 10**9}) == "bad_state"
    assert await refused(a, {"type": "play", "card": "ZZZZ", "seq": 1}) == "bad_message"
    await a.send({"type": "start"})
    await a.run(until=lambda p: p.to_play is not None, timeout=10)
    await b.run(until=lambda p: p.to_play is not None, timeout=10)
    mover, waiter = (a, b) if a.my_turn else (b, a)
    held_by_mover = mover.hand[0]
    # Out of turn, a seq newer than the last event: stale (not not_your_turn).
    assert await refused(waiter, {"type": "play", "card": "ZZ", "seq": waiter.seq + 1}) == "stale"
    # Out of turn, a seq from before the turn: stale.
    assert await refused(waiter, {"type": "play", "card": "ZZ", "seq": 0}) == "stale"
    # Out of turn with a good seq: not_your_turn, before the card is looked at.
    assert await refused(waiter, {"type": "play", "card": "ZZ", "seq": waiter.seq}) == (
        "not_your_turn"
    )
    # In turn: the card's text, then whether it is held.
    assert await refused(mover, {"type": "play", "card": "ZZ", "seq": mover.seq}) == "bad_message"
    assert await refused(mover, {"type": "play", "card": waiter.hand[0], "seq": mover.seq}) == (
        "card_not_held"
    )
    # The form of the message comes first of all.
    assert await refused(mover, {"type": "play", "card": "ZZ", "seq": -1}) == "bad_message"
    # Any seq from the turn's first event to the latest is taken.
    await mover.send({"type": "play", "card": held_by_mover, "seq": mover.seq})
    await mover.run(until=lambda p: held_by_mover not in p.hand, timeout=10)
    await a.transport.close()
    await b.transport.close()


@pytest.mark.parametrize(
    ("first", "code"),
    [
        ("{oops", "bad_message"),
        ('{"type": "hello", "token": ""}', "bad_message"),
        ("x" * 5000, "too_large"),
        ('{"type": "ping"}', "unauthorized"),
        ('{"type": "hello", "token": "not-a-token"}', "unauthorized"),
    ],
)
async def test_a_bad_first_message_gets_its_error_then_4401(
    server: ServerProcess, first: str, code: str
) -> None:
    t = await create(server)
    async with connect(f"{server.ws}/ws/tables/{t['table_id']}") as ws:
        await ws.send(first)
        error = await ws.recv()
        assert f'"code":"{code}"' in str(error).replace(" ", "")
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
