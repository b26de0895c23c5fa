// Before the match: the seats around the table, the invite link, and for the
// owner bots and the start button.  A visitor with no seat picks one here.

import { t } from "../i18n.js";
import { h } from "../ui/dom.js";
import { position, seatName } from "../ui/seats.js";
import { teamOf } from "../state.js";

const LEVELS = ["random", "novice", "standard", "expert"];

/** How often a visitor's page asks for the seats again, in milliseconds: it has no
 * connection of its own, and seats fill, bots sit and players come and go. */
export const VISITOR_POLL_MS = 4000;

export class LobbyScreen {
  /**
   * `ctx`: `{actions, tableId}` for a seated player (state from the store), or
   * `{visitor: true, lobby, tableId, join(name, seat), poll()}` for someone without a
   * seat, whose seats are asked for again with `poll()` (a promise of the lobby, or of
   * null when it could not be read) every VISITOR_POLL_MS.
   */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.levels = {};
    this.copied = false;
    this.section = h("section", { class: "screen lobby-screen", "aria-labelledby": "lobby-title" });
    root.replaceChildren(this.section);
    this.pollTimer = null;
    if (ctx.visitor) {
      this.render(ctx.lobby, null, false);
      if (ctx.poll) this.pollTimer = setInterval(() => this.poll(), VISITOR_POLL_MS);
    }
  }

  /** A visitor's seats as they are now; drawn again only when they changed. */
  async poll() {
    const lobby = await this.ctx.poll();
    if (!lobby || this.pollTimer === null) return;
    if (JSON.stringify(lobby) !== JSON.stringify(this.ctx.lobby)) this.refresh(lobby);
  }

  update(state) {
    if (!state.table) return;
    this.render(state.table, state.seat, state.owner);
  }

  render(table, me, owner) {
    const players = table.players;
    const focusedId = document.activeElement && document.activeElement.id;
    const viewer = me ?? 0;
    const seats = [];
    for (let s = 0; s < players; s += 1) seats.push(this.seatBox(table, s, me, owner, viewer));
    const ownerName = seatName(table, table.owner_seat ?? 0);
    const center = h(
      "div",
      { class: "lobby-center" },
      h(
        "h1",
        { id: "lobby-title", tabindex: "-1" },
        t(!this.ctx.visitor || table.status === "waiting" ? "lobby.title" : `lobby.${table.status}_title`),
      ),
      h(
        "p",
        { class: "settings" },
        t("lobby.settings", {
          players,
          target: table.target,
          tempo: t(`tempo.${table.tempo}`),
        }),
      ),
      table.status === "waiting" ? this.inviteBox() : null,
      this.watchBox(table, owner),
      this.ctx.visitor ? this.visitorBox(table) : null,
      !this.ctx.visitor && owner
        ? h(
            "div",
            { class: "start-box" },
            h(
              "button",
              {
                type: "button",
                class: "primary",
                id: "start-match",
                on: { click: () => this.ctx.actions.start() },
              },
              t("lobby.start"),
            ),
            h("p", { class: "hint" }, t("lobby.start_hint")),
          )
        : null,
      !this.ctx.visitor && !owner
        ? h("p", { class: "hint waiting" }, t("lobby.waiting_owner", { name: ownerName }))
        : null,
      !this.ctx.visitor
        ? h(
            "button",
            { type: "button", class: "quiet", id: "lobby-leave", on: { click: () => this.ctx.actions.leave() } },
            t("table.leave"),
          )
        : null,
    );
    this.section.replaceChildren(
      h(
        "div",
        { class: `lobby-table players-${players}` },
        seats.map((box, s) => {
          box.classList.add(`pos-${position(s, viewer, players)}`);
          return box;
        }),
        center,
      ),
    );
    if (focusedId) document.getElementById(focusedId)?.focus();
  }

  /** Focus where the player acts next: add a bot or start (the owner), sit (a visitor), else the title. */
  focusFirst() {
    const next =
      this.section.querySelector("[id^='add-bot-']") ||
      this.section.querySelector("#start-match") ||
      (this.nameInput && !this.nameInput.value ? this.nameInput : null) ||
      this.section.querySelector("[id^='sit-']") ||
      this.section.querySelector("#lobby-title");
    if (next) next.focus();
  }

  seatBox(table, s, me, owner, viewer) {
    const info = table.seats[s] || { kind: "empty" };
    const players = table.players;
    const team = teamOf(s, players);
    const tags = [];
    if (s === me) tags.push(t("lobby.you"));
    if (s === (table.owner_seat ?? 0) && info.kind === "human") tags.push(t("lobby.owner"));
    if (info.kind === "bot") tags.push(t("lobby.bot", { level: t(`level.${info.level || "standard"}`) }));
    if (info.kind === "human" && !info.connected) tags.push(t("seat.offline"));
    const label = info.kind === "empty" ? t("lobby.empty") : seatName(table, s);
    const controls = [];
    if (!this.ctx.visitor && owner && info.kind === "empty") {
      const select = h(
        "select",
        {
          id: `bot-level-${s}`,
          "aria-label": t("lobby.bot_level", { n: s + 1 }),
          on: { change: (e) => (this.levels[s] = e.target.value) },
        },
        LEVELS.map((level) =>
          h("option", { value: level, selected: (this.levels[s] || "standard") === level }, t(`level.${level}`)),
        ),
      );
      controls.push(
        select,
        h(
          "button",
          {
            type: "button",
            id: `add-bot-${s}`,
            "aria-label": t("lobby.add_bot_label", { n: s + 1 }),
            on: { click: () => this.ctx.actions.addBot(s, this.levels[s] || "standard") },
          },
          t("lobby.add_bot"),
        ),
      );
    }
    if (!this.ctx.visitor && owner && info.kind === "bot") {
      controls.push(
        h(
          "button",
          {
            type: "button",
            class: "quiet",
            id: `remove-bot-${s}`,
            "aria-label": t("lobby.remove_bot_label", { n: s + 1 }),
            on: { click: () => this.ctx.actions.removeBot(s) },
          },
          t("lobby.remove_bot"),
        ),
      );
    }
    if (this.ctx.visitor && info.kind === "empty" && table.status === "waiting") {
      controls.push(
        h(
          "button",
          {
            type: "button",
            class: "primary",
            id: `sit-${s}`,
            "aria-label": t("lobby.sit_label", { n: s + 1 }),
            on: { click: () => this.sit(s) },
          },
          t("lobby.sit"),
        ),
      );
    }
    return h(
      "div",
      {
        class: `lobby-seat kind-${info.kind} team-${team === teamOf(viewer, players) ? "us" : "them"}${s === me ? " me" : ""}`,
        dataset: { seat: String(s) },
      },
      h(
        "div",
        { class: "seat-head" },
        h("span", {}, t("lobby.seat", { n: s + 1 })),
        h("span", { class: "team-tag" }, t("lobby.team", { n: team + 1 })),
      ),
      h("div", { class: "seat-name" }, label),
      tags.length ? h("div", { class: "seat-tags" }, tags.join(" · ")) : null,
      controls.length ? h("div", { class: "seat-controls" }, controls) : null,
    );
  }

  /** The watch link (R7.7), and for the owner the switch that lets people watch. */
  watchBox(table, owner) {
    const on = table.watching !== false;
    const link = on
      ? h("a", { id: "watch-link", href: `/t/${this.ctx.tableId}/watch` }, t("watch.link"))
      : h("span", { id: "watch-off" }, t("watch.off_short"));
    const toggle =
      !this.ctx.visitor && owner
        ? h(
            "label",
            { class: "watch-toggle" },
            h("input", {
              type: "checkbox",
              id: "allow-watching",
              checked: on,
              on: { change: (e) => this.ctx.actions.watching(e.target.checked) },
            }),
            " ",
            t("watch.allow"),
          )
        : null;
    return h("div", { class: "watch-box" }, link, table.watchers ? ` · ${t("watch.count", { n: table.watchers })}` : "", toggle);
  }

  inviteBox() {
    const url = `${location.origin}/t/${this.ctx.tableId}`;
    const status = h("span", { class: "copy-status", role: "status" }, this.copied ? t("lobby.copied") : "");
    const input = h("input", {
      id: "invite-link",
      type: "text",
      readonly: true,
      value: url,
      "aria-label": t("lobby.invite"),
      on: { focus: (e) => e.target.select() },
    });
    return h(
      "div",
      { class: "invite" },
      h("label", { for: "invite-link" }, t("lobby.invite")),
      h(
        "div",
        { class: "inline" },
        input,
        h(
          "button",
          {
            type: "button",
            id: "copy-invite",
            on: {
              click: async () => {
                try {
                  await navigator.clipboard.writeText(url);
                } catch {
                  input.select();
                  document.execCommand("copy");
                }
                this.copied = true;
                status.textContent = t("lobby.copied");
              },
            },
          },
          t("lobby.copy"),
        ),
      ),
      h("p", { class: "table-code" }, t("lobby.code", { code: this.ctx.tableId })),
      status,
    );
  }

  visitorBox(table) {
    const notice = this.ctx.notice ? h("p", { class: "form-error", role: "alert" }, this.ctx.notice) : null;
    if (table.status !== "waiting") {
      return h(
        "div",
        { class: "visitor" },
        notice,
        h(
          "p",
          { class: table.status === "playing" ? "match-on" : "form-error", role: notice ? null : "status" },
          t(table.status === "finished" ? "lobby.finished" : table.watching === false ? "lobby.playing_no_watch" : "lobby.playing"),
        ),
        h("a", { class: "button", href: "/" }, t("end.new_table")),
      );
    }
    this.nameInput =
      this.nameInput ||
      h("input", { id: "visitor-name", type: "text", maxlength: 24, autocomplete: "nickname", value: this.ctx.name || "" });
    this.error = this.error || h("p", { class: "form-error", role: "alert" });
    return h(
      "div",
      { class: "visitor" },
      h("label", { for: "visitor-name" }, t("lobby.join_as")),
      this.nameInput,
      this.error,
    );
  }

  async sit(seat) {
    const name = this.nameInput.value.trim();
    if (name.length < 1 || name.length > 24) {
      this.error.textContent = t("start.name_required");
      this.nameInput.focus();
      return;
    }
    try {
      await this.ctx.join(name, seat);
    } catch (err) {
      this.error.textContent = err.text || String(err.message || err);
    }
  }

  /** A visitor's fresh look at the table (after a seat was taken meanwhile). */
  refresh(lobby) {
    this.ctx.lobby = lobby;
    this.render(lobby, null, false);
  }

  showError(text) {
    if (this.error) this.error.textContent = text;
  }

  destroy() {
    clearInterval(this.pollTimer);
    this.pollTimer = null;
  }
}
