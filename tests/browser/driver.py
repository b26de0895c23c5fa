"""Drives the browser client the way a person does: by clicks (and keys) on what it shows."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COUNT_OPEN = "() => Boolean(document.querySelector('#count-dialog:is([open])'))"
"""Whether a count dialog is open in the page."""


def pishti_command(*args: str) -> list[str]:
    """The ``pishti`` command of this interpreter."""
    return [sys.executable, "-c", "from pishti.cli import main; main()", *args]


COUNT_ROWS = (
    "cards",
    "aces",
    "jacks",
    "two_of_clubs",
    "ten_of_diamonds",
    "most_cards",
    "pishtis",
    "jack_pishtis",
    "points",
    "totals",
)

WHAT_NOW = """() => {
  if (document.querySelector('.end-screen .final-scores')) return 'end';
  const dialog = document.querySelector('#count-dialog');
  if (dialog && dialog.open) return 'count';
  if (document.querySelector('.table-screen .hand.playable .hand-card')) return 'turn';
  return false;
}"""

HOLD_BURST = """() => {
  for (const a of document.getAnimations()) {
    const el = a.effect && a.effect.target;
    if (el && el.closest && el.closest('.burst')) { a.currentTime = 900; a.pause(); }
    else a.finish();
  }
}"""


READ_COUNT = """([selector, rows]) => {
  const table = document.querySelector(selector);
  if (!table) {
    // The match ended while the dialog was being read: the end screen took the table's place.
    if (document.querySelector('.end-screen .final-scores')) return "end";
    return null;  // not drawn yet: polled again
  }
  const cell = (row, team) =>
    table.querySelector(`tr[data-row='${row}'] td[data-team='${team}']`).textContent.trim();
  const teams = [0, 1].map(team => Object.fromEntries(rows.map(row => [row, cell(row, team)])));
  return { deck: table.dataset.deck, teams };
}"""

SCORE_AND_RECORDS = r"""() => {
  if (!document.querySelector('.table-screen .scorebar')) return null;
  const score = (t) =>
    Number(document.querySelector(`.score[data-team='${t}'] .score-value`).textContent);
  const cards = (t) => [...document.querySelectorAll(`.pishti-cards[data-team='${t}'] .card`)]
    .map(e => e.dataset.card);
  const deck = Number(document.querySelector('#deck-number').textContent.match(/\d+/)[0]) - 1;
  return { scores: [score(0), score(1)], cards: [cards(0), cards(1)], deck };
}"""


@dataclass
class Seen:
    """What a player saw during a match."""

    counts: list[dict[str, Any]] = field(default_factory=list)
    plays: int = 0
    pishti_bursts: int = 0
    face_down: int = 0
    shots: set[str] = field(default_factory=set)
    totals: list[int] = field(default_factory=lambda: [0, 0])
    pishti_scores: int = 0


class Player:
    """One person at one browser page."""

    def __init__(
        self,
        page: Any,
        shots: Path | None = None,
        prefix: str = "",
        only: frozenset[str] | None = None,
    ) -> None:
        """``shots``: where screenshots go (None: none), named ``prefix`` + what
        they show (lobby, table, pishti, count, end), or only those in ``only``."""
        self.page = page
        self.shots = shots
        self.prefix = prefix
        self.only = only
        self.seen = Seen()
        self.rng = random.Random(7)

    # -- screens before the match --------------------------------------------

    def create_table(
        self, name: str, players: int = 4, target: int = 51, tempo: str = "relaxed"
    ) -> str:
        page = self.page
        page.goto("/")
        page.fill("#player-name", name)
        page.check(f"input[name=players][value='{players}']")
        page.check(f"input[name=target][value='{target}']")
        page.check(f"input[name=tempo][value='{tempo}']")
        page.click("#create-table")
        page.wait_for_selector(".lobby-screen #invite-link")
        return str(page.input_value("#invite-link"))

    def sit_by_link(self, link: str, name: str, seat: int) -> None:
        page = self.page
        page.goto(link)
        page.fill("#visitor-name", name)
        page.click(f"#sit-{seat}")
        page.wait_for_selector(f".lobby-seat.me[data-seat='{seat}']")

    def add_bot(self, seat: int, level: str = "standard") -> None:
        page = self.page
        page.select_option(f"#bot-level-{seat}", level)
        page.click(f"#add-bot-{seat}")
        page.wait_for_selector(f".lobby-seat.kind-bot[data-seat='{seat}']")

    def start(self) -> None:
        self.page.click("#start-match")
        self.page.wait_for_selector(".table-screen .hand")

    # -- during the match ------------------------------------------------------

    def what_now(self, timeout: float = 20_000) -> str:
        """Wait until this player must act: 'turn', 'count' or 'end'."""
        handle = self.page.wait_for_function(WHAT_NOW, timeout=timeout, polling=50)
        return str(handle.json_value())

    def peek(self) -> str | None:
        """Like :meth:`what_now` without waiting: None when nothing is to be done."""
        value = self.page.evaluate(WHAT_NOW)
        return str(value) if value else None

    def hand(self) -> list[str]:
        return list(
            self.page.eval_on_selector_all(
                ".hand .hand-card", "els => els.map(e => e.dataset.card)"
            )
        )

    def shot(self, name: str, still: bool = True) -> None:
        """Save a screenshot once per name; ``still`` finishes running animations first."""
        if self.shots is None or name in self.seen.shots:
            return
        if self.only is not None and name not in self.only:
            return
        self.seen.shots.add(name)
        self.page.screenshot(
            path=str(self.shots / f"{self.prefix}{name}.png"),
            animations="disabled" if still else "allow",
        )

    def play_turn(self, keyboard: bool = False) -> str:
        """Play one card of the hand, by a click or by the keyboard; returns the card."""
        page = self.page
        if page.locator(".effects .burst").count():
            self.seen.pishti_bursts += 1
            if "pishti" not in self.seen.shots:
                # Hold the burst at its full size for the picture.
                page.evaluate(HOLD_BURST)
                self.shot("pishti", still=False)
                page.evaluate("() => document.getAnimations().forEach(a => a.play())")
        hand = self.hand()
        assert hand, "my turn with an empty hand"
        self.check_table()
        index = self.rng.randrange(len(hand))
        card = hand[index]
        if self.seen.plays == 6 and self.shots is not None:
            # A calm table: no card still flying to its team, no burst.
            page.wait_for_function("() => !document.querySelector('.effects > *')")
            self.shot("table")
        if keyboard and self.seen.plays % 2:
            # Arrow keys move along the hand, Enter plays the focused card.
            page.focus(".hand .hand-card[tabindex='0']")
            page.keyboard.press("Home")
            for _ in range(index):
                page.keyboard.press("ArrowRight")
            focused = page.evaluate("() => document.activeElement.dataset.card")
            assert focused == card, (focused, card)
            page.keyboard.press("Enter")
        elif keyboard:
            page.keyboard.press(str(index + 1))  # or the card's number
        else:
            page.click(f".hand .hand-card[data-card='{card}']")
        self.seen.plays += 1
        return card

    def check_table(self) -> None:
        """What the table shows holds together (R7.7): the face-down cards are three,
        shown only to the team that took them; every button has a name."""
        page = self.page
        face_down = page.locator("#face-down [role=listitem]")
        if face_down.count():
            assert face_down.count() == 3
            self.seen.face_down += 1
        unnamed = page.evaluate(
            """() => [...document.querySelectorAll('button, a[href], select')]
                 .filter(b => !(b.getAttribute('aria-label') || b.textContent).trim())
                 .map(b => b.outerHTML)"""
        )
        assert unnamed == [], unnamed
        self.check_score()
        labels = page.eval_on_selector_all(
            ".hand .hand-card", "els => els.map(e => e.getAttribute('aria-label'))"
        )
        assert all(label and len(label) > 4 for label in labels), labels

    def check_score(self, counted: int | None = None) -> None:
        """R4.7: the score shown holds this deck's pishti points at once, 10 for each
        record card and 20 for a jack (a jack pishti's record card), on top of the
        totals of the last count; once the deck ``counted`` is counted, they are in
        its totals.  Read in one go, so no event comes in between."""
        shown = self.page.evaluate(SCORE_AND_RECORDS)
        if shown is None:
            return
        points = [sum(20 if c.startswith("J") else 10 for c in cards) for cards in shown["cards"]]
        if shown["deck"] == counted:
            points = [0, 0]
        expected = [self.seen.totals[t] + points[t] for t in (0, 1)]
        assert shown["scores"] == expected, (shown, self.seen.totals)
        if any(points):
            self.seen.pishti_scores += 1

    def read_count(self, selector: str = "#count-dialog .count-table") -> dict[str, Any] | None:
        """A count table (the open dialog's by default), checked line by line (R5.2, R5.5);
        None when the end screen replaced the dialog before it could be read."""
        # In one go: the count is open for 15 s at most (R7.8), however busy the machine.
        # Polled: on a loaded machine the dialog of the last deck was seen open and then the
        # end screen took its place before the read, which failed on a null element.
        read = self.page.wait_for_function(
            READ_COUNT, arg=[selector, list(COUNT_ROWS)], polling=50
        ).json_value()
        if read == "end":
            return None
        deck = int(read["deck"])
        teams: list[dict[str, Any]] = read["teams"]
        parsed = [{k: _value(v) for k, v in t.items()} for t in teams]
        for t in parsed:
            expected = (
                t["aces"]
                + t["jacks"]
                + 2 * t["two_of_clubs"]
                + 3 * t["ten_of_diamonds"]
                + 3 * t["most_cards"]
                + 10 * t["pishtis"]
                + 20 * t["jack_pishtis"]
            )
            assert t["points"] == expected, f"deck {deck}: points do not add up: {t}"
        assert parsed[0]["cards"] + parsed[1]["cards"] == 52, parsed
        assert parsed[0]["two_of_clubs"] + parsed[1]["two_of_clubs"] == 1
        assert parsed[0]["ten_of_diamonds"] + parsed[1]["ten_of_diamonds"] == 1
        count = {"deck": deck, "teams": parsed}
        self.seen.counts.append(count)
        return count

    def close_count(self, keyboard: bool = False) -> None:
        """Close the open count (Continue).  The table may close it first, by design: when
        the next deck is dealt (R7.8) or the end screen takes its place; a click that
        finds it closed then has nothing left to do (CI once timed out clicking a count
        the table had just closed)."""
        if keyboard:
            # The dialog opens with its button focused: Enter closes it.
            assert self.page.evaluate("() => document.activeElement.id") == "count-close"
            self.page.keyboard.press("Enter")
        else:
            from playwright.sync_api import TimeoutError as PlaywrightTimeout

            try:
                self.page.click("#count-close")
            except PlaywrightTimeout:
                if self.page.evaluate(COUNT_OPEN):
                    raise
        self.page.wait_for_function(f"() => !({COUNT_OPEN})()")

    def take_count(self, keyboard: bool = False, before_close: Any = None) -> dict[str, Any] | None:
        """Read the open count (checked line by line), check the score shown, call
        ``before_close()`` if given, and close it; None when the match ended first (the end
        screen shows the last count)."""
        count = self.read_count()
        if count is None:
            return None
        self.shot("count")
        self.seen.totals = [count["teams"][0]["totals"], count["teams"][1]["totals"]]
        self.check_score(counted=count["deck"])
        if before_close is not None:
            before_close()
        self.close_count(keyboard=keyboard)
        return count

    def scores(self) -> list[int]:
        return [
            int(self.page.inner_text(f".scorebar .score[data-team='{team}'] .score-value"))
            for team in (0, 1)
        ]

    def play_match(self, keyboard_every: int = 0, max_steps: int = 2000) -> None:
        """Play until the end screen: a card on each turn, read and close each count."""
        for _ in range(max_steps):
            now = self.what_now()
            if now == "end":
                # The last deck's count is on the end screen.
                self.read_count(".end-screen .end-card > .count-table")
                self.shot("end")
                return
            if now == "count":
                self.take_count(keyboard=bool(keyboard_every))
                continue
            keyboard = bool(keyboard_every) and self.seen.plays % keyboard_every == 0
            self.play_turn(keyboard=keyboard)
        raise AssertionError("the match did not end")

    # -- after the match ---------------------------------------------------------

    def final_scores(self) -> list[int]:
        return [
            int(self.page.inner_text(f"#final-scores [data-team='{team}'] .final-total"))
            for team in (0, 1)
        ]

    def download_record(self, folder: Path) -> Path:
        with self.page.expect_download() as info:
            self.page.click("#download-record")
        path = folder / "record.json"
        info.value.save_as(str(path))
        return path


def _value(text: str) -> int:
    if text.isdigit():
        return int(text)
    return 0 if text in ("–", "-", "") else 1  # yes / evet


def replay_json(record: Path) -> dict[str, Any]:
    """``pishti replay --json`` of a record file."""
    out = subprocess.run(
        pishti_command("replay", str(record), "--json"),
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result
