// The query and scan builder: Query (key condition typed from the key schema of the table or
// index) or Scan, filter rows that build the FilterExpression with #n…/:v… placeholders, a
// projection picker, direction and consistent read. It shows the request exactly as sent and
// the consumed capacity, pages with the sealed cursor, keeps a "run again" history and saved
// queries per table in localStorage (exported and imported as a JSON file).
"use strict";

const SORT_OPS = [["", "no condition"], ["eq", "="], ["lt", "<"], ["le", "<="], ["gt", ">"], ["ge", ">="], ["between", "between"], ["begins_with", "begins_with"]];
const FILTER_OPS = [["=", "="], ["<>", "≠"], ["<", "<"], ["<=", "<="], [">", ">"], [">=", ">="], ["between", "between"],
  ["begins_with", "begins_with"], ["contains", "contains"], ["exists", "exists"], ["not_exists", "not exists"]];
const FILTER_TYPES = ["S", "N", "B", "BOOL", "NULL"];
const HISTORY = 20;

MT.typed = (type, text) => ({ [type || "S"]: text });

// One filter value as DynamoDB JSON.
function filterValue(type, text) {
  if (type === "BOOL") return { BOOL: text.trim() === "true" };
  if (type === "NULL") return { NULL: true };
  return { [type]: text };
}

// The filter rows as `{expression, names, values}`; row i uses #n<i>, :v<i> (and :v<i>b).
MT.buildFilter = function (rows) {
  const parts = [];
  const names = {};
  const values = {};
  rows.filter((r) => r.attr).forEach((r, i) => {
    const n = "#n" + i;
    const v = ":v" + i;
    names[n] = r.attr;
    const value = () => { values[v] = filterValue(r.type, r.value); return v; };
    switch (r.op) {
      case "exists": parts.push("attribute_exists(" + n + ")"); break;
      case "not_exists": parts.push("attribute_not_exists(" + n + ")"); break;
      case "begins_with": case "contains": parts.push(r.op + "(" + n + ", " + value() + ")"); break;
      case "between":
        values[v + "b"] = filterValue(r.type, r.value2 || "");
        parts.push(n + " BETWEEN " + value() + " AND " + v + "b");
        break;
      default: parts.push(n + " " + r.op + " " + value());
    }
  });
  return { expression: parts.join(" AND "), names, values };
};

function filterRow(list, state) {
  const attr = h("input", { class: "f-attr", placeholder: "attribute", value: state.attr || "", list: "q-attrs" });
  const type = h("select", { class: "f-type" }, FILTER_TYPES.map((t) => h("option", { value: t, selected: t === (state.type || "S") }, t)));
  const op = h("select", { class: "f-op" }, FILTER_OPS.map(([v, l]) => h("option", { value: v, selected: v === (state.op || "=") }, l)));
  const value = h("input", { class: "f-value", placeholder: "value", value: state.value || "" });
  const value2 = h("input", { class: "f-value2", placeholder: "and", value: state.value2 || "" });
  const shape = () => {
    value.hidden = ["exists", "not_exists"].includes(op.value) || type.value === "NULL";
    value2.hidden = op.value !== "between";
  };
  op.addEventListener("change", shape);
  type.addEventListener("change", shape);
  shape();
  const el = h("div", { class: "filter-row" }, attr, type, op, value, value2,
    h("button", { type: "button", class: "f-remove", title: "remove this condition", onclick: () => { el.remove(); list.rows.delete(row); } }, "×"));
  const row = { el, get: () => ({ attr: attr.value.trim(), type: type.value, op: op.value, value: value.value, value2: value2.value }) };
  list.rows.add(row);
  list.el.append(el);
}

