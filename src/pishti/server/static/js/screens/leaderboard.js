// The leaderboard: people (at least a few matches) and bot levels on one
// rating scale (OpenSkill, docs/server.md), best first.

import { getLeaderboard } from "../api.js";
import { t } from "../i18n.js";
import { h } from "../ui/dom.js";
import { errorText } from "../ui/errors.js";

export class LeaderboardScreen {
  constructor(root) {
    this.section = h("section", { class: "screen leaderboard-screen", "aria-labelledby": "board-title" });
    root.replaceChildren(this.section);
    this.load();
  }

  async load() {
    let board;
    try {
      board = await getLeaderboard();
    } catch (err) {
      this.section.replaceChildren(h("p", { class: "form-error", role: "alert" }, errorText(err)));
      return;
    }
    this.section.replaceChildren(
      h("h1", { id: "board-title", tabindex: "-1" }, t("board.title")),
      h("p", { class: "hint" }, t("board.method", { n: board.min_matches })),
      h(
        "table",
        { class: "me-matches", id: "leaderboard" },
        h(
          "thead",
          {},
          h("tr", {}, ["board.rank", "board.player", "board.rating", "board.matches"].map((k) => h("th", { scope: "col" }, t(k)))),
        ),
        h(
          "tbody",
          {},
          board.players.map((p, i) =>
            h(
              "tr",
              { dataset: { kind: p.kind, rating: String(p.rating) } },
              h("td", {}, String(i + 1)),
              h("th", { scope: "row" }, p.kind === "bot" ? `${t("seat.bot")}: ${t(`level.${p.level}`)}` : p.name),
              h("td", {}, p.rating.toFixed(1)),
              h("td", {}, String(p.matches)),
            ),
          ),
        ),
      ),
    );
  }

  focusFirst() {
    this.section.querySelector("#board-title")?.focus();
  }

  update() {}

  destroy() {}
}
