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

# Two players: the scores are named after the players ("You", the other's name), so a
# long name is in the bar; the record of plays may still be empty (its longest line).
TWO_PLAYER_SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1024, 600), (1366, 657)]
MY_NAME = "Gülşen Karaosmanoğlu"  # 20 characters
FULLEST_TWO = """(noPlays) => {
  const store = window.pishtiApp.store;
  const { table, view } = store.state;
  const name = 'Ayşegül Karadeniz-Öztürk';  // 24 characters, the longest a name may be
  Object.assign(table.seats[1], { kind: 'human', name, connected: false, autopilot: true });
  view.pishti_cards = [['7S', 'QH', 'JD', '4C', '9S'], ['5H', 'KC', 'JS', '8D', '3H']];
  view.face_down = ['AS', '2C', 'TD'];
  view.face_down_team = store.state.team;
  view.taken_counts = [27, 23];
  table.totals = [105, 98];
  table.clock = { seat: store.state.seat, remaining: 4, tempo: 60 };
  store.state.clockAt = performance.now();
  if (noPlays) store.state.recent = [];
  store.notify([]);
}"""

SET_LANGUAGE = "async (lang) => (await import('/static/js/i18n.js')).setLanguage(lang)"

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


def check_sizes(page: Any, sizes: list[tuple[int, int]], folder: Path) -> dict[str, list[str]]:
    """Each size's layout problems (none: fits), with a screenshot of each size in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    failures: dict[str, list[str]] = {}
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(50)
        problems: list[str] = page.evaluate(LAYOUT_CHECK)
        sizes_seen = []
        for jack in (False, True):
            r = page.evaluate(BURST, jack)
            if r["left"] < 0 or r["right"] > width or r["top"] < 0 or r["bottom"] > height:
                problems.append(f"the {'jack ' if jack else ''}pişti burst leaves the window: {r}")
            sizes_seen.append(r["size"])
        # A jack pişti's burst is the stronger one.
        assert sizes_seen[1] > sizes_seen[0], (width, height, sizes_seen)
        page.screenshot(path=str(folder / f"{width}x{height}.png"))
        if problems:
            failures[f"{width}x{height}"] = problems
    return failures


def report(failures: dict[str, list[str]]) -> str:
    return "\n".join(f"{size}: {p}" for size, ps in failures.items() for p in ps)


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
    failures = check_sizes(page, SIZES, screenshots / "layout")
    assert failures == {}, report(failures)


def test_a_two_player_table_with_long_names_fits_in_turkish_and_english(
    open_page: Any, screenshots: Path
) -> None:
    # Found by a new-user trial: at 844x390 with two players Leave ran off the window
    # (x 780 to 858) and "No card played yet in th…" was cut; only four-player
    # tables were checked.
    page = open_page(locale="tr-TR", viewport={"width": 1280, "height": 800})
    player = Player(page)
    player.create_table(MY_NAME, players=2, target=151)
    player.add_bot(1)
    player.start()
    assert player.what_now() == "turn"
    player.play_turn()
    assert player.what_now() == "turn"  # the bot waits for this seat's card
    page.wait_for_function("() => !document.querySelector('.effects > *')")
    page.evaluate(FULLEST_TWO, False)
    failures = check_sizes(page, TWO_PLAYER_SIZES, screenshots / "layout-2p-tr")
    page.evaluate(SET_LANGUAGE, "en")
    page.evaluate(FULLEST_TWO, True)
    english = check_sizes(page, TWO_PLAYER_SIZES, screenshots / "layout-2p-en")
    failures |= {f"{size} en": problems for size, problems in english.items()}
    assert failures == {}, report(failures)
