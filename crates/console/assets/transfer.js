// Import and export of a whole table, with a progress bar. Export pages through the table
// with the sealed cursor and offers DynamoDB's export format (one {"Item": …} per line);
// import reads that format (or bare items) and writes 25 items per BatchWriteItem.
"use strict";

MT.routes.push([/^\/table\/([^/]+)\/transfer$/, async function (name) {
  const t = await MT.describe(name, true);
  const bar = h("progress", { id: "progress", max: 1, value: 0 });
  const status = h("span", { id: "transfer-status" });
  const link = h("span");
  const exportTable = async () => {
    const lines = [];
    let cursor = null;
    bar.max = Math.max(t.itemCount || 1, 1);
    try {
      do {
        const page = await MT.api("scan", { table: name, limit: 500, cursor });
        for (const e of page.items) lines.push(JSON.stringify({ Item: e.item }));
        cursor = page.cursor;
        bar.max = Math.max(bar.max, lines.length);
        bar.value = lines.length;
        status.textContent = "Exported " + lines.length + " items";
      } while (cursor);
      bar.value = bar.max;
      const url = URL.createObjectURL(new Blob([lines.join("\n") + (lines.length ? "\n" : "")], { type: "application/json" }));
      link.replaceChildren(h("a", { href: url, download: name + ".jsonl", id: "download" }, "Download " + name + ".jsonl"));
    } catch (e) {
      status.replaceChildren(MT.error(e));
    }
  };
  const file = h("input", { type: "file", id: "import-file", accept: ".json,.jsonl,application/json" });
  const importTable = async () => {
    if (!file.files.length) return;
    try {
      const text = await file.files[0].text();
      const items = text.split("\n").filter((l) => l.trim()).map((l) => { const o = JSON.parse(l); return o.Item || o; });
      bar.max = Math.max(items.length, 1);
      bar.value = 0;
      for (let i = 0; i < items.length; i += 25) {
        await MT.api("batch-put", { table: name, items: items.slice(i, i + 25) });
        bar.value = Math.min(i + 25, items.length);
        status.textContent = "Imported " + bar.value + " of " + items.length + " items";
      }
    } catch (e) {
      status.replaceChildren(MT.error(e));
    }
  };
  MT.page("Import / export " + name, MT.tableTabs(name, "transfer"),
    h("div", { class: "toolbar" }, h("button", { type: "button", id: "export", onclick: exportTable }, "Export (Scan)"), link),
    MT.session.writable ? h("div", { class: "toolbar" }, file, h("button", { type: "button", id: "import", onclick: importTable }, "Import")) : null,
    h("div", { class: "toolbar" }, bar, status));
}]);
