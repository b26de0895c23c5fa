// The table talk on the table screen: the microphone and camera buttons, and each
// seat's video in its avatar (inside the clock ring), its speaking light and the
// button that mutes that person for oneself.

import { t } from "../i18n.js";
import { h, svg } from "./dom.js";

function icon(kind) {
  const paths = {
    mic: "M12 3a3 3 0 0 0-3 3v6a3 3 0 0 0 6 0V6a3 3 0 0 0-3-3zm-6 9a6 6 0 0 0 12 0M12 18v3M8 21h8",
    cam: "M3 7h12v10H3zM15 10l6-3v10l-6-3",
    speaker: "M4 9h4l5-4v14l-5-4H4zM16 9a4 4 0 0 1 0 6",
  };
  return svg(
    "svg",
    { class: "talk-icon", viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" },
    svg("path", { d: paths[kind] }),
    svg("path", { class: "talk-slash", d: "M4 4l16 16" }),
  );
}

/**
 * The person's own microphone and camera buttons (off until pressed; aria-pressed
 * says which are on).  Pass the group returned before as `group` and the same
 * buttons come back with their state brought up to date: the table is drawn again
 * many times a second while peers connect, and a click whose button was replaced
 * between press and release would be lost.
 */
export function talkButtons(talk, group = null) {
  if (group) {
    for (const kind of ["mic", "cam"]) {
      const el = group.querySelector(`#talk-${kind}`);
      el.classList.toggle("on", Boolean(talk[kind]));
      el.setAttribute("aria-pressed", String(talk[kind]));
    }
    return group;
  }
  const button = (kind) =>
    h(
      "button",
      {
        type: "button",
        class: `talk-toggle${talk[kind] ? " on" : ""}`,
        id: `talk-${kind}`,
        "aria-pressed": String(talk[kind]),
        "aria-label": t(`talk.${kind}`),
        title: t(`talk.${kind}`),
        on: { click: () => talk.toggle(kind) },
      },
      icon(kind),
    );
  return h("div", { class: "talk-buttons", role: "group", "aria-label": t("talk.group") }, button("mic"), button("cam"));
}

/**
 * Dress `avatar` of `seat` (whose name is `name`) with its table talk: the video
 * inside the ring when the camera is on, the state in its accessible name.
 * Returns `{classes, mute}`: classes for the seat, and the mute button (null
 * for one's own seat and for a seat without talk).  Pass that seat's mute button
 * returned before as `mute` and it comes back brought up to date, the same node
 * (as with talkButtons).
 */
export function talkSeat(talk, seat, name, avatar, mute = null) {
  const state = talk.seatState(seat);
  if (!state) return { classes: [], mute: null };
  const classes = [];
  const words = [];
  if (state.cam && state.video) {
    avatar.insertBefore(state.video, avatar.querySelector(".ring"));
    // A video taken out of the page (its camera was off) was paused by the browser.
    if (state.video.paused) state.video.play().catch(() => {});
    avatar.classList.add("has-video");
    classes.push("talk-cam");
    words.push(t("talk.state_cam"));
  }
  if (state.mic) {
    classes.push("talk-mic");
    words.push(t("talk.state_mic"));
  }
  if (state.speaking) classes.push("speaking");
  if (state.muted) {
    classes.push("talk-muted");
    words.push(t("talk.state_muted"));
  }
  if (state.unreachable) words.push(t("talk.state_unreachable"));
  if (words.length) avatar.setAttribute("aria-label", `${avatar.getAttribute("aria-label")}, ${words.join(", ")}`);
  if (state.mine) return { classes, mute: null };
  const label = t("talk.mute", { name });
  const pressed = String(Boolean(state.muted));
  if (mute) {
    mute.setAttribute("aria-pressed", pressed);
    mute.setAttribute("aria-label", label);
    mute.title = label;
    return { classes, mute };
  }
  const made = h(
    "button",
    {
      type: "button",
      class: "talk-mute",
      id: `talk-mute-${seat}`,
      "aria-pressed": pressed,
      "aria-label": label,
      title: label,
      on: { click: () => talk.toggleMute(seat) },
    },
    icon("speaker"),
  );
  return { classes, mute: made };
}
