// Pictures for the 3D table, drawn on 2D canvases: the card faces and back in
// the same art as the 2D table's (css/base.css and css/table.css: colours, corners, the court
// box, the gold jack), the felt and the wood.  Each is drawn once and kept.

import { parseCard, rankLabel, SUITS } from "../cards.js";

/** Texture size of a card in pixels; the card is 1 x 1.4 scene units. */
const CARD_PX = 256;
const CARD_PY = Math.round(CARD_PX * 1.4);
const RED = "#c62828";
const BLACK = "#1b1b1b";
const SERIF = 'Georgia, "DejaVu Serif", serif';

function canvas(w, h) {
  const c = document.createElement("canvas");
  c.width = w;
  c.height = h;
  return c;
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

function paper(ctx, w, h) {
  const g = ctx.createLinearGradient(0, 0, w * 0.6, h);
  g.addColorStop(0, "#ffffff");
  g.addColorStop(1, "#f4f1ea");
  ctx.fillStyle = g;
  roundRect(ctx, 1, 1, w - 2, h - 2, w * 0.1);
  ctx.fill();
  ctx.strokeStyle = "#b7b2a6";
  ctx.lineWidth = 2;
  ctx.stroke();
}

/** A canvas with the face of `card` ("TD"), as the 2D table draws it. */
export function drawFace(card) {
  const { rank, suit } = parseCard(card);
  const w = CARD_PX;
  const h = CARD_PY;
  const c = canvas(w, h);
  const ctx = c.getContext("2d");
  paper(ctx, w, h);
  const colour = suit === "D" || suit === "H" ? RED : BLACK;
  ctx.fillStyle = colour;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  const corner = () => {
    ctx.font = `700 ${Math.round(w * 0.22)}px ${SERIF}`;
    ctx.fillText(rankLabel(rank), w * 0.16, h * 0.1);
    ctx.font = `${Math.round(w * 0.2)}px ${SERIF}`;
    ctx.fillText(SUITS[suit], w * 0.16, h * 0.22);
  };
  corner();
  ctx.save();
  ctx.translate(w, h);
  ctx.rotate(Math.PI);
  corner();
  ctx.restore();
  if ("JQK".includes(rank)) {
    const x = w * 0.24;
    const y = h * 0.16;
    const bw = w - 2 * x;
    const bh = h - 2 * y;
    if (rank === "J") {
      const g = ctx.createLinearGradient(x, y, x + bw * 0.5, y + bh);
      g.addColorStop(0, "#fff3c4");
      g.addColorStop(1, "#f3d36b");
      ctx.fillStyle = g;
      roundRect(ctx, x, y, bw, bh, w * 0.06);
      ctx.fill();
    }
    ctx.strokeStyle = rank === "J" ? "#b08a1d" : colour;
    ctx.lineWidth = 3;
    roundRect(ctx, x, y, bw, bh, w * 0.06);
    ctx.stroke();
    ctx.fillStyle = colour;
    ctx.font = `700 ${Math.round(w * 0.38)}px ${SERIF}`;
    ctx.fillText(rank, w / 2, h * 0.44);
    ctx.font = `${Math.round(w * 0.28)}px ${SERIF}`;
    ctx.fillText(SUITS[suit], w / 2, h * 0.64);
  } else {
    ctx.font = `${Math.round(w * 0.56)}px ${SERIF}`;
    ctx.fillText(SUITS[suit], w / 2, h * 0.52);
  }
  return c;
}

/** A canvas with the card back: the 2D table's blue stripes, white border and inner line. */
export function drawBack() {
  const w = CARD_PX;
  const h = CARD_PY;
  const c = canvas(w, h);
  const ctx = c.getContext("2d");
  ctx.fillStyle = "#f4f1ea";
  roundRect(ctx, 1, 1, w - 2, h - 2, w * 0.1);
  ctx.fill();
  ctx.save();
  roundRect(ctx, 10, 10, w - 20, h - 20, w * 0.07);
  ctx.clip();
  ctx.fillStyle = "#1c3f8f";
  ctx.fillRect(0, 0, w, h);
  ctx.strokeStyle = "#2a56b8";
  ctx.lineWidth = 9;
  for (let d = -h; d < w + h; d += 26) {
    ctx.beginPath();
    ctx.moveTo(d, 0);
    ctx.lineTo(d + h, h);
    ctx.stroke();
  }
  ctx.restore();
  ctx.strokeStyle = "rgba(255, 255, 255, 0.5)";
  ctx.lineWidth = 2.5;
  roundRect(ctx, w * 0.12, h * 0.1, w * 0.76, h * 0.8, w * 0.06);
  ctx.stroke();
  return c;
}

/** The felt: the 2D table's green, lit in the middle, with a fine weave. */
export function drawFelt() {
  const w = 1024;
  const h = 752; // the felt's 15 x 11
  const c = canvas(w, h);
  const ctx = c.getContext("2d");
  // Rounded corners: outside them the felt is transparent (and not drawn).
  roundRect(ctx, 0, 0, w, h, (2.2 / 15) * w);
  ctx.clip();
  const g = ctx.createRadialGradient(w / 2, h / 2, 40, w / 2, h / 2, w * 0.62);
  g.addColorStop(0, "#1f9460");
  g.addColorStop(0.55, "#167148");
  g.addColorStop(1, "#0f5232");
  ctx.fillStyle = g;
  ctx.fillRect(0, 0, w, h);
  // A fine weave: deterministic speckles, so every screenshot is the same.
  let seed = 7;
  const rand = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  for (let i = 0; i < 14000; i += 1) {
    ctx.fillStyle = rand() < 0.5 ? "rgba(0, 0, 0, 0.06)" : "rgba(255, 255, 255, 0.04)";
    ctx.fillRect(rand() * w, rand() * h, 2, 2);
  }
  // A thin gold line around the playing area, as on a card table's cloth.
  ctx.strokeStyle = "rgba(246, 201, 69, 0.35)";
  ctx.lineWidth = 3;
  roundRect(ctx, w * 0.3, h * 0.3, w * 0.4, h * 0.4, 60);
  ctx.stroke();
  return c;
}

/** The wood of the rim: warm brown with a soft grain. */
export function drawWood() {
  const w = 512;
  const h = 64;
  const c = canvas(w, h);
  const ctx = c.getContext("2d");
  ctx.fillStyle = "#6b3f1d";
  ctx.fillRect(0, 0, w, h);
  let seed = 11;
  const rand = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  for (let i = 0; i < 60; i += 1) {
    const y = rand() * h;
    ctx.strokeStyle = rand() < 0.5 ? "rgba(40, 20, 5, 0.35)" : "rgba(150, 95, 50, 0.25)";
    ctx.lineWidth = 1 + rand() * 2;
    ctx.beginPath();
    ctx.moveTo(0, y);
    for (let x = 0; x <= w; x += 32) ctx.lineTo(x, y + Math.sin(x / 40 + i) * 2);
    ctx.stroke();
  }
  return c;
}

/** A card's soft shadow: a blurred dark rounded rectangle on a transparent canvas. */
export function drawShade() {
  const w = 128;
  const h = 160;
  const c = canvas(w, h);
  const ctx = c.getContext("2d");
  ctx.filter = "blur(7px)";
  ctx.fillStyle = "rgba(0, 0, 0, 0.38)";
  roundRect(ctx, w * 0.13, h * 0.1, w * 0.74, h * 0.8, 10);
  ctx.fill();
  return c;
}
