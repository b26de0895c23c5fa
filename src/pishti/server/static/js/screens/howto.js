// How to play: the rules of RULES.md in players' words, with a picture of a
// pişti and of a count, in the page's language.

import { cardFace } from "../cards.js";
import { t } from "../i18n.js";
import { h } from "../ui/dom.js";

const SECTIONS = ["goal", "deal", "play", "pishti", "count", "match", "table"];

function paragraphs(key) {
  return t(key)
    .split("\n")
    .map((line) => h("p", {}, line));
}

/** A small picture: the pile with one card, a card of its rank taking it. */
function pishtiPicture() {
  return h(
    "figure",
    { class: "howto-figure" },
    h(
      "div",
      { class: "howto-cards" },
      h("div", { class: "howto-pile" }, cardFace("7H")),
      h("span", { class: "howto-arrow", "aria-hidden": "true" }, "←"),
      h("div", { class: "howto-play" }, cardFace("7S")),
    ),
    h("figcaption", {}, t("howto.pishti_caption")),
  );
}

/** A count like the one after every deck (R5.5), with made-up numbers that add up. */
function countPicture() {
  const rows = [
    ["count.cards", "31", "21"],
    ["count.aces", "3", "1"],
    ["count.jacks", "2", "2"],
    ["count.two_of_clubs", t("count.yes"), t("count.no")],
    ["count.ten_of_diamonds", t("count.no"), t("count.yes")],
    ["count.most_cards", t("count.yes"), t("count.no")],
    ["count.pishtis", "1", "0"],
    ["count.jack_pishtis", "0", "0"],
    ["count.points", "20", "6"],
  ];
  return h(
    "figure",
    { class: "howto-figure" },
    h(
      "table",
      { class: "count-table" },
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, t("count.item")), h("th", { scope: "col" }, t("table.us")), h("th", { scope: "col" }, t("table.them"))),
      ),
      h(
        "tbody",
        {},
        rows.map(([key, a, b]) =>
          h("tr", { class: key === "count.points" ? "sum" : null }, h("th", { scope: "row" }, t(key)), h("td", {}, a), h("td", {}, b)),
        ),
      ),
    ),
    h("figcaption", {}, t("howto.count_caption")),
  );
}

export class HowToScreen {
  constructor(root) {
    this.section = h(
      "article",
      { class: "screen howto-screen", "aria-labelledby": "howto-title" },
      h("h1", { id: "howto-title", tabindex: "-1" }, t("howto.title")),
      SECTIONS.map((name) =>
        h(
          "section",
          { class: "howto-section", id: `howto-${name}` },
          h("h2", {}, t(`howto.${name}_title`)),
          paragraphs(`howto.${name}`),
          name === "pishti" ? pishtiPicture() : null,
          name === "count" ? countPicture() : null,
        ),
      ),
      h("p", {}, h("a", { class: "button primary", href: "/" }, t("howto.back"))),
    );
    root.replaceChildren(this.section);
  }

  focusFirst() {
    this.section.querySelector("#howto-title").focus();
  }

  update() {}

  destroy() {}
}
