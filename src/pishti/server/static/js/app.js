// The application: picks the screen from the address and the table's status,
// and ties the store, the socket and the screens together.

import { ApiError, getRecord, getTable, joinTable } from "./api.js";
import { newSeatSeed } from "./fair.js";
import { onLanguageChange, t } from "./i18n.js";
import { EndScreen } from "./screens/end.js";
import { HowToScreen } from "./screens/howto.js";
import { LeaderboardScreen } from "./screens/leaderboard.js";
import { LobbyScreen } from "./screens/lobby.js";
import { MeScreen } from "./screens/me.js";
import { AnalysisPanel, matchAnalysis } from "./replay/analysis.js";
import { ReplayScreen } from "./screens/replay.js";
import { StartScreen } from "./screens/start.js";
import { TableScreen } from "./screens/table.js";
import { TableSocket } from "./socket.js";
import { TableTalk } from "./talk.js";
import { isMyTurn, Store } from "./state.js";
import * as storage from "./storage.js";
import { focusLost, h } from "./ui/dom.js";
import { errorText } from "./ui/errors.js";
import { seatName } from "./ui/seats.js";

const SCREENS = { waiting: LobbyScreen, playing: TableScreen, finished: EndScreen };

export class App {
  constructor(root) {
    this.root = root;
    this.screen = null;
    this.screenKind = null;
    this.store = null;
    this.socket = null;
    this.talk = null; // voice and video at the table (js/talk.js)
    this.tableId = null;
    this.lastResync = 0;
    this.lastPlay = null; // {card, again}: the last play sent, until its answer
    this.connBanner = document.getElementById("connection");
    this.connState = null;
    this.notice = null;
    onLanguageChange(() => this.rerender());
    window.addEventListener("popstate", () => this.route());
    const howto = document.getElementById("howto-link");
    if (howto) {
      howto.addEventListener("click", (e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey) return;
        e.preventDefault();
        // At a table the rules open beside it: leaving the page would leave the seat (R7.4).
        if (this.socket) window.open("/how-to-play", "_blank", "noopener");
        else this.navigate("/how-to-play");
      });
    }
  }

  navigate(path) {
    if (location.pathname !== path) history.pushState(null, "", path);
    this.route();
  }

  route() {
    this.teardown();
    const match = location.pathname.match(/^\/t\/([A-Za-z0-9_-]+)\/?$/);
    const watch = location.pathname.match(/^\/t\/([A-Za-z0-9_-]+)\/watch\/?$/);
    const replay = location.pathname.match(/^\/r\/([A-Za-z0-9_-]+)\/(\d{1,9})\/?$/);
    if (match) this.openTable(match[1]);
    else if (watch) {
      this.tableId = watch[1];
      this.connect(watch[1], null); // a spectator (R7.7)
    }
    else if (replay) this.openReplay(replay[1], Number(replay[2]));
    else if (/^\/replay\/?$/.test(location.pathname)) this.show("replay", ReplayScreen, { load: null });
    else if (/^\/me\/?$/.test(location.pathname)) this.show("me", MeScreen, {});
    else if (/^\/leaderboard\/?$/.test(location.pathname)) this.show("leaderboard", LeaderboardScreen, {});
    else if (/^\/how-to-play\/?$/.test(location.pathname)) this.show("howto", HowToScreen, {});
    else {
      // A replay's address the server served but that names no match (/r/{table}/abc): say so.
      const notice = this.notice || (/^\/r\//.test(location.pathname) ? t("replay.bad_address") : null);
      this.notice = null;
      this.show("start", StartScreen, { navigate: (p) => this.navigate(p), notice });
    }
    if (this.screen && this.screen.focusFirst && focusLost()) this.screen.focusFirst();
  }

  teardown() {
    if (this.socket) this.socket.stop();
    this.socket = null;
    if (this.talk) this.talk.stop();
    this.talk = null;
    this.store = null;
    this.tableId = null;
    this.setConnection(null);
    this.destroyScreen();
  }

  destroyScreen() {
    if (this.talk) this.talk.park(); // videos keep playing (and talking) off the table screen
    if (this.screen) this.screen.destroy();
    this.screen = null;
    this.screenKind = null;
  }

  show(kind, Screen, ctx) {
    this.destroyScreen();
    this.screenKind = kind;
    this.screenCtx = { Screen, ctx };
    this.screen = new Screen(this.root, ctx);
    return this.screen;
  }

  /** Re-create the current screen in the new language. */
  rerender() {
    if (!this.screenCtx) return;
    const { Screen, ctx } = this.screenCtx;
    const kind = this.screenKind;
    this.destroyScreen();
    this.screenKind = kind;
    this.screen = new Screen(this.root, ctx);
    if (this.store && this.store.state.table) this.screen.update(this.store.state, []);
    if (this.connState) this.setConnection(this.connState);
  }

  // ---- a finished match's replay ----------------------------------------------

  openReplay(tableId, number) {
    const load = async () => {
      const [record, lobby] = await Promise.all([
        getRecord(tableId, number).catch((err) => {
          throw Object.assign(err, {
            text: err instanceof ApiError && err.status === 409 ? t("replay.not_finished") : errorText(err),
          });
        }),
        getTable(tableId).catch(() => null),
      ]);
      // Named as the end screen names them (a bot is "Bot 2"), the winner too.
      if (lobby) screen.seats = lobby.seats;
      return record;
    };
    const panel = new AnalysisPanel(matchAnalysis(tableId, number), () => this.screen && this.screen.render());
    const screen = this.show("replay", ReplayScreen, {
      load,
      title: t("replay.title_match", { n: number }),
      analysis: panel,
    });
  }

  // ---- a table ------------------------------------------------------------

  openTable(tableId) {
    this.tableId = tableId;
    const held = storage.getSeat(tableId);
    if (held) this.connect(tableId, held.token);
    else this.visit(tableId);
  }

  async visit(tableId, notice = null) {
    this.root.replaceChildren(h("p", { class: "loading" }, t("conn.connecting")));
    let lobby;
    try {
      lobby = await getTable(tableId);
    } catch (err) {
      const text = err instanceof ApiError && err.status === 404 ? t("lobby.not_found") : errorText(err);
      this.root.replaceChildren(
        h(
          "section",
          { class: "screen message-screen" },
          h("p", { class: "form-error", role: "alert" }, text),
          h("a", { class: "button", href: "/" }, t("end.new_table")),
        ),
      );
      return;
    }
    if (this.tableId !== tableId) return;
    this.show("visitor", LobbyScreen, {
      visitor: true,
      lobby,
      tableId,
      notice,
      name: storage.getName(),
      poll: () => getTable(tableId).catch(() => null),
      join: async (name, seat) => {
        try {
          const joined = await joinTable(tableId, name, seat);
          storage.setName(name);
          storage.setSeat(tableId, joined.seat, joined.token);
          this.destroyScreen();
          this.connect(tableId, joined.token);
        } catch (err) {
          // Someone may have sat meanwhile: show the seats as they are now.
          try {
            const fresh = await getTable(tableId);
            if (this.screen && this.screen.ctx.visitor) this.screen.refresh(fresh);
          } catch {
            // keep the old picture
          }
          throw Object.assign(err, { text: errorText(err) });
        }
      },
    });
  }

  connect(tableId, token) {
    const store = new Store();
    this.store = store;
    this.root.replaceChildren(h("p", { class: "loading" }, t("conn.connecting")));
    store.subscribe((state, effects) => this.onState(state, effects));
    if (this.talk) this.talk.stop();
    // Only a seated person talks (a spectator has no media).
    this.talk = token
      ? new TableTalk(tableId, {
          send: (msg) => Boolean(this.socket && this.socket.send(msg)),
          changed: (why) => this.onTalk(why),
          say: (key, params) => this.sayTalk(key, params),
        })
      : null;
    const talk = this.talk;
    this.socket = new TableSocket(tableId, token, () => store.state.seq || null, {
      message: (msg) => {
        if (talk && talk.handle(msg)) return;
        store.dispatch(msg);
      },
      status: (s) => this.setConnection(s),
      closed: (code) => this.onClosed(tableId, token, code),
    });
    this.socket.connect();
  }

  /** The server closed the seat's connection for good (docs/protocol.md, close codes). */
  onClosed(tableId, token, code) {
    this.socket = null;
    if (this.talk) this.talk.stop();
    this.talk = null;
    if (code === 1000) return; // we left
    this.destroyScreen();
    if (!token) {
      // A spectator: watching is off (4410) or the table has its spectators (4411).
      this.store = null;
      this.visit(tableId, t(code === 4411 ? "watch.full" : "watch.off"));
      return;
    }
    if (code === 4409) {
      // Another window took the seat: offer to take it back, never fight over it.
      this.root.replaceChildren(
        h(
          "section",
          { class: "screen message-screen" },
          h("p", { role: "alert" }, t("conn.replaced")),
          h(
            "button",
            { type: "button", class: "primary", id: "play-here", on: { click: () => this.connect(tableId, token) } },
            t("conn.play_here"),
          ),
        ),
      );
      return;
    }
    // 4401, 4403, 4404: the token no longer holds a seat here.
    storage.clearSeat(tableId);
    this.store = null;
    this.visit(tableId, code === 4403 ? t("table.seat_lost") : null);
  }

  onState(state, effects) {
    if (!state.table) return;
    const kind = state.table.status;
    const Screen = SCREENS[kind];
    if (!Screen) return;
    if (this.screenKind !== kind) {
      this.show(kind, Screen, { actions: this.actions(), store: this.store, tableId: this.tableId, talk: this.talk });
    }
    if (this.talk) {
      state.table.seats.forEach((info, seat) => {
        // A person's seat went to a bot (R7.4, R7.5): the media ends and the player is told.
        if (info && info.kind === "bot" && this.talk.seatTakenOver(seat)) this.sayTalk("talk.seat_bot", { seat });
      });
    }
    this.screen.update(state, effects);
    if (this.screen.focusFirst && focusLost()) this.screen.focusFirst(state);
    document.title = this.title(state);
    for (const effect of effects) {
      if ((effect.kind === "snapshot" || effect.kind === "over") && kind !== "playing") this.sendSeed(state);
      if (effect.kind === "resync") this.resync();
      else if (effect.kind === "error" && this.playAgain(state, effect)) continue;
      // A Continue that comes after the next deal has nothing to say (R7.8).
      // A refused reaction is told by the table itself (js/ui/reactions.js).
      else if (effect.kind === "error" && !["hello", "continue", "react"].includes(effect.ref)) {
        this.toast(errorText(effect));
      }
    }
  }

  /** Contribute this seat's own seed to the next match's deals (R11.1), once the
   * commitment of that match has been shown (the welcome's table, or the last
   * match_started's next_commitment). */
  sendSeed(state) {
    if (state.seat === null || state.seat === undefined || !this.socket) return;
    const seed = newSeatSeed();
    if (this.socket.send({ type: "seed", seed })) state.sentSeed = seed;
  }

  title(state) {
    if (state.table.status === "playing" && isMyTurn(state)) {
      return `● ${t("table.your_turn")} · Pişti`;
    }
    return "Pişti";
  }

  /**
   * A play refused as `stale` while this seat still holds the turn and the card
   * (events came that the play did not answer, such as a restarting server's):
   * send it again, once, answering the latest event, so the player notices
   * nothing.  True when it was sent again.
   */
  playAgain(state, effect) {
    if (effect.ref !== "play") return false;
    const last = this.lastPlay;
    this.lastPlay = null;
    if (effect.code !== "stale" || !last || last.again) return false;
    const view = state.view;
    if (!view || view.to_play !== state.seat || !view.hand.includes(last.card)) return false;
    if (!this.socket || !this.socket.send({ type: "play", card: last.card, seq: state.seq })) {
      return false;
    }
    this.lastPlay = { card: last.card, again: true };
    state.pending = last.card;
    this.screen.update(state, []); // the card stays played, as the player left it
    return true;
  }

  resync() {
    const now = Date.now();
    if (!this.socket || now - this.lastResync < 3000) return;
    this.lastResync = now;
    console.warn("pishti: missed events, asking for a fresh snapshot");
    this.socket.resync();
  }

  actions() {
    const send = (msg) => this.socket && this.socket.send(msg);
    return {
      play: (card) => {
        const state = this.store.state;
        if (send({ type: "play", card, seq: state.seq })) {
          this.lastPlay = { card, again: false };
          state.pending = card;
          this.store.notify([]);
        }
      },
      addBot: (seat, level) => send({ type: "add_bot", seat, level }),
      removeBot: (seat) => send({ type: "remove_bot", seat }),
      start: () => send({ type: "start" }),
      takeOver: () => send({ type: "take_over" }),
      continue: (deck) => send({ type: "continue", deck }),
      rematch: () => send({ type: "rematch" }),
      watching: (on) => send({ type: "watching", on }),
      react: (reaction) => send({ type: "react", reaction }),
      leave: () => {
        const playing = this.store && this.store.state.table && this.store.state.table.status === "playing";
        send({ type: "leave" });
        storage.clearSeat(this.tableId);
        this.notice = t(playing ? "leave.done_match" : "leave.done_lobby");
        this.navigate("/");
      },
    };
  }

  // ---- connection banner and messages ---------------------------------------

  setConnection(state) {
    const previous = this.connState;
    this.connState = state;
    const banner = this.connBanner;
    clearTimeout(this.bannerTimer);
    if (state === "reconnecting") {
      banner.textContent = t("conn.reconnecting");
      banner.dataset.state = "reconnecting";
      banner.hidden = false;
    } else if (state === "connecting") {
      banner.hidden = true;
    } else if (state === "open" && previous === "reconnecting") {
      banner.textContent = t("conn.back");
      banner.dataset.state = "back";
      banner.hidden = false;
      this.bannerTimer = setTimeout(() => (banner.hidden = true), 1500);
    } else {
      banner.hidden = true;
    }
  }

  toast(text, ms = 3500, cls = "") {
    const el = h("div", { class: `toast ${cls}`.trim(), role: "alert" }, text);
    document.body.append(el);
    setTimeout(() => el.remove(), ms);
  }

  /** The table talk changed: the table screen draws it again (only the lit avatars when `why` is "speaking"). */
  onTalk(why) {
    const screen = this.screen;
    if (!screen || !this.store || !this.store.state.table) return;
    if (why === "speaking" && screen.showSpeaking) screen.showSpeaking();
    else if (screen.talkChanged) screen.talkChanged(this.store.state);
  }

  /** A plain message of the table talk (permission denied, no camera, a peer out of reach ...). */
  sayTalk(key, params = {}) {
    const table = this.store && this.store.state.table;
    const name = params.seat === undefined ? "" : seatName(table, params.seat);
    this.toast(t(key, { ...params, name }), 6000, "talk-message");
  }
}
