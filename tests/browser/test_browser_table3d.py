"""The 3D table: a whole match played by clicking cards where the scene draws
them, switching to 2D and back mid-deck with nothing changed; keyboard play
and the accessibility audit in 3D; the 2D table with a notice where WebGL is
missing; pixel checks of the screenshots.

Chromium draws WebGL here with SwiftShader (software), as on a machine
without a GPU: ``--use-angle=swiftshader --enable-unsafe-swiftshader``.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from driver import HOLD_BURST, Player
from test_browser_accessibility import AUDIT, AXE

from conftest import CHROMIUM, CHROMIUM_ARGS, PageErrors

GL_ARGS = [a for a in CHROMIUM_ARGS if a != "--disable-gpu"] + [
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

SETTLED = "() => Boolean(window.pishtiScene && window.pishtiScene.settled())"
NO_EFFECTS = "() => !document.querySelector('.effects > *')"
AIM = """(c) => {
  const scene = window.pishtiScene;
  if (!scene || !scene.settled(true)) return false;
  const p = scene.cardPoint(c);
  return p && scene.cardAt(p.x, p.y) === c ? p : false;
}"""
CLICK_STATE = """([card, x, y]) => {
  const state = window.pishtiApp.store.state;
  const scene = window.pishtiScene;
  return {
    seat: state.seat, to_play: state.view && state.view.to_play, pending: state.pending,
    hand: state.view && state.view.hand, seq: state.seq,
    cardAtClick: scene && scene.cardAt(x, y), pointNow: scene && scene.cardPoint(card),
    settled: scene && scene.settled(true), hover: scene && scene.hover,
    toasts: [...document.querySelectorAll('.toast, .notice, [role=alert]')].map(e => e.textContent),
    view3d: Boolean(document.querySelector('.table-screen.view-3d')),
  };
}"""
HAND_SETTLED = "() => Boolean(window.pishtiScene && window.pishtiScene.settled(true))"

# The table as the page holds it (the accessible 2D layer) and as the scene draws it.
TABLE_NOW = """() => {
  const state = window.pishtiApp.store.state;
  const pile = document.querySelector('#pile');
  const scene = window.pishtiScene;
  const drawn = scene && document.querySelector('.table-screen.view-3d') ? {
    hand: [...scene.items.keys()].filter(k => k.startsWith('h:')).map(k => k.slice(2)).sort(),
    top: (scene.pilePoint() || {}).card || null,
  } : null;
  return {
    hand: [...document.querySelectorAll('.hand .hand-card')].map(b => b.dataset.card),
    top: pile.dataset.top, pileSize: pile.dataset.size,
    scores: [...document.querySelectorAll('.scorebar .score')].map(s => s.textContent),
    clock: state.table.clock, clockAt: state.clockAt,
    stock: document.querySelector('#stock').getAttribute('aria-label'),
    drawn,
  };
}"""

# Decode a PNG with the browser's own decoder: RGBA bytes, base64.
DECODE = """async (b64) => {
  const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(bitmap, 0, 0);
  const data = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
  let text = '';
  for (let i = 0; i < data.length; i += 32768) {
    text += String.fromCharCode(...data.subarray(i, i + 32768));
  }
  return [bitmap.width, bitmap.height, btoa(text)];
}"""

PILE_POINT = "() => window.pishtiScene.toClient(window.pishtiScene.pileCenter())"

SCENE_BOX = """() => { const r = document.querySelector('.scene3d').getBoundingClientRect();
  return { x: r.left, y: r.top, width: r.width, height: r.height }; }"""

# A line across a card of your hand, 11% of the way down from its top edge
# (under the corner's rank, above the court box): its ends on screen.
CARD_LINE = """(card) => {
  const s = window.pishtiScene;
  const obj = s.items.get('h:' + card).obj;
  const at = (x) => obj.localToWorld(obj.position.clone().set(x, 0, -0.7 + 0.11 * 1.4));
  const end = (x) => s.toClient(at(x));
  return [end(-0.5), end(0.5)];
}"""


# Whether your hand's card `c` stands out above the others (the focused card, lifted).
LIFTED = """(c) => {
  const s = window.pishtiScene;
  const y = (k) => s.toClient(s.items.get('h:' + k).obj.position).y;
  const others = [...s.items.keys()].filter(k => k.startsWith('h:') && k !== 'h:' + c);
  return [others.every(k => y(k.slice(2)) > y(c) + 3), y(c), others.map(k => y(k.slice(2)))];
}"""


@pytest.fixture(scope="module")
def gl_browser() -> Iterator[Any]:
    """A headless Chromium that draws WebGL in software, for this module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=GL_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def open_gl(gl_browser: Any, server: str) -> Iterator[Any]:
    errors = PageErrors()
    contexts: list[Any] = []

    def open_(
        viewport: dict[str, int] | None = None,
        locale: str = "en-US",
        base_url: str | None = None,
        reduced_motion: str = "no-preference",
    ) -> Any:
        context = gl_browser.new_context(
            base_url=base_url or server,
            locale=locale,
            viewport=viewport or DESKTOP,
            accept_downloads=True,
            reduced_motion=reduced_motion,
        )
        context.set_default_timeout(30_000)
        contexts.append(context)
        page = context.new_page()
        errors.watch(page, f"page {len(contexts)}")
        return page

    yield open_
    for context in contexts:
        context.close()
    assert errors.errors == [], "\n".join(errors.errors)


