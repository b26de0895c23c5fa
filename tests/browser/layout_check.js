() => {
  // What a player must see, each as its own box: nothing of it may overlap another
  // group's box or leave the window, and the page must not scroll (issue: every size).
  const W = window.innerWidth;
  const H = window.innerHeight;
  const problems = [];
  const boxes = [];
  const add = (group, el) => {
    if (!el || el.hidden) return;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return;
    const name = group + (el.dataset.seat ? `#${el.dataset.seat}` : el.dataset.card ? `#${el.dataset.card}` : "");
    boxes.push({ group, name, r });
  };
  for (const el of document.querySelectorAll(".table-screen .seat")) {
    add("seat", el.querySelector(".avatar"));
    add("seat-info", el.querySelector(".seat-info"));
    add("mini-hand", el.querySelector(".mini-hand"));
  }
  add("stock", document.querySelector("#stock"));
  add("pile", document.querySelector("#pile"));
  add("records-us", document.querySelector(".records.us"));
  add("records-them", document.querySelector(".records.them"));
  add("facedown", document.querySelector(".facedown"));
  add("match-info", document.querySelector(".match-info"));
  add("scores", document.querySelector("#scores"));
  add("bar-actions", document.querySelector(".bar-actions"));
  // Each button too: one may stick out of the bar (Leave once ran off a phone held sideways).
  for (const el of document.querySelectorAll(".bar-actions button")) add("bar-actions", el);
  for (const el of document.querySelectorAll("#scores .score")) add("scores", el);
  add("plays", document.querySelector("#plays"));
  add("turn-line", document.querySelector("#turn-line"));
  for (const el of document.querySelectorAll(".hand .hand-card")) add("hand", el);
  for (const b of boxes) {
    const r = b.r;
    if (r.left < -1 || r.top < -1 || r.right > W + 1 || r.bottom > H + 1) {
      problems.push(`${b.name} leaves the window: ${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},${Math.round(r.bottom)}`);
    }
  }
  // Text a player must read whole is never cut short (a long name in another's score
  // may be; one's own "You" / "Us" may not).
  for (const el of document.querySelectorAll(".plays .play.none, .bar-actions button, .score-value, .score.team-us .score-label, #deck-number")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
      problems.push(`"${el.textContent}" is cut: ${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`);
    }
  }
  const related = (a, b) => a.group === b.group || [a.group, b.group].sort().join() === "mini-hand,seat-info";
  for (let i = 0; i < boxes.length; i += 1) {
    for (let j = i + 1; j < boxes.length; j += 1) {
      const a = boxes[i];
      const b = boxes[j];
      if (related(a, b)) continue;
      const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (x > 1 && y > 1) problems.push(`${a.name} overlaps ${b.name} (${Math.round(x)}x${Math.round(y)} px)`);
    }
  }
  const doc = document.scrollingElement;
  // When the page scrolls, name what sticks out (a CI run once saw 396 > 390 and nothing more).
  const outside = (past) => {
    const names = [];
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && past(r)) {
        names.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${[...el.classList].join(".")}`);
      }
    }
    return names.slice(0, 8).join(" ");
  };
  if (doc.scrollHeight > H + 1) {
    problems.push(`the page scrolls down: ${doc.scrollHeight} > ${H} (${outside((r) => r.bottom > H + 1)})`);
  }
  if (doc.scrollWidth > W + 1) {
    problems.push(`the page scrolls sideways: ${doc.scrollWidth} > ${W} (${outside((r) => r.right > W + 1)})`);
  }
  return problems;
}
