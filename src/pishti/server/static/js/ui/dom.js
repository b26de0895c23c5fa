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

const KEPT = new WeakMap(); // stand-in comment -> the node it stands for (keep, patch)

/**
 * Put `node` in a tree being built to `patch` the element `root` with: `node`
 * itself when it is not inside `root` (a first draw), else a stand-in, so that
 * building the tree does not take `node` out of the page.  Null stays null.
 */
export function keep(node, root) {
  if (!node || !root || !root.contains(node)) return node || null;
  const slot = document.createComment("kept");
  KEPT.set(slot, node);
  return slot;
}

function slotIn(el) {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_COMMENT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (KEPT.has(node)) return node;
  return null;
}

/**
 * Make the element `prev` (in the page) look like `next` (just built, not in the
 * page) without taking `prev` out of the page: its attributes and children become
 * `next`'s, except that each node `keep` stood in for stays where it is, and so do
 * its ancestors up to `prev` (updated the same way).  A button, or an ancestor of
 * it, taken out of the page between press and release loses the click and the
 * keyboard focus, even if put back at once.  Listeners of `next`'s kept-over
 * elements are not carried over.  Returns `prev`.
 */
export function patch(prev, next) {
  for (const attr of [...prev.attributes]) if (!next.hasAttribute(attr.name)) prev.removeAttribute(attr.name);
  for (const attr of [...next.attributes]) {
    if (prev.getAttribute(attr.name) !== attr.value) prev.setAttribute(attr.name, attr.value);
  }
  const order = [];
  for (const child of [...next.childNodes]) {
    const slot = KEPT.has(child) ? child : child.nodeType === Node.ELEMENT_NODE ? slotIn(child) : null;
    if (!slot) {
      order.push(child);
      continue;
    }
    let mine = KEPT.get(slot);
    while (mine && mine.parentNode !== prev) mine = mine.parentNode;
    if (!mine) {
      order.push(KEPT.get(slot)); // not in `prev` after all: it moves, as any node would
      continue;
    }
    if (slot !== child) patch(mine, child);
    order.push(mine);
  }
  const stays = new Set(order.filter((node) => node.parentNode === prev));
  for (const node of [...prev.childNodes]) if (!stays.has(node)) node.remove();
  let cursor = null;
  for (const node of order) {
    if (!stays.has(node)) {
      if (cursor) cursor.after(node);
      else prev.prepend(node);
    }
    cursor = node;
  }
  return prev;
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
