// The table during a match: your hand at the bottom, your partner opposite,
// the opponents left and right; the pile's top card and size, the stock, each
// team's pişti cards, the clocks, and the count after every deck (R5.5, R7).

import { cardBack, cardFace, cardName } from "../cards.js";
import { t } from "../i18n.js";
import { clockLeft, isMyTurn, OUTCOME, pauseLeft, runningTotals, teamOf } from "../state.js";
import { TableView } from "../table3d/switch.js";
import { ring, setRing } from "../ui/clock.js";
import { countTable } from "../ui/countTable.js";
import { announce, focusLost, h, keep, patch, replace } from "../ui/dom.js";
import { pishtiBurst, sweep } from "../ui/effects.js";
import { Reactions } from "../ui/reactions.js";
import { initials, position, seatName, teamLabel } from "../ui/seats.js";
import { sound } from "../ui/sound.js";
import { talkButtons, talkSeat } from "../ui/talk.js";

/** Seconds left on a clock from which its seconds are shown (R7.1). */
const SHOW_SECONDS = 10;
/** Pişti record cards shown on the felt; the earlier ones are still read out. */
const SHOWN_RECORD_CARDS = 3;
/** Seconds left on your own clock from which a tick sounds each second. */
const TICK_SECONDS = 5;

export class TableScreen {
  constructor(root, { actions, store, tableId, talk }) {
    this.actions = actions;
    this.store = store;
    this.talk = talk || null; // voice and video (js/talk.js); null for a spectator
    this.talkBar = null; // one's own microphone and camera buttons, kept across redraws
    this.muteButtons = {}; // seat -> the button that mutes that person, kept the same way
    this.focusCard = null;
    this.seatEls = {};
    this.lastDeckShown = null;

    this.scorebar = h("div", { class: "scorebar" });
    // Quick reactions: a palette in the bar, each shown over its sender's avatar.
    this.reactions = new Reactions({
      tableId,
      send: (preset) => this.actions.react(preset),
      seatEl: (seat) => this.seatEls[seat] || null,
      notice: (text) => this.showNotice(text, 3000),
    });
    this.felt = h("div", { class: "felt" });
    this.center = h("div", { class: "center" });
    this.effects = h("div", { class: "effects" });
    this.recordsUs = h("div", { class: "records us" });
    this.recordsThem = h("div", { class: "records them" });
    this.faceDown = h("div", { class: "facedown" });
    this.info = h("div", { class: "match-info" });
    this.turnLine = h("p", { class: "turn-line", id: "turn-line" });
    this.notice = h("p", { class: "table-notice", id: "table-notice", hidden: true });
    this.plays = h("ol", { class: "plays", id: "plays" });
    this.lastTick = null;
    this.warned = false;
    this.hand = h("div", {
      class: "hand",
      role: "group",
      "aria-label": t("table.hand"),
      "aria-describedby": "hand-keys",
      on: { keydown: (e) => this.onHandKey(e) },
    });
    // How to play by the keyboard: a player's hint, nothing for a spectator (rendered hidden then).
    this.handKeys = h("p", { class: "visually-hidden", id: "hand-keys" }, t("table.hand_keys"));
    this.autopilot = h("div", { class: "autopilot-banner", role: "status", hidden: true });
    this.dialog = h("dialog", { class: "count-dialog", id: "count-dialog", "aria-labelledby": "count-dialog-title" });
    this.dialog.addEventListener("close", () => {
      // Closed with the screen (the language switched): not read; the new screen shows it again.
      if (this.destroyed) return;
      // Closing a deck's count (Continue, Enter or Escape) says the player has read it (R7.8).
      if (this.dialogDeck !== null) this.readDeck = this.dialogDeck;
      this.dialogDeck = null;
      this.maybeContinue();
      this.afterDialog();
    });
    this.dialogDeck = null; // the deck whose count the dialog shows
    this.readDeck = null; // the last deck whose count the player closed
    this.continued = null; // the last deck the table was told so
    this.confirmed = null; // the last deck the table listed this seat ready for
    this.destroyed = false;
    this.rendered = false; // a new screen shows the count the table pauses for, as a new page does
    this.leaveDialog = h(
      "dialog",
      { class: "count-dialog leave-dialog", id: "leave-dialog", "aria-labelledby": "leave-title", "aria-describedby": "leave-text" },
      h(
        "form",
        { method: "dialog" },
        h("h2", { id: "leave-title" }, t("leave.title")),
        h("p", { id: "leave-text" }, t("table.leave_confirm")),
        h(
          "div",
          { class: "dialog-actions" },
          h("button", { class: "primary", id: "leave-cancel", value: "stay" }, t("leave.stay")),
          h("button", { class: "danger", id: "leave-confirm", value: "leave" }, t("leave.confirm")),
        ),
      ),
    );
    this.leaveDialog.addEventListener("close", () => {
      if (this.leaveDialog.returnValue === "leave") this.actions.leave();
      else this.afterDialog();
    });

    const centerWrap = h("div", { class: "center-wrap" }, this.center);
    // The effects layer spans the whole felt, so a burst fits however narrow the middle is.
    this.felt.append(this.info, this.recordsThem, this.recordsUs, this.faceDown, centerWrap, this.effects);
    this.title = h("h1", { class: "visually-hidden", id: "table-title", tabindex: "-1" }, t("table.title"));
    this.section = h(
      "section",
      { class: "screen table-screen", "aria-labelledby": "table-title" },
      this.title,
      this.scorebar,
      h(
        "div",
        { class: "table-main" },
        this.felt,
        h(
          "section",
          { class: "plays-panel", "aria-labelledby": "plays-title" },
          h("h2", { id: "plays-title" }, t("plays.title")),
          this.plays,
        ),
      ),
      h(
        "div",
        { class: "hand-area" },
        this.turnLine,
        this.notice,
        this.hand,
        this.handKeys,
        this.autopilot,
      ),
      this.dialog,
      this.leaveDialog,
      this.reactions.live,
    );
    root.replaceChildren(this.section);

    this.keyHandler = (e) => this.onGlobalKey(e);
    document.addEventListener("keydown", this.keyHandler);
    this.clockTimer = setInterval(() => this.tickClock(), 200);
    // The 3D table, when chosen, draws this screen's state over it (js/table3d/).
    this.view = new TableView(this);
  }

