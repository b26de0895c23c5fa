// Entry point: load the texts, wire the language switch, start the app.

import { App } from "./app.js";
import { initI18n, language, LANGUAGES, onLanguageChange, setLanguage, t } from "./i18n.js";

function translateStatic() {
  for (const el of document.querySelectorAll("[data-i18n-aria]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  }
  for (const button of document.querySelectorAll(".lang-switch [data-lang]")) {
    const lang = button.dataset.lang;
    button.setAttribute("aria-pressed", String(lang === language()));
    button.title = lang === "tr" ? "Türkçe" : "English";
    button.setAttribute("aria-label", button.title);
  }
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
  onLanguageChange(translateStatic);
  translateStatic();
  const app = new App(document.getElementById("app"));
  window.pishtiApp = app; // for debugging in the console
  app.route();
}

boot();
