// Single-table views: one partition with every entity type at once, grouped and coloured;
// the design's entity types with their key templates; access patterns run by name.
"use strict";

MT.design = undefined;
MT.loadDesign = async function () {
  if (MT.design === undefined) MT.design = (await MT.api("design")).design;
  return MT.design;
};

// Items grouped by entity type, one coloured block per type.
MT.grouped = function (t, entries) {
  const groups = new Map();
  for (const e of entries) {
    const k = e.entity || "(no entity type)";
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(e);
  }
  return h("div", { id: "groups" }, [...groups].map(([entity, list]) => {
    const block = h("section", { class: "group", dataset: { entity } },
      h("h3", {}, MT.chip(entity), " " + list.length + " item" + (list.length === 1 ? "" : "s")),
      MT.grid(t, list, { chooser: false }));
    block.style.setProperty("--c", MT.color(entity));
    return block;
  }));
};

// The aggregate view of one partition: a form for the partition-key value and the items of
// that partition grouped by entity type. `value` fills and runs it at once.
MT.partitionView = function (t, value) {
  const { pk } = MT.keyAttrs(t.keys);
  const input = h("input", { id: "p-value", placeholder: pk.name + " value", value: value || "" });
  const results = h("div", { id: "results" });
  const run = async (ev) => {
    if (ev) ev.preventDefault();
    try {
      let entries = [];
      let cursor = null;
      let last;
      do {
        last = await MT.api("query", { table: t.name, pk: { name: pk.name, value: MT.typed(pk.type, input.value) }, limit: 1000, cursor });
        entries = entries.concat(last.items);
        cursor = last.cursor;
      } while (cursor && entries.length < 5000);
      results.replaceChildren(h("p", { id: "partition-count" }, entries.length + " items in " + pk.name + " = " + input.value),
        MT.grouped(t, entries), MT.meta(last));
    } catch (e) {
      results.replaceChildren(MT.error(e));
    }
  };
  if (value) run();
  MT.onSlash = () => input.focus();
  return h("div", { class: "partition-view" },
    h("form", { class: "form", onsubmit: run }, h("label", {}, pk.name, input), h("button", { type: "submit", id: "p-run" }, "Show partition")),
    results);
};

MT.routes.push([/^\/table\/([^/]+)\/partition$/, async function (name) {
  const t = await MT.describe(name);
  MT.page("Partition of " + name, MT.tableTabs(name, "partition"),
    h("p", { class: "muted" }, "The aggregate view: every entity type stored under one partition key, as one Query returns them."),
    MT.partitionView(t));
}]);

// The design's entity types with their key templates; `counted` adds item and byte columns
// (`td.count`, `td.bytes`) that a statistics scan fills in.
MT.entityTable = function (design, counted) {
  const head = ["Entity", "PK template", "SK template", "Index keys"].concat(counted ? ["Items", "Bytes"] : []);
  return h("table", { class: "grid", id: "entities" },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, c)))),
    h("tbody", {}, design.entities.map((e) => h("tr", { dataset: { entity: e.name } },
      h("td", {}, MT.chip(e.name)), h("td", {}, h("code", {}, e.pk)), h("td", {}, h("code", {}, e.sk)),
      h("td", {}, Object.entries(e.indexes || {}).map(([i, k]) => i + ": " + (k.pk || "") + " / " + (k.sk || "")).join("; ")),
      counted ? [h("td", { class: "num count" }, "—"), h("td", { class: "num bytes" }, "—")] : []))));
};

// The placeholders of a key template, in order.
const vars = (template) => [...String(template || "").matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

MT.routes.push([/^\/table\/([^/]+)\/patterns$/, async function (name) {
  const t = await MT.describe(name);
  const design = await MT.loadDesign();
  if (!design) {
    MT.page("Access patterns", MT.tableTabs(name, "patterns"),
      h("p", { id: "no-design" }, "Start the console with --design FILE to see entity types, key templates and named access patterns. Items are still grouped by their EntityType attribute."));
    return;
  }
  const entities = MT.entityTable(design, false);
  const results = h("div", { id: "results" });
  const patterns = design.access_patterns.map((p) => {
    const reads = p.operation === "get" || p.operation === "query";
    const names = [...new Set(vars(p.key && p.key.pk).concat(vars(p.key && p.key.sk && p.key.sk.value)))];
    const inputs = Object.fromEntries(names.map((n) => [n, h("input", { name: n, placeholder: n, class: "param" })]));
    const run = async (ev) => {
      ev.preventDefault();
      // The result opens under the pattern that ran it, not at the bottom of the page.
      form.after(results);
      try {
        const params = Object.fromEntries(Object.entries(inputs).map(([k, el]) => [k, el.value]));
        const result = await MT.api("run-pattern", { table: name, pattern: p.name, params, limit: 100 });
        const entries = result.items || (result.item ? [result.item] : []);
        results.replaceChildren(h("h3", { id: "pattern-result" }, p.name + ": " + entries.length + " item(s)"),
          MT.grouped(t, entries), MT.meta(result));
      } catch (e) {
        results.replaceChildren(MT.error(e));
      }
    };
    const key = p.key ? p.key.pk + (p.key.sk ? "  ·  " + p.key.sk.op + " " + p.key.sk.value : "") : "(no key)";
    const form = h("form", { class: "pattern", dataset: { pattern: p.name }, onsubmit: run },
      h("strong", {}, p.name), " ", h("span", { class: "muted" }, p.operation + " on " + p.index + ": "), h("code", {}, key), " ",
      p.entities.map(MT.chip), h("div", {}, Object.values(inputs),
        reads ? h("button", { type: "submit", class: "run-pattern" }, "Run") : h("span", { class: "muted" }, "writes are not run from the console")));
    return form;
  });
  MT.page("Access patterns of " + design.app + "/" + design.model, MT.tableTabs(name, "patterns"),
    h("h3", {}, "Entity types"), entities, h("h3", {}, "Access patterns"), h("div", { id: "patterns" }, patterns), results);
}]);
