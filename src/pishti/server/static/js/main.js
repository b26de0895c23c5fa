// Entry point: load the texts, wire the language switch, start the app.

import { App } from "./app.js";
import { initI18n, language, LANGUAGES, onLanguageChange, setLanguage, t } from "./i18n.js";
import { setSound, sound, soundOn } from "./ui/sound.js";

function translateStatic() {
  for (const el of document.querySelectorAll("[data-i18n-aria]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  }
  for (const el of document.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const button of document.querySelectorAll(".lang-switch [data-lang]")) {
    const lang = button.dataset.lang;
    button.setAttribute("aria-pressed", String(lang === language()));
    // The visible "TR"/"EN" is the button's name; the language's full name is its description.
    button.title = lang === "tr" ? "Türkçe" : "English";
  }
  document.getElementById("sound-toggle").setAttribute("aria-pressed", String(soundOn()));
}

async function boot() {
  try {
    await initI18n();
  } catch (err) {
    document.getElementById("app").textContent = String(err);
    return;
  }
  for (const button of document.querySelectorAll(".lang-switch [data-lang]")) {
    button.addEventListener("click", () => {
      if (LANGUAGES.includes(button.dataset.lang)) setLanguage(button.dataset.lang);
    });
  }
  document.getElementById("sound-toggle").addEventListener("click", () => {
    setSound(!soundOn());
    translateStatic();
    sound("turn");
  });
  onLanguageChange(translateStatic);
  translateStatic();
  const app = new App(document.getElementById("app"));
  window.pishtiApp = app; // for debugging in the console
  app.route();
  if ("serviceWorker" in navigator) {
    // The client's files are cached so it opens fast and installs as an app;
    // the game itself always goes to the server.
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  }
}

boot();
