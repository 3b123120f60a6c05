// A table's settings: TTL, stream, billing mode and capacity, deletion protection, tags and
// GSIs. Each change is one call a client would make (UpdateTimeToLive, UpdateTable,
// TagResource, UntagResource), sent only after the user confirmed what it will do.
"use strict";

// A button that asks first: the first click shows what will be sent and a Confirm button.
MT.confirmed = function (id, label, describe, action, out) {
  const ask = h("span", { class: "confirm", hidden: true });
  const button = h("button", { type: "button", id, onclick: () => {
    ask.replaceChildren(h("span", {}, describe() + "? "),
      h("button", { type: "button", id: id + "-confirm", class: "danger-soft", onclick: async () => {
        ask.hidden = true;
        out.replaceChildren(h("p", { class: "muted" }, "Sending…"));
        try {
          const done = describe();
          const result = await action();
          // The page is drawn again from a fresh DescribeTable before it says "Done".
          await MT.route();
          out.replaceChildren(h("p", { class: "ok", id: "settings-ok" }, "Done: " + done + "."), MT.meta(result));
        } catch (e) {
          out.replaceChildren(MT.error(e));
        }
      } }, "Confirm"),
      h("button", { type: "button", onclick: () => { ask.hidden = true; } }, "Cancel"));
    ask.hidden = false;
  } }, label);
  return h("span", {}, button, " ", ask);
};

const VIEW_TYPES = ["NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY"];