  destroy() {
    this.destroyed = true;
    this.view.destroy();
    this.reactions.destroy();
    document.removeEventListener("keydown", this.keyHandler);
    clearInterval(this.clockTimer);
    clearTimeout(this.noticeTimer);
    if (this.dialog.open) this.dialog.close();
    if (this.leaveDialog.open) this.leaveDialog.close();
  }

  update(state, effects = []) {
    const { table, view } = state;
    if (!table || !view) return;
    this.reactions.update(state);
    this.renderScorebar(state);
    this.renderInfo(state);
    this.renderSeats(state);
    this.renderCenter(state, effects);
    this.renderRecords(state);
    this.renderHand(state);
    this.renderPlays(state);
    this.renderPause(state, effects);
    this.tickClock();
    const said = [];
    for (const effect of effects) this.play(effect, state, said);
    if (said.length) announce(said.join(" "));
    this.keepFocus(state);
    this.view.update(state, effects);
    this.rendered = true;
  }

  /** Focus goes where the player acts next: the hand on their turn, else the table. */
  keepFocus(state) {
    if (this.dialog.open || this.leaveDialog.open) return;
    if (!focusLost() && document.activeElement !== this.title) return;
    const card = this.hand.querySelector("button[tabindex='0']");
    if (card && isMyTurn(state)) card.focus();
    else if (focusLost()) this.title.focus();
  }

  // ---- parts of the table -------------------------------------------------

