// A table's overview, where a table opens when the console has a design: the design's entity
// types (with items and bytes per type once counted), indexes, access patterns and the
// partition view; the largest partitions by items and by bytes from a Scan started on request,
// with its progress. Without a design a table opens on its items.
"use strict";

const TOP = 10;

// Adds up statistics pages (`stats` calls) with a progress bar until the table is read.
async function countTable(t, bar, status, onDone) {
  const { pk } = MT.keyAttrs(t.keys);
  const entities = {};
  const partitions = new Map();
  let scanned = 0;
  let cursor = null;
  bar.max = Math.max(t.itemCount || 1, 1);
  bar.value = 0;
  do {
    const page = await MT.api("stats", { table: t.name, pk: pk.name, cursor });
    for (const [name, s] of Object.entries(page.entities)) {
      const e = entities[name] || (entities[name] = { items: 0, bytes: 0 });
      e.items += s.items;
      e.bytes += s.bytes;
    }
    for (const p of page.partitions) {
      const e = partitions.get(p.key) || { key: p.key, items: 0, bytes: 0 };
      e.items += p.items;
      e.bytes += p.bytes;
      partitions.set(p.key, e);
    }
    scanned += page.scanned;
    cursor = page.cursor;
    bar.max = Math.max(bar.max, scanned);
    bar.value = scanned;
    status.textContent = "Scanned " + scanned + " of about " + (t.itemCount ?? "?") + " items";
  } while (cursor);
  bar.value = bar.max;
  status.textContent = "Scanned " + scanned + " items";
  onDone(entities, [...partitions.values()]);
}

function largest(list, by, id, open) {
  const top = list.slice().sort((a, b) => b[by] - a[by] || (a.key < b.key ? -1 : 1)).slice(0, TOP);
  return h("table", { class: "grid", id },
    h("thead", {}, h("tr", {}, h("th", {}, "Partition"), h("th", {}, "Items"), h("th", {}, "Bytes"))),
    h("tbody", {}, top.map((p) => h("tr", { dataset: { partition: p.key } },
      h("td", { class: "pin" }, h("a", { href: "#", class: "open-partition", onclick: (ev) => { ev.preventDefault(); open(p.key); } }, p.key)),
      h("td", { class: "num" }, p.items), h("td", { class: "num" }, p.bytes)))));
}

MT.routes.push([/^\/table\/([^/]+)(?:\/overview)?$/, async function (name) {
  const design = MT.session.design ? await MT.loadDesign() : null;
  if (!design) return MT.itemsPage(name);
  const t = await MT.describe(name, true);
  const entities = MT.entityTable(design, true);
  const indexes = h("ul", { id: "overview-indexes" }, t.indexes.map((i) => h("li", {},
    h("code", {}, i.name), " " + i.kind + " on " + i.keys.map((k) => k.name).join(", "))));
  const patterns = h("ul", { id: "overview-patterns" }, design.access_patterns.map((p) => h("li", {},
    h("a", { href: "#/table/" + encodeURIComponent(name) + "/patterns" }, p.name), " ",
    h("span", { class: "muted" }, p.operation + " on " + p.index), " ", p.entities.map(MT.chip))));
  const partitionBox = h("div", { id: "overview-partition" }, MT.partitionView(t));
  const openPartition = (key) => {
    partitionBox.replaceChildren(MT.partitionView(t, key));
    partitionBox.scrollIntoView({ block: "start" });
  };
  const bar = h("progress", { id: "stats-progress", max: 1, value: 0 });
  const status = h("span", { id: "stats-status", class: "muted" });
  const tops = h("div", { class: "cols2", id: "largest" });
  const done = (counts, partitions) => {
    for (const row of entities.querySelectorAll("tbody tr")) {
      const c = counts[row.dataset.entity] || { items: 0, bytes: 0 };
      row.querySelector(".count").textContent = c.items;
      row.querySelector(".bytes").textContent = c.bytes;
    }
    const other = counts["(no entity type)"];
    if (other) entities.querySelector("tbody").append(h("tr", { dataset: { entity: "(no entity type)" } },
      h("td", {}, MT.chip(null)), h("td", { colspan: 3, class: "muted" }, "items of no entity type"),
      h("td", { class: "num count" }, other.items), h("td", { class: "num bytes" }, other.bytes)));
    tops.replaceChildren(
      h("div", {}, h("h4", {}, "Largest partitions by items"), largest(partitions, "items", "largest-items", openPartition)),
      h("div", {}, h("h4", {}, "Largest partitions by bytes"), largest(partitions, "bytes", "largest-bytes", openPartition)));
  };
  const count = async () => {
    try {
      await countTable(t, bar, status, done);
    } catch (e) {
      status.replaceChildren(MT.error(e));
    }
  };
  MT.page(name + " — " + design.app + "/" + design.model, MT.tableTabs(name, "overview"), MT.tableHeader(t),
    h("div", { class: "overview" },
      h("section", {}, h("h3", {}, "Entity types"), entities,
        h("div", { class: "toolbar" }, h("button", { type: "button", id: "stats-run", onclick: count }, "Count items and find the largest partitions (Scan)"), bar, status),
        tops),
      h("section", { class: "side" }, h("h3", {}, "Indexes"), indexes, h("h3", {}, "Access patterns"), patterns)),
    h("h3", {}, "Partition"), partitionBox);
}]);
