// Quick reactions at the table (docs/client.md, docs/protocol.md): a palette of
// presets a seated person sends ("İyi oyun!", "Bravo!", 👏 ...), each shown over
// the sender's avatar for a few seconds with the sender's name and read out to
// screen readers.  Presets only, no free text.  Anyone may silence anyone
// else's reactions for themselves; the choice is kept in this browser for the
// table.  The server allows one every 2 s per person and refuses faster ones.

import { t } from "../i18n.js";
import * as storage from "../storage.js";
import { h, replace } from "./dom.js";
import { seatName } from "./seats.js";

/** The presets, in the palette's order (the server's ids, docs/protocol.md). */
export const PRESETS = ["good_game", "bravo", "pishti", "come_on", "oops", "thanks", "clap", "laugh", "wow", "sad"];
/** The presets shown as emoji; their names (`react.clap` ...) are what is read out. */
const EMOJI = { clap: "👏", laugh: "😄", wow: "😮", sad: "😢" };
/** How long a reaction stays over the sender's avatar, in milliseconds. */
export const SHOW_MS = 4000;

/** What a preset shows: its emoji, or its phrase in the current language. */
function shown(preset) {
  return EMOJI[preset] || t(`react.${preset}`);
}

export class Reactions {
  /**
   * `send(preset)` sends a `react` message; `seatEl(seat)` gives a seat's element on
   * the table (or null); `notice(text)` shows a short line under the table.
   */
  constructor({ tableId, send, seatEl, notice }) {
    this.tableId = tableId;
    this.send = send;
    this.seatEl = seatEl;
    this.notice = notice;
    this.state = null;
    this.active = new Map(); // seat -> {preset, timer}
    this.silenced = new Set(storage.getSilenced(tableId));
    this.live = h("div", { class: "visually-hidden", id: "reactions-live", "aria-live": "polite", "aria-atomic": "true" });
    this.toggle = h(
      "button",
      {
        type: "button",
        class: "react-toggle",
        id: "react-toggle",
        "aria-expanded": "false",
        "aria-controls": "react-panel",
        "aria-label": t("react.open"),
        title: t("react.open"),
        on: { click: () => this.setOpen(this.panel.hidden) },
      },
      h("span", { "aria-hidden": "true" }, "😊"),
    );
    this.panel = h("div", {
      class: "react-panel",
      id: "react-panel",
      role: "group",
      "aria-label": t("react.open"),
      hidden: true,
      on: { keydown: (e) => this.onKey(e) },
    });
    this.box = h("div", { class: "react-box" }, this.toggle, this.panel);
    this.onOutside = (e) => {
      if (!this.panel.hidden && !this.box.contains(e.target)) this.setOpen(false, false);
    };
    document.addEventListener("pointerdown", this.onOutside);
  }

  destroy() {
    document.removeEventListener("pointerdown", this.onOutside);
    for (const { timer } of this.active.values()) clearTimeout(timer);
    this.active.clear();
  }

  // ---- the palette --------------------------------------------------------

  setOpen(open, focus = true) {
    if (open) this.renderPanel();
    this.panel.hidden = !open;
    this.toggle.setAttribute("aria-expanded", String(open));
    if (!focus) return;
    if (open) {
      const first = this.panel.querySelector("button");
      if (first) first.focus();
    } else this.toggle.focus();
  }

