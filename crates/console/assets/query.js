// The query builder: table or index, partition value, sort-key condition, filter,
// projection, direction, consistent read. It shows the request exactly as sent and the
// consumed capacity, and pages with the sealed cursor.
"use strict";

const SORT_OPS = [["", "no condition"], ["eq", "="], ["lt", "<"], ["le", "<="], ["gt", ">"], ["ge", ">="], ["between", "between"], ["begins_with", "begins_with"]];

MT.typed = (type, text) => ({ [type || "S"]: text });

MT.routes.push([/^\/table\/([^/]+)\/query$/, async function (name) {
  const t = await MT.describe(name);
  const targets = [{ name: "", label: "table " + name, keys: t.keys }].concat(
    t.indexes.map((i) => ({ name: i.name, label: i.kind + " " + i.name, keys: i.keys })));
  const f = {
    index: h("select", { id: "q-index" }, targets.map((x) => h("option", { value: x.name }, x.label))),
    pk: h("input", { id: "q-pk" }),
    op: h("select", { id: "q-op" }, SORT_OPS.map(([v, l]) => h("option", { value: v }, l))),
    sk1: h("input", { id: "q-sk1" }),
    sk2: h("input", { id: "q-sk2", placeholder: "second value (between)" }),
    filter: h("input", { id: "q-filter", placeholder: "#s = :s" }),
    names: h("input", { id: "q-names", placeholder: '{"#s": "status"}' }),
    values: h("input", { id: "q-values", placeholder: '{":s": {"S": "open"}}' }),
    projection: h("input", { id: "q-projection", placeholder: "attr1, attr2" }),
    forward: h("select", { id: "q-direction" }, h("option", { value: "asc" }, "ascending"), h("option", { value: "desc" }, "descending")),
    consistent: h("input", { id: "q-consistent", type: "checkbox" }),
    limit: h("input", { id: "q-limit", type: "number", min: 1, max: 1000, value: 25 }),
  };
  const keyLabel = h("span", { class: "muted", id: "q-keys" });
  const target = () => targets.find((x) => x.name === f.index.value);
  const relabel = () => {
    const { pk, sk } = MT.keyAttrs(target().keys);
    keyLabel.textContent = pk.name + " (" + pk.type + ")" + (sk ? " / " + sk.name + " (" + sk.type + ")" : " (no sort key)");
    f.consistent.disabled = !!target().name && t.indexes.find((i) => i.name === target().name).kind === "GSI";
  };
  f.index.addEventListener("change", relabel);
  relabel();
  const results = h("div", { id: "results" });
  const run = async (cursor) => {
    try {
      const { pk, sk } = MT.keyAttrs(target().keys);
      const input = {
        table: name, index: target().name || null,
        pk: { name: pk.name, value: MT.typed(pk.type, f.pk.value) },
        sk: f.op.value && sk ? { name: sk.name, op: f.op.value, values: [f.sk1.value].concat(f.op.value === "between" ? [f.sk2.value] : []).map((v) => MT.typed(sk.type, v)) } : null,
        filter: f.filter.value || null,
        names: f.names.value ? JSON.parse(f.names.value) : null,
        values: f.values.value ? JSON.parse(f.values.value) : null,
        projection: f.projection.value || null,
        forward: f.forward.value === "asc",
        consistent: f.consistent.checked && !f.consistent.disabled,
        limit: Number(f.limit.value), cursor,
      };
      const result = await MT.api("query", input);
      results.replaceChildren(...[
        h("p", { id: "query-count" }, result.count + " items (" + result.scannedCount + " read)"),
        result.cursor ? h("button", { type: "button", id: "q-next", onclick: () => run(result.cursor) }, "Next page") : null,
        MT.grid(t, result.items), MT.meta(result)].filter(Boolean));
    } catch (e) {
      results.replaceChildren(MT.error(e));
    }
  };
  MT.page("Query " + name, MT.tableTabs(name, "query"),
    h("form", { class: "form", onsubmit: (ev) => { ev.preventDefault(); run(null); } },
      h("label", {}, "Table or index", h("span", {}, f.index, keyLabel)),
      h("label", {}, "Partition key value", f.pk),
      h("label", {}, "Sort key", h("span", {}, f.op, f.sk1, f.sk2)),
      h("label", {}, "Filter expression", f.filter),
      h("label", {}, "Expression attribute names", f.names),
      h("label", {}, "Expression attribute values", f.values),
      h("label", {}, "Projection", f.projection),
      h("label", {}, "Direction", f.forward),
      h("label", {}, "Consistent read", f.consistent),
      h("label", {}, "Page size", f.limit),
      h("button", { type: "submit", id: "q-run" }, "Run query")),
    results);
}]);
