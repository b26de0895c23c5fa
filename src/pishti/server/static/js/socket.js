// One WebSocket per seat (docs/protocol.md): `hello` first, then play.  A lost
// connection is retried with backoff and `hello` carries the last event number
// seen; closing the page sends `closing` so the server holds the seat for 10 s
// only (R7.4).

const BACKOFF_MS = [300, 700, 1500, 3000, 5000, 8000];
/**
 * A `ping` goes out every PING_MS; a connection that brought nothing (no event, no
 * `pong`) for LOST_MS has died silently (a lost network sends no close): it is
 * dropped and a new one made at once.
 */
const PING_MS = 5000;
const LOST_MS = 12000;
/**
 * Close codes after which reconnecting cannot help (docs/protocol.md): 1000 the
 * player left, 4401 a wrong token, 4403 the seat went to a bot for good, 4404 no
 * such table, 4409 another window took the seat.
 */
const FINAL = new Set([1000, 4401, 4403, 4404, 4409, 4410, 4411]);

export class TableSocket {
  /**
   * `handlers`: `message(msg)`, `status(state)` with state "connecting",
   * "open", "reconnecting" or "closed", and `closed(code)` when the server
   * closed for good (see FINAL).
   * `lastSeq()` gives the last event number the client has seen.
   */
  constructor(tableId, token, lastSeq, handlers) {
    this.tableId = tableId;
    this.token = token;
    this.lastSeq = lastSeq;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.fresh = false;
    this.closingSent = false;
    this.retryTimer = null;
    this.pingTimer = null;
    this.heardAt = 0;
    this.onPageHide = () => this.sendClosing();
    window.addEventListener("pagehide", this.onPageHide);
    window.addEventListener("beforeunload", this.onPageHide);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`;
  }

  connect() {
    if (this.stopped) return;
    this.handlers.status(this.attempt === 0 ? "connecting" : "reconnecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      const lastSeq = this.fresh ? null : this.lastSeq();
      this.fresh = false;
      // No token: a spectator, who watches (R7.7) instead of taking a seat.
      const first = this.token ? { type: "hello", token: this.token } : { type: "watch" };
      ws.send(JSON.stringify({ ...first, last_seq: lastSeq }));
    });
    ws.addEventListener("message", (e) => {
      this.heardAt = Date.now();
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg.type === "welcome") {
        this.attempt = 0;
        this.handlers.status("open");
        this.startPing();
      }
      this.handlers.message(msg);
    });
    ws.addEventListener("close", (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      if (FINAL.has(e.code)) {
        // The seat or the table is gone, or another window took the seat: no retry.
        this.stop();
        this.handlers.closed(e.code);
        return;
      }
      if (e.code === 4408) this.fresh = true; // fell behind: ask for a snapshot
      this.scheduleRetry();
    });
    // An "error" is always followed by "close", which does the retrying.
  }

  scheduleRetry() {
    if (this.stopped) return;
    this.handlers.status("reconnecting");
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /**
   * Drop the connection and connect again at once, asking for a fresh snapshot
   * (after missing events: the last event number seen is already past the gap,
   * so a `hello` with it would never bring the missed events back).
   */
  resync() {
    this.fresh = true;
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
    this.attempt = 0;
    this.connect();
  }

  startPing() {
    this.stopPing();
    this.heardAt = Date.now();
    let pingedAt = this.heardAt;
    this.pingTimer = setInterval(() => {
      const now = Date.now();
      if (now - this.heardAt > LOST_MS) {
        this.lost();
      } else if (now - pingedAt >= PING_MS) {
        pingedAt = now;
        this.send({ type: "ping" });
      }
    }, 1000);
  }

  /** The connection died silently: drop it without waiting for a close, and reconnect. */
  lost() {
    const ws = this.ws;
    this.ws = null;
    this.stopPing();
    if (ws) ws.close();
    this.scheduleRetry();
  }

  stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  /** Send a message; false when the connection is not open. */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Say the page is closing (R7.4); a spectator (no token) holds no seat, so says nothing. */
  sendClosing() {
    if (this.closingSent || !this.token) return;
    this.closingSent = this.send({ type: "closing" });
  }

  /** Stop for good: no more retries. */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.stopPing();
    window.removeEventListener("pagehide", this.onPageHide);
    window.removeEventListener("beforeunload", this.onPageHide);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
    this.handlers.status("closed");
  }
}
