// Turkish and English texts: chosen from the browser's language on the first
// visit, then from the player's choice.  Texts live in /static/i18n/{lang}.json.

import * as storage from "./storage.js";

export const LANGUAGES = ["tr", "en"];
const dictionaries = {};
let current = "en";
const listeners = new Set();

/** The language of the first visit: Turkish for a Turkish browser, else English. */
export function browserLanguage(list = navigator.languages || [navigator.language]) {
  for (const tag of list) {
    const base = String(tag || "").toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function load(lang) {
  if (!dictionaries[lang]) {
    const response = await fetch(`/static/i18n/${lang}.json`);
    if (!response.ok) throw new Error(`cannot load the ${lang} texts`);
    dictionaries[lang] = await response.json();
  }
  return dictionaries[lang];
}

/** Load the stored or browser language (and English as the fallback). */
export async function initI18n() {
  const stored = storage.getLanguage();
  const lang = LANGUAGES.includes(stored) ? stored : browserLanguage();
  await Promise.all([load("en"), load(lang)]);
  current = lang;
  storage.setLanguage(lang);
  document.documentElement.lang = lang;
}

export function language() {
  return current;
}

/** Switch the language and tell every listener (screens re-render). */
export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) return;
  await load(lang);
  current = lang;
  storage.setLanguage(lang);
  document.documentElement.lang = lang;
  for (const fn of listeners) fn(lang);
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The text of `key` with `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  const text = dictionaries[current]?.[key] ?? dictionaries.en?.[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (match, name) =>
    name in params ? String(params[name]) : match,
  );
}

/** `text` with its first letter upper-cased the way the current language does it. */
export function capitalize(text) {
  if (!text) return text;
  return text.charAt(0).toLocaleUpperCase(current) + text.slice(1);
}
