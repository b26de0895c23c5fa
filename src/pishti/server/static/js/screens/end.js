// The end of the match: the winner, the final scores, the last deck's count,
// every deck's count, a rematch button and the match record to download.

import { recordUrl, replayPath } from "../api.js";
import { verifyRecord } from "../fair.js";
import { t } from "../i18n.js";
import { teamOf } from "../state.js";
import { countTable, teamOrder } from "../ui/countTable.js";
import { h } from "../ui/dom.js";
import { seatName, teamLabel, teamNames } from "../ui/seats.js";

export class EndScreen {
  constructor(root, { actions, tableId }) {
    this.actions = actions;
    this.tableId = tableId;
    this.section = h("section", { class: "screen end-screen", "aria-labelledby": "end-title" });
    root.replaceChildren(this.section);
    this.verdict = null; // R11: {ok, checked, problem} once the record was checked
    this.checking = null; // the commitment of the match being checked
  }

  /** Fetch the finished match's record and check its deals against the seeds (R11). */
  check(state) {
    const fair = state.fair;
    const key = fair ? fair.commitment : "none";
    if (this.checking === key) return;
    this.checking = key;
    this.verdict = null;
    const done = (verdict) => {
      if (this.checking !== key) return;
      this.verdict = verdict;
      this.update(this.lastState);
    };
    fetch(recordUrl(this.tableId))
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((record) => verifyRecord(record, fair, state.seat, fair && fair.mySeed))
      .then(done, () => done({ ok: false, checked: 0, problem: { key: "fair.unavailable" } }));
  }

  fairLine() {
    const v = this.verdict;
    const text = !v
      ? t("fair.checking")
      : v.ok
        ? t("fair.ok", { n: v.checked })
        : t(v.problem.key, { deck: v.problem.deck ?? "" });
    return h(
      "div",
      { class: `fair-check${v ? (v.ok ? " ok" : " bad") : ""}`, id: "fair-check" },
      h("p", { role: "status", id: "fair-result", dataset: { ok: v ? String(v.ok) : "" } }, text),
      h("details", { class: "fair-what" }, h("summary", {}, t("fair.what")), h("p", {}, t("fair.explain"))),
    );
  }

  headline(state) {
    const { table, seat } = state;
    const winner = table.winner;
    if (winner === null || winner === undefined) return t("end.draw");
    if (seat === null || seat === undefined) return t("end.team_won", { team: teamLabel(table, winner, null) });
    const mine = teamOf(seat, table.players);
    if (table.players === 2) {
      return winner === mine ? t("end.you_won") : t("end.you_lost", { name: seatName(table, winner) });
    }
    return winner === mine ? t("end.we_won") : t("end.we_lost");
  }

  update(state) {
    const { table, seat } = state;
    if (!table) return;
    this.lastState = state;
    this.check(state);
    const order = teamOrder(table, seat);
    const counts = table.deck_counts || [];
    const last = counts[counts.length - 1];
    const won = table.winner !== null && table.winner !== undefined && seat !== null && table.winner === teamOf(seat, table.players);
    const focused = document.activeElement && document.activeElement.id;
    this.section.replaceChildren(
      h(
        "div",
        { class: `end-card${won ? " won" : ""}` },
        h("p", { class: "end-kicker" }, t("end.title")),
        h("h1", { id: "end-title", tabindex: "-1", dataset: { winner: String(table.winner ?? "") } }, this.headline(state)),
        h(
          "div",
          { class: "final-scores", id: "final-scores", role: "group", "aria-label": t("end.final") },
          order.map((team) =>
            h(
              "div",
              {
                class: `final-team${team === table.winner ? " winner" : ""}`,
                dataset: { team: String(team) },
              },
              h("span", { class: "final-label" }, teamLabel(table, team, seat)),
              table.players === 4 ? h("small", {}, teamNames(table, team)) : null,
              h("span", { class: "final-total" }, String(table.totals[team])),
            ),
          ),
        ),
        h("p", { class: "hint" }, t("end.decks", { n: counts.length }), " · ", t("table.target", { n: table.target })),
        h(
          "div",
          { class: "end-actions" },
          state.owner
            ? h(
                "button",
                { type: "button", class: "primary", id: "rematch", on: { click: () => this.actions.rematch() } },
                t("end.rematch"),
              )
            : h("p", { class: "hint" }, t("end.rematch_wait")),
          h(
            "a",
            { class: "button", id: "download-record", href: recordUrl(this.tableId), download: `pishti-${this.tableId}.json` },
            t("end.download"),
          ),
          table.match
            ? h("a", { class: "button", id: "open-replay", href: replayPath(this.tableId, table.match) }, t("end.replay"))
            : null,
          h("a", { class: "button quiet", href: "/", id: "new-table" }, t("end.new_table")),
        ),
        this.fairLine(),
        last ? countTable(table, last, seat) : null,
        counts.length > 1
          ? h(
              "details",
              { class: "all-decks" },
              h("summary", {}, t("count.history")),
              h("div", { class: "count-history" }, counts.slice(0, -1).reverse().map((c) => countTable(table, c, seat))),
            )
          : null,
      ),
    );
    if (focused) document.getElementById(focused)?.focus();
  }

  /** Focus: Play again for the owner, else the headline. */
  focusFirst() {
    (this.section.querySelector("#rematch") || this.section.querySelector("#end-title"))?.focus();
  }

  destroy() {}
}