  renderScorebar(state) {
    const { table, seat } = state;
    const order = seat === null ? [0, 1] : [teamOf(seat, table.players), 1 - teamOf(seat, table.players)];
    const totals = runningTotals(state); // pishti points count at once (R4.7)
    // The bar's buttons and the reactions' box are made once and kept: focus stays in
    // the palette while the table changes, and a click pressed while the table is
    // drawn again (many times a second while the talk's peers connect) is not lost.
    let actions = this.scorebar.querySelector(".bar-actions");
    if (!actions) {
      actions = h(
        "div",
        { class: "bar-actions" },
        this.reactions.box,
        h("button", { type: "button", id: "show-counts", on: { click: () => this.showHistory() } }, t("table.scores")),
      );
    }
    // A spectator holds no seat to give up (R7.5): no Leave for them.
    const leave = actions.querySelector("#leave");
    if (seat !== null && !leave) {
      actions.append(h("button", { type: "button", class: "quiet", id: "leave", on: { click: () => this.leave() } }, t("table.leave")));
    } else if (seat === null && leave) {
      leave.remove();
    }
    const scores = h(
      "div",
      { class: "scores", id: "scores" },
      order.map((team) =>
        h(
          "div",
          { class: `score team-${team === order[0] ? "us" : "them"}`, dataset: { team: String(team) } },
          h("span", { class: "score-label" }, teamLabel(table, team, seat)),
          h("span", { class: "score-value" }, String(totals[team])),
        ),
      ),
    );
    const old = this.scorebar.querySelector("#scores");
    if (old) old.replaceWith(scores);
    else this.scorebar.append(scores, actions);
  }

  renderInfo(state) {
    const { table, view } = state;
    replace(
      this.info,
      h("span", { id: "deck-number" }, t("table.deck", { n: view.deck + 1 })),
      h("span", {}, t("table.target", { n: table.target })),
      state.seat === null ? h("span", { id: "watching-tag", class: "watching-tag" }, t("watch.you_watch")) : null,
      table.watchers ? h("span", { id: "watchers" }, t("watch.count", { n: table.watchers })) : null,
    );
  }

  renderSeats(state) {
    const { table, view, seat: me } = state;
    const players = table.players;
    // Each seat's element is updated in place, not replaced: one's own talk buttons
    // sit in it, and a button (or an ancestor) taken out of the page between press
    // and release loses the click, and the keyboard focus, even if put back.
    const before = this.seatEls;
    this.seatEls = {};
    for (let s = 0; s < players; s += 1) {
      const prev = before[s] && before[s].isConnected ? before[s] : null;
      const info = table.seats[s] || {};
      const pos = position(s, me ?? 0, players);
      const name = seatName(table, s);
      const turn = view.to_play === s && !view.finished;
      const tags = [];
      if (info.kind === "bot" && !info.left) tags.push(t("lobby.bot", { level: t(`level.${info.level || "standard"}`) }));
      else if (info.kind === "bot") tags.push(t("seat.bot"));
      if (info.left) tags.push(t("seat.left"));
      else if (info.kind === "human" && !info.connected) tags.push(t("seat.offline"));
      if (info.autopilot) tags.push(t("seat.autopilot"));
      if (view.dealer === s) tags.push(t("seat.dealer"));
      const stateText = [turn ? t("seat.turn") : null, ...tags, t("seat.cards", { n: view.hand_sizes[s] ?? 0 })]
        .filter(Boolean)
        .join(", ");
      const myTeam = me === null ? 0 : teamOf(me, players);
      const avatar = h(
        "div",
        { class: "avatar", role: "img", "aria-label": t("seat.avatar", { name, state: stateText }) },
        ring(),
        h("span", { class: "initials", "aria-hidden": "true" }, initials(name)),
        h("span", { class: "clock-secs", "aria-hidden": "true", hidden: true }),
        s !== me ? h("span", { class: "hand-count", "aria-hidden": "true" }, String(view.hand_sizes[s] ?? 0)) : null,
      );
      const backs = [];
      if (s !== me) {
        for (let i = 0; i < (view.hand_sizes[s] ?? 0); i += 1) backs.push(cardBack({ size: "mini" }));
      }
      const talk = this.talk ? talkSeat(this.talk, s, name, avatar, this.muteButtons[s]) : null;
      this.muteButtons[s] = talk ? talk.mute : null;
      // One's own microphone and camera, beside one's own avatar, and the buttons that
      // mute the others: the same buttons each time (ui/talk.js), left where they are
      // when the seat is updated in place (ui/dom.js keep and patch).
      const bar = this.talk && s === me ? (this.talkBar = talkButtons(this.talk, this.talkBar)) : null;
      const el = h(
        "div",
        {
          class: [
            "seat",
            `pos-${pos}`,
            teamOf(s, players) === myTeam ? "team-us" : "team-them",
            turn ? "turn" : "",
            info.kind === "human" && !info.connected ? "offline" : "",
            s === me ? "me" : "",
          ]
            .filter(Boolean)
            .join(" "),
          dataset: { seat: String(s) },
        },
        avatar,
        h(
          "div",
          { class: "seat-info" },
          h("span", { class: "seat-name" }, name, keep(talk ? talk.mute : null, prev)),
          tags.length ? h("span", { class: "seat-tags" }, tags.join(" · ")) : null,
          keep(bar, prev),
        ),
        backs.length ? h("div", { class: "mini-hand", "aria-hidden": "true" }, backs) : null,
      );
      if (talk) el.classList.add(...talk.classes);
      const seatEl = prev ? patch(prev, el) : el;
      this.seatEls[s] = seatEl;
      this.reactions.decorate(seatEl, s, state);
      if (!prev) this.felt.append(seatEl);
    }
    for (const [s, el] of Object.entries(before)) if (this.seatEls[s] !== el) el.remove();
  }

