// Small DOM helpers: build elements declaratively, no framework.

/**
 * Create an element.  `attrs` keys: `class`, `text`, `dataset` (object),
 * `on` (object of event listeners), `style` (object), booleans for boolean
 * attributes, anything else as an attribute.  Children may be nodes, strings,
 * arrays, or null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") Object.assign(el.style, value);
    else if (key === "on") {
      for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    } else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Create an SVG element with attributes. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

/** Replace every child of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Say `text` to screen readers through the polite live region. */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  // A new text node in a fresh task makes screen readers read it again.
  setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** Whether keyboard focus has fallen to the page itself (nothing the player can act on). */
export function focusLost() {
  const active = document.activeElement;
  return !active || active === document.body || active.id === "app" || !document.contains(active);
}
