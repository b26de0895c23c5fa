// A match record (R10) replayed in the browser, play by play: every hand, the
// pile, the face-down cards, captures, pishtis and the count of each deck.
// The record is read here and nothing is sent anywhere.  The server's engine
// is the reference; the browser test checks this replay against it.

const RANKS = "A23456789TJQK";
const SUITS = "CDHS";
const CARDS_PER_HAND = 4;
export const PLAYS_PER_DECK = 48;
const MOST_CARDS = 27;

/** A record that cannot be replayed; `deck` and `play` count from 1 (or are null). */
export class RecordProblem extends Error {
  constructor(message, deck = null, play = null) {
    const where = [deck !== null ? `deck ${deck}` : null, play !== null ? `play ${play}` : null].filter(Boolean);
    super(where.length ? `${where.join(", ")}: ${message}` : message);
    this.deck = deck;
    this.play = play;
  }
}

/** The card's R1.2 short form ("10d" -> "TD"); throws RecordProblem on anything else. */
export function cardText(value, deck = null, play = null) {
  let text = String(value ?? "").toUpperCase();
  if (text.startsWith("10")) text = "T" + text.slice(2);
  if (text.length !== 2 || !RANKS.includes(text[0]) || !SUITS.includes(text[1])) {
    throw new RecordProblem(`${JSON.stringify(value)} is not a card`, deck, play);
  }
  return text;
}

const rank = (card) => card[0];

/** The team of `seat` (R1.3, R1.4). */
export function teamOf(seat, players) {
  return players === 2 ? seat : seat % 2;
}

function countTeam(cards, pishtis, jackPishtis, most) {
  const aces = cards.filter((c) => rank(c) === "A").length;
  const jacks = cards.filter((c) => rank(c) === "J").length;
  const two = cards.includes("2C");
  const ten = cards.includes("TD");
  const points = aces + jacks + (two ? 2 : 0) + (ten ? 3 : 0) + (most ? 3 : 0) + 10 * pishtis + 20 * jackPishtis;
  return {
    cards: cards.length,
    aces,
    jacks,
    two_of_clubs: two,
    ten_of_diamonds: ten,
    most_cards: most,
    pishtis,
    jack_pishtis: jackPishtis,
    points,
  };
}

function checkList(value, what, deck) {
  if (!Array.isArray(value)) throw new RecordProblem(`${what} must be a list`, deck);
  return value;
}

/**
 * Replay a parsed record (R10).  Returns `{players, target, decks, totals, winner}`;
 * each deck has `dealer` and `steps`: `steps[n]` is the table after `n` plays
 * (0: as dealt) with `hands` (by seat), `pile` (bottom first, the face-down
 * cards included until the first capture), `down` (the three face-down cards),
 * `downTeam`, `taken` (cards per team), `pishtiCards` (per team), `score`
 * (match points so far, pishtis counted at once, R4.7), `toPlay` and `last`
 * (`{seat, card, outcome}`, outcome "laid", "capture", "pishti" or
 * "jack_pishti").  A deck played to its end has `count`: `{deck, teams, totals,
 * last_capture_team}` as the R10 count JSON.  Throws RecordProblem naming the
 * deck and play at fault.
 */