def screenshot_pixels(page: Any, clip: dict[str, float] | None = None) -> np.ndarray:
    """A screenshot of the page (or of ``clip``) as an array of RGB pixels, rows first."""
    png = page.screenshot(clip=clip) if clip else page.screenshot()
    width, height, data = page.evaluate(DECODE, base64.b64encode(png).decode())
    rgba = np.frombuffer(base64.b64decode(data), dtype=np.uint8).reshape(height, width, 4)
    return rgba[:, :, :3].astype(np.int32)


Point = dict[str, float]


def paper_share(pixels: np.ndarray, box: Point, a: Point, b: Point) -> float:
    """The share of card paper (light and neutral) along the segment from client
    point ``a`` to ``b`` (its middle 80%) in a screenshot of ``box``."""
    points = []
    for i in range(50):
        f = 0.1 + 0.8 * i / 49
        x = int(a["x"] + (b["x"] - a["x"]) * f - box["x"])
        y = int(a["y"] + (b["y"] - a["y"]) * f - box["y"])
        if 0 <= y < pixels.shape[0] and 0 <= x < pixels.shape[1]:
            points.append(pixels[y, x])
    if not points:
        return 0.0
    found = np.array(points)
    light = (found.min(axis=1) > 150) & (found.max(axis=1) - found.min(axis=1) < 45)
    return float(light.mean())