  /** The table talk changed (a camera, a microphone, a peer): the seats and the buttons again. */
  talkChanged(state) {
    if (!state.table || !state.view) return;
    const focused = document.activeElement && document.activeElement.id;
    this.renderSeats(state);
    this.tickClock();
    this.view.update(state, []);
    if (focused && focused.startsWith("talk-")) {
      const el = document.getElementById(focused);
      if (el) el.focus();
    }
  }

  /** Light the avatars of whoever speaks now (no redraw). */
  showSpeaking() {
    if (!this.talk) return;
    for (const [seat, el] of Object.entries(this.seatEls)) {
      el.classList.toggle("speaking", this.talk.speaking.has(Number(seat)));
    }
  }

  renderCenter(state, effects) {
    const { view } = state;
    const played = effects.find((e) => e.kind === "played");
    const stock = h(
      "div",
      {
        class: `stock${view.stock_size ? "" : " empty"}`,
        id: "stock",
        role: "img",
        "aria-label": `${t("table.stock")}: ${t("table.stock_count", { n: view.stock_size })}`,
      },
      view.stock_size ? [cardBack(), cardBack()] : h("span", { class: "slot", "aria-hidden": "true" }),
      h("span", { class: "badge", "aria-hidden": "true" }, String(view.stock_size)),
    );
    const under = [];
    const depth = Math.min(3, Math.max(0, view.pile_size - 1));
    for (let i = 0; i < depth; i += 1) {
      under.push(h("span", { class: `under u${i}`, "aria-hidden": "true" }, cardBack()));
    }
    let top = h("span", { class: "slot", "aria-hidden": "true" });
    if (view.top_card) {
      top = cardFace(view.top_card, { label: false });
      top.classList.add("top");
      if (played && played.card === view.top_card) {
        top.classList.add(`enter-from-${position(played.seat, state.seat ?? 0, state.table.players)}`);
      }
    }
    const pileLabel = view.top_card
      ? `${t("table.pile")}: ${cardName(view.top_card)}, ${t("table.pile_count", { n: view.pile_size })}`
      : `${t("table.pile")}: ${t("table.pile_empty")}`;
    const pile = h(
      "div",
      { class: "pile", id: "pile", role: "img", "aria-label": pileLabel, dataset: { size: String(view.pile_size), top: view.top_card || "" } },
      under,
      top,
      h("span", { class: "badge", "aria-hidden": "true" }, String(view.pile_size)),
    );
    replace(this.center, stock, pile);
  }

