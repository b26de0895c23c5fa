// Server and network errors as sentences for people.

import { t } from "../i18n.js";

const KNOWN = new Set([
  "not_your_turn",
  "card_not_held",
  "stale",
  "not_owner",
  "bad_state",
  "rate_limited",
  "network",
  "seat_taken",
  "match_started",
  "name_taken",
]);

/** A sentence for an ApiError, a protocol `error` message or any Error. */
export function errorText(err) {
  const code = err && err.code;
  if (code === "network" || (err && err.status === 0)) return t("error.network");
  if (KNOWN.has(code)) return t(`error.${code}`);
  if (err && err.status === 409) return t("error.full");
  return t("error.generic", { message: (err && err.message) || String(err) });
}