class ScenePlayer(Player):
    """A player who plays by clicking cards where the 3D scene draws them."""

    def __init__(self, page: Any, shots: Path | None = None, prefix: str = "") -> None:
        only = frozenset({"table", "pishti"}) if shots else None
        super().__init__(page, shots, prefix, only)
        self.switches = 0
        self.pixel_checks = 0
        self.pile_changes = 0

    def wait_scene(self) -> None:
        self.page.wait_for_selector(".table-screen.view-3d .scene3d canvas")
        self.page.wait_for_function(SETTLED, polling=50, timeout=30_000)

    def table_now(self) -> dict[str, Any]:
        now: dict[str, Any] = self.page.evaluate(TABLE_NOW)
        return now

    def check_drawn(self, now: dict[str, Any]) -> None:
        """The scene draws the page's hand and the pile's top card."""
        assert now["drawn"] is not None
        assert now["drawn"]["hand"] == sorted(now["hand"])
        assert now["drawn"]["top"] == (now["top"] or None)

    def switch_and_back(self) -> None:
        """To 2D (the V key) and back (the button) mid-deck: nothing changes."""
        page = self.page
        before = self.table_now()
        self.check_drawn(before)
        page.keyboard.press("v")
        page.wait_for_function("() => !document.querySelector('.view-3d, .scene3d')")
        assert page.get_attribute("#view-toggle", "aria-pressed") == "false"
        flat = self.table_now()
        page.click("#view-toggle")
        self.wait_scene()
        assert page.get_attribute("#view-toggle", "aria-pressed") == "true"
        after = self.table_now()
        self.check_drawn(after)
        for key in ("hand", "top", "pileSize", "scores", "clock", "clockAt", "stock"):
            assert before[key] == flat[key] == after[key], key
        self.switches += 1

    def hand_pixels(self, hand: list[str]) -> None:
        """The screenshot shows as many cards in the hand as the page holds."""
        page = self.page
        box = page.evaluate(SCENE_BOX)
        cards = [page.evaluate(CARD_LINE, card) for card in hand]
        pixels = screenshot_pixels(page, box)
        shares = [paper_share(pixels, box, left, right) for left, right in cards]
        # One card's width beyond each end of the hand: no card there.
        first, last = cards[0], cards[-1]
        step = {k: first[1][k] - first[0][k] for k in ("x", "y")}
        before = [{k: p[k] - step[k] * 1.15 for k in ("x", "y")} for p in first]
        after = [{k: p[k] + step[k] * 1.15 for k in ("x", "y")} for p in last]
        beyond = [paper_share(pixels, box, *before), paper_share(pixels, box, *after)]
        ok = all(share > 0.6 for share in shares) and all(share < 0.2 for share in beyond)
        if not ok and self.shots is not None:
            page.screenshot(path=str(self.shots / "table3d-failed-hand.png"))
        assert ok, (hand, shares, beyond)
        # Not an empty or black scene: the felt's green is most of the middle.
        middle = pixels[pixels.shape[0] // 4 : pixels.shape[0] // 2]
        green = (middle[:, :, 1] > middle[:, :, 0] + 20) & (middle[:, :, 1] > middle[:, :, 2] + 10)
        assert green.mean() > 0.4, green.mean()
        assert pixels.std() > 25
        self.pixel_checks += 1

    def pile_region(self) -> np.ndarray:
        point = self.page.evaluate(PILE_POINT)
        clip = {"x": point["x"] - 45, "y": point["y"] - 45, "width": 90, "height": 90}
        return screenshot_pixels(self.page, clip)

    def play_turn(self, keyboard: bool = False) -> str:
        page = self.page
        if page.locator(".effects .burst").count():
            self.seen.pishti_bursts += 1
            if "pishti" not in self.seen.shots and self.shots is not None:
                page.evaluate(HOLD_BURST)
                page.wait_for_function(SETTLED, polling=50)
                self.shot("pishti", still=False)
                page.evaluate("() => document.getAnimations().forEach(a => a.play())")
        # The cards of the hand at their places (the pixel checks wait for all).
        check_pixels = self.seen.plays % 6 == 1
        page.wait_for_function(SETTLED if check_pixels else HAND_SETTLED, polling=50)
        hand = self.hand()
        self.check_table()
        self.check_drawn(self.table_now())
        if self.seen.plays % 12 == 2:
            self.switch_and_back()
        if check_pixels:
            self.hand_pixels(hand)
            # No "Pişti!" burst over the middle in either picture: only the pile's cards.
            page.wait_for_function(NO_EFFECTS, timeout=30_000)
            top_before = page.get_attribute("#pile", "data-top")
            before = self.pile_region()
        if self.seen.plays == 6 and self.shots is not None:
            page.wait_for_function("() => !document.querySelector('.effects > *')")
            self.shot("table")
        card = hand[self.rng.randrange(len(hand))]
        # Where the card is now, once the hand is still and a click there hits that card
        # (the hand's place follows the page's layout, which may change at any moment).
        point = page.wait_for_function(AIM, arg=card, polling=50, timeout=30_000).json_value()
        # What is under the pointer there is the scene, not a button of the page.
        under = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).className", [point["x"], point["y"]]
        )
        assert under == "scene3d-canvas", under
        page.mouse.click(point["x"], point["y"])
        try:
            page.wait_for_function(
                "(c) => !document.querySelector(`.hand .hand-card[data-card='${c}']`)", arg=card
            )
        except Exception as exc:
            if self.shots is not None:
                page.screenshot(path=str(self.shots / "table3d-failed-click.png"))
            raise AssertionError(
                (
                    "the clicked card stayed in the hand",
                    card,
                    point,
                    page.evaluate(CLICK_STATE, [card, point["x"], point["y"]]),
                )
            ) from exc
        if check_pixels:
            page.wait_for_function(SETTLED, polling=50, timeout=30_000)
            # A bot's pishti on the card just played bursts over the pile (a flaky failure).
            page.wait_for_function(NO_EFFECTS, timeout=30_000)
            after = self.pile_region()
            top_after = page.get_attribute("#pile", "data-top")
            # The bots answer at once: the top card may have changed more than once.
            changed = float((np.abs(after - before).sum(axis=2) > 60).mean())
            if top_after != top_before:
                assert changed > 0.03, ("the pile looks the same", top_before, top_after, changed)
                self.pile_changes += 1
            else:
                assert changed < 0.01, ("the pile looks different", top_before, top_after, changed)
        self.seen.plays += 1
        return card


