// Your matches: what this browser has played (its identity key; the server
// keeps only its hash), the figures, the rating, links to each replay and its
// analysis; download every record, or delete the identity and its history.

import { ApiError, deleteMe, exportMe, getMe } from "../api.js";
import { language, t } from "../i18n.js";
import * as storage from "../storage.js";
import { h } from "../ui/dom.js";
import { errorText } from "../ui/errors.js";

function who(p) {
  if (p.kind === "bot") return `${t("seat.bot")} (${p.level})`;
  return p.name || t("me.someone");
}

export class MeScreen {
  constructor(root) {
    this.root = root;
    this.section = h("section", { class: "screen me-screen", "aria-labelledby": "me-title" });
    root.replaceChildren(this.section);
    this.load();
  }

  async load() {
    this.section.replaceChildren(h("p", { class: "loading" }, "…"));
    try {
      this.render(await getMe());
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) this.render(null);
      else this.section.replaceChildren(h("p", { class: "form-error", role: "alert" }, errorText(err)));
    }
  }

  render(me) {
    const title = h("h1", { id: "me-title", tabindex: "-1" }, t("me.title"));
    if (!me) {
      this.section.replaceChildren(title, h("p", { id: "me-empty" }, t("me.none")), h("a", { class: "button", href: "/" }, t("end.new_table")));
      return;
    }
    const f = me.figures;
    const date = (s) => new Date(s * 1000).toLocaleString(language());
    this.section.replaceChildren(
      title,
      h("p", { id: "me-name" }, t("me.playing_as", { name: me.name })),
      h(
        "dl",
        { class: "me-figures", id: "me-figures", dataset: { matches: String(f.matches), wins: String(f.wins) } },
        h("dt", {}, t("me.matches")), h("dd", {}, String(f.matches)),
        h("dt", {}, t("me.wins")), h("dd", {}, String(f.wins)),
        h("dt", {}, t("me.points_per_deck")), h("dd", {}, f.points_per_deck.toFixed(2)),
        h("dt", {}, t("me.pishtis_per_deck")), h("dd", {}, f.pishtis_per_deck.toFixed(3)),
        h("dt", {}, t("me.rating")), h("dd", { id: "me-rating", dataset: { rating: String(me.rating.rating) } }, me.rating.rating.toFixed(1)),
      ),
      h(
        "table",
        { class: "me-matches", id: "me-matches" },
        h("caption", {}, t("me.history")),
        h(
          "thead",
          {},
          h("tr", {}, ["me.when", "me.partners", "me.opponents", "me.score", "me.result", "me.replay"].map((k) => h("th", { scope: "col" }, t(k)))),
        ),
        h(
          "tbody",
          {},
          me.matches.map((m) =>
            h(
              "tr",
              { dataset: { table: m.table_id, match: String(m.match), result: m.result } },
              h("td", {}, date(m.finished)),
              h("td", {}, m.partners.map(who).join(", ") || "–"),
              h("td", {}, m.opponents.map(who).join(", ")),
              h("td", {}, `${m.score[0]}–${m.score[1]}`),
              h("td", {}, t(`me.result.${m.result}`)),
              // Each link named by its match: a list of links read out is not ten times "Replay".
              h(
                "td",
                {},
                h(
                  "a",
                  {
                    href: m.replay,
                    "aria-label": t("me.replay_label", { opponents: m.opponents.map(who).join(", "), when: date(m.finished) }),
                  },
                  t("me.replay_link"),
                ),
              ),
            ),
          ),
        ),
      ),
      h(
        "div",
        { class: "end-actions" },
        h("button", { type: "button", id: "me-export", on: { click: () => this.download() } }, t("me.export")),
        h("button", { type: "button", class: "danger", id: "me-delete", on: { click: () => this.remove() } }, t("me.delete")),
      ),
      h("p", { class: "hint" }, t("me.privacy")),
    );
  }

  async download() {
    const blob = await exportMe();
    const a = h("a", { href: URL.createObjectURL(blob), download: "pishti-matches.jsonl" });
    document.body.append(a);
    a.click();
    a.remove();
  }

  async remove() {
    if (!window.confirm(t("me.delete_confirm"))) return;
    try {
      await deleteMe();
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
    storage.forgetIdentity();
    this.section.replaceChildren(h("h1", { id: "me-title", tabindex: "-1" }, t("me.title")), h("p", { id: "me-deleted", role: "status" }, t("me.deleted")));
  }

  focusFirst() {
    this.section.querySelector("#me-title")?.focus();
  }

  update() {}

  destroy() {}
}