  onKey(e) {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      this.setOpen(false);
    }
  }

  /** The presets to send (a seated person only) and a Silence switch for each other person. */
  renderPanel() {
    const state = this.state;
    if (!state || !state.table) return;
    const me = state.seat;
    const parts = [];
    if (me !== null && me !== undefined) {
      const button = (preset) =>
        h(
          "button",
          {
            type: "button",
            class: `react-preset${EMOJI[preset] ? " emoji" : ""}`,
            id: `react-${preset}`,
            "aria-label": EMOJI[preset] ? t(`react.${preset}`) : null,
            title: EMOJI[preset] ? t(`react.${preset}`) : null,
            dataset: { reaction: preset },
            on: { click: () => this.choose(preset) },
          },
          shown(preset),
        );
      parts.push(
        h("p", { class: "react-title", id: "react-send-title" }, t("react.send")),
        h(
          "div",
          { class: "react-presets", role: "group", "aria-labelledby": "react-send-title" },
          PRESETS.map(button),
        ),
      );
    }
    const others = [];
    for (let s = 0; s < state.table.players; s += 1) {
      const info = state.table.seats[s] || {};
      if (s !== me && info.kind === "human" && !info.left) others.push(s);
    }
    if (others.length) {
      parts.push(
        h("p", { class: "react-title", id: "react-silence-title" }, t("react.silence_title")),
        h(
          "div",
          { class: "react-silence", role: "group", "aria-labelledby": "react-silence-title" },
          others.map((s) =>
            h(
              "button",
              {
                type: "button",
                class: "silence",
                id: `silence-${s}`,
                "aria-pressed": String(this.silenced.has(s)),
                dataset: { seat: String(s) },
                on: { click: () => this.silence(s, !this.silenced.has(s)) },
              },
              t("react.silence", { name: seatName(state.table, s) }),
            ),
          ),
        ),
      );
    }
    if (!parts.length) parts.push(h("p", { class: "react-title" }, t("react.nobody")));
    replace(this.panel, parts);
  }

  choose(preset) {
    this.send(preset);
    this.setOpen(false);
  }

  /** Silence (or hear again) the reactions of `seat`, kept in this browser for the table. */
  silence(seat, on) {
    if (on) this.silenced.add(seat);
    else this.silenced.delete(seat);
    storage.setSilenced(this.tableId, [...this.silenced]);
    if (on) this.hide(seat);
    const button = this.panel.querySelector(`#silence-${seat}`);
    if (button) button.setAttribute("aria-pressed", String(on));
    const name = seatName(this.state.table, seat);
    this.say(t(on ? "react.silenced" : "react.unsilenced", { name }));
  }

  // ---- reactions coming in ------------------------------------------------

  /** The table's state changed: keep it for the names. */
  update(state) {
    this.state = state;
    if (!this.panel.hidden) {
      const focused = this.panel.contains(document.activeElement) ? document.activeElement.id : null;
      this.renderPanel();
      if (focused) {
        const again = document.getElementById(focused);
        if (again) again.focus();
      }
    }
  }

  /** A `reaction` from `seat`: over its avatar for SHOW_MS and read out, unless silenced. */
  show({ seat, reaction }, state) {
    if (this.silenced.has(seat) || !PRESETS.includes(reaction)) return;
    this.hide(seat);
    const timer = setTimeout(() => this.hide(seat), SHOW_MS);
    this.active.set(seat, { preset: reaction, timer });
    const el = this.seatEl(seat);
    if (el) this.decorate(el, seat, state);
    this.say(t("react.said", { name: this.who(seat, state), text: t(`react.${reaction}`) }));
  }

  who(seat, state) {
    return seat === state.seat ? t("table.you") : seatName(state.table, seat);
  }

  /** Put the seat's reaction, if one is showing, over its avatar (the seats are redrawn often). */
  decorate(el, seat, state) {
    const active = this.active.get(seat);
    if (!active || el.querySelector(".reaction")) return;
    (el.querySelector(".avatar") || el).append(
      h(
        "div",
        { class: "reaction", "aria-hidden": "true", dataset: { seat: String(seat), reaction: active.preset } },
        h("span", { class: "reaction-name" }, this.who(seat, state)),
        h("span", { class: `reaction-text${EMOJI[active.preset] ? " emoji" : ""}` }, shown(active.preset)),
      ),
    );
  }

  hide(seat) {
    const active = this.active.get(seat);
    if (active) clearTimeout(active.timer);
    this.active.delete(seat);
    const el = this.seatEl(seat);
    const bubble = el && el.querySelector(".reaction");
    if (bubble) bubble.remove();
  }

  /** The server refused a reaction (one every 2 s): say so plainly. */
  refused(effect) {
    const text = effect.code === "rate_limited" ? t("react.too_fast") : t("react.refused");
    this.notice(text);
    this.say(text);
  }

  say(text) {
    this.live.textContent = "";
    setTimeout(() => {
      this.live.textContent = text;
    }, 30);
  }
}