def test_a_match_in_3d_by_clicks_in_the_scene(open_gl: Any, screenshots: Path) -> None:
    """Four players (three bots), to 51: every card clicked where the scene draws
    it; each deck's count; to 2D and back mid-deck; the choice kept over a reload."""
    page = open_gl()
    player = ScenePlayer(page, screenshots, "table3d-desktop-")
    player.create_table("Ayşe", players=4, target=51)
    for seat in (1, 2, 3):
        player.add_bot(seat)
    player.start()
    assert page.is_visible("#view-toggle")
    page.keyboard.press("v")  # the 2D table is the first one a browser sees
    player.wait_scene()
    page.reload()  # the choice is remembered
    player.wait_scene()
    player.play_match()
    assert player.switches >= len(player.seen.counts)
    assert player.pixel_checks >= 2 * len(player.seen.counts)
    assert player.pile_changes >= len(player.seen.counts)
    assert max(player.final_scores()) >= 51
    # The end screen has no table: the switch is gone with it.
    assert not page.is_visible("#view-toggle")


def test_keyboard_play_and_audit_in_3d_on_a_phone(open_gl: Any, screenshots: Path) -> None:
    """Two players, opened in 3D by the address: a deck by the keyboard only
    (1 to 4, the arrows and Enter) with the scene lifting the focused card; the
    axe-core audit of the 3D table and its count finds nothing critical or serious."""
    page = open_gl(viewport=PHONE, locale="tr-TR")
    player = Player(page)
    link = player.create_table("Ayşe", players=2, target=101)
    page.goto(link + "?view=3d")
    player.add_bot(1)
    player.start()
    page.wait_for_selector(".table-screen.view-3d .scene3d canvas")
    violations: dict[str, list[str]] = {}
    page.add_script_tag(path=str(AXE))
    counted = False
    for _ in range(60):
        now = player.what_now(timeout=30_000)
        if now == "count":
            found = page.evaluate(AUDIT)
            if found:
                violations["count"] = found
            player.take_count(keyboard=True)
            counted = True
            break
        page.wait_for_function(SETTLED, polling=50, timeout=30_000)
        if player.seen.plays == 1:
            found = page.evaluate(AUDIT)
            if found:
                violations["table"] = found
            page.wait_for_function("() => !document.querySelector('.effects > *')")
            page.screenshot(path=str(screenshots / "table3d-phone-table.png"))
        hand = player.hand()
        if player.seen.plays % 2:
            page.keyboard.press(str(len(hand)))
            card = hand[-1]
        else:
            page.focus(".hand .hand-card[tabindex='0']")
            page.keyboard.press("End")
            card = hand[-1]
            # The focused card stands out of the drawn hand.
            page.wait_for_function(SETTLED, polling=50)
            lifted = page.evaluate(LIFTED, card)
            assert lifted[0] or len(hand) == 1, lifted
            page.keyboard.press("Enter")
        page.wait_for_function(
            "(c) => !document.querySelector(`.hand .hand-card[data-card='${c}']`)", arg=card
        )
        player.seen.plays += 1
    assert counted
    assert violations == {}
    # Still in 3D after the count, and the page title names the table for screen readers.
    assert page.is_visible(".scene3d canvas")


