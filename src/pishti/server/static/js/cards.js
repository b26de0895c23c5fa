// Cards: the short text form of R1.2 ("TD", "2C"), their names in the current
// language ("Ten of diamonds", "Karo onlu") and their faces, drawn with HTML/CSS.

import { capitalize, t } from "./i18n.js";
import { h } from "./ui/dom.js";

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANKS = "A23456789TJQK";

/** `{rank, suit}` of a card text; throws on anything that is not a card. */
export function parseCard(text) {
  const value = String(text || "").toUpperCase();
  if (value.length !== 2 || !RANKS.includes(value[0]) || !(value[1] in SUITS)) {
    throw new Error(`not a card: ${text}`);
  }
  return { rank: value[0], suit: value[1] };
}

export function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}

export function isRed(card) {
  const { suit } = parseCard(card);
  return suit === "D" || suit === "H";
}

export function isJack(card) {
  return parseCard(card).rank === "J";
}

/** The card's name for people and screen readers, e.g. "Ten of diamonds". */
export function cardName(card) {
  const { rank, suit } = parseCard(card);
  return capitalize(t("card.format", { rank: t(`rank.${rank}`), suit: t(`suit.${suit}`) }));
}

/** The card's short label with its suit symbol, e.g. "10♦". */
export function cardSymbol(card) {
  const { rank, suit } = parseCard(card);
  return rankLabel(rank) + SUITS[suit];
}

/**
 * The face of `card` (a span; not focusable).  `label` false leaves the
 * accessible name to the container (a button names the card itself).
 */
export function cardFace(card, { size = "", label = true } = {}) {
  const { rank, suit } = parseCard(card);
  const colour = suit === "D" || suit === "H" ? "red" : "black";
  const face = "JQK".includes(rank);
  const attrs = {
    class: `card ${colour} ${size} ${face ? "court" : ""} ${rank === "J" ? "jack" : ""}`.trim(),
    dataset: { card },
  };
  if (label) {
    attrs.role = "img";
    attrs["aria-label"] = cardName(card);
  } else {
    attrs["aria-hidden"] = "true";
  }
  const corner = (where) =>
    h("span", { class: `corner ${where}` }, h("b", {}, rankLabel(rank)), h("i", {}, SUITS[suit]));
  const middle = face
    ? h("span", { class: "middle court-middle" }, h("b", {}, rank), h("i", {}, SUITS[suit]))
    : h("span", { class: "middle" }, SUITS[suit]);
  return h("span", attrs, corner("tl"), middle, corner("br"));
}

/** A face-down card. */
export function cardBack({ size = "", label = false } = {}) {
  const attrs = { class: `card back ${size}`.trim() };
  if (label) {
    attrs.role = "img";
    attrs["aria-label"] = t("card.back");
  } else {
    attrs["aria-hidden"] = "true";
  }
  return h("span", attrs);
}
