"""The table fits the window at every common size, portrait and landscape: no part
of it overlaps another, none leaves the window, the page never scrolls, and the
"Pişti!" bursts fit (a jack pişti's is the larger)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from driver import Player

HERE = Path(__file__).parent
LAYOUT_CHECK = (HERE / "layout_check.js").read_text("utf-8")

# Phones (portrait and held sideways), tablets, laptops (1366x657 is a 1366x768
# screen less the browser's bars), desktops, up to 2560x1440.
SIZES = [
    (360, 640),
    (375, 667),
    (390, 844),
    (412, 915),
    (640, 360),
    (667, 375),
    (844, 390),
    (915, 412),
    (768, 1024),
    (800, 1280),
    (1024, 768),
    (1024, 600),
    (1280, 800),
    (1366, 657),
    (1366, 768),
    (1440, 900),
    (1536, 730),
    (1920, 1080),
    (2560, 1440),
]

# The fullest table a player can see: long names with every tag, both teams with
# many pişti cards, the face-down cards shown, the clock's last seconds.
FULLEST = """() => {
  const store = window.pishtiApp.store;
  const { table, view } = store.state;
  const names = ['Ayşegül Karadeniz-Öztürk', 'Maximilian Oberhausen', 'Guðrún Þórsdóttir'];
  for (const [i, seat] of [1, 2, 3].entries()) {
    const more = { kind: 'human', name: names[i], connected: false, autopilot: true };
    Object.assign(table.seats[seat], more);
  }
  view.dealer = 2;
  view.pishti_cards = [['7S', 'QH', 'JD', '4C', '9S'], ['5H', 'KC', 'JS', '8D', '3H']];
  view.face_down = ['AS', '2C', 'TD'];
  view.face_down_team = store.state.team;
  view.taken_counts = [27, 23];
  table.clock = { seat: store.state.seat, remaining: 4, tempo: 60 };
  store.state.clockAt = performance.now();
  store.notify([]);
}"""

BURST = """async (jack) => {
  const { pishtiBurst } = await import('/static/js/ui/effects.js');
  const layer = document.querySelector('.table-screen .effects');
  const burst = pishtiBurst(layer, { jack, card: jack ? 'JS' : '7S' });
  for (const a of document.getAnimations()) {
    const el = a.effect && a.effect.target;
    // Hold the burst where it is largest.
    if (el && el.closest && el.closest('.burst')) { a.currentTime = 300; a.pause(); }
  }
  const r = burst.querySelector('.burst-text').getBoundingClientRect();
  const size = parseFloat(getComputedStyle(burst.querySelector('.burst-text')).fontSize);
  burst.remove();
  return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, size };
}"""


def test_the_table_fits_every_screen(open_page: Any, screenshots: Path) -> None:
    page = open_page(viewport={"width": 1280, "height": 800})
    player = Player(page)
    player.create_table("Alice", players=4, target=151)
    for seat in (1, 2, 3):
        player.add_bot(seat)
    player.start()
    # Play a few turns so that there is a record of plays and cards in every hand.
    for _ in range(2):
        assert player.what_now() == "turn"
        player.play_turn()
    assert player.what_now() == "turn"
    page.wait_for_function("() => !document.querySelector('.effects > *')")
    page.evaluate(FULLEST)
    folder = screenshots / "layout"
    folder.mkdir(exist_ok=True)
    failures: dict[str, list[str]] = {}
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(50)
        problems: list[str] = page.evaluate(LAYOUT_CHECK)
        sizes = []
        for jack in (False, True):
            r = page.evaluate(BURST, jack)
            if r["left"] < 0 or r["right"] > width or r["top"] < 0 or r["bottom"] > height:
                problems.append(f"the {'jack ' if jack else ''}pişti burst leaves the window: {r}")
            sizes.append(r["size"])
        # A jack pişti's burst is the stronger one.
        assert sizes[1] > sizes[0], (width, height, sizes)
        page.screenshot(path=str(folder / f"{width}x{height}.png"))
        if problems:
            failures[f"{width}x{height}"] = problems
    assert failures == {}, "\n".join(f"{size}: {p}" for size, ps in failures.items() for p in ps)