  renderRecords(state) {
    const { table, view, seat: me } = state;
    const myTeam = me === null ? 0 : teamOf(me, table.players);
    const box = (el, team) => {
      const label = teamLabel(table, team, me);
      const cards = view.pishti_cards[team] || [];
      replace(
        el,
        h("h2", {}, h("span", {}, label), " ", h("small", {}, t("table.taken", { n: view.taken_counts[team] }))),
        h(
          "div",
          { class: "pishti-cards", role: "list", "aria-label": t("table.pishtis_of", { team: label }), dataset: { team: String(team) } },
          cards.length
            ? [
                cards.map((c, i) =>
                  h(
                    "span",
                    { role: "listitem", class: i < cards.length - SHOWN_RECORD_CARDS ? "earlier" : null },
                    cardFace(c, { size: "mini" }),
                  ),
                ),
                cards.length > SHOWN_RECORD_CARDS
                  ? h("span", { class: "more", "aria-hidden": "true" }, `+${cards.length - SHOWN_RECORD_CARDS}`)
                  : null,
              ]
            : h("span", { class: "none", role: "listitem" }, `${t("table.pishtis")}: ${t("table.no_pishtis")}`),
        ),
      );
    };
    box(this.recordsUs, myTeam);
    box(this.recordsThem, 1 - myTeam);
    if (view.face_down && view.face_down.length) {
      replace(
        this.faceDown,
        h("h2", {}, t("table.face_down_short")),
        h(
          "div",
          { class: "facedown-cards", role: "list", "aria-label": t("table.face_down"), id: "face-down" },
          view.face_down.map((c) => h("span", { role: "listitem" }, cardFace(c, { size: "mini" }))),
        ),
      );
      this.faceDown.hidden = false;
    } else if (view.face_down_team !== null && view.face_down_team !== undefined) {
      replace(this.faceDown, h("p", {}, t("table.face_down_other", { team: teamLabel(table, view.face_down_team, me) })));
      this.faceDown.hidden = false;
    } else {
      replace(this.faceDown);
      this.faceDown.hidden = true;
    }
  }

  /** The pause between decks (R7.8): the count stays open until Continue, then the
   * table says whom it still waits for, and for how long at most. */
  renderPause(state, effects) {
    const pause = state.table.pause;
    if (!pause) {
      // The next deck is dealt: a count still open has had its time.
      if (this.dialogDeck !== null && this.dialog.open && state.view.deck !== this.dialogDeck) {
        this.dialogDeck = null;
        this.dialog.close();
      }
      return;
    }
    const mine = state.seat !== null && pause.ready.includes(state.seat);
    if (mine) this.confirmed = pause.deck;
    // Continue was sent for this deck and the table waits for this seat again: it
    // came back during the pause after the table had counted it ready, or its
    // Continue was lost with the connection (a snapshot without it).  Not in the
    // moment between sending Continue and the table's answer, where a render (any
    // event) used to open the count again, for the next deck to close it.
    const again =
      this.continued === pause.deck &&
      (this.confirmed === pause.deck || effects.some((e) => e.kind === "snapshot"));
    if (!mine && again && pause.waiting.includes(state.seat)) {
      // The count is shown again, and Continue is sent again once it is closed.
      this.continued = null;
      this.confirmed = null;
      this.readDeck = null;
      if (!this.dialog.open) this.showCount(pause.deck);
    }
    this.maybeContinue();
    const fresh = !this.rendered || effects.some((e) => e.kind === "snapshot");
    if (fresh && !mine && !this.dialog.open && this.readDeck !== pause.deck) this.showCount(pause.deck);
  }

  /** Tell the table once that the player has read the count it pauses for. */
  maybeContinue() {
    const state = this.store.state;
    const pause = state.table && state.table.pause;
    if (!pause || pause.deck !== this.readDeck || this.continued === pause.deck) return;
    if (state.seat !== null && pause.ready.includes(state.seat)) return;
    this.continued = pause.deck;
    this.actions.continue(pause.deck);
  }

  pauseText(state) {
    const pause = state.table.pause;
    if (!pause) return "";
    const left = pauseLeft(state);
    const me = state.seat;
    // The table may wait for this player too (before Continue, or back after a reload).
    const mine = me !== null && pause.waiting.includes(me) && !pause.ready.includes(me);
    const others = pause.waiting.filter((s) => s !== me && !pause.ready.includes(s));
    if (!others.length && !mine) return t("pause.dealing");
    const names = others.map((s) => seatName(state.table, s)).join(", ");
    const key = mine ? (others.length ? "pause.waiting_you_and" : "pause.waiting_you") : "pause.waiting";
    if (left === null) return t(`${key}_for`, { names });
    return t(key, { names, s: Math.ceil(left) });
  }