MT.routes.push([/^\/table\/([^/]+)\/query$/, async function (name) {
  const t = await MT.describe(name);
  const targets = [{ name: "", label: "table " + name, keys: t.keys }].concat(
    t.indexes.map((i) => ({ name: i.name, label: i.kind + " " + i.name, keys: i.keys })));
  const f = {
    mode: h("select", { id: "q-mode" }, h("option", { value: "query" }, "Query"), h("option", { value: "scan" }, "Scan")),
    index: h("select", { id: "q-index" }, targets.map((x) => h("option", { value: x.name }, x.label))),
    pk: h("input", { id: "q-pk" }),
    op: h("select", { id: "q-op" }, SORT_OPS.map(([v, l]) => h("option", { value: v }, l))),
    sk1: h("input", { id: "q-sk1" }),
    sk2: h("input", { id: "q-sk2", placeholder: "second value (between)" }),
    filter: h("input", { id: "q-filter", placeholder: "#s = :s (ANDed with the rows above)" }),
    names: h("input", { id: "q-names", placeholder: '{"#s": "status"}' }),
    values: h("input", { id: "q-values", placeholder: '{":s": {"S": "open"}}' }),
    projection: h("input", { id: "q-projection", placeholder: "all attributes; or attr1, attr2" }),
    forward: h("select", { id: "q-direction" }, h("option", { value: "asc" }, "ascending"), h("option", { value: "desc" }, "descending")),
    consistent: h("input", { id: "q-consistent", type: "checkbox" }),
    limit: h("input", { id: "q-limit", type: "number", min: 1, max: 1000, value: 25 }),
  };
  const filters = { el: h("div", { id: "q-filters" }), rows: new Set() };
  const known = new Set(t.keys.map((k) => k.name));
  const attrList = h("datalist", { id: "q-attrs" });
  const picker = h("div", { id: "q-picker", class: "picker" });
  const refreshKnown = (entries) => {
    for (const e of entries || []) for (const n of Object.keys(e.item)) known.add(n);
    attrList.replaceChildren(...[...known].sort().map((n) => h("option", { value: n })));
    const chosen = new Set(f.projection.value.split(",").map((s) => s.trim()).filter(Boolean));
    picker.replaceChildren(...[...known].sort().map((n) => h("label", {},
      h("input", { type: "checkbox", dataset: { attr: n }, checked: chosen.has(n), onchange: (ev) => {
        if (ev.target.checked) chosen.add(n);
        else chosen.delete(n);
        f.projection.value = [...chosen].join(", ");
      } }), " " + n)));
  };
  refreshKnown([]);
  const keyLabel = h("span", { class: "muted", id: "q-keys" });
  const target = () => targets.find((x) => x.name === f.index.value) || targets[0];
  const keyRows = [];
  const relabel = () => {
    const { pk, sk } = MT.keyAttrs(target().keys);
    keyLabel.textContent = pk.name + " (" + pk.type + ")" + (sk ? " / " + sk.name + " (" + sk.type + ")" : " (no sort key)");
    f.pk.placeholder = pk.name + " (" + pk.type + ")";
    f.sk1.placeholder = sk ? sk.name + " (" + sk.type + ")" : "";
    f.op.disabled = !sk;
    f.consistent.disabled = !!target().name && t.indexes.find((i) => i.name === target().name).kind === "GSI";
    f.sk2.hidden = f.op.value !== "between";
    f.sk1.hidden = !f.op.value;
    for (const row of keyRows) row.hidden = f.mode.value === "scan";
  };
  for (const el of [f.index, f.op, f.mode]) el.addEventListener("change", relabel);

  // The whole form as one object (history and saved queries) and back.
  const snapshot = () => ({
    mode: f.mode.value, index: f.index.value, pk: f.pk.value, op: f.op.value, sk1: f.sk1.value, sk2: f.sk2.value,
    filters: [...filters.rows].map((r) => r.get()), filter: f.filter.value, names: f.names.value, values: f.values.value,
    projection: f.projection.value, forward: f.forward.value, consistent: f.consistent.checked, limit: f.limit.value,
  });
  const restore = (s) => {
    for (const k of ["mode", "index", "pk", "op", "sk1", "sk2", "filter", "names", "values", "projection", "forward", "limit"]) {
      if (s[k] !== undefined) f[k].value = s[k];
    }
    f.consistent.checked = !!s.consistent;
    filters.rows.clear();
    filters.el.replaceChildren();
    for (const row of s.filters || []) filterRow(filters, row);
    relabel();
    refreshKnown([]);
  };

  // The API input for the form: the rows' expression ANDed with the typed one.
  const request = (cursor) => {
    const built = MT.buildFilter([...filters.rows].map((r) => r.get()));
    const typed = f.filter.value.trim();
    const filter = [built.expression, typed].filter(Boolean).map((e, _, all) => (all.length > 1 ? "(" + e + ")" : e)).join(" AND ");
    const names = { ...built.names, ...(f.names.value ? JSON.parse(f.names.value) : {}) };
    const values = { ...built.values, ...(f.values.value ? JSON.parse(f.values.value) : {}) };
    const input = {
      table: name, index: target().name || null,
      filter: filter || null,
      names: Object.keys(names).length ? names : null,
      values: Object.keys(values).length ? values : null,
      projection: f.projection.value || null,
      consistent: f.consistent.checked && !f.consistent.disabled,
      limit: Number(f.limit.value), cursor,
    };
    if (f.mode.value === "scan") return ["scan", input];
    const { pk, sk } = MT.keyAttrs(target().keys);
    input.pk = { name: pk.name, value: MT.typed(pk.type, f.pk.value) };
    input.sk = f.op.value && sk ? { name: sk.name, op: f.op.value, values: [f.sk1.value].concat(f.op.value === "between" ? [f.sk2.value] : []).map((v) => MT.typed(sk.type, v)) } : null;
    input.forward = f.forward.value === "asc";
    return ["query", input];
  };

  const historyKey = "history." + name;
  const savedKey = "saved." + name;
  const historyBox = h("details", { id: "q-history", class: "side" });
  const savedBox = h("div", { id: "q-saved" });
  const renderHistory = () => {
    const list = MT.store.get(historyKey, []);
    historyBox.replaceChildren(h("summary", {}, "History (" + list.length + ")"),
      h("ol", {}, list.map((entry) => h("li", {},
        h("button", { type: "button", class: "run-again", onclick: () => { restore(entry.form); run(null); } }, "Run again"),
        " ", h("code", {}, entry.summary)))));
  };
  const renderSaved = () => {
    const saved = MT.store.get(savedKey, []);
    savedBox.replaceChildren(saved.length === 0 ? h("p", { class: "muted" }, "No saved queries for " + name + ".") :
      h("ul", {}, saved.map((entry, i) => h("li", { dataset: { saved: entry.name } },
        h("button", { type: "button", class: "load-saved", onclick: () => { restore(entry.form); run(null); } }, entry.name),
        h("button", { type: "button", class: "delete-saved", title: "forget this query", onclick: () => {
          saved.splice(i, 1);
          MT.store.set(savedKey, saved);
          renderSaved();
        } }, "×")))));
  };
  const summary = (op, input) => op + (input.index ? " " + input.index : "") +
    (input.pk ? " " + input.pk.name + "=" + Object.values(input.pk.value)[0] : "") + (input.filter ? " filter " + input.filter : "");

  const results = h("div", { id: "results" });
  const run = async (cursor) => {
    let op;
    let input;
    try {
      [op, input] = request(cursor);
    } catch (e) {
      results.replaceChildren(MT.error(e));
      return;
    }
    if (!cursor) {
      const list = MT.store.get(historyKey, []).filter((e) => e.summary !== summary(op, input));
      list.unshift({ summary: summary(op, input), form: snapshot() });
      MT.store.set(historyKey, list.slice(0, HISTORY));
      renderHistory();
    }
    try {
      const result = await MT.api(op, input);
      refreshKnown(result.items);
      results.replaceChildren(...[
        h("div", { class: "pager" },
          h("span", { id: "query-count" }, result.count + " items (" + result.scannedCount + " read)"),
          result.cursor ? h("button", { type: "button", id: "q-next", onclick: () => run(result.cursor) }, "Next page") : null),
        MT.grid(t, result.items, { source: { op, request: input } }), MT.meta(result)].filter(Boolean));
    } catch (e) {
      results.replaceChildren(MT.error(e));
    }
  };

  const saveName = h("input", { id: "q-save-name", placeholder: "name this query" });
  const save = () => {
    const label = saveName.value.trim();
    if (!label) return;
    const saved = MT.store.get(savedKey, []).filter((e) => e.name !== label);
    saved.push({ name: label, form: snapshot() });
    MT.store.set(savedKey, saved);
    saveName.value = "";
    renderSaved();
  };
  const exportBox = h("span");
  const exportSaved = () => exportBox.replaceChildren(MT.download(name + ".queries.json", "application/json",
    JSON.stringify({ table: name, queries: MT.store.get(savedKey, []) }, null, 2) + "\n", "q-export-file"));
  const importFile = h("input", { type: "file", id: "q-import-file", accept: ".json,application/json" });
  importFile.addEventListener("change", async () => {
    try {
      const doc = JSON.parse(await importFile.files[0].text());
      const incoming = Array.isArray(doc) ? doc : doc.queries;
      if (!Array.isArray(incoming) || incoming.some((q) => typeof q.name !== "string" || typeof q.form !== "object")) {
        throw new Error("expected {\"queries\": [{\"name\": …, \"form\": …}]}");
      }
      const names = new Set(incoming.map((q) => q.name));
      MT.store.set(savedKey, MT.store.get(savedKey, []).filter((e) => !names.has(e.name)).concat(incoming));
      renderSaved();
    } catch (e) {
      exportBox.replaceChildren(MT.error(e));
    }
  });

  // "/" focuses the filter: the first filter row's attribute, adding a row if there is none.
  MT.onSlash = () => {
    if (!filters.rows.size) filterRow(filters, {});
    filters.el.querySelector(".f-attr").focus();
  };
  const label = (text, ...els) => h("label", {}, text, h("span", {}, ...els));
  const pkRow = label("Partition key value", f.pk);
  const skRow = label("Sort key", f.op, f.sk1, f.sk2);
  const dirRow = label("Direction", f.forward);
  keyRows.push(pkRow, skRow, dirRow);
  relabel();
  renderHistory();
  renderSaved();
  MT.page("Query " + name, MT.tableTabs(name, "query"),
    h("div", { class: "builder" },
      h("form", { class: "form", id: "q-form", onsubmit: (ev) => { ev.preventDefault(); run(null); } },
        label("Operation", f.mode, f.index, keyLabel),
        pkRow, skRow,
        h("div", { class: "filters" }, h("span", {}, "Filters"), filters.el,
          h("button", { type: "button", id: "q-add-filter", onclick: () => filterRow(filters, {}) }, "Add filter")),
        h("details", { class: "advanced" }, h("summary", {}, "Expression (advanced)"),
          label("Filter expression", f.filter), label("Expression attribute names", f.names),
          label("Expression attribute values", f.values)),
        label("Projection", f.projection), h("details", { class: "advanced" }, h("summary", {}, "Pick attributes"), picker),
        dirRow, label("Consistent read", f.consistent), label("Page size", f.limit),
        h("div", { class: "toolbar" }, h("button", { type: "submit", id: "q-run" }, "Run"), attrList)),
      h("aside", { class: "saved" },
        h("h4", {}, "Saved queries"), savedBox,
        h("div", { class: "toolbar" }, saveName, h("button", { type: "button", id: "q-save", onclick: save }, "Save")),
        h("div", { class: "toolbar" }, h("button", { type: "button", id: "q-export", onclick: exportSaved }, "Export saved"), exportBox),
        h("label", { class: "import" }, "Import saved ", importFile),
        historyBox)),
    results);
}]);
