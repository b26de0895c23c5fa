// Seats around the table, as seen from one seat: you at the bottom, your
// partner opposite, the next seat to play (your right, R1.3) on the right.

import { capitalize, t } from "../i18n.js";
import { teamOf } from "../state.js";

/** "bottom", "right", "top" or "left": where `seat` sits for a player at `me`. */
export function position(seat, me, players) {
  const rel = (seat - me + players) % players;
  if (players === 2) return rel === 0 ? "bottom" : "top";
  return ["bottom", "right", "top", "left"][rel];
}

/**
 * The name shown for a seat: a bot put there (not one that took a person's seat
 * for good, `left`, which keeps the person's name) is "Bot 3"; its level is data
 * of the seat (`level`), never read out of its name.
 */
export function seatName(table, seat) {
  const info = table && table.seats && table.seats[seat];
  if (info && info.kind === "bot" && (!info.left || !info.name)) {
    return `${capitalize(t("seat.bot"))} ${seat + 1}`;
  }
  if (info && info.name) return info.name;
  return t("lobby.seat", { n: seat + 1 });
}

/** Initials for an avatar. */
export function initials(name) {
  const parts = String(name || "?").trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? parts[0][0] + parts[1][0] : (parts[0] || "?").slice(0, 2);
  return letters.toLocaleUpperCase();
}

/** The seats of `team`. */
export function teamSeats(team, players) {
  const seats = [];
  for (let s = 0; s < players; s += 1) if (teamOf(s, players) === team) seats.push(s);
  return seats;
}

/** A team as the player at `me` calls it: "Us"/"Them" (or "You"/a name with two players). */
export function teamLabel(table, team, me) {
  const players = table.players;
  const myTeam = me === null || me === undefined ? null : teamOf(me, players);
  if (players === 2) {
    return team === myTeam ? t("table.you") : seatName(table, team);
  }
  if (myTeam === null) return t("lobby.team", { n: team + 1 });
  return team === myTeam ? t("table.us") : t("table.them");
}

/** The players of a team, e.g. "Ayşe & Bot 3". */
export function teamNames(table, team) {
  const seats = teamSeats(team, table.players);
  if (seats.length === 1) return seatName(table, seats[0]);
  return t("table.team_named", { a: seatName(table, seats[0]), b: seatName(table, seats[1]) });
}
