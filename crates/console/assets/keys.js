// Keyboard: "/" focuses the page's filter (MT.onSlash, set by the page), Enter runs the form
// it is typed in (forms submit), the arrow keys move between the cells of a grid once one has
// focus (a click, or ArrowDown with nothing focused), Enter on a cell opens its item, and
// Escape closes what is open: a pending confirmation, then an open panel, then the field.
"use strict";

MT.onSlash = null;

// The cell of the grid at a row and column offset from `td`, if there is one.
function neighbour(td, rows, cols) {
  const tr = td.parentElement;
  const row = rows ? (rows > 0 ? tr.nextElementSibling : tr.previousElementSibling) : tr;
  if (!row) return null;
  return row.children[td.cellIndex + cols] || null;
}

const typing = (el) => el && (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) || el.isContentEditable);

document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const active = document.activeElement;
  if (ev.key === "/" && !typing(active) && MT.onSlash) {
    ev.preventDefault();
    MT.onSlash();
    return;
  }
  if (ev.key === "Escape") {
    const ask = document.querySelector(".confirm:not([hidden])");
    const open = [...document.querySelectorAll("#main details[open]")].filter((d) => !d.classList.contains("meta")).pop();
    if (ask) ask.hidden = true;
    else if (open) open.open = false;
    else if (active && active !== document.body) active.blur();
    return;
  }
  const cell = active && active.closest && active.closest("table.items td");
  if (!cell && ev.key === "ArrowDown" && (!active || active === document.body)) {
    const first = document.querySelector("#main table.items tbody td");
    if (first) {
      ev.preventDefault();
      first.focus();
    }
    return;
  }
  if (!cell || typing(active)) return;
  const moves = { ArrowDown: [1, 0], ArrowUp: [-1, 0], ArrowRight: [0, 1], ArrowLeft: [0, -1] };
  if (moves[ev.key]) {
    ev.preventDefault();
    const next = neighbour(cell, ...moves[ev.key]);
    if (next) next.focus();
  } else if (ev.key === "Enter") {
    const link = cell.parentElement.querySelector("a.item-link");
    if (link) {
      ev.preventDefault();
      link.click();
    }
  }
});
