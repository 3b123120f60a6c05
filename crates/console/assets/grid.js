// The items grid: the table's key attributes pinned first, then the columns the user chose and
// ordered (remembered per table in localStorage; a design's entity fields come first by
// default), resizable columns, a sticky header, long values elided with the full text in the
// cell's title, each value's type shown subtly, and the loaded rows rendered one screen page
// at a time. Invariant: values reach the page only as text nodes and the `title` property.
"use strict";

// Rows rendered at once; the rest of what was loaded is one click away.
MT.GRID_ROWS = 100;

// localStorage under "monotable.<key>", as JSON; a browser without storage just forgets.
MT.store = {
  get(key, fallback) {
    try {
      const text = localStorage.getItem("monotable." + key);
      return text === null ? fallback : JSON.parse(text);
    } catch (e) {
      return fallback;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem("monotable." + key, JSON.stringify(value));
    } catch (e) { /* storage full or disabled: the choice lasts for this page only */ }
  },
};

// The DynamoDB type of a value (`S`, `N`, `M`…) and its whole text.
MT.typeOf = (av) => (av && typeof av === "object" ? Object.keys(av)[0] || "" : "");
MT.fullText = function (av) {
  const p = MT.plain(av);
  return typeof p === "string" ? p : JSON.stringify(p);
};

// The design's field attribute names of the entity types among `entries`, in design order.
function entityFields(entries) {
  if (!MT.design) return [];
  const present = new Set(entries.map((e) => e.entity).filter(Boolean));
  const out = [];
  for (const entity of MT.design.entities || []) {
    if (!present.has(entity.name)) continue;
    for (const f of entity.fields || []) out.push(f.attr || f.name);
  }
  return out;
}

// Columns in display order and the pinned key attributes: `{pinned, shown, all}`.
MT.gridColumns = function (table, entries, choice) {
  const { pk, sk } = MT.keyAttrs(table.keys);
  const pinned = [pk && pk.name, sk && sk.name].filter(Boolean);
  const present = new Set();
  for (const e of entries) for (const n of Object.keys(e.item)) present.add(n);
  const defaults = [...new Set(entityFields(entries).concat([...present].sort()))]
    .filter((n) => present.has(n) && !pinned.includes(n));
  const order = (choice.order || []).filter((n) => defaults.includes(n));
  const all = order.concat(defaults.filter((n) => !order.includes(n)));
  const hidden = new Set(choice.hidden || []);
  return { pinned, all, shown: all.filter((n) => !hidden.has(n)) };
};

// One value cell: the text (elided by CSS, whole in the title) and its type.
function cell(av, col, link) {
  const text = MT.fullText(av);
  const value = link ? h("a", { href: link, class: "item-link v" }, text) : h("span", { class: "v" }, text);
  return h("div", { class: "c", title: text, dataset: { col } }, value, h("span", { class: "t" }, MT.typeOf(av)));
}

// The column chooser: a checkbox and up/down buttons per non-key column.
function chooser(cols, choice, save) {
  const move = (name, by) => {
    const order = cols.all.slice();
    const i = order.indexOf(name);
    const j = i + by;
    if (j < 0 || j >= order.length) return;
    [order[i], order[j]] = [order[j], order[i]];
    save({ ...choice, order });
  };
  const toggle = (name, on) => {
    const hidden = new Set(choice.hidden || []);
    if (on) hidden.delete(name);
    else hidden.add(name);
    save({ ...choice, hidden: [...hidden] });
  };
  return h("details", { class: "columns", id: "grid-columns", open: choice.open },
    h("summary", { onclick: () => { choice.open = !choice.open; } },
      "Columns (" + (cols.pinned.length + cols.shown.length) + " of " + (cols.pinned.length + cols.all.length) + ")"),
    h("p", { class: "muted" }, "Key attributes stay first: " + cols.pinned.join(", ")),
    h("ul", {}, cols.all.map((name, i) => h("li", { dataset: { col: name } },
      h("label", {}, h("input", { type: "checkbox", class: "col-toggle", checked: cols.shown.includes(name),
        onchange: (ev) => toggle(name, ev.target.checked) }), " " + name),
      h("button", { type: "button", class: "col-up", disabled: i === 0, title: "move left", onclick: () => move(name, -1) }, "↑"),
      h("button", { type: "button", class: "col-down", disabled: i === cols.all.length - 1, title: "move right", onclick: () => move(name, 1) }, "↓")))),
    h("button", { type: "button", id: "grid-reset", onclick: () => save({ open: choice.open }) }, "Default columns"));
}

// Drag the header's right edge to resize a column; the width is kept per table.
function grip(widths, col, apply) {
  return h("span", { class: "grip", title: "drag to resize", onpointerdown: (ev) => {
    ev.preventDefault();
    // The header's box is what `apply` sizes, so the drag starts from its width.
    const box = ev.target.closest(".th");
    const start = ev.clientX;
    const from = box.getBoundingClientRect().width;
    const moved = (e) => apply(col, Math.max(48, Math.round(from + e.clientX - start)));
    const done = () => {
      document.removeEventListener("pointermove", moved);
      document.removeEventListener("pointerup", done);
      widths.save();
    };
    document.addEventListener("pointermove", moved);
    document.addEventListener("pointerup", done);
  } });
}

