// One item: DynamoDB JSON and plain JSON views, and the editor. Edits keep each attribute's
// type: a row's type is chosen explicitly and its text is parsed as that type only. Saving
// is conditional on the item as it was read; deleting asks for confirmation.
"use strict";

const TYPES = ["S", "N", "BOOL", "NULL", "B", "SS", "NS", "BS", "L", "M"];

// The editable text of one value of type `type`.
function valueText(type, v) {
  if (type === "BOOL") return String(v);
  if (type === "NULL") return "";
  if (["SS", "NS", "BS", "L", "M"].includes(type)) return JSON.stringify(v);
  return v;
}

// The DynamoDB JSON value of a row; throws with the attribute's name on bad text.
function rowValue(name, type, text) {
  try {
    switch (type) {
      case "S": case "N": case "B": return { [type]: text };
      case "BOOL":
        if (text !== "true" && text !== "false") throw new Error("write true or false");
        return { BOOL: text === "true" };
      case "NULL": return { NULL: true };
      default: return { [type]: JSON.parse(text) };
    }
  } catch (e) {
    throw new Error(name + ": " + e.message);
  }
}

function editorRows(item, keyNames) {
  const rows = [];
  const body = h("tbody");
  const add = (name, type, text) => {
    const isKey = keyNames.includes(name) && name !== "";
    const row = {
      name: h("input", { value: name, class: "attr-name", readOnly: isKey && text !== "" }),
      type: h("select", { class: "attr-type", disabled: isKey && text !== "" }, TYPES.map((t) => h("option", { value: t, selected: t === type }, t))),
      text: h("textarea", { class: "attr-value", rows: 1, value: text, dataset: { attr: name } }),
      removed: false,
    };
    const remove = h("button", { type: "button", class: "remove", disabled: isKey, onclick: () => { row.removed = true; tr.remove(); } }, "remove");
    const tr = h("tr", {}, h("td", {}, row.name), h("td", {}, row.type), h("td", {}, row.text), h("td", {}, remove));
    rows.push(row);
    body.append(tr);
  };
  for (const name of keyNames) {
    if (!(name in item)) add(name, "S", "");
  }
  for (const [name, av] of Object.entries(item)) {
    const [type, v] = Object.entries(av)[0];
    add(name, type, valueText(type, v));
  }
  const collect = () => {
    const out = {};
    for (const r of rows) if (!r.removed && r.name.value) out[r.name.value] = rowValue(r.name.value, r.type.value, r.text.value);
    return out;
  };
  return { el: h("table", { class: "editor" }, h("thead", {}, h("tr", {}, h("th", {}, "attribute"), h("th", {}, "type"), h("th", {}, "value"), h("th"))), body), add, collect };
}

MT.routes.push([/^\/table\/([^/]+)\/item\/(.+)$/, async function (name, keyText) {
  const t = await MT.describe(name);
  const key = JSON.parse(keyText);
  const result = await MT.api("get", { table: name, key });
  if (!result.item) {
    MT.page("Item not found", MT.tableTabs(name, ""), h("p", { id: "not-found" }, "No item has this key."), MT.json(key));
    return;
  }
  const entry = result.item;
  const view = h("div", { id: "item-view" });
  const show = (mode) => view.replaceChildren(MT.json(mode === "plain" ? MT.plainItem(entry.item) : entry.item));
  show("dynamodb");
  const parts = [
    MT.tableTabs(name, ""),
    h("p", {}, MT.chip(entry.entity), " ",
      h("span", { id: "decoded" }, Object.entries(entry.decoded || {}).map(([k, v]) => k + " = " + v).join(", "))),
    h("div", { class: "toolbar" },
      h("button", { type: "button", id: "view-dynamodb", onclick: () => show("dynamodb") }, "DynamoDB JSON"),
      h("button", { type: "button", id: "view-plain", onclick: () => show("plain") }, "Plain JSON")),
    view,
  ];
  if (MT.session.writable) parts.push(editor(t, entry.item));
  parts.push(MT.meta(result));
  MT.page("Item in " + name, ...parts);
}]);

MT.routes.push([/^\/table\/([^/]+)\/new$/, async function (name) {
  const t = await MT.describe(name);
  MT.page("New item in " + name, MT.tableTabs(name, ""), editor(t, null));
}]);

// The editor for `item` (null: a new item, saved only if its key is free).
function editor(t, item) {
  const keyNames = t.keys.map((k) => k.name);
  const rows = editorRows(item || {}, keyNames);
  const out = h("div", { id: "editor-out" });
  const save = async () => {
    try {
      const next = rows.collect();
      const input = item ? { table: t.name, item: next, expected: item } : { table: t.name, item: next, create: MT.keyAttrs(t.keys).pk.name };
      const result = await MT.api("put", input);
      out.replaceChildren(h("p", { id: "saved", class: "ok" }, "Saved."), MT.meta(result));
      if (!item) location.hash = MT.itemHref(t.name, MT.keyOf(t, next));
      else item = next;
    } catch (e) {
      out.replaceChildren(MT.error(e.type === "ConditionalCheckFailedException"
        ? Object.assign(new Error("The item changed since it was read (or its key is taken); reload it before saving."), { type: e.type }) : e));
    }
  };
  const confirm = h("button", { type: "button", id: "confirm-delete", hidden: true, class: "danger", onclick: async () => {
    try {
      await MT.api("delete", { table: t.name, key: MT.keyOf(t, item), expected: item });
      location.hash = "#/table/" + encodeURIComponent(t.name) + "/items";
    } catch (e) {
      out.replaceChildren(MT.error(e));
    }
  } }, "Really delete this item");
  return h("section", { class: "edit" }, h("h3", {}, item ? "Edit" : "New item"), rows.el,
    h("div", { class: "toolbar" },
      h("button", { type: "button", id: "add-attr", onclick: () => rows.add("", "S", "") }, "Add attribute"),
      h("button", { type: "button", id: "save", onclick: save }, item ? "Save (if unchanged since read)" : "Create"),
      item ? h("button", { type: "button", id: "delete", onclick: () => { confirm.hidden = false; } }, "Delete…") : null,
      confirm),
    out);
}