export function replayRecord(data) {
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new RecordProblem("a record must be a JSON object");
  for (const field of ["players", "target", "decks"]) {
    if (!(field in data)) throw new RecordProblem(`the record has no "${field}" (R10)`);
  }
  const players = data.players;
  if (players !== 4 && players !== 2) throw new RecordProblem(`players must be 4 or 2, not ${JSON.stringify(players)}`);
  const target = data.target;
  if (!Number.isInteger(target) || target <= 0) throw new RecordProblem(`target must be a positive number of points, not ${JSON.stringify(target)}`);
  const rawDecks = checkList(data.decks, "decks", null);
  if (!rawDecks.length) throw new RecordProblem("the record holds no deck");
  const totals = [0, 0];
  const decks = [];
  let dealer = null;
  rawDecks.forEach((raw, index) => {
    const number = index + 1;
    if (!raw || typeof raw !== "object") throw new RecordProblem("a deck must be a JSON object", number);
    for (const field of ["dealer", "middle", "deals"]) {
      if (!(field in raw)) throw new RecordProblem(`has no "${field}" (R10)`, number);
    }
    if (!Number.isInteger(raw.dealer) || raw.dealer < 0 || raw.dealer >= players) {
      throw new RecordProblem(`dealer must be a seat from 0 to ${players - 1}`, number);
    }
    if (dealer !== null && raw.dealer !== (dealer + 1) % players) {
      throw new RecordProblem(`the dealer must be seat ${(dealer + 1) % players} (one seat after the last), not ${raw.dealer}`, number);
    }
    if (index > 0 && !decks[index - 1].count) throw new RecordProblem("the deck before this one stops part-way", number);
    dealer = raw.dealer;
    const middle = checkList(raw.middle, "middle", number).map((c) => cardText(c, number));
    const deals = checkList(raw.deals, "deals", number).map((deal, k) =>
      checkList(deal, `deal ${k + 1}`, number).map((hand) => checkList(hand, `deal ${k + 1}`, number).map((c) => cardText(c, number))),
    );
    const plays = checkList(raw.plays ?? [], "plays", number).map((c, n) => cardText(c, number, n + 1));
    const all = [...middle, ...deals.flat(2)];
    const perDeal = CARDS_PER_HAND * players;
    if (middle.length !== 4 || deals.length !== 48 / perDeal || deals.some((d) => d.length !== players || d.some((h) => h.length !== CARDS_PER_HAND))) {
      throw new RecordProblem("the deal has the wrong number of cards", number);
    }
    if (new Set(all).size !== 52) throw new RecordProblem("the deck must hold 52 distinct cards", number);
    if (rank(middle[3]) === "J") throw new RecordProblem("a jack may not lie face up on the middle", number);
    if (plays.length > PLAYS_PER_DECK) throw new RecordProblem(`a deck has ${PLAYS_PER_DECK} plays, this one ${plays.length}`, number);
    decks.push(replayDeck(players, dealer, middle, deals, plays, number, totals));
    if (decks[index].count) {
      totals[0] = decks[index].count.totals[0];
      totals[1] = decks[index].count.totals[1];
    }
  });
  const last = decks[decks.length - 1];
  let winner = null;
  let finished = false;
  if (last.count) {
    const [a, b] = totals;
    if ((a >= target || b >= target) && a !== b) {
      finished = true;
      winner = a > b ? 0 : 1;
    } else if (decks.length >= 99) finished = true;
  }
  return { players, target, decks, totals, winner, finished };
}

function replayDeck(players, dealer, middle, deals, plays, number, before) {
  const perDeal = CARDS_PER_HAND * players;
  const hands = deals[0].map((h) => [...h]);
  let pile = [...middle];
  const taken = [[], []];
  const pishtis = [0, 0];
  const jackPishtis = [0, 0];
  const pishtiCards = [[], []];
  let downTeam = null;
  let lastCapture = null;
  const score = [...before];
  const first = (dealer + 1) % players;
  const snapshot = (n, last) => ({
    hands: hands.map((h) => [...h]),
    pile: [...pile],
    down: middle.slice(0, 3),
    downTeam,
    taken: [taken[0].length, taken[1].length],
    pishtiCards: [[...pishtiCards[0]], [...pishtiCards[1]]],
    score: [...score],
    toPlay: n < PLAYS_PER_DECK ? (first + n) % players : null,
    last,
  });
  const steps = [snapshot(0, null)];
  plays.forEach((card, n) => {
    const seat = (first + n) % players;
    const held = hands[seat].indexOf(card);
    if (held < 0) throw new RecordProblem(`seat ${seat} does not hold ${card}`, number, n + 1);
    hands[seat].splice(held, 1);
    const team = teamOf(seat, players);
    const top = pile[pile.length - 1];
    let outcome = "laid";
    if (pile.length && (rank(card) === rank(top) || rank(card) === "J")) {
      const lastCard = n === PLAYS_PER_DECK - 1;
      if (pile.length === 1 && !lastCard && rank(card) === rank(top)) {
        outcome = rank(card) === "J" ? "jack_pishti" : "pishti";
        if (outcome === "jack_pishti") jackPishtis[team] += 1;
        else pishtis[team] += 1;
        pishtiCards[team].push(card);
        score[team] += outcome === "jack_pishti" ? 20 : 10;
      } else outcome = "capture";
      if (downTeam === null) downTeam = team;
      taken[team].push(...pile, card);
      pile = [];
      lastCapture = team;
    } else pile.push(card);
    if (n === PLAYS_PER_DECK - 1 && pile.length) {
      taken[lastCapture].push(...pile);
      pile = [];
    }
    // The next deal, when every hand is empty (R2.3).
    if ((n + 1) % perDeal === 0 && n + 1 < PLAYS_PER_DECK) {
      deals[(n + 1) / perDeal].forEach((h, s) => hands[s].push(...h));
    }
    steps.push(snapshot(n + 1, { seat, card, outcome }));
  });
  let count = null;
  if (plays.length === PLAYS_PER_DECK) {
    const teams = [0, 1].map((team) =>
      countTeam(taken[team], pishtis[team], jackPishtis[team], taken[team].length >= MOST_CARDS),
    );
    count = {
      deck: number - 1,
      teams,
      last_capture_team: lastCapture,
      totals: [before[0] + teams[0].points, before[1] + teams[1].points],
    };
    steps[steps.length - 1].score = [...count.totals];
  }
  return { dealer, plays, steps, count };
}