def test_without_webgl_the_table_stays_2d_and_says_so(gl_browser: Any, server: str) -> None:
    """A browser without WebGL, asked for 3D by the address: the 2D table and a
    notice, said once; the V key says it again."""
    chromium = gl_browser.browser_type.launch(
        executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, "--disable-webgl"]
    )
    try:
        page = chromium.new_page(base_url=server, viewport=DESKTOP, locale="en-US")
        errors = PageErrors()
        errors.watch(page, "no webgl")
        player = Player(page)
        link = player.create_table("Ayşe", players=2)
        page.goto(link + "?view=3d")
        player.add_bot(1)
        player.start()
        notice = page.locator("#table-notice")
        notice.wait_for(state="visible")
        text = "This browser cannot draw the 3D table (no WebGL): the table stays in 2D."
        assert notice.inner_text() == text
        assert page.locator(".scene3d").count() == 0
        assert page.locator(".hand .hand-card").count() == 4
        assert page.locator(".hand .hand-card").first.is_visible()
        assert page.get_attribute("#view-toggle", "aria-pressed") == "false"
        page.reload()  # said once in this browser: not again on the way in
        page.wait_for_selector(".hand .hand-card")
        page.wait_for_timeout(300)
        assert page.locator("#table-notice").is_hidden()
        page.keyboard.press("v")  # asked again: said again
        notice.wait_for(state="visible")
        assert notice.inner_text() == text
        assert page.locator(".scene3d").count() == 0
        assert errors.errors == []
    finally:
        chromium.close()


# Counts, from now on, the animation frames at which some card of the scene is not
# where the state puts it (sampled at every frame the browser paints).
COUNT_UNSETTLED = """() => {
  window.unsettledFrames = 0;
  const look = () => {
    if (!window.pishtiScene) return;
    if (!window.pishtiScene.settled()) window.unsettledFrames += 1;
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}"""


def play_by_key_and_wait(page: Any, player: Player) -> None:
    """Play the first card of the hand by its number key and wait until the turn is
    back (or the deck is counted)."""
    card = player.hand()[0]
    page.keyboard.press("1")
    page.wait_for_function(
        "(c) => !document.querySelector(`.hand .hand-card[data-card='${c}']`)", arg=card
    )
    player.what_now(timeout=30_000)


def test_reduced_motion_spectator_and_too_slow_in_3d(open_gl: Any) -> None:
    """With the system's "reduce motion" asked for, no card slides or flies in 3D:
    every card is where the state says at every frame; asked no more, cards move
    again (the setting is read at each change, as CSS reads it).  A spectator in 3D
    sees every hand as backs.  Frames judged too slow: the notice, the 2D table, and
    the game goes on there."""
    page = open_gl(reduced_motion="reduce")
    player = Player(page)
    link = player.create_table("Ayşe", players=2, target=101)
    page.goto(link + "?view=3d")
    player.add_bot(1, "novice")
    player.start()
    page.wait_for_selector(".table-screen.view-3d .scene3d canvas")
    assert player.what_now(timeout=30_000) == "turn"
    page.evaluate(COUNT_UNSETTLED)
    for _ in range(2):
        play_by_key_and_wait(page, player)
    assert page.evaluate("() => window.unsettledFrames") == 0
    page.emulate_media(reduced_motion="no-preference")
    page.evaluate(COUNT_UNSETTLED)
    play_by_key_and_wait(page, player)
    # The played card slid to the pile (and the bot's card came from its seat).
    assert page.evaluate("() => window.unsettledFrames") >= 1
    # A spectator in 3D sees both hands as backs, the bottom seat's too (a trial saw none).
    watcher = open_gl(reduced_motion="reduce")
    watcher.goto(link + "/watch?view=3d")
    watcher.wait_for_selector(".table-screen.view-3d .scene3d canvas")
    watcher.wait_for_function(SETTLED, polling=50)
    backs = watcher.evaluate(
        """() => [0, 1].map(s => [...window.pishtiScene.items.keys()]
          .filter(k => k.startsWith(`o:${s}:`)).length)"""
    )
    sizes = watcher.evaluate("() => window.pishtiApp.store.state.view.hand_sizes")
    assert backs == sizes and sum(sizes) > 0, (backs, sizes)
    # Frames as slow as a very weak device draws them, at the fewest pixels, three looks
    # running (the scene's own judgement of its frame times).
    page.evaluate(
        """() => {
          const s = window.pishtiScene;
          for (let i = 0; i < 3; i += 1) {
            s.ratio = 0.5;
            s.recent = Array(20).fill(900);
            s.adapt();
          }
        }"""
    )
    notice = page.locator("#table-notice")
    notice.wait_for(state="visible")
    assert notice.inner_text() == "The 3D table is too slow on this device: the table stays in 2D."
    assert page.locator(".scene3d").count() == 0
    assert page.get_attribute("#view-toggle", "aria-pressed") == "false"
    assert page.get_attribute("html", "data-view3d") == "too_slow"
    # The game goes on in 2D: a card played by a click.
    card = player.hand()[0]
    page.click(f".hand .hand-card[data-card='{card}']")
    page.wait_for_function(
        "(c) => !document.querySelector(`.hand .hand-card[data-card='${c}']`)", arg=card
    )


