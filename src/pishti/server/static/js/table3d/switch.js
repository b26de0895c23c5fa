// The choice between the 2D table and the 3D one, at any moment: the "3D"
// button in the top bar and the V key switch; the choice is remembered in
// this browser; `?view=3d` or `?view=2d` in the address opens either.  The
// 3D scene (and three.js) is loaded only when it is first opened.  Where
// WebGL is missing or frames come too slowly, the table says so once and
// stays in 2D.  The 2D table (its buttons, names and announcements) is always
// there underneath: the 3D scene only draws the same state.

import { t } from "../i18n.js";
import * as storage from "../storage.js";
import { announce } from "../ui/dom.js";

/** The view the address asks for ("3d", "2d") or null. */
export function addressView() {
  const value = new URLSearchParams(location.search).get("view");
  return value === "3d" || value === "2d" ? value : null;
}

/** Whether this browser can draw with WebGL at all. */
export function webglAvailable() {
  try {
    const probe = document.createElement("canvas");
    return Boolean(probe.getContext("webgl2") || probe.getContext("webgl"));
  } catch {
    return false;
  }
}

export class TableView {
  /** `screen` is the table screen; the view follows its updates. */
  constructor(screen) {
    this.screen = screen;
    this.scene = null;
    this.opening = null;
    this.state = null;
    this.button = document.getElementById("view-toggle");
    this.onClick = () => this.toggle(true);
    this.onKey = (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey || e.repeat) return;
      if (e.key !== "v" && e.key !== "V") return;
      const tag = (e.target && e.target.tagName) || "";
      if (["INPUT", "TEXTAREA", "SELECT"].includes(tag)) return;
      e.preventDefault();
      this.toggle(true);
    };
    if (this.button) {
      this.button.hidden = false;
      this.button.title = t("view.toggle_title");
      this.button.addEventListener("click", this.onClick);
    }
    document.addEventListener("keydown", this.onKey);
    this.renderButton();
    if ((addressView() || storage.getTableView()) === "3d") this.open(false);
  }

  destroy() {
    this.destroyed = true;
    document.removeEventListener("keydown", this.onKey);
    if (this.button) {
      this.button.removeEventListener("click", this.onClick);
      this.button.hidden = true;
    }
    this.closeScene();
  }

  /** Whether the 3D table is shown (or being opened). */
  is3d() {
    return Boolean(this.scene || this.opening);
  }

  update(state, effects) {
    this.state = state;
    if (this.scene) this.scene.update(state, effects);
  }

  toggle(chosen) {
    if (this.is3d()) {
      this.closeScene();
      if (chosen) {
        storage.setTableView("2d");
        announce(t("view.on_2d"));
      }
    } else {
      if (chosen) storage.setTableView("3d");
      this.open(chosen);
    }
    this.renderButton();
  }

  /** Open the 3D table; `chosen` when the player asked just now (then a refusal is always said). */
  open(chosen) {
    if (!webglAvailable()) {
      this.refuse("view.no_webgl", chosen);
      return;
    }
    const opening = import("./scene.js")
      .then(({ TableScene }) => {
        if (this.opening !== opening || this.destroyed) return;
        this.opening = null;
        this.scene = new TableScene(this.screen, { onSlow: () => this.refuse("view.too_slow", true) });
        window.pishtiScene = this.scene; // for the browser tests and the console
        if (this.state) this.scene.update(this.state, []);
        if (chosen) announce(t("view.on_3d"));
        this.renderButton();
      })
      .catch((err) => {
        console.warn("pishti: the 3D table could not be opened", err);
        if (this.opening === opening) this.refuse("view.failed", true);
      });
    this.opening = opening;
    this.renderButton();
  }

  closeScene() {
    this.opening = null;
    if (this.scene) {
      this.scene.destroy();
      if (window.pishtiScene === this.scene) window.pishtiScene = null;
    }
    this.scene = null;
    this.renderButton();
  }

  /** Stay in 2D and say why: once in this browser, or every time the player asks. */
  refuse(key, chosen) {
    this.closeScene();
    if (chosen || !storage.getView3dNoticed()) {
      storage.setView3dNoticed();
      this.screen.showNotice(t(key), 8000);
      announce(t(key));
    }
    document.documentElement.dataset.view3d = key.slice("view.".length);
  }

  renderButton() {
    if (this.button) this.button.setAttribute("aria-pressed", String(this.is3d()));
  }
}
