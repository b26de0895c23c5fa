// The count of a deck for both teams, line by line (R5.5).

import { t } from "../i18n.js";
import { h } from "./dom.js";
import { teamLabel, teamNames } from "./seats.js";

const ROWS = [
  "cards",
  "aces",
  "jacks",
  "two_of_clubs",
  "ten_of_diamonds",
  "most_cards",
  "pishtis",
  "jack_pishtis",
];

/** Team order for a player at `me`: their own team first. */
export function teamOrder(table, me) {
  const players = table.players;
  const mine = me === null || me === undefined ? 0 : players === 2 ? me : me % 2;
  return [mine, 1 - mine];
}

function cell(value) {
  if (value === true) return t("count.yes");
  if (value === false) return t("count.no");
  return String(value);
}

/** A <table> with the count of `deckCount` ({deck, teams, totals}). */
export function countTable(table, deckCount, me, { caption = true } = {}) {
  const order = teamOrder(table, me);
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, t("count.item")),
    order.map((team) =>
      h(
        "th",
        { scope: "col", dataset: { team: String(team) } },
        h("span", { class: "team-name" }, teamLabel(table, team, me)),
        table.players === 4 ? h("small", {}, teamNames(table, team)) : null,
      ),
    ),
  );
  const rows = ROWS.map((key) =>
    h(
      "tr",
      { dataset: { row: key } },
      h("th", { scope: "row" }, t(`count.${key}`)),
      order.map((team) => h("td", { dataset: { team: String(team) } }, cell(deckCount.teams[team][key]))),
    ),
  );
  const points = h(
    "tr",
    { class: "sum", dataset: { row: "points" } },
    h("th", { scope: "row" }, t("count.points")),
    order.map((team) => h("td", { dataset: { team: String(team) } }, String(deckCount.teams[team].points))),
  );
  const totals = h(
    "tr",
    { class: "sum total", dataset: { row: "totals" } },
    h("th", { scope: "row" }, t("count.totals")),
    order.map((team) => h("td", { dataset: { team: String(team) } }, String(deckCount.totals[team]))),
  );
  return h(
    "table",
    { class: "count-table", dataset: { deck: String(deckCount.deck) } },
    caption ? h("caption", {}, t("count.title", { n: deckCount.deck + 1 })) : null,
    h("thead", {}, head),
    h("tbody", {}, rows, points, totals),
  );
}
