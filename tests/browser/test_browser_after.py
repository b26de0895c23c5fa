"""After the match: its replay in the browser, stepped through by keyboard and checked
against the record (R10); a record file opened from disk; no record of a match in play."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from driver import COUNT_ROWS, READ_COUNT, Player, replay_json
from test_browser_accessibility import AUDIT, AXE

from conftest import run_server
from pishti.engine import card_text
from pishti.records import MatchRecord, dumps_record, read_record, replay

DESKTOP = {"width": 1280, "height": 800}

READ_STEP = """() => ({
  where: [document.querySelector('#replay-where').dataset.deck,
          document.querySelector('#replay-where').dataset.play].map(Number),
  hands: [...document.querySelectorAll('.replay-hand')].map(e => e.dataset.hand),
  pile: document.querySelector('#replay-pile').dataset.pile,
  outcome: document.querySelector('#replay-last').dataset.outcome,
  scores: [...document.querySelectorAll('.replay-team')].map(e => Number(e.dataset.score)),
  count: !!document.querySelector('#replay-count'),
})"""


def _state(record: MatchRecord, deck: int, plays: int) -> dict[str, Any]:
    """The hands and the pile after ``plays`` plays of deck ``deck`` (from 0), by the engine."""
    cut = dataclasses.replace(record.decks[deck], plays=record.decks[deck].plays[:plays])
    match = replay(MatchRecord(record.players, record.target, (*record.decks[:deck], cut)))
    d = match.decks[deck]
    return {
        "hands": [" ".join(card_text(c) for c in hand) for hand in d.hands],
        "pile": " ".join(card_text(c) for c in d.pile),
    }


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's server: analyses with a small budget (4 sampled decks a play,
    the expert 1), so that one takes seconds."""
    yield from run_server(tmp_path_factory.mktemp("replay-server"), "--analysis-samples", "4", "1")


