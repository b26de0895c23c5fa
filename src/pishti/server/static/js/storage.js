// What the browser remembers between visits: the player's name, the language,
// the seat token of each table (so a reload returns to the seat), and the
// browser's identity key (its matches' history; the server keeps only its hash).

const PREFIX = "pishti.";

function read(key) {
  try {
    return window.localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) window.localStorage.removeItem(PREFIX + key);
    else window.localStorage.setItem(PREFIX + key, value);
  } catch {
    // Private mode or storage full: the game still works, a reload just forgets.
  }
}

export function getName() {
  return read("name") || "";
}

export function setName(name) {
  write("name", name);
}

export function getLanguage() {
  return read("lang");
}

export function setLanguage(lang) {
  write("lang", lang);
}

/** The seat held at `tableId`: `{seat, token}` or null. */
export function getSeat(tableId) {
  const raw = read("seat." + tableId);
  if (!raw) return null;
  try {
    const value = JSON.parse(raw);
    if (typeof value.token === "string" && Number.isInteger(value.seat)) return value;
  } catch {
    // fall through
  }
  return null;
}

export function setSeat(tableId, seat, token) {
  write("seat." + tableId, JSON.stringify({ seat, token }));
}

export function clearSeat(tableId) {
  write("seat." + tableId, null);
}

/** Whether sounds are on; off by default. */
export function getSound() {
  return read("sound") === "on";
}

export function setSound(on) {
  write("sound", on ? "on" : "off");
}

/**
 * The browser's identity key: 43 random URL-safe characters (256 bits), made on
 * first use and kept; null when the browser keeps nothing (private mode).
 */
export function identity() {
  const kept = read("identity");
  if (kept && /^[A-Za-z0-9_-]{32,128}$/.test(kept)) return kept;
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  const key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  write("identity", key);
  return read("identity") === key ? key : null;
}

/** Forget the identity key (after the server deleted its history). */
export function forgetIdentity() {
  write("identity", null);
}

/** The table view chosen last: "3d", "2d" or null (never chosen: 2D). */
export function getTableView() {
  const value = read("view");
  return value === "3d" || value === "2d" ? value : null;
}

export function setTableView(view) {
  write("view", view);
}

/** Whether the player was told once that the 3D table cannot be drawn here. */
export function getView3dNoticed() {
  return read("view3d.noticed") === "yes";
}

export function setView3dNoticed() {
  write("view3d.noticed", "yes");
}

/** The seats whose quick reactions the player silenced at `tableId` (a list of seat numbers). */
export function getSilenced(tableId) {
  try {
    const value = JSON.parse(read("silenced." + tableId) || "[]");
    return Array.isArray(value) ? value.filter((s) => Number.isInteger(s)) : [];
  } catch {
    return [];
  }
}

export function setSilenced(tableId, seats) {
  write("silenced." + tableId, seats.length ? JSON.stringify(seats) : null);
}
