// The replay of a finished match (R10): every hand visible (the match is over,
// R7.7), the pile, the face-down cards, captures, pishtis and the count after
// each deck.  Step one play at a time, jump to a deck, play automatically;
// keys: arrows, Home/End, space.  A link `#d3p17` opens deck 3 after play 17.
// A record comes from the server (`/r/{table}/{match}`) or from a file opened
// here (`/replay`: read in the browser, nothing uploaded).

import { cardFace, cardName } from "../cards.js";
import { language, t } from "../i18n.js";
import { AnalysisPanel, fileAnalysis } from "../replay/analysis.js";
import { PLAYS_PER_DECK, RecordProblem, replayRecord, teamOf } from "../replay/record.js";
import { countTable } from "../ui/countTable.js";
import { announce, h, svg } from "../ui/dom.js";
import { seatName, teamLabel } from "../ui/seats.js";

const SPEEDS = [0.5, 1, 2, 4];

/**
 * The controls' icons, drawn as SVG paths in a 16×16 box (the characters ⏮ ⏵ ⏭
 * have no glyph in the fonts of some systems, Debian's Chromium among them, and
 * showed as empty boxes).  The button's aria-label names it; the icon is hidden.
 */
const ICONS = {
  first: "M2 2h2v12H2z M14 2v12L5 8z",
  back: "M13 2v12L3 8z",
  play: "M4 2v12l10-6z",
  pause: "M3 2h4v12H3z M9 2h4v12H9z",
  next: "M3 2v12l10-6z",
  last: "M12 2h2v12h-2z M2 2v12l9-6z",
};

function icon(name) {
  return svg(
    "svg",
    { class: "icon", viewBox: "0 0 16 16", width: "16", height: "16", "aria-hidden": "true", focusable: "false" },
    svg("path", { d: ICONS[name], fill: "currentColor" }),
  );
}

const lower = (text) => text.toLocaleLowerCase(language());

/** `{deck, play}` (deck from 0) of a hash like `#d3p17`, or null for any other hash. */
export function parseHash(hash) {
  const m = /^#d(\d{1,6})p(\d{1,6})$/.exec(hash || "");
  return m ? { deck: Number(m[1]) - 1, play: Number(m[2]) } : null;
}

export class ReplayScreen {
  constructor(root, { load, seats = null, title = null, analysis = null }) {
    this.root = root;
    this.load = load; // async () => record JSON, or null for "open a file"
    this.seats = seats; // the table's seats (the lobby's), to name them as the table does
    this.title = title;
    this.analysis = analysis; // optional: an AnalysisPanel (the server's analysis)
    this.replay = null;
    this.notice = null; // said above the position: the address named none of this match
    this.deck = 0;
    this.play = 0;
    this.timer = null;
    this.speed = 1;
    this.section = h("section", { class: "screen replay-screen", "aria-labelledby": "replay-title" });
    root.replaceChildren(this.section);
    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    this.onHash = () => this.fromHash();
    window.addEventListener("hashchange", this.onHash);
    this.start();
  }

  async start() {
    if (!this.load) {
      this.renderPicker(null);
      return;
    }
    this.section.replaceChildren(h("p", { class: "loading" }, t("replay.loading")));
    try {
      this.open(await this.load());
    } catch (err) {
      if (err instanceof RecordProblem) this.renderPicker(t("replay.problem", { problem: err.message }));
      else this.renderPicker(err.text || String(err.message || err));
    }
  }

  /** Replay a record's JSON value; shows the first position or the hash's. */
  open(data) {
    this.replay = replayRecord(data);
    this.deck = 0;
    this.play = 0;
    this.fromHash(false);
    this.render();
  }

  // ---- opening a file ---------------------------------------------------------