@pytest.fixture(scope="module")
def finished(browser: Any, server: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One two-player match against a bot, played to its end in the browser."""
    context = browser.new_context(base_url=server, viewport=DESKTOP, accept_downloads=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    player = Player(page)
    player.create_table("Alice", players=2, target=51)
    player.add_bot(1, "novice")
    player.start()
    player.play_match()
    table_id = page.url.rstrip("/").split("/")[-1]
    path = player.download_record(tmp_path_factory.mktemp("record"))
    yield page, table_id, path
    context.close()


def test_the_replay_stepped_by_keyboard_shows_the_record(finished: Any, server: str) -> None:
    page, table_id, path = finished
    record = read_record(path)
    counts = replay_json(path)["decks"]
    winner = ["Alice", "Bot 2"][replay_json(path)["winner"]]
    # The replay names the winner as the end screen does (it once said "Team 2 won."
    # where the end screen said "Bot 2 won.").
    assert page.inner_text("#end-title") == ("You won!" if winner == "Alice" else "Bot 2 won.")
    page.click("#open-replay")
    page.wait_for_url(f"**/r/{table_id}/1")
    page.wait_for_selector("#replay-where")
    assert page.inner_text("#replay-result") == f"{winner} won."
    assert page.inner_text(".replay-seat[data-seat='1'] .replay-name b") == "Bot 2"
    # The controls are drawn, not characters (⏮ ⏵ ⏭ showed as empty boxes in Debian's
    # Chromium), each named for assistive technology, each icon a drawn 16 px shape.
    controls = page.evaluate(
        """() => [...document.querySelectorAll('.replay-controls button')].map(b => ({
            label: b.getAttribute('aria-label'), text: b.textContent,
            width: b.querySelector('svg[aria-hidden=true] path')?.getBBox().width }))"""
    )
    assert [c["label"] for c in controls] == [
        "To the start (Home)",
        "One play back (←)",
        "Play automatically (space)",
        "One play forward (→)",
        "To the end (End)",
    ]
    assert all(c["text"] == "" and c["width"] >= 10 for c in controls), controls
    first = page.evaluate(READ_STEP)
    assert first["where"] == [1, 0]
    assert first["hands"] == _state(record, 0, 0)["hands"]
    assert page.inner_text(".replay-seat[data-seat='0'] .replay-name b") == "Alice"
    page.locator("#replay-next").focus()
    checked = 0
    for deck, deck_record in enumerate(record.decks):
        for plays in range(1, len(deck_record.plays) + 1):
            page.keyboard.press("ArrowRight")
            if plays % 11 and plays != len(deck_record.plays):
                continue
            shown = page.evaluate(READ_STEP)
            assert shown["where"] == [deck + 1, plays]
            if plays < 48:
                assert {k: shown[k] for k in ("hands", "pile")} == _state(record, deck, plays)
                checked += 1
            else:  # the deck's end: its count, as the engine counts it (R5.5)
                assert shown["count"] and shown["pile"] == ""
                assert shown["scores"] == counts[deck]["totals"]
                table = page.evaluate(READ_COUNT, ["#replay-count .count-table", list(COUNT_ROWS)])
                for team in (0, 1):
                    want = counts[deck]["teams"][team]
                    assert table["teams"][team]["points"] == str(want["points"])
                    assert table["teams"][team]["cards"] == str(want["cards"])
                    assert table["teams"][team]["totals"] == str(counts[deck]["totals"][team])
        if deck + 1 < len(record.decks):
            page.keyboard.press("ArrowRight")  # into the next deck, as dealt
            assert page.evaluate(READ_STEP)["where"] == [deck + 2, 0]
    assert checked >= 4 * len(record.decks)
    # Past the end nothing moves; Home and End jump; a link opens one exact play.
    page.keyboard.press("ArrowRight")
    assert page.evaluate(READ_STEP)["where"] == [len(record.decks), 48]
    page.keyboard.press("Home")
    assert page.evaluate(READ_STEP)["where"] == [1, 0]
    page.keyboard.press("End")
    assert page.evaluate(READ_STEP)["where"] == [len(record.decks), 48]
    page.goto(f"/r/{table_id}/1#d1p17")
    page.wait_for_selector("#replay-where")
    shown = page.evaluate(READ_STEP)
    assert shown["where"] == [1, 17]
    # Mid-deck there is no count; a trial saw a bare "null" written in its place.
    assert "null" not in page.inner_text("main")
    assert {k: shown[k] for k in ("hands", "pile")} == _state(record, 0, 17)
    # Automatic play moves on by itself, and space stops it.
    page.select_option("#replay-speed", "4")
    page.click("#replay-auto")
    page.wait_for_function("() => document.querySelector('#replay-where').dataset.play >= '19'")
    page.keyboard.press(" ")
    stopped = page.evaluate(READ_STEP)["where"]
    page.wait_for_timeout(600)
    assert page.evaluate(READ_STEP)["where"] == stopped
    page.add_script_tag(path=str(AXE))
    assert page.evaluate(AUDIT) == []
    # And where the pile is empty (after a capture): a full run's audit failed there once,
    # the empty pile being a list with no items (aria-required-children).
    empty = next(
        p for p in range(1, len(record.decks[0].plays) + 1) if _state(record, 0, p)["pile"] == ""
    )
    page.goto(f"/r/{table_id}/1#d1p{empty}")
    page.wait_for_function(
        f"() => document.querySelector('#replay-where')?.dataset.play === '{empty}'"
    )
    assert page.get_attribute("#replay-pile", "data-pile") == ""
    page.add_script_tag(path=str(AXE))
    assert page.evaluate(AUDIT) == []
    # A link past the match's end opens the nearest position and says so (it opened deck 1
    # silently), the address then naming it; a hash that names no position, the start.
    decks = len(record.decks)
    page.goto(f"/r/{table_id}/1#d99p999")
    page.wait_for_selector("#replay-notice")
    assert page.inner_text("#replay-notice") == (
        f"This match has no deck 99, play 999 (it has {decks} decks of 48 plays):"
        " here is the nearest position."
    )
    assert page.evaluate(READ_STEP)["where"] == [decks, 48]
    assert page.evaluate("() => location.hash") == f"#d{decks}p48"
    page.keyboard.press("Home")  # moving on, the notice goes
    page.wait_for_selector("#replay-notice", state="detached")
    page.goto(f"/r/{table_id}/1#abc")
    page.wait_for_selector("#replay-notice")
    assert page.inner_text("#replay-notice").startswith("“abc” is not a position of a replay")
    assert page.evaluate(READ_STEP)["where"] == [1, 0]


def test_the_analysis_asked_for_and_shown(finished: Any, server: str) -> None:
    page, table_id, _path = finished
    # Before anyone asks: a 200 that says so (a 404 made every replay page log an error).
    with urllib.request.urlopen(f"{server}/api/tables/{table_id}/analysis?match=1") as r:
        assert (r.status, json.load(r)) == (200, {"status": "not_requested"})
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text) if msg.type == "error" else None)
    page.goto(f"/r/{table_id}/1#d1p0")
    page.wait_for_selector("#analysis-ask")
    assert console == []
    page.click("#analysis-ask")
    page.wait_for_selector("#analysis-summary", timeout=180_000)
    with urllib.request.urlopen(f"{server}/api/tables/{table_id}/analysis?match=1") as r:
        body = json.load(r)
    assert body["status"] == "done"
    analysis = body["analysis"]
    assert (analysis["samples"], analysis["expert_samples"]) == (4, 1)
    rows = page.locator("#analysis-summary tbody tr")
    assert rows.count() == 2
    seat0 = analysis["seats"][0]
    assert (
        rows.nth(0).locator("td").nth(0).inner_text()
        == f"{seat0['matches_expert']}/{seat0['choices']}"
    )
    # Step to each chosen play: the expert's card, the mark and every card's bar.
    for play in (1, 2, 7):
        page.goto(f"/r/{table_id}/1#d1p{play}")
        page.wait_for_selector("#analysis-play[data-expert]")
        entry = analysis["decks"][0]["plays"][play - 1]
        shown = page.locator("#analysis-play")
        assert shown.get_attribute("data-expert") == entry["expert"]
        assert shown.get_attribute("data-mark") == (entry["mark"] or "")
        if not entry["forced"]:
            bars = page.locator(".analysis-bars li")
            assert [bars.nth(i).get_attribute("data-card") for i in range(bars.count())] == [
                c["card"] for c in entry["cards"]
            ]
    # On a phone the page does not scroll sideways: the summary scrolls in its own box
    # (a trial saw the page 493 px wide in Turkish, 533 in English, at 390).
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_selector("#analysis-summary")
    width = page.evaluate("() => document.scrollingElement.scrollWidth")
    assert width <= 391, width
    # Asking again gives the stored analysis.
    request = urllib.request.Request(
        f"{server}/api/tables/{table_id}/analysis?match=1", method="POST"
    )
    with urllib.request.urlopen(request) as r:
        assert r.status == 200 and json.load(r)["analysis"] == analysis
    assert console == []


def _open_record(page: Any, name: str, data: Any) -> None:
    """Open ``data`` as the JSON file ``name`` in the replay page's file input."""
    file = {"name": name, "mimeType": "application/json", "buffer": json.dumps(data).encode()}
    page.set_input_files("#record-file", files=[file])


def test_a_record_file_opened_from_disk(finished: Any, browser: Any, server: str) -> None:
    _page, table_id, path = finished
    record = read_record(path)
    context = browser.new_context(
        base_url=server, viewport={"width": 390, "height": 844}, locale="tr-TR"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto("/replay")
        page.wait_for_selector("#record-file")
        # A broken file is refused with the deck and play at fault, nothing shown.
        broken = json.loads(path.read_text())
        broken["decks"][0]["plays"][0] = broken["decks"][0]["plays"][1]
        _open_record(page, "broken.json", broken)
        page.wait_for_selector("#replay-problem")
        assert "deck 1, play 1" in page.inner_text("#replay-problem")
        # A missing field is named, as `pishti replay` names it (it said "not undefined").
        missing = (
            ({}, 'the record has no "players" (R10)'),
            ({**broken, "decks": [{}]}, 'deck 1: has no "dealer" (R10)'),
        )
        for data, said in missing:
            _open_record(page, "x.json", data)
            page.wait_for_function(
                "said => document.querySelector('#replay-problem')?.innerText.includes(said)",
                arg=said,
            )
        page.set_input_files("#record-file", str(path))
        page.wait_for_selector("#replay-where")
        assert page.inner_text("#replay-title") == "Yeniden izleme"
        page.keyboard.press("End")
        shown = page.evaluate(READ_STEP)
        assert shown["where"] == [len(record.decks), 48]
        assert shown["scores"] == replay_json(path)["totals"]
        team = replay_json(path)["winner"] + 1
        assert page.inner_text("#replay-result") == f"{team}. yer kazandı."  # no names
        # The file analysed on asking, as the server analyses a finished match: the same
        # analysis as the stored one of this match (asked for by the test before).
        assert "istediğinizde bu kayıt sunucuya gönderilir" in page.inner_text("#analysis-what")
        page.click("#analysis-ask")
        page.wait_for_selector("#analysis-summary", timeout=180_000)
        digest = hashlib.sha256(dumps_record(record).encode()).hexdigest()
        with urllib.request.urlopen(f"{server}/api/analysis/{digest}") as r:
            from_file = json.load(r)
        with urllib.request.urlopen(f"{server}/api/tables/{table_id}/analysis?match=1") as r:
            stored = json.load(r)
        assert from_file["status"] == stored["status"] == "done"
        assert from_file["analysis"] == stored["analysis"]
        rows = page.locator("#analysis-summary tbody tr")
        seat0 = stored["analysis"]["seats"][0]
        assert (
            rows.nth(0).locator("td").nth(0).inner_text()
            == f"{seat0['matches_expert']}/{seat0['choices']}"
        )
        # The server's replay names the winner in Turkish as the end screen does.
        page.goto(f"/r/{table_id}/1")
        page.wait_for_selector("#replay-where")
        assert page.inner_text("#replay-result") == f"{['Alice', 'Bot 2'][team - 1]} kazandı."
        # A play past a deck's end, said in Turkish: the deck's last position is shown.
        page.goto(f"/r/{table_id}/1#d1p99")
        page.wait_for_selector("#replay-notice")
        assert page.inner_text("#replay-notice") == (
            f"Bu oyunda 1. elin 99. kartı yok (oyunda {len(record.decks)} el var, her elde 48"
            " kart): en yakın konum gösteriliyor."
        )
        assert page.evaluate(READ_STEP)["where"] == [1, 48]
    finally:
        context.close()
    assert errors == []


def test_no_record_of_a_match_in_play(server: str, browser: Any) -> None:
    """R7.7: a table whose match is being played gives no record, and its replay page says so."""
    context = browser.new_context(base_url=server, viewport=DESKTOP)
    page = context.new_page()
    try:
        player = Player(page)
        player.create_table("Bob", players=2, target=51)
        player.add_bot(1, "novice")
        player.start()
        table_id = page.url.rstrip("/").split("/")[-1]
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(f"{server}/api/tables/{table_id}/record?match=1")
        assert info.value.code == 409
        viewer = context.new_page()
        viewer.goto(f"/r/{table_id}/1")
        viewer.wait_for_selector("#replay-problem")
        assert "still being played" in viewer.inner_text("#replay-problem")
        assert viewer.locator("#replay-where").count() == 0
        # A replay address with no match number says so (it opened the start page silently).
        viewer.goto(f"/r/{table_id}/abc")
        viewer.wait_for_selector("#start-notice")
        assert viewer.inner_text("#start-notice").startswith("This replay address is not valid")
    finally:
        context.close()


def _api(server: str, path: str, key: str, method: str = "GET") -> Any:
    request = urllib.request.Request(
        server + path, method=method, headers={"X-Pishti-Identity": key}
    )
    with urllib.request.urlopen(request) as r:
        return json.load(r)


def test_two_browsers_keep_their_own_history_and_ratings(open_page: Any, server: str) -> None:
    """Alice and Bob, each in a browser of their own, play each other with a bot each;
    each sees their own history; the winner's rating goes up; Alice deletes hers."""
    alice = Player(open_page(label="alice"))
    link = alice.create_table("Alice", players=4, target=51)
    bob = Player(open_page(label="bob"))
    bob.sit_by_link(link, "Bob", 1)
    alice.page.wait_for_selector(".lobby-seat[data-seat='1'] >> text=Bob")
    alice.add_bot(2, "standard")
    alice.add_bot(3, "novice")
    alice.start()
    bob.page.wait_for_selector(".table-screen .hand")
    done: set[str] = set()
    deadline = time.monotonic() + 600
    while len(done) < 2:
        assert time.monotonic() < deadline, "the match did not end"
        acted = False
        for name, player in (("alice", alice), ("bob", bob)):
            if name in done:
                continue
            now = player.peek()
            if now == "end":
                done.add(name)
            elif now == "count":
                player.take_count()
            elif now == "turn":
                player.play_turn()
            else:
                continue
            acted = True
        if not acted:
            time.sleep(0.03)
    keys = {
        name: p.page.evaluate("() => localStorage.getItem('pishti.identity')")
        for name, p in (("alice", alice), ("bob", bob))
    }
    assert keys["alice"] != keys["bob"] and all(len(k) == 43 for k in keys.values())
    winner = int(alice.page.get_attribute("#end-title", "data-winner") or "-1")
    assert winner in (0, 1)  # Alice's team is 0 (seats 0, 2), Bob's 1 (seats 1, 3)
    pages = {}
    for name, player in (("alice", alice), ("bob", bob)):
        page = player.page
        page.goto("/me")
        page.wait_for_selector("#me-matches")
        rows = page.locator("#me-matches tbody tr")
        assert rows.count() == 1
        assert page.get_attribute("#me-figures", "data-matches") == "1"
        pages[name] = _api(server, "/api/me", keys[name])
        assert page.inner_text("#me-name").count("Alice" if name == "alice" else "Bob") == 1
    a, b = pages["alice"]["matches"][0], pages["bob"]["matches"][0]
    assert (a["seat"], b["seat"]) == (0, 1) and a["table_id"] == b["table_id"]
    assert [p["name"] for p in a["opponents"]] == ["Bob", None]
    assert a["opponents"][1] == {"seat": 3, "kind": "bot", "name": None, "level": "novice"}
    assert a["result"] == ("win" if winner == 0 else "loss")
    assert b["result"] == ("win" if winner == 1 else "loss")
    won, lost = (a, b) if winner == 0 else (b, a)
    assert won["rating_after"] > won["rating_before"] and won["rating_after"] > lost["rating_after"]
    board = json.load(urllib.request.urlopen(f"{server}/api/leaderboard?min_matches=1"))
    names = {p.get("name") or p["level"] for p in board["players"]}
    assert {"Alice", "Bob", "standard", "novice"} <= names
    # Both pages pass the accessibility audit.
    for path, ready in (("/me", "#me-matches"), ("/leaderboard", "#leaderboard")):
        alice.page.goto(path)
        alice.page.wait_for_selector(ready)
        alice.page.add_script_tag(path=str(AXE))
        assert alice.page.evaluate(AUDIT) == [], path
    alice.page.goto("/me")
    alice.page.wait_for_selector("#me-matches")
    # Export: Alice's records, one JSON line a match.
    export = urllib.request.Request(
        f"{server}/api/me/export", headers={"X-Pishti-Identity": keys["alice"]}
    )
    with urllib.request.urlopen(export) as r:
        lines = r.read().decode().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["seat"] == 0
    # Alice deletes her identity: her page is empty, Bob's match no longer names her.
    page = alice.page
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#me-delete")
    page.wait_for_selector("#me-deleted")
    with pytest.raises(urllib.error.HTTPError) as info:
        _api(server, "/api/me", keys["alice"])
    assert info.value.code == 404
    assert _api(server, "/api/me", keys["bob"])["matches"][0]["opponents"][0]["name"] is None
    page.goto("/leaderboard")
    page.wait_for_selector("#leaderboard")
    assert "Alice" not in page.inner_text("#leaderboard")