MT.routes.push([/^\/table\/([^/]+)\/settings$/, async function (name) {
  const t = await MT.describe(name, true);
  const out = MT.settingsOut || (MT.settingsOut = h("div", { id: "settings-out" }));
  if (MT.settingsFor !== name) out.replaceChildren();
  MT.settingsFor = name;
  const change = (c) => MT.api("update-table", { table: name, change: c });
  const writable = MT.session.writable;
  const row = (title, now, ...controls) => h("tr", {}, h("th", {}, title), h("td", { class: "now" }, now),
    h("td", {}, writable ? controls : h("span", { class: "muted" }, "read-only console")));

  const ttlOn = t.ttl && t.ttl.status === "ENABLED";
  const ttlAttr = h("input", { id: "set-ttl-attr", placeholder: "attribute (epoch seconds)", value: (t.ttl && t.ttl.attribute) || "" });
  const ttl = row("Time to live", ttlOn ? "on: " + t.ttl.attribute : "off", ttlAttr,
    MT.confirmed("set-ttl", ttlOn ? "Turn off" : "Turn on",
      () => "UpdateTimeToLive " + (ttlOn ? "disabling" : "enabling") + " TTL on " + ttlAttr.value,
      () => change({ kind: "ttl", attribute: ttlAttr.value, enabled: !ttlOn }), out));

  const streamOn = !!(t.stream && t.stream.enabled);
  const view = h("select", { id: "set-stream-view" }, VIEW_TYPES.map((v) => h("option", { value: v }, v)));
  const stream = row("Stream", streamOn ? "on: " + t.stream.viewType : "off", streamOn ? null : view,
    MT.confirmed("set-stream", streamOn ? "Turn off" : "Turn on",
      () => "UpdateTable " + (streamOn ? "disabling the stream" : "enabling a " + view.value + " stream"),
      () => change(streamOn ? { kind: "stream", enabled: false } : { kind: "stream", enabled: true, viewType: view.value }), out));

  const mode = h("select", { id: "set-billing-mode" },
    ["PAY_PER_REQUEST", "PROVISIONED"].map((m) => h("option", { value: m, selected: m === t.billingMode }, m === "PROVISIONED" ? "provisioned" : "on-demand")));
  const rcu = h("input", { id: "set-rcu", type: "number", min: 1, value: (t.provisioned && t.provisioned.read) || 5, class: "units" });
  const wcu = h("input", { id: "set-wcu", type: "number", min: 1, value: (t.provisioned && t.provisioned.write) || 5, class: "units" });
  const units = h("span", {}, " read ", rcu, " write ", wcu);
  const showUnits = () => { units.hidden = mode.value !== "PROVISIONED"; };
  mode.addEventListener("change", showUnits);
  showUnits();
  const billing = row("Capacity", t.billingMode === "PROVISIONED" ? "provisioned: " + t.provisioned.read + " read, " + t.provisioned.write + " write units" : "on-demand",
    mode, units, MT.confirmed("set-billing", "Change",
      () => "UpdateTable to " + (mode.value === "PROVISIONED" ? rcu.value + " read and " + wcu.value + " write units (every GSI too)" : "on-demand"),
      () => change({ kind: "billing", mode: mode.value, read: Number(rcu.value), write: Number(wcu.value) }), out));

  const protectedNow = !!t.deletionProtection;
  const protection = row("Deletion protection", protectedNow ? "on" : "off",
    MT.confirmed("set-protection", protectedNow ? "Turn off" : "Turn on",
      () => "UpdateTable " + (protectedNow ? "disabling" : "enabling") + " deletion protection",
      () => change({ kind: "deletionProtection", enabled: !protectedNow }), out));

  const { tags } = await MT.api("tags", { table: name }).catch(() => ({ tags: {} }));
  const tagKey = h("input", { id: "set-tag-key", placeholder: "key" });
  const tagValue = h("input", { id: "set-tag-value", placeholder: "value" });
  const tagList = h("ul", { id: "tags", class: "tags" }, Object.entries(tags).map(([k, v]) => h("li", { dataset: { tag: k } },
    h("code", {}, k + " = " + v), writable ? MT.confirmed("untag-" + k.replace(/[^A-Za-z0-9_-]/g, "_"), "remove",
      () => "UntagResource removing " + k, () => change({ kind: "tags", remove: [k] }), out) : null)));
  const tagRow = row("Tags", tagList, tagKey, tagValue,
    MT.confirmed("set-tag", "Add tag", () => "TagResource " + tagKey.value + " = " + tagValue.value,
      () => change({ kind: "tags", add: { [tagKey.value]: tagValue.value } }), out));

  const gsis = t.indexes.filter((i) => i.kind === "GSI");
  const idxName = h("input", { id: "set-gsi-name", placeholder: "index name" });
  const idxPk = h("input", { id: "set-gsi-pk", placeholder: "partition key" });
  const idxPkType = h("select", { id: "set-gsi-pk-type" }, ["S", "N", "B"].map((x) => h("option", { value: x }, x)));
  const idxSk = h("input", { id: "set-gsi-sk", placeholder: "sort key (optional)" });
  const idxSkType = h("select", { id: "set-gsi-sk-type" }, ["S", "N", "B"].map((x) => h("option", { value: x }, x)));
  const indexList = h("ul", { id: "gsi-list", class: "tags" }, gsis.map((i) => h("li", { dataset: { index: i.name } },
    h("code", {}, i.name + " (" + i.keys.map((k) => k.name).join(", ") + ")" + (i.status ? " " + i.status : "")),
    writable ? MT.confirmed("drop-gsi-" + i.name, "delete", () => "UpdateTable deleting the index " + i.name,
      () => change({ kind: "deleteIndex", name: i.name }), out) : null)));
  const gsiRow = row("Global secondary indexes", indexList, idxName, idxPk, idxPkType, idxSk, idxSkType,
    MT.confirmed("add-gsi", "Add index", () => "UpdateTable creating the index " + idxName.value,
      () => change({
        kind: "addIndex", name: idxName.value, pk: { name: idxPk.value, type: idxPkType.value },
        sk: idxSk.value ? { name: idxSk.value, type: idxSkType.value } : null,
        read: t.billingMode === "PROVISIONED" ? t.provisioned.read : null,
        write: t.billingMode === "PROVISIONED" ? t.provisioned.write : null,
      }), out));

  MT.page("Settings of " + name, MT.tableTabs(name, "settings"), MT.tableHeader(t),
    h("table", { class: "grid settings", id: "settings" }, h("tbody", {}, ttl, stream, billing, protection, tagRow, gsiRow)),
    out);
}]);