  renderPlays(state) {
    const { table, seat: me } = state;
    const items = state.recent.map((p) => {
      const name = p.seat === me ? t("table.you") : seatName(table, p.seat);
      let what = "";
      if (p.outcome === OUTCOME.JACK_PISHTI) what = t("plays.jack_pishti", { n: p.count || 2 });
      else if (p.outcome === OUTCOME.PISHTI) what = t("plays.pishti", { n: p.count || 2 });
      else if (p.outcome === OUTCOME.CAPTURE) what = p.count ? t("plays.took", { n: p.count }) : t("plays.took_pile");
      const team = teamOf(p.seat, table.players) === (me === null ? 0 : teamOf(me, table.players)) ? "us" : "them";
      return h(
        "li",
        { class: `play team-${team} outcome-${p.outcome}`, dataset: { seat: String(p.seat), card: p.card } },
        h("span", { class: "play-name" }, name),
        cardFace(p.card, { size: "mini" }),
        what ? h("span", { class: "play-what" }, what) : null,
        p.timeout ? h("span", { class: "play-timeout" }, t("plays.timeout")) : null,
      );
    });
    if (!items.length) items.push(h("li", { class: "play none" }, t("plays.none")));
    replace(this.plays, items);
  }

  renderHand(state) {
    const { table, view, seat: me } = state;
    this.handKeys.hidden = me === null;
    const mySeat = table.seats[me] || {};
    const myTurn = isMyTurn(state) && !state.seatLost;
    // On autopilot a card played by hand also takes the seat back (R7.3).
    const canPlay = myTurn && !state.pending;
    const hadFocus = this.hand.contains(document.activeElement);
    const focusCard = hadFocus ? document.activeElement.dataset.card : this.focusCard;
    this.section.classList.toggle("my-turn", myTurn);
    this.hand.classList.toggle("playable", canPlay);

    if (state.seatLost) this.turnLine.textContent = t("table.seat_lost");
    else if (state.table.pause) replace(this.turnLine, h("span", { class: "pause-line" }, this.pauseText(state)));
    else if (myTurn) replace(this.turnLine, t("table.your_turn"), h("span", { class: "time-left" }));
    else if (view.to_play !== null && view.to_play !== undefined && !view.finished) {
      this.turnLine.textContent = t("table.wait_turn", { name: seatName(table, view.to_play) });
    } else this.turnLine.textContent = "";

    const buttons = view.hand.map((card, i) =>
      h(
        "button",
        {
          type: "button",
          class: `hand-card${state.pending === card ? " pending" : ""}`,
          "aria-label": cardName(card),
          "aria-disabled": canPlay ? null : "true",
          "aria-keyshortcuts": String(i + 1),
          tabindex: "-1",
          dataset: { card },
          on: {
            click: () => this.playCard(card),
            focus: () => {
              this.focusCard = card;
              for (const b of this.hand.querySelectorAll("button")) b.tabIndex = b.dataset.card === card ? 0 : -1;
            },
          },
        },
        cardFace(card, { label: false, size: "large" }),
      ),
    );
    replace(this.hand, buttons);
    const target = buttons.find((b) => b.dataset.card === focusCard) || buttons[0];
    if (target) target.tabIndex = 0;
    if (hadFocus && target) target.focus();

    // Built when the autopilot comes on, not at every render: a button remade with every
    // card the table plays for you could hardly be clicked, and lost the keyboard's focus.
    const autopilot = Boolean(mySeat.autopilot) && !state.seatLost;
    if (autopilot && this.autopilot.hidden) {
      replace(
        this.autopilot,
        h("span", {}, t("table.autopilot_on")),
        h(
          "button",
          { type: "button", class: "primary", id: "take-over", on: { click: () => this.actions.takeOver() } },
          t("table.take_over"),
        ),
      );
      this.autopilot.hidden = false;
    } else if (!autopilot && !this.autopilot.hidden) {
      replace(this.autopilot);
      this.autopilot.hidden = true;
    }
  }

