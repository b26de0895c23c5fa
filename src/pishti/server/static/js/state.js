// The client's picture of the table, built only from what the server sends:
// each `snapshot` (or `welcome`) replaces it, each `event` is applied to it.
// `apply` returns effects (a pishti, a count, a capture ...) for the screens
// to animate; the state itself never asks the server for anything.

export const OUTCOME = { LAID: 0, CAPTURE: 1, PISHTI: 2, JACK_PISHTI: 3 };

export function teamOf(seat, players) {
  return players === 2 ? seat : seat % 2;
}

/** Whether it is this page's seat to play: never for a spectator (no seat), even when no seat is (R7.5). */
export function isMyTurn(state) {
  const view = state.view;
  return state.seat !== null && Boolean(view) && view.to_play === state.seat && !view.finished;
}

export function emptyState() {
  return {
    seq: 0,
    seat: null,
    team: null,
    owner: false,
    table: null,
    view: null,
    clockAt: 0,
    pauseAt: 0,
    pending: null,
    seatLost: false,
    timedOut: null,
    recent: [],
  };
}

/** A view with nothing dealt yet, for a match that has just started. */
function freshView(state) {
  const table = state.table;
  const players = table.players;
  return {
    seat: state.seat,
    team: state.team,
    players,
    target: table.target,
    deck: 0,
    dealer: null,
    hand: [],
    face_up: null,
    top_card: null,
    pile_size: 0,
    hand_sizes: Array(players).fill(0),
    stock_size: 0,
    to_play: null,
    pishti_cards: [[], []],
    face_down: null,
    face_down_team: null,
    taken_counts: [0, 0],
    history: [],
    totals: table.totals ? [...table.totals] : [0, 0],
    finished: false,
    winner: null,
  };
}

function copy(value) {
  return value === undefined ? undefined : structuredClone(value);
}

function takeSnapshot(state, body) {
  state.seq = body.seq ?? state.seq;
  state.table = copy(body.table);
  state.view = body.view ? copy(body.view) : null;
  // R11: the commitment and seat seeds of the match on (or last played), as announced.
  const fair = state.table && state.table.fair;
  if (fair && fair.commitment && !(state.fair && state.fair.commitment === fair.commitment)) {
    state.fair = { commitment: fair.commitment, seat_seeds: fair.seat_seeds, mySeed: null };
  }
  if (state.table) {
    state.table.deck_counts = state.table.deck_counts || [];
    state.table.pause = state.table.pause || null;
    state.table.totals = state.table.totals || [0, 0];
  }
  state.clockAt = performance.now();
  state.pauseAt = state.clockAt;
  state.pending = null;
  state.timedOut = null;
  const history = (state.view && state.view.history) || [];
  state.recent = history.slice(-RECENT_PLAYS).map((p) => ({ ...p, count: 0, timeout: false, deck: state.view.deck }));
}

/**
 * Apply one server message to `state` (in place).  Returns a list of effects:
 * `{kind: "snapshot"}`, `{kind: "played", seat, card}`, `{kind: "captured", ...}`,
 * `{kind: "pishti", jack, seat, team, card}`, `{kind: "counted", deck}`,
 * `{kind: "over"}`, `{kind: "timeout", seat}`, `{kind: "resync"}`,
 * `{kind: "error", code, message, ref}`, `{kind: "seat_lost"}`, `{kind: "turn"}`,
 * `{kind: "reaction", seat, reaction}` (a quick reaction, not an event).
 */
export function apply(state, msg) {
  const effects = [];
  switch (msg.type) {
    case "welcome":
      state.seat = msg.seat;
      state.team = msg.team;
      state.owner = Boolean(msg.owner);
      state.seatLost = false;
      if (msg.table) {
        takeSnapshot(state, msg);
      } else if (state.table) {
        // A resumed connection: the missed events follow, numbered after our `seq`.
        state.pending = null;
      }
      effects.push({ kind: "snapshot" });
      break;
    case "event": {
      const seq = msg.seq;
      if (Number.isInteger(seq) && seq <= state.seq) break; // seen already
      if (Number.isInteger(seq) && state.seq > 0 && seq > state.seq + 1) {
        effects.push({ kind: "resync" }); // missed events: ask for a fresh snapshot
      }
      if (Number.isInteger(seq)) state.seq = seq;
      applyEvent(state, msg.event || {}, effects);
      break;
    }
    case "watchers":
      // How many spectators watch the table (not a numbered event).
      if (state.table) state.table.watchers = msg.count;
      effects.push({ kind: "watchers" });
      break;
    case "reaction":
      // A quick reaction from a person at the table: not an event, it changes nothing.
      effects.push({ kind: "reaction", seat: msg.seat, reaction: msg.reaction });
      break;
    case "error":
      if (msg.ref === "react") {
        // A refused reaction changes nothing; a play sent meanwhile is still pending.
        effects.push({ kind: "error", code: msg.code, message: msg.message, ref: msg.ref });
        break;
      }
      state.pending = null;
      effects.push({ kind: "error", code: msg.code, message: msg.message, ref: msg.ref });
      break;
    default:
      break;
  }
  return effects;
}

