"""Two people sit as partners through the invite link (its page following the seats);
one reloads mid-deck."""

from __future__ import annotations

import time
from typing import Any

from driver import Player


def test_partners_by_invite_link_play_a_deck_and_reload(open_page: Any) -> None:
    owner = Player(open_page(label="owner"))
    # 101, not 51: pishtis can take a team to 51 in one deck (4 x 10 + 16), and this
    # test plays on into the second deck.
    link = owner.create_table("Alice", players=4, target=101)
    assert "/t/" in link
    partner = Player(open_page(label="partner", viewport={"width": 390, "height": 844}))
    # The invite link's page follows the seats while its visitor picks one (it once kept
    # what it read on opening): a bot the owner adds shows, the name typed stays.
    partner.page.goto(link)
    partner.page.fill("#visitor-name", "Bora")
    owner.add_bot(1, "standard")
    partner.page.wait_for_selector(".lobby-seat.kind-bot[data-seat='1']", timeout=10_000)
    assert partner.page.input_value("#visitor-name") == "Bora"
    partner.sit_by_link(link, "Bora", 2)
    # The owner sees the partner sit, opposite.
    owner.page.wait_for_selector(".lobby-seat.pos-top[data-seat='2'] >> text=Bora")
    owner.add_bot(3, "standard")
    owner.start()
    partner.page.wait_for_selector(".table-screen .hand")
    assert partner.page.inner_text(".seat.pos-top .seat-name") == "Alice"
    assert owner.page.inner_text(".seat.pos-top .seat-name") == "Bora"

    reloaded = False
    counted: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 120
    while len(counted) < 2:
        assert time.monotonic() < deadline, "the deck did not end"
        acted = False
        for name, player in (("owner", owner), ("partner", partner)):
            if name in counted:
                continue
            now = player.peek()
            if now == "count":
                counted[name] = player.read_count()
                acted = True
            elif now == "turn":
                if name == "partner" and not reloaded and partner.seen.plays == 4:
                    hand = partner.hand()
                    partner.page.reload()
                    partner.page.wait_for_selector(".table-screen .hand .hand-card")
                    assert partner.page.inner_text(".seat.pos-bottom .seat-name") == "Bora"
                    assert partner.hand() == hand
                    reloaded = True
                    partner.what_now()
                player.play_turn()
                acted = True
            elif now == "end":
                raise AssertionError("the match ended after one deck")
        if not acted:
            time.sleep(0.03)
    assert reloaded
    assert counted["owner"]["teams"] == counted["partner"]["teams"]
    assert counted["owner"]["deck"] == 0
    # Both close the count and the next deck is dealt to both.
    for player in (owner, partner):
        player.close_count()
        player.page.wait_for_selector("#deck-number")
    # The partner leaves for good: a bot takes the seat under the partner's name (R7.5).
    partner.page.click("#leave")
    partner.page.click("#leave-confirm")
    partner.page.wait_for_selector(".start-screen #start-notice")
    owner.page.wait_for_selector(".seat.pos-top .seat-tags >> text=left")
    assert owner.page.inner_text(".seat.pos-top .seat-name") == "Bora"