  renderPicker(problem) {
    const input = h("input", {
      type: "file",
      id: "record-file",
      accept: "application/json,.json",
      on: { change: () => input.files[0] && this.readFile(input.files[0]) },
    });
    const drop = h(
      "div",
      {
        class: "record-drop",
        id: "record-drop",
        on: {
          dragover: (e) => {
            e.preventDefault();
            drop.classList.add("over");
          },
          dragleave: () => drop.classList.remove("over"),
          drop: (e) => {
            e.preventDefault();
            drop.classList.remove("over");
            const file = e.dataTransfer && e.dataTransfer.files[0];
            if (file) this.readFile(file);
          },
        },
      },
      h("p", {}, t("replay.drop")),
      h("label", { class: "button", for: "record-file" }, t("replay.choose")),
      input,
    );
    this.section.replaceChildren(
      h("h1", { id: "replay-title", tabindex: "-1" }, t("replay.open_title")),
      h("p", { class: "hint" }, t("replay.local")),
      problem ? h("p", { class: "form-error", role: "alert", id: "replay-problem" }, problem) : null,
      drop,
    );
  }

  async readFile(file) {
    let data;
    try {
      data = JSON.parse(await file.text());
    } catch {
      this.renderPicker(t("replay.problem", { problem: t("replay.not_json") }));
      return;
    }
    try {
      this.open(data);
    } catch (err) {
      this.renderPicker(t("replay.problem", { problem: err instanceof RecordProblem ? err.message : String(err) }));
      return;
    }
    // The same analysis as a finished match's, asked for on the server (the record is
    // sent only when the person asks).
    if (this.analysis) this.analysis.destroy();
    this.analysis = new AnalysisPanel(fileAnalysis(data), () => this.render());
    this.render();
  }

  // ---- moving ------------------------------------------------------------------

  get deckData() {
    return this.replay.decks[this.deck];
  }

  /**
   * Go to the position the address's hash names (`#d3p17`).  A position past the
   * match's end (`#d99p999`) opens the nearest one there is, and a hash that names no
   * position (`#abc`) the start; either is said (`this.notice`), and the address then
   * names the position shown.
   */
  fromHash(render = true) {
    if (!this.replay) return;
    const hash = location.hash;
    if (!hash || hash === "#") return;
    const decks = this.replay.decks;
    const at = parseHash(hash);
    if (!at) {
      this.notice = t("replay.bad_position", { at: hash.slice(1) });
      this.deck = 0;
      this.play = 0;
    } else {
      this.deck = Math.max(0, Math.min(at.deck, decks.length - 1));
      this.play = Math.min(at.play, decks[this.deck].steps.length - 1);
      this.notice =
        this.deck === at.deck && this.play === at.play
          ? null
          : t("replay.no_position", { deck: at.deck + 1, play: at.play, decks: decks.length, plays: PLAYS_PER_DECK });
    }
    if (this.notice) history.replaceState(null, "", `#d${this.deck + 1}p${this.play}`);
    if (render) this.render();
  }

  /** Go to `play` of `deck`, crossing into the next or the last deck at the ends. */
  go(deck, play, { say = true } = {}) {
    const decks = this.replay.decks;
    if (play < 0 && deck > 0) {
      deck -= 1;
      play = decks[deck].steps.length - 1;
    } else if (play >= decks[deck].steps.length && deck + 1 < decks.length) {
      deck += 1;
      play = 0;
    }
    play = Math.max(0, Math.min(play, decks[deck].steps.length - 1));
    if (deck === this.deck && play === this.play) return false;
    this.notice = null;
    this.deck = deck;
    this.play = play;
    history.replaceState(null, "", `#d${deck + 1}p${play}`);
    this.render();
    if (say) announce(this.stepText());
    return true;
  }

  step(by) {
    return this.go(this.deck, this.play + by);
  }

  first() {
    this.go(0, 0);
  }

  last() {
    const decks = this.replay.decks;
    this.go(decks.length - 1, decks[decks.length - 1].steps.length - 1);
  }

  toggleAuto() {
    if (this.timer) this.stopAuto();
    else {
      this.timer = setInterval(() => {
        if (!this.step(1)) this.stopAuto();
      }, 1000 / this.speed);
      this.render();
    }
  }

  stopAuto() {
    clearInterval(this.timer);
    this.timer = null;
    if (this.replay) this.render();
  }