function applyEvent(state, e, effects) {
  const table = state.table;
  if (!table) return;
  if (!state.view && GAME_EVENTS.has(e.type)) state.view = freshView(state);
  const view = state.view;
  const players = table.players;
  const myTurnBefore = isMyTurn(state);
  switch (e.type) {
    case "seat_changed": {
      const seat = e.seat;
      table.seats[seat.seat] = seat;
      if (seat.seat === state.seat && (seat.left || seat.kind === "empty")) {
        state.seatLost = true;
        effects.push({ kind: "seat_lost" });
      }
      break;
    }
    case "watching":
      table.watching = e.on;
      break;
    case "owner_changed":
      table.owner_seat = e.owner_seat;
      state.owner = e.owner_seat === state.seat;
      break;
    case "match_started":
      table.status = "playing";
      table.match = e.match ?? table.match;
      table.players = e.players ?? table.players;
      table.target = e.target ?? table.target;
      table.tempo = e.tempo ?? table.tempo;
      table.deck_counts = [];
      table.totals = [0, 0];
      table.winner = null;
      // R11: what was announced before the first card, kept to check the record against.
      state.fair = e.commitment
        ? { commitment: e.commitment, seat_seeds: e.seat_seeds, mySeed: state.sentSeed || null }
        : null;
      state.sentSeed = null;
      if (table.fair && e.next_commitment) table.fair.next_commitment = e.next_commitment;
      state.view = freshView(state);
      effects.push({ kind: "snapshot" });
      break;
    case "clock":
      table.clock = { seat: e.seat, remaining: e.remaining, tempo: e.tempo };
      state.clockAt = performance.now();
      if (view) view.to_play = e.seat;
      break;
    case "pause":
      // The table waits between decks for everyone to read the count (R7.8).
      table.pause = { deck: e.deck, remaining: e.seconds, waiting: [...(e.waiting || [])], ready: [] };
      state.pauseAt = performance.now();
      table.clock = null;
      effects.push({ kind: "pause", deck: e.deck });
      break;
    case "pause_waiting":
      // Whom the pause waits for changed (R7.8); a person back is waited for again.
      if (table.pause && table.pause.deck === e.deck) {
        table.pause.waiting = [...(e.waiting || [])];
        table.pause.ready = [...(e.ready || [])];
      }
      effects.push({ kind: "pause_waiting", deck: e.deck });
      break;
    case "ready":
      if (table.pause && !table.pause.ready.includes(e.seat)) table.pause.ready.push(e.seat);
      effects.push({ kind: "ready", seat: e.seat });
      break;
    case "timeout":
      // The table plays for the seat next (R7.2): its card_played says which card.
      state.timedOut = e.seat;
      effects.push({ kind: "timeout", seat: e.seat });
      break;
    case "autopilot":
      if (table.seats[e.seat]) table.seats[e.seat].autopilot = Boolean(e.on);
      break;
    case "rematch":
      table.deck_counts = [];
      table.winner = null;
      state.recent = []; // the record of plays is the new match's only
      effects.push({ kind: "rematch" });
      break;
    case "deck_started":
      Object.assign(view, {
        deck: e.deck,
        dealer: e.dealer,
        face_up: e.top_card,
        top_card: e.top_card,
        pile_size: 4,
        hand: [],
        hand_sizes: Array(players).fill(0),
        stock_size: e.stock_size,
        to_play: e.first_seat,
        pishti_cards: [[], []],
        face_down: null,
        face_down_team: null,
        taken_counts: [0, 0],
        history: [],
      });
      table.clock = null;
      table.pause = null;
      effects.push({ kind: "deck_started", deck: e.deck });
      break;
    case "cards_dealt":
      view.hand = [...(e.hands?.[state.seat] || [])];
      view.hand_sizes = [...e.hand_sizes];
      view.stock_size = e.stock_size;
      effects.push({ kind: "dealt" });
      break;
    case "card_played": {
      if (e.seat === state.seat) {
        const i = view.hand.indexOf(e.card);
        if (i >= 0) view.hand.splice(i, 1);
        if (state.pending === e.card) state.pending = null;
      }
      view.hand_sizes[e.seat] = Math.max(0, (view.hand_sizes[e.seat] || 0) - 1);
      view.pile_size = e.pile_size;
      view.top_card = e.pile_size > 0 ? e.card : null;
      const timeout = state.timedOut === e.seat;
      state.timedOut = null;
      view.history.push({ seat: e.seat, card: e.card, outcome: OUTCOME.LAID });
      pushRecent(state, { seat: e.seat, card: e.card, outcome: OUTCOME.LAID, count: 0, timeout, deck: view.deck });
      const handsEmpty = view.hand_sizes.every((n) => n === 0);
      view.to_play = handsEmpty && view.stock_size === 0 ? null : (e.seat + 1) % players;
      if (table.clock && table.clock.seat === e.seat) table.clock = null;
      effects.push({ kind: "played", seat: e.seat, card: e.card, timeout });
      break;
    }
    case "pile_captured":
      view.taken_counts[e.team] += e.count;
      view.top_card = null;
      view.pile_size = 0;
      if (e.took_face_down) view.face_down_team = e.team;
      if (e.face_down) view.face_down = [...e.face_down];
      markLast(view, OUTCOME.CAPTURE);
      markRecent(state, OUTCOME.CAPTURE, e.count);
      effects.push({ kind: "captured", seat: e.seat, team: e.team, card: e.card, count: e.count });
      break;
    case "pishti":
    case "jack_pishti": {
      const jack = e.type === "jack_pishti";
      view.pishti_cards[e.team].push(e.card);
      markLast(view, jack ? OUTCOME.JACK_PISHTI : OUTCOME.PISHTI);
      markRecent(state, jack ? OUTCOME.JACK_PISHTI : OUTCOME.PISHTI);
      effects.push({ kind: "pishti", jack, seat: e.seat, team: e.team, card: e.card });
      break;
    }
    case "deck_counted":
      if (Number.isInteger(e.last_capture_team)) {
        view.taken_counts[e.last_capture_team] += e.last_pile || 0;
      }
      view.top_card = null;
      view.pile_size = 0;
      view.to_play = null;
      view.totals = [...e.totals];
      table.totals = [...e.totals];
      table.clock = null;
      table.deck_counts = table.deck_counts.filter((d) => d.deck !== e.deck);
      table.deck_counts.push({
        deck: e.deck,
        teams: e.counts,
        last_capture_team: e.last_capture_team,
        totals: e.totals,
      });
      effects.push({ kind: "counted", deck: e.deck });
      break;
    case "match_over":
      table.status = "finished";
      table.winner = e.winner;
      table.totals = [...e.totals];
      table.clock = null;
      view.finished = true;
      view.winner = e.winner;
      view.totals = [...e.totals];
      view.to_play = null;
      effects.push({ kind: "over" });
      break;
    default:
      break;
  }
  if (!myTurnBefore && isMyTurn(state)) {
    effects.push({ kind: "turn" });
  }
}

