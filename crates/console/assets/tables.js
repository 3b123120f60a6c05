// Tables: the list with status, counts, keys, indexes, TTL and stream; create and delete.
"use strict";

MT.routes.push([/^\/$/, async function () {
  const main = MT.page("Tables", h("p", { class: "muted" }, "Loading…"));
  const { tables } = await MT.api("tables");
  const keyText = (keys) => keys.map((k) => k.name + " (" + (k.role === "HASH" ? "PK" : "SK") + ", " + k.type + ")").join(", ");
  const rows = tables.map((t) => h("tr", { dataset: { table: t.name } },
    h("td", {}, h("a", { href: "#/table/" + encodeURIComponent(t.name) + "/items", class: "table-link" }, t.name)),
    h("td", {}, t.status || ""),
    h("td", { class: "num" }, t.itemCount ?? ""),
    h("td", { class: "num" }, t.sizeBytes ?? ""),
    h("td", {}, keyText(t.keys)),
    h("td", {}, t.indexes.map((i) => i.name + " [" + i.kind + ": " + i.keys.map((k) => k.name).join(", ") + "]").join("; ")),
    h("td", {}, t.ttl && t.ttl.status === "ENABLED" ? t.ttl.attribute : "off"),
    h("td", {}, t.stream && t.stream.enabled ? t.stream.viewType : "off")));
  for (const t of tables) MT.tables[t.name] = t;
  main.replaceChildren(h("h2", {}, "Tables"),
    tables.length === 0 ? h("p", { id: "no-tables" }, "No tables yet.") :
      h("table", { id: "tables", class: "grid" },
        h("thead", {}, h("tr", {}, ["Name", "Status", "Items", "Bytes", "Keys", "Indexes", "TTL", "Stream"].map((c) => h("th", {}, c)))),
        h("tbody", {}, rows)));
}]);

// One key attribute: name and type.
function keyFields(prefix, label) {
  const name = h("input", { id: prefix + "-name", placeholder: label });
  const type = h("select", { id: prefix + "-type" }, ["S", "N", "B"].map((t) => h("option", { value: t }, t)));
  return { el: h("span", { class: "key" }, name, type), get: () => (name.value ? { name: name.value, type: type.value } : null) };
}

MT.routes.push([/^\/create$/, function () {
  const name = h("input", { id: "create-name" });
  const pk = keyFields("create-pk", "partition key");
  const sk = keyFields("create-sk", "sort key (optional)");
  const gsis = [];
  const gsiList = h("div", { id: "gsis" });
  const addGsi = () => {
    const n = gsis.length;
    const row = { name: h("input", { id: "gsi" + n + "-index", placeholder: "index name" }), pk: keyFields("gsi" + n + "-pk", "partition key"), sk: keyFields("gsi" + n + "-sk", "sort key (optional)") };
    gsis.push(row);
    gsiList.append(h("div", { class: "row" }, "GSI ", row.name, row.pk.el, row.sk.el));
  };
  const out = h("div");
  const submit = async (ev) => {
    ev.preventDefault();
    const input = {
      table: name.value, pk: pk.get(), sk: sk.get(),
      gsis: gsis.filter((g) => g.name.value).map((g) => ({ name: g.name.value, pk: g.pk.get(), sk: g.sk.get() })),
    };
    try {
      const result = await MT.api("create-table", input);
      out.replaceChildren(h("p", { id: "created", class: "ok" }, "Created " + input.table + "."), MT.meta(result));
    } catch (e) {
      out.replaceChildren(MT.error(e));
    }
  };
  MT.page("Create table",
    h("form", { class: "form", onsubmit: submit },
      h("label", {}, "Table name", name), h("label", {}, "Partition key", pk.el), h("label", {}, "Sort key", sk.el),
      gsiList, h("button", { type: "button", id: "add-gsi", onclick: addGsi }, "Add a global secondary index"),
      h("p", { class: "muted" }, "On-demand billing; indexes project all attributes."),
      h("button", { type: "submit", id: "create" }, "Create table")), out);
}]);

// The delete-table box: the table's name must be typed again.
MT.deleteTableBox = function (name) {
  const confirm = h("input", { id: "drop-confirm", placeholder: "type " + name + " to confirm" });
  const out = h("span");
  const drop = async () => {
    try {
      await MT.api("delete-table", { table: name, confirm: confirm.value });
      delete MT.tables[name];
      location.hash = "#/";
    } catch (e) {
      out.replaceChildren(MT.error(e));
    }
  };
  return h("details", { class: "danger" }, h("summary", {}, "Delete this table"),
    confirm, h("button", { type: "button", id: "drop", onclick: drop }, "Delete table"), out);
};
