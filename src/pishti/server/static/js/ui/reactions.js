// Quick reactions at the table (docs/client.md, docs/protocol.md): a palette of
// presets a seated person sends ("İyi oyun!", "Bravo!", applause ...), each shown over
// the sender's avatar for a few seconds with the sender's name and read out to
// screen readers.  Presets only, no free text.  Anyone may silence anyone
// else's reactions for themselves; the choice is kept in this browser for the
// table.  The server allows one every 2 s per person and refuses faster ones.

import { t } from "../i18n.js";
import * as storage from "../storage.js";
import { h, replace, svg } from "./dom.js";
import { seatName } from "./seats.js";

/** The presets, in the palette's order (the server's ids, docs/protocol.md). */
export const PRESETS = ["good_game", "bravo", "pishti", "come_on", "oops", "thanks", "clap", "laugh", "wow", "sad"];
/** How long a reaction stays over the sender's avatar, in milliseconds. */
export const SHOW_MS = 4000;

/*
 * The emoji presets (👏 😄 😮 😢) and the palette's button (😊), drawn as SVG in a
 * 24×24 box: a system without a colour-emoji font (Debian's Chromium without
 * fonts-noto-color-emoji) showed 👏 as an empty box.  Their names (`react.clap` ...)
 * are what is read out; the drawing is hidden from assistive technology.
 */
const SKIN = "#f6c945";
const EDGE = "#8a5a00";
const INK = "#3b2a0a";
const FACE = ["circle", { cx: 12, cy: 12, r: 10.5, fill: SKIN, stroke: EDGE, "stroke-width": 1 }];
const EYES = [
  ["circle", { cx: 8.5, cy: 9.5, r: 1.4, fill: INK }],
  ["circle", { cx: 15.5, cy: 9.5, r: 1.4, fill: INK }],
];
const LINE = { fill: "none", stroke: INK, "stroke-width": 1.6, "stroke-linecap": "round" };
const SMILING_EYES = [["path", { d: "M6.5 10.5q2-2.6 4 0M13.5 10.5q2-2.6 4 0", ...LINE }]];
const PALM = { width: 7, height: 13, rx: 3.5, fill: SKIN, stroke: EDGE, "stroke-width": 1 };
const ICONS = {
  clap: [
    ["rect", { x: 4, y: 8, ...PALM, transform: "rotate(-22 7.5 14.5)" }],
    ["rect", { x: 12, y: 8, ...PALM, transform: "rotate(22 15.5 14.5)" }],
    ["path", { d: "M12 1.5v3M6.5 3l1.6 2.4M17.5 3l-1.6 2.4", ...LINE, stroke: EDGE }],
  ],
  laugh: [FACE, ...SMILING_EYES, ["path", { d: "M6.5 13h11a5.5 5.5 0 0 1-11 0z", fill: INK }]],
  wow: [FACE, ...EYES, ["ellipse", { cx: 12, cy: 16, rx: 2.5, ry: 3, fill: INK }]],
  sad: [
    FACE,
    ...EYES,
    ["path", { d: "M8 17.5q4-4 8 0", ...LINE }],
    ["path", { d: "M17.6 11.6q-1.9 2.8 0 3.8q1.9-1 0-3.8z", fill: "#4aa3ff" }],
  ],
  smile: [FACE, ...SMILING_EYES, ["path", { d: "M7.5 14q4.5 4.5 9 0", ...LINE }]],
};

/** One of the drawn emoji (`clap`, `laugh`, `wow`, `sad`, `smile`), hidden from assistive technology. */
function emojiIcon(name) {
  return svg(
    "svg",
    { class: "emoji-icon", viewBox: "0 0 24 24", width: "24", height: "24", "aria-hidden": "true", focusable: "false" },
    ...ICONS[name].map(([tag, attrs]) => svg(tag, attrs)),
  );
}

/** Whether a preset is an emoji (drawn; its name is read out). */
const isEmoji = (preset) => preset !== "smile" && Object.hasOwn(ICONS, preset);

/** What a preset shows: its emoji drawn, or its phrase in the current language. */
function shown(preset) {
  return isEmoji(preset) ? emojiIcon(preset) : t(`react.${preset}`);
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
      emojiIcon("smile"),
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
            class: `react-preset${isEmoji(preset) ? " emoji" : ""}`,
            id: `react-${preset}`,
            "aria-label": isEmoji(preset) ? t(`react.${preset}`) : null,
            title: isEmoji(preset) ? t(`react.${preset}`) : null,
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
        h("span", { class: `reaction-text${isEmoji(active.preset) ? " emoji" : ""}` }, shown(active.preset)),
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