  tickClock() {
    const state = this.store.state;
    const clock = state.table && state.table.clock;
    const left = clock ? clockLeft(state) : null;
    for (const [s, el] of Object.entries(this.seatEls)) {
      const ringEl = el.querySelector(".ring");
      const secs = el.querySelector(".clock-secs");
      const mine = clock && Number(s) === clock.seat;
      if (mine) setRing(ringEl, left, clock.tempo);
      else setRing(ringEl, null, 0);
      // The seconds show as the clock nears its end (R7.1).
      const show = mine && left !== null && left <= SHOW_SECONDS;
      if (secs) {
        secs.hidden = !show;
        secs.textContent = show ? String(Math.ceil(left)) : "";
      }
    }
    const myClock = clock && clock.seat === state.seat && left !== null;
    const low = myClock && left <= SHOW_SECONDS;
    this.section.classList.toggle("time-low", Boolean(low));
    const timeEl = this.turnLine.querySelector(".time-left");
    if (timeEl) timeEl.textContent = low ? ` · ${t("table.time_left", { s: Math.ceil(left) })}` : "";
    if (low && !this.warned) {
      this.warned = true;
      announce(t("table.time_left", { s: Math.ceil(left) }));
    }
    if (!myClock) this.warned = false;
    const pauseLine = this.turnLine.querySelector(".pause-line");
    if (pauseLine) pauseLine.textContent = this.pauseText(state);
    const pauseNote = this.dialog.querySelector(".pause-note");
    if (pauseNote) {
      const pause = state.table && state.table.pause;
      const left = pause && pause.deck === this.dialogDeck ? pauseLeft(state) : null;
      const key = state.seat === null ? "pause.next_deal_watch" : "pause.next_deal";
      pauseNote.textContent = left === null ? "" : t(key, { s: Math.ceil(left) });
    }
    if (myClock && left <= TICK_SECONDS && left > 0) {
      const second = Math.ceil(left);
      if (second !== this.lastTick) {
        this.lastTick = second;
        sound("tick");
      }
    } else this.lastTick = null;
  }

  // ---- effects ------------------------------------------------------------

  play(effect, state, said) {
    const { table } = state;
    const me = state.seat ?? 0;
    const who = (seat) => (seat === state.seat ? t("table.you") : seatName(table, seat));
    switch (effect.kind) {
      case "pishti": {
        pishtiBurst(this.effects, effect);
        sound(effect.jack ? "jack_pishti" : "pishti");
        const mine = effect.seat === state.seat;
        const key = effect.jack ? "burst.jack_announce" : "burst.announce";
        said.push(t(mine ? `${key}_you` : key, { name: who(effect.seat), card: cardName(effect.card) }));
        break;
      }
      case "captured":
        sweep(this.effects, effect.card, position(effect.seat, me, table.players), this.center.querySelector(".pile"));
        sound("capture");
        said.push(
          t(effect.seat === state.seat ? "table.captured_you" : "table.captured", {
            name: who(effect.seat),
            n: effect.count,
            card: cardName(effect.card),
          }),
        );
        break;
      case "played":
        sound("card");
        if (effect.timeout && effect.seat === state.seat) {
          const text = t("table.timeout_you", { card: cardName(effect.card) });
          this.showNotice(text, 7000);
          said.push(text);
        } else if (effect.timeout) {
          said.push(t("table.timeout_other", { name: who(effect.seat), card: cardName(effect.card) }));
        } else if (effect.seat !== me) {
          said.push(t("table.played", { name: who(effect.seat), card: cardName(effect.card) }));
        }
        break;
      case "turn":
        sound("turn");
        said.push(t("table.you_turn_announce"));
        break;
      case "counted":
        this.showCount(effect.deck);
        break;
      case "reaction":
        this.reactions.show(effect, state);
        break;
      case "error":
        if (effect.ref === "react") this.reactions.refused(effect);
        break;
      default:
        break;
    }
  }

