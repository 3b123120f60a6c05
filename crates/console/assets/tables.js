// Tables: the list with status, counts, keys, indexes, TTL and stream; create and delete.
"use strict";

MT.routes.push([/^\/$/, async function () {
  const main = MT.page("Tables", h("p", { class: "muted" }, "Loading…"));
  const { tables } = await MT.api("tables");
  const keyText = (keys) => keys.map((k) => k.name + " (" + (k.role === "HASH" ? "PK" : "SK") + ", " + k.type + ")").join(", ");
  const rows = tables.map((t) => h("tr", { dataset: { table: t.name } },
    h("td", {}, h("a", { href: "#/table/" + encodeURIComponent(t.name), class: "table-link" }, t.name)),
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
  const lsis = [];
  const lsiList = h("div", { id: "lsis" });
  const addLsi = () => {
    const n = lsis.length;
    const row = { name: h("input", { id: "lsi" + n + "-index", placeholder: "index name" }), sk: keyFields("lsi" + n + "-sk", "sort key") };
    lsis.push(row);
    lsiList.append(h("div", { class: "row" }, "LSI ", row.name, row.sk.el));
  };
  const billing = h("select", { id: "create-billing" }, h("option", { value: "PAY_PER_REQUEST" }, "on-demand"), h("option", { value: "PROVISIONED" }, "provisioned"));
  const rcu = h("input", { id: "create-rcu", type: "number", min: 1, value: 5, class: "units" });
  const wcu = h("input", { id: "create-wcu", type: "number", min: 1, value: 5, class: "units" });
  const units = h("span", { hidden: true }, " read ", rcu, " write ", wcu);
  billing.addEventListener("change", () => { units.hidden = billing.value !== "PROVISIONED"; });
  const stream = h("select", { id: "create-stream" }, h("option", { value: "" }, "off"),
    ["NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY"].map((v) => h("option", { value: v }, v)));
  const ttl = h("input", { id: "create-ttl", placeholder: "attribute holding the expiry (epoch seconds); empty: off" });
  const protection = h("input", { id: "create-protection", type: "checkbox" });
  const tags = h("textarea", { id: "create-tags", rows: 2, placeholder: "key=value, one a line" });
  const out = h("div");
  const submit = async (ev) => {
    ev.preventDefault();
    const tagMap = {};
    for (const line of tags.value.split("\n").map((l) => l.trim()).filter(Boolean)) {
      const at = line.indexOf("=");
      tagMap[at < 0 ? line : line.slice(0, at).trim()] = at < 0 ? "" : line.slice(at + 1).trim();
    }
    const input = {
      table: name.value, pk: pk.get(), sk: sk.get(),
      gsis: gsis.filter((g) => g.name.value).map((g) => ({ name: g.name.value, pk: g.pk.get(), sk: g.sk.get() })),
      lsis: lsis.filter((l) => l.name.value).map((l) => ({ name: l.name.value, sk: l.sk.get() })),
      billing: { mode: billing.value, read: Number(rcu.value), write: Number(wcu.value) },
      stream: stream.value || null, ttl: ttl.value || null, deletionProtection: protection.checked,
      tags: Object.keys(tagMap).length ? tagMap : null,
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
      lsiList, h("button", { type: "button", id: "add-lsi", onclick: addLsi }, "Add a local secondary index"),
      h("label", {}, "Capacity", h("span", {}, billing, units)),
      h("label", {}, "Stream", stream),
      h("label", {}, "Time to live", ttl),
      h("label", {}, "Deletion protection", protection),
      h("label", {}, "Tags", tags),
      h("p", { class: "muted" }, "Indexes project all attributes; a provisioned table gives its GSIs the same capacity."),
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
