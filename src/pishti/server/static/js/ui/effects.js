// Short animations over the table: the "Pişti!" burst (a stronger one for a
// jack pishti) and the captured pile sweeping to its team.

import { cardFace } from "../cards.js";
import { t } from "../i18n.js";
import { h } from "./dom.js";

const BURST_MS = 2200;

/** Show the burst over `layer`; it removes itself. */
export function pishtiBurst(layer, { jack, card }) {
  const burst = h(
    "div",
    { class: `burst${jack ? " jack" : ""}`, "aria-hidden": "true", dataset: { card } },
    jack ? h("span", { class: "rays" }) : null,
    h("span", { class: "burst-text" }, t(jack ? "burst.jack_pishti" : "burst.pishti")),
    h("span", { class: "burst-points" }, t("burst.points", { n: jack ? 20 : 10 })),
  );
  layer.append(burst);
  setTimeout(() => burst.remove(), BURST_MS);
  return burst;
}

/** The capturing card flies from `from` (the pile) towards `pos` (bottom, right ...). */
export function sweep(layer, card, pos, from) {
  const ghost = h("div", { class: `ghost to-${pos}`, "aria-hidden": "true" }, cardFace(card, { label: false }));
  if (from) {
    const a = from.getBoundingClientRect();
    const b = layer.getBoundingClientRect();
    ghost.style.left = `${a.left - b.left}px`;
    ghost.style.top = `${a.top - b.top}px`;
  }
  layer.append(ghost);
  setTimeout(() => ghost.remove(), 900);
}
