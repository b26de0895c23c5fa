// The start screen: your name, then create a table or join one by its link.

import { createTable, tableIdFrom } from "../api.js";
import { t } from "../i18n.js";
import * as storage from "../storage.js";
import { errorText } from "../ui/errors.js";
import { h } from "../ui/dom.js";

function choice(name, legend, options, selected) {
  return h(
    "fieldset",
    { class: "choice" },
    h("legend", {}, legend),
    h(
      "div",
      { class: "choice-options" },
      options.map(([value, label]) =>
        h(
          "label",
          { class: "pill" },
          h("input", { type: "radio", name, value, checked: value === selected }),
          h("span", {}, label),
        ),
      ),
    ),
  );
}

export class StartScreen {
  constructor(root, { navigate, notice = null }) {
    this.root = root;
    this.navigate = navigate;
    this.notice = notice;
    this.render();
  }

  /** Focus: the name when it is missing, else the button that creates a table. */
  focusFirst() {
    if (!this.nameInput.value) this.nameInput.focus();
    else this.root.querySelector("#create-table")?.focus();
  }

  render() {
    const nameInput = h("input", {
      id: "player-name",
      name: "player-name",
      type: "text",
      maxlength: 24,
      autocomplete: "nickname",
      placeholder: t("start.name_placeholder"),
      value: storage.getName(),
      required: true,
    });
    this.nameInput = nameInput;
    const message = h("p", { class: "form-error", role: "alert" });
    this.message = message;

    const createForm = h(
      "form",
      { class: "panel create", on: { submit: (e) => this.create(e) } },
      h("h2", {}, t("start.create")),
      choice(
        "players",
        t("start.players"),
        [
          ["4", t("start.players4")],
          ["2", t("start.players2")],
        ],
        "4",
      ),
      choice(
        "target",
        t("start.target"),
        ["51", "101", "151"].map((n) => [n, t("start.target_points", { n })]),
        "101",
      ),
      choice(
        "tempo",
        t("start.tempo"),
        ["relaxed", "normal", "fast"].map((v) => [v, t(`tempo.${v}`)]),
        "normal",
      ),
      h("button", { type: "submit", class: "primary", id: "create-table" }, t("start.create_button")),
    );

    const linkInput = h("input", {
      id: "join-link",
      type: "text",
      inputmode: "url",
      autocomplete: "off",
      placeholder: `${location.origin}/t/…`,
    });
    const joinForm = h(
      "form",
      { class: "panel join", on: { submit: (e) => this.join(e, linkInput) } },
      h("h2", {}, t("start.join")),
      h("label", { for: "join-link" }, t("start.join_label")),
      h("div", { class: "inline" }, linkInput, h("button", { type: "submit" }, t("start.join_button"))),
    );

    this.root.replaceChildren(
      h(
        "section",
        { class: "screen start-screen", "aria-labelledby": "start-title" },
        h("h1", { id: "start-title", class: "hero" }, "Pişti"),
        h("p", { class: "tagline" }, t("tagline")),
        this.notice ? h("p", { class: "notice", id: "start-notice", role: "status" }, this.notice) : null,
        h(
          "p",
          { class: "howto-line" },
          h("a", { href: "/how-to-play", id: "start-howto" }, t("howto.link")),
          " · ",
          h("a", { href: "/me", id: "start-me" }, t("me.title")),
          " · ",
          h("a", { href: "/leaderboard", id: "start-board" }, t("board.title")),
          " · ",
          h("a", { href: "/replay", id: "start-replay" }, t("replay.open_title")),
        ),
        h(
          "div",
          { class: "panel name-panel" },
          h("label", { for: "player-name" }, t("start.name")),
          nameInput,
        ),
        message,
        h("div", { class: "start-forms" }, createForm, joinForm),
      ),
    );
  }

  readName() {
    const name = this.nameInput.value.trim();
    if (name.length < 1 || name.length > 24) {
      this.message.textContent = t("start.name_required");
      this.nameInput.focus();
      return null;
    }
    storage.setName(name);
    return name;
  }

  async create(event) {
    event.preventDefault();
    const name = this.readName();
    if (!name) return;
    const form = new FormData(event.target);
    const button = event.target.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const made = await createTable({
        name,
        players: Number(form.get("players")),
        target: Number(form.get("target")),
        tempo: String(form.get("tempo")),
      });
      storage.setSeat(made.table_id, made.seat, made.token);
      this.navigate(made.invite_url || `/t/${made.table_id}`);
    } catch (err) {
      this.message.textContent = errorText(err);
      button.disabled = false;
    }
  }

  join(event, linkInput) {
    event.preventDefault();
    const name = this.readName();
    if (!name) return;
    const tableId = tableIdFrom(linkInput.value);
    if (!tableId) {
      this.message.textContent = t("start.link_required");
      linkInput.focus();
      return;
    }
    this.navigate(`/t/${tableId}`);
  }

  update() {}

  destroy() {}
}