  key(e) {
    if (!this.replay || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (tag === "SELECT" || tag === "INPUT") return;
    const moves = {
      ArrowRight: () => this.step(1),
      ArrowLeft: () => this.step(-1),
      ArrowDown: () => this.go(Math.min(this.deck + 1, this.replay.decks.length - 1), 0),
      ArrowUp: () => this.go(Math.max(this.deck - 1, 0), 0),
      Home: () => this.first(),
      End: () => this.last(),
      " ": () => this.toggleAuto(),
    };
    const fn = moves[e.key];
    if (!fn) return;
    if (e.key === " " && tag === "BUTTON") return; // the button itself answers
    e.preventDefault();
    fn();
  }

  // ---- drawing ---------------------------------------------------------------------

  /** A seat's name as the table and its end screen give it ("Bot 2" for a bot); a
   * record opened from a file names no one: "Seat 2". */
  name(seat) {
    if (this.seats) return seatName({ players: this.replay.players, seats: this.seats }, seat);
    return t("lobby.seat", { n: seat + 1 });
  }

  tableInfo() {
    const players = this.replay.players;
    return {
      players,
      seats: Array.from({ length: players }, (_, s) => ({ kind: "person", name: this.name(s) })),
    };
  }

  stepText() {
    const step = this.deckData.steps[this.play];
    const where = t("replay.where", { deck: this.deck + 1, play: this.play, plays: PLAYS_PER_DECK });
    if (!step.last) return where;
    const { seat, card, outcome } = step.last;
    return `${where}: ${t(`replay.outcome.${outcome}`, { name: this.name(seat), card: lower(cardName(card)) })}`;
  }

  seatPanel(step, seat) {
    const players = this.replay.players;
    const rel = players === 2 ? ["bottom", "top"][seat] : ["bottom", "right", "top", "left"][seat];
    const turn = step.toPlay === seat;
    return h(
      "div",
      {
        class: `replay-seat ${rel}${turn ? " to-play" : ""}`,
        dataset: { seat: String(seat), team: String(teamOf(seat, players)) },
      },
      h(
        "p",
        { class: "replay-name" },
        h("b", {}, this.name(seat)),
        " ",
        h("small", {}, t("lobby.team", { n: teamOf(seat, players) + 1 })),
        turn ? h("span", { class: "replay-turn" }, " · ", t("replay.to_play")) : null,
      ),
      h(
        "div",
        { class: "replay-hand", role: "list", "aria-label": t("replay.hand_of", { name: this.name(seat) }), dataset: { hand: step.hands[seat].join(" ") } },
        step.hands[seat].map((card) => h("span", { role: "listitem" }, cardFace(card, { size: "replay-card" }))),
      ),
    );
  }

  board(step) {
    const down = new Set(step.downTeam === null ? step.down : []);
    const pile = step.pile;
    const last = step.last;
    return h(
      "div",
      { class: "replay-middle" },
      h(
        "div",
        {
          class: "replay-pile",
          id: "replay-pile",
          // A list only with cards in it: an empty list holding the "empty" line is an
          // accessibility fault (aria-required-children); the line itself says it then.
          role: pile.length ? "list" : null,
          "aria-label": pile.length ? t("replay.pile", { n: pile.length }) : null,
          dataset: { pile: pile.join(" ") },
        },
        pile.length
          ? pile.map((card) =>
              h("span", { role: "listitem", class: down.has(card) ? "face-down-card" : "" }, cardFace(card, { size: "replay-card" })),
            )
          : h("p", { class: "hint" }, t("replay.empty")),
      ),
      h("p", { class: "replay-down" }, t("replay.face_down"), " ", step.down.map((c) => cardFace(c, { size: "mini" })),
        step.downTeam === null ? null : h("small", {}, " · ", t("replay.down_taken", { n: step.downTeam + 1 }))),
      h(
        "p",
        { class: `replay-last${last ? ` ${last.outcome}` : ""}`, id: "replay-last", dataset: { outcome: last ? last.outcome : "" } },
        last ? t(`replay.outcome.${last.outcome}`, { name: this.name(last.seat), card: lower(cardName(last.card)) }) : t("replay.dealt"),
      ),
    );
  }

  teams(step) {
    return h(
      "div",
      { class: "replay-teams", id: "replay-score" },
      [0, 1].map((team) =>
        h(
          "div",
          { class: "replay-team", dataset: { team: String(team), score: String(step.score[team]) } },
          h("b", {}, t("lobby.team", { n: team + 1 }), ": ", String(step.score[team])),
          h("small", {}, " · ", t("replay.taken", { n: step.taken[team] })),
          step.pishtiCards[team].length
            ? h("span", { class: "replay-pishtis" }, " · ", t("replay.pishti_cards"), " ", step.pishtiCards[team].map((c) => cardFace(c, { size: "mini" })))
            : null,
        ),
      ),
    );
  }

  controls() {
    const decks = this.replay.decks;
    const button = (id, label, fn, text) =>
      h("button", { type: "button", id, "aria-label": label, title: label, on: { click: fn } }, text);
    const deckSelect = h(
      "select",
      {
        id: "replay-deck",
        "aria-label": t("replay.jump"),
        on: { change: () => this.go(Number(deckSelect.value), 0) },
      },
      decks.map((_, i) => h("option", { value: String(i), selected: i === this.deck }, t("replay.deck", { n: i + 1 }))),
    );
    const speedSelect = h(
      "select",
      { id: "replay-speed", "aria-label": t("replay.speed"), on: { change: () => this.setSpeed(Number(speedSelect.value)) } },
      SPEEDS.map((s) => h("option", { value: String(s), selected: s === this.speed }, `${s}×`)),
    );
    return h(
      "div",
      { class: "replay-controls", role: "toolbar", "aria-label": t("replay.controls") },
      button("replay-first", t("replay.first"), () => this.first(), icon("first")),
      button("replay-back", t("replay.back"), () => this.step(-1), icon("back")),
      button("replay-auto", this.timer ? t("replay.pause") : t("replay.auto"), () => this.toggleAuto(), icon(this.timer ? "pause" : "play")),
      button("replay-next", t("replay.next"), () => this.step(1), icon("next")),
      button("replay-last-button", t("replay.last"), () => this.last(), icon("last")),
      deckSelect,
      speedSelect,
    );
  }

  setSpeed(speed) {
    this.speed = speed;
    if (this.timer) {
      this.stopAuto();
      this.toggleAuto();
    }
  }

  render() {
    if (!this.replay) return;
    const focused = document.activeElement && document.activeElement.id;
    const deck = this.deckData;
    const step = deck.steps[this.play];
    const players = this.replay.players;
    const atEnd = this.play === deck.steps.length - 1 && deck.count;
    const result = this.replay.finished
      ? this.replay.winner === null
        ? t("end.draw")
        : t("end.team_won", { team: teamLabel(this.tableInfo(), this.replay.winner, null) })
      : t("replay.unfinished");
    // replaceChildren writes a null as the text "null": the parts left out are dropped first.
    const parts = [
      h("h1", { id: "replay-title", tabindex: "-1" }, this.title || t("replay.title")),
      h(
        "p",
        { class: "hint" },
        t("table.target", { n: this.replay.target }),
        " · ",
        t("end.decks", { n: this.replay.decks.length }),
        " · ",
        h("span", { id: "replay-result" }, result),
      ),
      this.controls(),
      this.notice ? h("p", { class: "form-error", role: "alert", id: "replay-notice" }, this.notice) : null,
      h("p", { class: "replay-where", id: "replay-where", dataset: { deck: String(this.deck + 1), play: String(this.play) } }, this.stepText()),
      this.teams(step),
      h(
        "div",
        { class: `replay-board players-${players}` },
        Array.from({ length: players }, (_, s) => this.seatPanel(step, s)),
        this.board(step),
      ),
      this.analysis ? this.analysis.node({ deck: this.deck, play: this.play, name: (s) => this.name(s) }) : null,
      atEnd ? h("div", { class: "replay-count", id: "replay-count" }, countTable(this.tableInfo(), deck.count, null)) : null,
    ].filter((part) => part !== null);
    this.section.replaceChildren(...parts);
    if (focused) document.getElementById(focused)?.focus();
  }

  focusFirst() {
    (this.section.querySelector("#replay-next") || this.section.querySelector("#replay-title") || this.section.querySelector("#record-file"))?.focus();
  }

  destroy() {
    clearInterval(this.timer);
    if (this.analysis) this.analysis.destroy();
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("hashchange", this.onHash);
  }
}