  // ---- count dialog -------------------------------------------------------

  showCount(deck) {
    const state = this.store.state;
    const count = state.table.deck_counts.find((d) => d.deck === deck);
    if (!count) return;
    this.lastDeckShown = deck;
    this.openDialog(
      t("count.title", { n: deck + 1 }),
      [countTable(state.table, count, state.seat, { caption: false }), h("p", { class: "pause-note", id: "pause-note" })],
      // A spectator's Continue would count for nothing: the dialog only closes (R7.8).
      t(state.seat === null ? "count.close" : "count.continue"),
    );
    this.dialogDeck = deck;
    this.tickClock();
  }

  showHistory() {
    const state = this.store.state;
    const counts = [...state.table.deck_counts].reverse();
    const body = counts.length
      ? h("div", { class: "count-history" }, counts.map((c) => countTable(state.table, c, state.seat)))
      : h("p", {}, t("count.none"));
    this.openDialog(t("count.history"), body, t("count.close"));
  }

  openDialog(title, body, closeLabel) {
    if (!this.dialog.open) this.returnFocus = document.activeElement;
    this.dialogDeck = null;
    replace(
      this.dialog,
      h(
        "form",
        { method: "dialog" },
        h("h2", { id: "count-dialog-title" }, title),
        h("div", { class: "dialog-body" }, body),
        h("div", { class: "dialog-actions" }, h("button", { class: "primary", id: "count-close", value: "close" }, closeLabel)),
      ),
    );
    if (!this.dialog.open) this.dialog.showModal();
    this.dialog.querySelector("#count-close").focus();
  }

  afterDialog() {
    const back = this.returnFocus;
    this.returnFocus = null;
    const first = this.hand.querySelector("button[tabindex='0']");
    if (back && document.contains(back) && back !== document.body) back.focus();
    else if (first) first.focus();
  }

  // ---- input --------------------------------------------------------------

  playCard(card) {
    const state = this.store.state;
    const view = state.view;
    const me = state.seat;
    if (!view || view.finished || state.seatLost) return;
    if (view.to_play !== me) {
      this.outOfTurn(card, state);
      return;
    }
    if (state.pending) return;
    this.actions.play(card);
  }

  /** A card clicked out of turn: it shakes, and the table says whose turn it is. */
  outOfTurn(card, state) {
    const button = this.hand.querySelector(`button[data-card='${card}']`);
    if (button) {
      button.classList.remove("nudge");
      void button.offsetWidth; // restart the animation
      button.classList.add("nudge");
    }
    const to = state.view.to_play;
    const text =
      to === null || to === undefined
        ? t("table.wait_deal")
        : t("table.not_your_turn", { name: seatName(state.table, to) });
    this.showNotice(text, 2500);
    announce(text);
  }

  showNotice(text, ms) {
    clearTimeout(this.noticeTimer);
    this.notice.textContent = text;
    this.notice.hidden = false;
    this.noticeTimer = setTimeout(() => {
      this.notice.hidden = true;
      this.notice.textContent = "";
    }, ms);
  }

  onHandKey(e) {
    const buttons = [...this.hand.querySelectorAll("button")];
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    let next = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") next = (i + 1) % buttons.length;
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") next = (i - 1 + buttons.length) % buttons.length;
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = buttons.length - 1;
    if (next !== null) {
      e.preventDefault();
      buttons[next].focus();
    }
  }

  onGlobalKey(e) {
    if (this.dialog.open || this.leaveDialog.open || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag)) return;
    const n = Number(e.key);
    if (Number.isInteger(n) && n >= 1 && n <= 4) {
      const button = this.hand.querySelectorAll("button")[n - 1];
      if (button) {
        e.preventDefault();
        button.focus();
        this.playCard(button.dataset.card);
      }
    }
  }

  /** Ask in the table's language (an in-page dialog), then leave for good (R7.5). */
  leave() {
    if (this.leaveDialog.open) return;
    this.returnFocus = document.activeElement;
    this.leaveDialog.returnValue = "";
    this.leaveDialog.showModal();
    this.leaveDialog.querySelector("#leave-cancel").focus();
  }
}
