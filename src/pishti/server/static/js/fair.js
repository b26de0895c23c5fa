// Provably fair deals (RULES.md R11), checked in the browser with WebCrypto:
// the commitment announced before the match is the SHA-256 of the server seed
// the record reveals, our own seat seed was used, and every deck of the record
// is the one R11 derives from the seeds.

const RANKS = "A23456789TJQK";
const SUITS = "CDHS";
const JACK = 10;

const cardText = (c) => RANKS[c >> 2] + SUITS[c & 3];
const fromHex = (hex) => new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16)));
const toHex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

/** 16 random bytes as 32 lower-case hex digits: this seat's seed for the next match (R11.1). */
export function newSeatSeed() {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** The byte stream of a label (R11.3): HMAC-SHA256(K, label + "/" + j), j = 0, 1, ... */
class Stream {
  constructor(key, label) {
    this.key = key;
    this.label = label;
    this.j = 0;
    this.buffer = new Uint8Array(0);
  }

  async read(n) {
    while (this.buffer.length < n) {
      const block = new Uint8Array(
        await crypto.subtle.sign("HMAC", this.key, new TextEncoder().encode(`${this.label}/${this.j}`)),
      );
      this.j += 1;
      const joined = new Uint8Array(this.buffer.length + block.length);
      joined.set(this.buffer);
      joined.set(block, this.buffer.length);
      this.buffer = joined;
    }
    const out = this.buffer.slice(0, n);
    this.buffer = this.buffer.slice(n);
    return out;
  }

  /** A uniform whole number below n (R11.4, rejection sampling). */
  async below(n) {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const b = await this.read(4);
      const u = ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3];
      if (u < limit) return u % n;
    }
  }
}

async function deckOf(key, match, deck, players, dealer) {
  const stream = new Stream(key, `pishti/deal/${match}/${deck}`);
  const cards = Array.from({ length: 52 }, (_, i) => i);
  for (let i = 51; i > 0; i -= 1) {
    const j = await stream.below(i + 1); // R11.5
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  let top = cards[3];
  const stock = cards.slice(4);
  while (top >> 2 === JACK) {
    stock.splice(await stream.below(stock.length + 1), 0, top); // R11.6
    top = stock.shift();
  }
  const middle = [cards[0], cards[1], cards[2], top].map(cardText);
  const deals = [];
  const perDeal = 4 * players;
  for (let k = 0; k < stock.length / perDeal; k += 1) {
    const hands = new Array(players);
    for (let i = 0; i < players; i += 1) {
      const start = k * perDeal + 4 * i;
      hands[(dealer + 1 + i) % players] = stock.slice(start, start + 4).map(cardText); // R11.7
    }
    deals.push(hands);
  }
  return { middle, deals };
}

/**
 * Check a match record (R10) against its seeds (R11.9).  `announced` is what this
 * client was told before the match: `{commitment, seat_seeds}` (from `match_started`),
 * and `mySeat`/`mySeed` its own seed, when it sent one.  Resolves to
 * `{ok, checked, problem}`: `checked` counts the decks, `problem` names the first
 * difference (a key of the messages, and its values).
 */
export async function verifyRecord(record, announced, mySeat, mySeed) {
  const fair = record && record.fair;
  if (!fair) return { ok: false, checked: 0, problem: { key: "fair.no_seeds" } };
  const seed = fromHex(fair.server_seed);
  const digest = toHex(await sha256(seed));
  const commitment = (announced && announced.commitment) || fair.commitment;
  if (digest !== commitment || digest !== fair.commitment) {
    return { ok: false, checked: 0, problem: { key: "fair.bad_commitment" } };
  }
  if (announced && announced.seat_seeds && announced.seat_seeds.join() !== fair.seat_seeds.join()) {
    return { ok: false, checked: 0, problem: { key: "fair.bad_seat_seeds" } };
  }
  if (mySeed && fair.seat_seeds[mySeat] !== mySeed) {
    return { ok: false, checked: 0, problem: { key: "fair.not_my_seed" } };
  }
  const joined = new Uint8Array(32 + 16 * fair.seat_seeds.length);
  joined.set(seed);
  fair.seat_seeds.forEach((s, i) => joined.set(fromHex(s), 32 + 16 * i));
  const k = await sha256(joined); // R11.2
  const key = await crypto.subtle.importKey("raw", k, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const players = record.players;
  const first = await new Stream(key, `pishti/dealer/${fair.match}`).below(players);
  for (let n = 0; n < record.decks.length; n += 1) {
    const got = record.decks[n];
    const dealer = (first + n) % players;
    const want = await deckOf(key, fair.match, n + 1, players, dealer);
    const same =
      got.dealer === dealer &&
      got.middle.join() === want.middle.join() &&
      JSON.stringify(got.deals) === JSON.stringify(want.deals);
    if (!same) return { ok: false, checked: n, problem: { key: "fair.bad_deck", deck: n + 1 } };
  }
  return { ok: true, checked: record.decks.length, problem: null };
}