const GAME_EVENTS = new Set([
  "deck_started",
  "cards_dealt",
  "card_played",
  "pile_captured",
  "pishti",
  "jack_pishti",
  "deck_counted",
  "match_over",
]);

/** How many plays the record of recent plays keeps. */
export const RECENT_PLAYS = 4;

function pushRecent(state, entry) {
  state.recent.push(entry);
  if (state.recent.length > RECENT_PLAYS) state.recent.splice(0, state.recent.length - RECENT_PLAYS);
}

function markRecent(state, outcome, count = null) {
  const last = state.recent[state.recent.length - 1];
  if (!last) return;
  if (last.outcome < outcome) last.outcome = outcome;
  if (count !== null) last.count = count;
}

function markLast(view, outcome) {
  const last = view.history[view.history.length - 1];
  if (last && last.outcome < outcome) last.outcome = outcome;
}

/** Points of a pishti made with `card`: 20 for a jack pishti (R4.2), else 10 (R4.1). */
export function pishtiPoints(card) {
  return String(card).toUpperCase().startsWith("J") ? 20 : 10;
}

/**
 * The running score of both teams (R4.7): the match totals after the decks
 * counted so far, plus the pishti and jack pishti points of the deck being
 * played (a jack pishti's record card is a jack, a plain pishti's never is).
 * Once the deck is counted its pishtis are in the totals already.
 */
export function runningTotals(state) {
  const { table, view } = state;
  if (!view) return table && table.totals ? [...table.totals] : [0, 0];
  const counted = (table.deck_counts || []).some((d) => d.deck === view.deck);
  return [0, 1].map((team) => {
    const pishtis = counted ? 0 : (view.pishti_cards[team] || []).reduce((sum, c) => sum + pishtiPoints(c), 0);
    return view.totals[team] + pishtis;
  });
}

/** Seconds left of the pause between decks (R7.8), or null when there is none. */
export function pauseLeft(state, now = performance.now()) {
  const pause = state.table && state.table.pause;
  if (!pause || pause.remaining === null || pause.remaining === undefined) return null;
  return Math.max(0, pause.remaining - (now - state.pauseAt) / 1000);
}

/** Seconds left on the running clock, or null. */
export function clockLeft(state, now = performance.now()) {
  const clock = state.table && state.table.clock;
  if (!clock) return null;
  return Math.max(0, clock.remaining - (now - state.clockAt) / 1000);
}

/** A small observable store around `apply`. */
export class Store {
  constructor() {
    this.state = emptyState();
    this.listeners = new Set();
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  dispatch(msg) {
    const effects = apply(this.state, msg);
    this.notify(effects);
    return effects;
  }

  notify(effects = []) {
    for (const fn of [...this.listeners]) fn(this.state, effects);
  }
}
