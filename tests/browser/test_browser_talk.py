"""The table talk in a real browser: voice and video between the persons of one table.

Chromium runs with its fake camera and microphone (``--use-fake-device-for-media-stream``);
a context that is granted the camera and microphone gets them when the person presses a
button, one that is not is refused (as a person who says no), so one browser serves both.
Every page counts its peer connections (an init script) to read their ``getStats()``.
The browser draws WebGL in software, as the 3D table's tests do, so the 3D table can be
checked with video too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from driver import Player
from test_browser_layout import LAYOUT_CHECK
from test_browser_table3d import GL_ARGS

from conftest import CHROMIUM, PageErrors, run_server

MEDIA_ARGS = [
    "--use-fake-device-for-media-stream",
    "--autoplay-policy=no-user-gesture-required",
]
COUNT_CONNECTIONS = """
window.__pcs = [];
const Native = window.RTCPeerConnection;
window.RTCPeerConnection = class extends Native {
  constructor(...args) { super(...args); window.__pcs.push(this); }
};
"""
INBOUND = """async () => {
  const out = [];
  for (const pc of window.__pcs) {
    if (pc.connectionState === 'closed') continue;
    const entry = {state: pc.connectionState, audio: 0, video: 0};
    (await pc.getStats()).forEach((s) => {
      if (s.type === 'inbound-rtp' && (s.kind === 'audio' || s.kind === 'video')) {
        entry[s.kind] += s.bytesReceived || 0;
      }
    });
    out.push(entry);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def talk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from run_server(tmp_path_factory.mktemp("talk-server"))


@pytest.fixture(scope="module")
def media_browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=[*GL_ARGS, *MEDIA_ARGS])
        yield chromium
        chromium.close()


@pytest.fixture
def person(media_browser: Any, talk_server: str) -> Iterator[Callable[..., Player]]:
    """``person(label, allow=True, viewport=None)``: a page in a context of its own; with
    ``allow`` the camera and microphone are granted."""
    errors = PageErrors()
    contexts: list[Any] = []

    def open_(label: str, allow: bool = True, viewport: dict[str, int] | None = None) -> Player:
        context = media_browser.new_context(
            base_url=talk_server, viewport=viewport or {"width": 1280, "height": 800}
        )
        if allow:
            context.grant_permissions(["camera", "microphone"], origin=talk_server)
        context.set_default_timeout(20_000)
        context.add_init_script(COUNT_CONNECTIONS)
        contexts.append(context)
        page = context.new_page()
        errors.watch(page, label)
        return Player(page)

    yield open_
    for context in contexts:
        context.close()
    assert errors.errors == [], "\n".join(errors.errors)


def seat_together(people: list[Player], players: int) -> None:
    """The first person creates a table, the others sit in order; the match starts."""
    link = people[0].create_table("Ayşe", players=players, target=101, tempo="relaxed")
    for seat, (p, name) in enumerate(zip(people[1:], ["Bora", "Cem", "Deniz"], strict=False), 1):
        p.sit_by_link(link, name, seat)
    people[0].start()
    for p in people:
        p.page.wait_for_selector(".table-screen .hand")


REDRAW = "() => { const app = window.pishtiApp; app.screen.update(app.store.state, []); }"
"""Draws the table screen again from the page's state, as every table change does."""


def held_click(p: Player, selector: str) -> None:
    """Press the pointer on ``selector``, draw the table again, release."""
    box = p.page.locator(selector).bounding_box()
    assert box is not None
    p.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    p.page.mouse.down()
    p.page.evaluate(REDRAW)
    p.page.mouse.up()


def turn_on(p: Player, kind: str) -> None:
    """Press ``p``'s microphone or camera button with the pointer and wait until it is on.

    While several peers connect the table is drawn again many times a second; the
    buttons are kept across redraws (ui/talk.js talkButtons), so the click lands.
    Before, a pointer click kept finding the button replaced on a loaded machine
    (20 s without one landing, four pages open).
    """
    p.page.click(f"#talk-{kind}")
    p.page.wait_for_selector(f"#talk-{kind}[aria-pressed='true']")


def inbound(p: Player) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = p.page.evaluate(INBOUND)
    return result


def wait_flowing(p: Player, peers: int, kinds: tuple[str, ...], timeout: float = 30) -> None:
    """Wait until ``p`` has ``peers`` connected peer connections, each receiving bytes of
    every kind in ``kinds`` that grow between two reads."""
    deadline = time.monotonic() + timeout
    first: list[dict[str, Any]] | None = None
    while True:
        now = inbound(p)
        live = [c for c in now if c["state"] == "connected"]
        if len(live) == peers and all(c[k] > 0 for c in live for k in kinds):
            if first is not None and all(
                b[k] > a[k] for a, b in zip(first, live, strict=True) for k in kinds
            ):
                return
            first = live
        assert time.monotonic() < deadline, f"media did not flow: {now}"
        time.sleep(0.5)


def play_on(*people: Player) -> None:
    """The game goes on: whoever is to play plays a card, and the card is played."""
    for p in people:
        if p.peek() == "turn":
            card = p.play_turn()
            p.page.wait_for_selector(
                f".hand .hand-card[data-card='{card}']", state="detached", timeout=5_000
            )
            return
    raise AssertionError("nobody is to play")


def test_two_persons_talk_mute_reload_and_play_on(
    person: Callable[..., Player], screenshots: Path
) -> None:
    ayse, bora = person("ayse"), person("bora", viewport={"width": 844, "height": 390})
    seat_together([ayse, bora], 2)
    for p in (ayse, bora):
        assert p.page.get_attribute("#talk-cam", "aria-pressed") == "false"  # off until pressed
        assert inbound(p) == []  # nothing connects before anyone turns something on
    mic, leave = ayse.page.query_selector("#talk-mic"), ayse.page.query_selector("#leave")
    for p in (ayse, bora):
        turn_on(p, "cam")
        turn_on(p, "mic")
    for p in (ayse, bora):
        wait_flowing(p, 1, ("audio", "video"))
    # The table was drawn again as the peers connected; the buttons are the same
    # ones, so a click pressed during a redraw is not lost.
    assert mic is not None and mic.evaluate("b => b === document.getElementById('talk-mic')")
    assert leave is not None and leave.evaluate("b => b === document.getElementById('leave')")
    # Each sees the other's video inside the avatar, the clock ring drawn over it.
    bora.page.wait_for_selector(".seat.pos-top.talk-cam .avatar.has-video video.talk-video")
    ayse.page.wait_for_selector(".seat.pos-top.talk-mic .avatar .ring")
    ayse.page.wait_for_function(
        "() => document.querySelector('.seat.pos-top video.talk-video').videoWidth > 0"
    )
    for p in (ayse, bora):  # the tiles keep the table inside the window, nothing overlaps
        assert p.page.evaluate(LAYOUT_CHECK) == []
    ayse.page.screenshot(path=str(screenshots / "talk-desktop-table.png"))
    bora.page.screenshot(path=str(screenshots / "talk-phone-table.png"))

    # Ayşe turns her microphone off: Bora sees it.
    ayse.page.click("#talk-mic")
    assert ayse.page.get_attribute("#talk-mic", "aria-pressed") == "false"
    bora.page.wait_for_selector(".seat.pos-top:not(.talk-mic).talk-cam")
    # ... and her speaking light goes out with it, for as long as the microphone is off.
    bora.page.wait_for_selector(".seat.pos-top:not(.speaking)", timeout=5_000)
    assert not bora.page.evaluate(
        """() => new Promise(done => {
          let lit = false;
          const seat = document.querySelector('.seat.pos-top');
          const t = setInterval(() => { lit = lit || seat.classList.contains('speaking'); }, 50);
          setTimeout(() => { clearInterval(t); done(lit); }, 2500);
        })"""
    )
    label = bora.page.get_attribute(".seat.pos-top .avatar", "aria-label") or ""
    assert "camera on" in label and "microphone on" not in label
    # Bora mutes Ayşe for himself only, pressing and releasing with the table drawn
    # again in between: the click counts, and his focus stays on the button.
    held_click(bora, "#talk-mute-0")
    bora.page.wait_for_selector("#talk-mute-0[aria-pressed='true']")
    bora.page.focus("#talk-mute-0")
    bora.page.evaluate(REDRAW)
    assert bora.page.evaluate("() => document.activeElement.id") == "talk-mute-0"
    assert bora.page.evaluate("() => document.querySelector('.seat.pos-top video').muted")
    ayse.page.wait_for_selector(".seat.pos-top.talk-mic")  # Bora's microphone stays on

    # Ayşe turns her camera off and on again: Bora sees her live video again, not a
    # frozen frame (the browser pauses a video taken out of the page).
    # The press and the release with the table drawn again in between (as when a
    # card is played or a peer connects while the button is held): the click counts.
    held_click(ayse, "#talk-cam")
    ayse.page.wait_for_selector("#talk-cam[aria-pressed='false']")
    # The keyboard's focus on a talk button stays there when the table is drawn again.
    ayse.page.focus("#talk-mic")
    ayse.page.evaluate(REDRAW)
    assert ayse.page.evaluate("() => document.activeElement.id") == "talk-mic"
    bora.page.wait_for_selector(".seat.pos-top:not(.talk-cam)")
    turn_on(ayse, "cam")
    bora.page.wait_for_function(
        """() => {
          const v = document.querySelector('.seat.pos-top.talk-cam video.talk-video');
          if (!v || v.paused) return false;
          window.__t0 = window.__t0 ?? v.currentTime;
          return v.currentTime > window.__t0 + 0.5;
        }""",
        polling=100,
    )

    # Bora reloads mid-deck: his camera and microphone come back, and the media with them.
    bora.page.reload()
    bora.page.wait_for_selector(".table-screen .hand")
    bora.page.wait_for_selector("#talk-cam[aria-pressed='true']")
    assert bora.page.get_attribute("#talk-mic", "aria-pressed") == "true"
    for p in (ayse, bora):
        wait_flowing(p, 1, ("video",))
    wait_flowing(ayse, 1, ("audio", "video"))

    play_on(ayse, bora)


def test_permission_denied_says_so_and_the_game_goes_on(person: Callable[..., Player]) -> None:
    cem = person("cem", allow=False, viewport={"width": 844, "height": 390})
    deniz = person("deniz")
    seat_together([cem, deniz], 2)
    cem.page.click("#talk-cam")
    message = cem.page.wait_for_selector(".toast.talk-message")
    assert message is not None
    assert "did not allow the microphone or camera" in message.inner_text()
    assert cem.page.get_attribute("#talk-cam", "aria-pressed") == "false"
    # The message covers no card of the hand: a card is still what a click there reaches
    # (a trial could not play for 6 s on a phone held sideways, its own turn running).
    covered = cem.page.evaluate(
        """() => [...document.querySelectorAll('.hand .hand-card')].map(b => {
          const r = b.getBoundingClientRect();
          const e = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return Boolean(e && e.closest('.hand-card'));
        })"""
    )
    assert covered and all(covered), covered
    # Deniz may still show herself to Cem, who receives without sending.
    turn_on(deniz, "cam")
    wait_flowing(cem, 1, ("video",))
    play_on(cem, deniz)


def test_four_persons_have_three_connected_peers_each(person: Callable[..., Player]) -> None:
    people = [person(name) for name in ("ayse", "bora", "cem", "deniz")]
    seat_together(people, 4)
    for p in people:
        turn_on(p, "mic")
    for p in people:
        wait_flowing(p, 3, ("audio",), timeout=45)
    # Deniz leaves: a bot takes her seat (R7.5), her media ends and the others are told.
    # By pointer while three peers connect and redraw the table: the bar's buttons are
    # kept across redraws, so the click lands.
    people[3].page.click("#leave")
    people[3].page.click("#leave-confirm")
    for p in people[:3]:
        message = p.page.wait_for_selector(".toast.talk-message >> text=A bot took")
        assert message is not None and "Deniz" in message.inner_text()
        wait_flowing(p, 2, ("audio",))


FAIL_LIVE_CONNECTION = """() => {
  const pc = window.__pcs.find((c) => c.connectionState === 'connected');
  Object.defineProperty(pc, 'connectionState', {get: () => 'failed'});
  pc.dispatchEvent(new Event('connectionstatechange'));
}"""
"""Makes the page's connected peer connection report ``failed``, as ICE does when a
network in between stops carrying its packets."""


def test_a_peer_that_cannot_be_reached_is_said_and_tried_again(
    person: Callable[..., Player],
) -> None:
    ayse, bora = person("ayse"), person("bora")
    seat_together([ayse, bora], 2)
    for p in (ayse, bora):
        turn_on(p, "mic")
    for p in (ayse, bora):
        wait_flowing(p, 1, ("audio",))
    for p in (ayse, bora):
        p.page.evaluate(FAIL_LIVE_CONNECTION)
    # Each is told in plain words, and the other's avatar says so to screen readers.
    for p, other in ((ayse, "Bora"), (bora, "Ayşe")):
        message = p.page.wait_for_selector(".toast.talk-message >> text=cannot be reached")
        assert message is not None and other in message.inner_text()
        label = p.page.get_attribute(".seat.pos-top .avatar", "aria-label") or ""
        assert "cannot be reached for voice and video" in label
    # Seat 0 offers again a second later: a new connection, the voice flows again, and
    # the avatars no longer say it cannot be reached.
    for p in (ayse, bora):
        wait_flowing(p, 1, ("audio",))
        p.page.wait_for_function(
            """() => !(document.querySelector('.seat.pos-top .avatar')
                .getAttribute('aria-label') || '').includes('cannot be reached')"""
        )
    assert ayse.page.evaluate("() => window.__pcs.length") == 2  # the failed one, then anew
    play_on(ayse, bora)


VIDEO_SHOWN = """(sel) => {
  const v = document.querySelector(sel);
  if (!v || v.videoWidth === 0) return null;
  const r = v.getBoundingClientRect();
  let seen = true;
  for (let e = v; e; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (s.opacity === '0' || s.visibility === 'hidden' || s.display === 'none') seen = false;
  }
  const seat = getComputedStyle(v.closest('.seat')).zIndex;
  const scene = getComputedStyle(document.querySelector('.scene3d')).zIndex;
  return {x: r.x, y: r.y, w: r.width, h: r.height, vw: innerWidth, vh: innerHeight,
          seen, above: Number(seat) > Number(scene)};
}"""
"""Where a seat's video is drawn, whether it is visible, and whether its seat is stacked
above the 3D scene."""


def test_video_shows_in_the_avatars_of_the_3d_table(
    person: Callable[..., Player], screenshots: Path
) -> None:
    ayse, bora = person("ayse"), person("bora")
    seat_together([ayse, bora], 2)
    ayse.page.click("#view-toggle")
    # Software WebGL on a busy machine can take long to draw the first frame: a guard.
    ayse.page.wait_for_selector(".table-screen.view-3d .scene3d canvas", timeout=90_000)
    for p in (ayse, bora):  # the seat's buttons take clicks over the scene (they did not)
        turn_on(p, "cam")
    wait_flowing(ayse, 1, ("video",))
    top = ".view-3d .seat.pos-top.talk-cam .avatar.has-video video.talk-video"
    ayse.page.wait_for_function(f"() => (document.querySelector({top!r}) || {{}}).videoWidth > 0")
    shown = ayse.page.evaluate(VIDEO_SHOWN, top)
    assert shown is not None and shown["seen"] and shown["above"], shown  # over the scene
    assert shown["w"] > 0 and shown["h"] > 0, shown
    assert shown["x"] >= 0 and shown["x"] + shown["w"] <= shown["vw"], shown
    assert shown["y"] >= 0 and shown["y"] + shown["h"] <= shown["vh"], shown
    # Her own camera shows at her own seat, in 3D too.
    own = ".view-3d .seat.pos-bottom.talk-cam .avatar.has-video video"
    ayse.page.wait_for_function(f"() => (document.querySelector({own!r}) || {{}}).videoWidth > 0")
    # Muting the other for herself is a click in 3D too.
    ayse.page.click("#talk-mute-1")
    ayse.page.wait_for_selector("#talk-mute-1[aria-pressed='true']")
    ayse.page.screenshot(path=str(screenshots / "talk-3d-table.png"))
    # Back to 2D (the V key): the video stays in the avatar, and the game goes on.
    ayse.page.keyboard.press("v")
    ayse.page.wait_for_function("() => !document.querySelector('.view-3d, .scene3d')")
    flat = ".seat.pos-top.talk-cam .avatar.has-video video.talk-video"
    ayse.page.wait_for_function(f"() => (document.querySelector({flat!r}) || {{}}).videoWidth > 0")
    play_on(ayse, bora)
