// Short sounds made with the Web Audio API (no sound files): a card laid, a
// capture, a pişti, a stronger jack pişti, your turn, and a tick in the last
// seconds of your clock.  Off by default; the choice is remembered.

import * as storage from "../storage.js";

let context = null;

/** Whether sound is on (off until the player turns it on). */
export function soundOn() {
  return storage.getSound();
}

/** Turn sound on or off and remember it. */
export function setSound(on) {
  storage.setSound(Boolean(on));
  if (on) audio();
}

function audio() {
  if (!context) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    context = new Ctx();
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** One tone: `freq` Hz from `at` seconds for `length` seconds. */
function tone(ctx, freq, at, length, { type = "sine", gain = 0.18, slide = 0 } = {}) {
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  const start = ctx.currentTime + at;
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, start + length);
  amp.gain.setValueAtTime(0.0001, start);
  amp.gain.exponentialRampToValueAtTime(gain, start + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

const SOUNDS = {
  card: (ctx) => tone(ctx, 320, 0, 0.07, { type: "triangle", gain: 0.12, slide: 0.6 }),
  capture: (ctx) => {
    tone(ctx, 440, 0, 0.09, { type: "triangle" });
    tone(ctx, 660, 0.08, 0.12, { type: "triangle" });
  },
  pishti: (ctx) => [523, 659, 784].forEach((f, i) => tone(ctx, f, i * 0.09, 0.18, { type: "square", gain: 0.1 })),
  jack_pishti: (ctx) => {
    [523, 659, 784, 1047].forEach((f, i) => tone(ctx, f, i * 0.09, 0.22, { type: "square", gain: 0.13 }));
    tone(ctx, 1047, 0.4, 0.5, { type: "sawtooth", gain: 0.08, slide: 1.5 });
  },
  turn: (ctx) => {
    tone(ctx, 880, 0, 0.1);
    tone(ctx, 1175, 0.11, 0.14);
  },
  tick: (ctx) => tone(ctx, 1500, 0, 0.04, { type: "square", gain: 0.06 }),
};

/** Play the sound `name` (card, capture, pishti, jack_pishti, turn, tick) if sound is on. */
export function sound(name) {
  if (!soundOn() || !SOUNDS[name]) return;
  const ctx = audio();
  if (ctx) SOUNDS[name](ctx);
}
