// A table's items, page by page. Scanning reads the whole table, so it starts only from the
// explicit button; every further page follows the sealed cursor of the page before.
"use strict";

MT.tableHeader = function (t) {
  const { pk, sk } = MT.keyAttrs(t.keys);
  return h("p", { class: "muted" },
    "Partition key " + pk.name + " (" + pk.type + ")" + (sk ? ", sort key " + sk.name + " (" + sk.type + ")" : "") +
    "; " + (t.itemCount ?? "?") + " items; indexes: " + (t.indexes.map((i) => i.name).join(", ") || "none"));
};

// The items page; a table without a design opens here (overview.js).
MT.itemsPage = async function (name) {
  const t = await MT.describe(name, true);
  const results = h("div", { id: "results" });
  const pager = h("div", { class: "pager" });
  let pageNo = 0;
  const run = async (cursor) => {
    try {
      const request = { table: name, limit: Number(limit.value), cursor };
      const result = await MT.api("scan", request);
      pageNo = cursor ? pageNo + 1 : 1;
      results.replaceChildren(MT.grid(t, result.items, { source: { op: "scan", request } }), MT.meta(result));
      pager.replaceChildren(
        h("span", { id: "page-info" }, "Page " + pageNo + ": " + result.count + " items"),
        h("button", { type: "button", id: "first-page", onclick: () => run(null) }, "First page"),
        result.cursor ? h("button", { type: "button", id: "next-page", onclick: () => run(result.cursor) }, "Next page") :
          h("span", { id: "last-page", class: "muted" }, "last page"));
    } catch (e) {
      results.replaceChildren(MT.error(e));
    }
  };
  const limit = h("input", { id: "page-size", type: "number", min: 1, max: 1000, value: 25 });
  MT.page("Table " + name, MT.tableTabs(name, "items"), MT.tableHeader(t),
    h("div", { class: "toolbar" },
      h("button", { type: "button", id: "scan", onclick: () => run(null) }, "Scan this table"),
      h("label", {}, "page size ", limit),
      MT.session.writable ? h("a", { href: "#/table/" + encodeURIComponent(name) + "/new", id: "new-item" }, "New item") : null),
    h("p", { class: "muted" }, "A Scan reads every item of the table and costs capacity for all of them; the Query tab reads one partition."),
    pager, results,
    MT.session.writable ? MT.deleteTableBox(name) : null);
};

MT.routes.push([/^\/table\/([^/]+)\/items$/, (name) => MT.itemsPage(name)]);
