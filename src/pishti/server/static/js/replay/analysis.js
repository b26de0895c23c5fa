// The expert's analysis of a finished match in the replay (docs/bots.md): asked
// for on the server, computed there in worker processes (its place in the
// queue shown meanwhile), then shown for the play on screen: the expert's card,
// the expected points of every legal card, the mark; and a summary per seat.
// A record file opened in the replay is analysed the same way once the person
// asks (it is sent to the server then, and only then).

import { ApiError, getAnalysis, getRecordAnalysis, requestAnalysis, requestRecordAnalysis } from "../api.js";
import { cardFace, cardName } from "../cards.js";
import { language, t } from "../i18n.js";
import { h } from "../ui/dom.js";
import { errorText } from "../ui/errors.js";

const POLL_MS = 1500;

const lower = (text) => text.toLocaleLowerCase(language());

/** Where the analysis of finished match `number` of a table comes from. */
export function matchAnalysis(tableId, number) {
  return {
    get: () => getAnalysis(tableId, number),
    request: () => requestAnalysis(tableId, number),
    what: "analysis.what",
  };
}

/** Where the analysis of a record file's JSON value comes from: nothing is sent
 * before the person asks; then the record is, and the answer's id is followed. */
export function fileAnalysis(record) {
  const source = {
    id: null,
    get: () => getRecordAnalysis(source.id),
    request: async () => {
      const body = await requestRecordAnalysis(record);
      source.id = body.id;
      return body;
    },
    what: "analysis.what_file",
  };
  return source;
}

export class AnalysisPanel {
  /** `source`: matchAnalysis or fileAnalysis; `changed` is called whenever there
   * is something new to show. */
  constructor(source, changed) {
    this.source = source;
    this.changed = changed;
    this.state = { kind: "loading" };
    this.timer = null;
    if (source.what === "analysis.what_file") this.state = { kind: "idle" };
    else this.check();
  }

  async check() {
    try {
      this.take(await this.source.get());
    } catch (err) {
      // A record file's analysis no longer kept (a restart): asked for again on request.
      if (err instanceof ApiError && err.code === "not_requested") this.set({ kind: "idle" });
      else this.set({ kind: "error", text: errorText(err) });
    }
  }

  async ask() {
    this.set({ kind: "waiting", status: { status: "queued", position: 0 } });
    try {
      this.take(await this.source.request());
    } catch (err) {
      this.set({ kind: "error", text: errorText(err) });
    }
  }

  take(body) {
    if (body.status === "not_requested") {
      this.set({ kind: "idle" });
      return;
    }
    if (body.status === "done") {
      this.set({ kind: "done", analysis: body.analysis });
      return;
    }
    this.set({ kind: "waiting", status: body });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), POLL_MS);
  }

  set(state) {
    this.state = state;
    this.changed();
  }

  destroy() {
    clearTimeout(this.timer);
  }

  waitingText(status) {
    if (status.status === "running") return t("analysis.running", { done: status.decks_done, decks: status.decks });
    return status.position ? t("analysis.queued", { n: status.position }) : t("analysis.starting");
  }

  /** The panel for the position after `play` plays of deck `deck` (from 0). */
  node({ deck, play, name }) {
    const state = this.state;
    const body = [h("h2", { id: "analysis-title" }, t("analysis.title"))];
    if (state.kind === "loading") body.push(h("p", { class: "hint" }, "…"));
    else if (state.kind === "idle") {
      body.push(
        h("p", { class: "hint", id: "analysis-what" }, t(this.source.what)),
        h("button", { type: "button", class: "primary", id: "analysis-ask", on: { click: () => this.ask() } }, t("analysis.ask")),
      );
    } else if (state.kind === "waiting") {
      body.push(h("p", { id: "analysis-status", role: "status" }, this.waitingText(state.status)));
    } else if (state.kind === "error") {
      body.push(h("p", { class: "form-error", role: "alert" }, state.text));
    } else {
      body.push(this.playNode(state.analysis, deck, play, name), this.summary(state.analysis, name));
    }
    return h("section", { class: "analysis-panel", id: "analysis", "aria-labelledby": "analysis-title" }, body);
  }

  playNode(analysis, deck, play, name) {
    const entry = play > 0 ? analysis.decks[deck]?.plays[play - 1] : null;
    if (!entry) return h("p", { class: "hint", id: "analysis-play" }, t("analysis.no_play"));
    const best = entry.cards[0].expected;
    const worst = Math.min(...entry.cards.map((c) => c.expected));
    const span = Math.max(best - worst, 1);
    return h(
      "div",
      { id: "analysis-play", dataset: { expert: entry.expert, mark: entry.mark || "" } },
      h(
        "p",
        {},
        t("analysis.played", { name: name(entry.seat), card: lower(cardName(entry.card)) }),
        " · ",
        t("analysis.expert", { card: lower(cardName(entry.expert)) }),
        entry.mark ? h("b", { class: `analysis-mark ${entry.mark}` }, " · ", t(`analysis.mark.${entry.mark}`, { n: entry.loss.toFixed(1) })) : null,
      ),
      entry.forced
        ? h("p", { class: "hint" }, t("analysis.forced"))
        : h(
            "ul",
            { class: "analysis-bars", "aria-label": t("analysis.bars") },
            entry.cards.map((c) =>
              h(
                "li",
                { class: c.card === entry.card ? "played" : "", dataset: { card: c.card, expected: String(c.expected) } },
                cardFace(c.card, { size: "mini" }),
                h("span", { class: "analysis-bar", style: { width: `${10 + (90 * (c.expected - worst)) / span}%` } }),
                h("span", { class: "analysis-value" }, t("analysis.points", { n: c.expected.toFixed(2) })),
              ),
            ),
          ),
      h("p", { class: "hint" }, t("analysis.method", { n: analysis.samples })),
    );
  }

  summary(analysis, name) {
    // In a box of its own that scrolls sideways when the screen is narrower than the
    // table (a phone): the page itself never does; focusable, so the keyboard scrolls it.
    return h(
      "div",
      { class: "analysis-summary-box", role: "region", tabindex: "0", "aria-label": t("analysis.summary") },
      this.summaryTable(analysis, name),
    );
  }

  summaryTable(analysis, name) {
    return h(
      "table",
      { class: "analysis-summary", id: "analysis-summary" },
      h("caption", {}, t("analysis.summary")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("analysis.player")),
          h("th", { scope: "col" }, t("analysis.as_expert")),
          h("th", { scope: "col" }, t("analysis.lost_per_deck")),
          h("th", { scope: "col" }, t("analysis.inaccuracies")),
          h("th", { scope: "col" }, t("analysis.mistakes")),
        ),
      ),
      h(
        "tbody",
        {},
        analysis.seats.map((s) =>
          h(
            "tr",
            { dataset: { seat: String(s.seat) } },
            h("th", { scope: "row" }, name(s.seat)),
            h("td", {}, `${s.matches_expert}/${s.choices}`),
            h("td", {}, s.points_lost_per_deck.toFixed(2)),
            h("td", {}, String(s.inaccuracies)),
            h("td", {}, String(s.mistakes)),
          ),
        ),
      ),
    );
  }
}
