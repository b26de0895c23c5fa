// The clock of the seat to play, drawn as a ring around its avatar (R7.1).

import { svg } from "./dom.js";

const R = 46;
const LENGTH = 2 * Math.PI * R;

/** The ring: a track and a progress arc, to put inside an avatar. */
export function ring() {
  return svg(
    "svg",
    { class: "ring", viewBox: "0 0 100 100", "aria-hidden": "true", focusable: "false" },
    svg("circle", { class: "ring-track", cx: 50, cy: 50, r: R }),
    svg("circle", {
      class: "ring-progress",
      cx: 50,
      cy: 50,
      r: R,
      "stroke-dasharray": LENGTH.toFixed(2),
      "stroke-dashoffset": LENGTH.toFixed(2),
    }),
  );
}

/** Show `left` of `tempo` seconds on `ringEl` (null: no clock running). */
export function setRing(ringEl, left, tempo) {
  const progress = ringEl && ringEl.querySelector(".ring-progress");
  if (!progress) return;
  if (left === null || !tempo) {
    progress.setAttribute("stroke-dashoffset", LENGTH.toFixed(2));
    ringEl.dataset.level = "off";
    return;
  }
  const fraction = Math.max(0, Math.min(1, left / tempo));
  progress.setAttribute("stroke-dashoffset", (LENGTH * (1 - fraction)).toFixed(2));
  ringEl.dataset.level = fraction > 0.5 ? "ok" : fraction > 0.2 ? "low" : "critical";
}