def test_take_over_in_3d(open_gl: Any, fast_server: str) -> None:
    """On the 3D table, a seat the autopilot plays (three timeouts, R7.3) is taken
    back with the Take over button drawn over the scene (a real click: the button is
    built once, not remade with every card the table plays)."""
    page = open_gl(base_url=fast_server)
    player = Player(page)
    link = player.create_table("Ayşe", players=2, target=51, tempo="fast")
    page.goto(link + "?view=3d")
    player.add_bot(1, "standard")
    player.start()
    page.wait_for_selector(".table-screen.view-3d .scene3d canvas")
    page.wait_for_selector("#take-over", timeout=30_000)
    page.click("#take-over")  # a real click: the button is over the scene, not under it
    page.wait_for_selector(".autopilot-banner", state="hidden")
    assert page.is_visible(".scene3d canvas")


# The seats over the scene and the cards of your hand, as the page shows them: boxes
# outside the scene, names cut short, a card whose corners leave the canvas.
SEATS_AND_HAND_INSIDE = """() => {
  const s = window.pishtiScene;
  const scene = document.querySelector('.scene3d').getBoundingClientRect();
  const problems = [];
  for (const el of document.querySelectorAll('.felt > .seat')) {
    const r = el.getBoundingClientRect();
    const name = el.querySelector('.seat-name');
    const box = (b) => [b.left, b.top, b.right, b.bottom].map(Math.round).join(",");
    if (r.left < scene.left - 3 || r.right > scene.right + 3 || r.top < scene.top - 3
        || r.bottom > scene.bottom + 3) {
      problems.push(`seat ${el.dataset.seat} leaves the scene: ${box(r)} in ${box(scene)}`);
    }
    if (name.scrollWidth > name.clientWidth + 1) {
      problems.push(`seat ${el.dataset.seat}: name cut: ${name.textContent}`);
    }
  }
  for (const [key, item] of s.items) {
    if (!key.startsWith('h:')) continue;
    const obj = item.obj;
    for (const [x, z] of [[-0.5, -0.7], [0.5, -0.7], [-0.5, 0.7], [0.5, 0.7]]) {
      const p = s.toClient(obj.localToWorld(obj.position.clone().set(x, 0, z)));
      if (p.y > scene.bottom + 1) problems.push(`${key} leaves the scene at the bottom`);
    }
  }
  return [...new Set(problems)];
}"""


@pytest.mark.parametrize(
    "viewport", [{"width": 844, "height": 390}, PHONE], ids=["sideways", "tall"]
)
def test_seats_and_hand_inside_the_3d_scene_on_a_phone(
    open_gl: Any, viewport: dict[str, int]
) -> None:
    """Four seats on a phone, held sideways and upright: every seat whole inside the
    scene with its name not cut, every card of your hand inside it (a trial saw the
    right seat squeezed to "B" and the hand cut at the bottom of a phone held sideways)."""
    page = open_gl(viewport=viewport, reduced_motion="reduce")
    player = Player(page)
    link = player.create_table("Zeynep", players=4, target=51)
    page.goto(link + "?view=3d")
    for seat in (1, 2, 3):
        player.add_bot(seat)
    player.start()
    page.wait_for_selector(".table-screen.view-3d .scene3d canvas")
    for _ in range(2):
        assert player.what_now(timeout=30_000) == "turn"
        page.wait_for_function(SETTLED, polling=50)
        assert page.evaluate(SEATS_AND_HAND_INSIDE) == []
        play_by_key_and_wait(page, player)