// Export buttons for the result a grid shows: this page (the request as sent, one page) or
// the whole result (from the first page to the last, on the server), as CSV in the grid's
// columns or as DynamoDB JSON lines. `source` is `{op, request}` of the page shown.
function exporter(source, columns, keys) {
  const out = h("span", { class: "export-out" });
  const run = async (whole, format) => {
    out.replaceChildren(h("span", { class: "muted" }, "Exporting…"));
    const request = { ...source.request };
    if (whole) {
      request.cursor = null;
      request.nextToken = null;
      request.limit = 1000;
    }
    try {
      const file = await MT.api("export", {
        source: source.op, request, format, pages: whole ? null : 1,
        columns: whole ? null : columns, keys,
      });
      out.replaceChildren(MT.download(file.name, file.contentType, file.body, "export-file"),
        h("span", { class: "muted" }, " " + file.items + " items"));
    } catch (e) {
      out.replaceChildren(MT.error(e));
    }
  };
  const button = (id, label, whole, format) => h("button", { type: "button", id, onclick: () => run(whole, format) }, label);
  return h("div", { class: "toolbar export" }, h("span", { class: "muted" }, "Export"),
    button("export-page-csv", "page as CSV", false, "csv"), button("export-page-jsonl", "page as JSON lines", false, "jsonl"),
    button("export-all-csv", "whole result as CSV", true, "csv"), button("export-all-jsonl", "whole result as JSON lines", true, "jsonl"),
    out);
}

// The grid of `entries` (`{item, entity, decoded}`) of `table`. Options: `chooser` (default
// true) shows the column chooser; `source` (`{op, request}`) offers exports; `id` names the
// element.
MT.grid = function (table, entries, options) {
  const opts = { chooser: true, ...options };
  const root = h("div", { class: "grid-box", id: opts.id });
  const state = { offset: 0, choice: MT.store.get("columns." + table.name, {}) };
  const widthMap = MT.store.get("widths." + table.name, {});
  const widths = { save: () => MT.store.set("widths." + table.name, widthMap) };
  const designed = entries.some((e) => e.entity || (e.decoded && Object.keys(e.decoded).length));
  let tableEl = null;
  const applyWidth = (col, px) => {
    widthMap[col] = px;
    if (!tableEl) return;
    for (const el of tableEl.querySelectorAll(".c, .th")) {
      if (el.dataset.col !== col) continue;
      el.style.setProperty("width", px + "px");
      el.style.setProperty("max-width", px + "px");
    }
  };
  const render = () => {
    const cols = MT.gridColumns(table, entries, opts.chooser ? state.choice : {});
    const columns = cols.pinned.concat(cols.shown);
    const page = entries.slice(state.offset, state.offset + MT.GRID_ROWS);
    const head = h("tr", {},
      designed ? [h("th", {}, "entity"), h("th", {}, "key fields")] : [],
      columns.map((c) => h("th", { class: cols.pinned.includes(c) ? "pin" : "" },
        h("div", { class: "th", dataset: { col: c } }, h("span", {}, c), grip(widths, c, applyWidth)))));
    const rows = page.map((e) => {
      // A row links to its item only when it carries the whole key (a projection may not).
      const whole = table.keys.length > 0 && table.keys.every((k) => k.name in e.item);
      const href = whole ? MT.itemHref(table.name, MT.keyOf(table, e.item)) : null;
      return h("tr", { class: "item-row", dataset: { entity: e.entity || "" } },
        designed ? [h("td", { tabIndex: -1 }, MT.chip(e.entity)),
          h("td", { class: "decoded", tabIndex: -1 }, Object.entries(e.decoded || {}).map(([k, v]) => k + " = " + v).join(", "))] : [],
        columns.map((c, i) => {
          const key = cols.pinned.includes(c);
          // tabIndex -1: a cell takes focus by click or arrow key (keys.js), not by Tab.
          if (!(c in e.item)) return h("td", { class: key ? "pin" : "", tabIndex: -1 });
          return h("td", { class: key ? "pin" : "", tabIndex: -1, dataset: { attr: c } }, cell(e.item[c], c, i === 0 ? href : null));
        }));
    });
    tableEl = h("table", { class: "items" }, h("thead", {}, head), h("tbody", {}, rows));
    for (const [col, px] of Object.entries(widthMap)) applyWidth(col, px);
    const last = Math.min(state.offset + MT.GRID_ROWS, entries.length);
    const pager = entries.length > MT.GRID_ROWS ? h("div", { class: "pager" },
      h("span", { id: "grid-rows" }, "Rows " + (state.offset + 1) + "–" + last + " of " + entries.length),
      h("button", { type: "button", id: "grid-prev", disabled: state.offset === 0,
        onclick: () => { state.offset -= MT.GRID_ROWS; render(); } }, "Previous rows"),
      h("button", { type: "button", id: "grid-next", disabled: last >= entries.length,
        onclick: () => { state.offset += MT.GRID_ROWS; render(); } }, "Next rows")) : null;
    const save = (choice) => {
      state.choice = choice;
      MT.store.set("columns." + table.name, { order: choice.order, hidden: choice.hidden });
      render();
    };
    root.replaceChildren(...[opts.chooser ? chooser(cols, state.choice, save) : null,
      opts.source ? exporter(opts.source, columns, cols.pinned) : null,
      h("div", { class: "grid-wrap" }, tableEl), pager].filter(Boolean));
  };
  render();
  return root;
};
