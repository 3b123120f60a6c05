// The console's core: element builder, API calls, router, shared renderers.
// Invariant: item content reaches the page only through text nodes (textContent,
// createTextNode, input.value); nothing here parses markup.
"use strict";

const MT = {
  csrf: document.querySelector('meta[name="csrf"]').content,
  routes: [],
  session: null,
  tables: {},
};

// h("div", {class: "x", onclick: f}, "text", child…): an element with properties and text.
MT.h = function (tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k in el && k !== "list") el[k] = v;
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
};
const h = MT.h;

MT.api = async function (name, input) {
  const response = await fetch("/console/api/" + name, {
    method: "POST",
    headers: { "content-type": "application/json", "x-console-csrf": MT.csrf },
    body: JSON.stringify(input || {}),
    credentials: "same-origin",
  });
  const body = await response.json().catch(() => ({ error: { type: "Error", message: response.statusText } }));
  if (!response.ok || body.error) {
    const e = new Error(body.error ? body.error.message : response.statusText);
    e.type = body.error ? body.error.type : "Error";
    throw e;
  }
  return body;
};

MT.error = function (e) {
  return h("div", { class: "error", role: "alert" }, (e.type ? e.type + ": " : "") + e.message);
};

MT.json = (value) => h("pre", { class: "json" }, JSON.stringify(value, null, 2));

// DynamoDB JSON → plain JSON (numbers stay text when a JS number would lose digits).
MT.plain = function (av) {
  if (av === null || typeof av !== "object") return av;
  const [type, v] = Object.entries(av)[0] || [];
  switch (type) {
    case "S": case "B": case "BOOL": return v;
    case "NULL": return null;
    case "N": return String(Number(v)) === v ? Number(v) : v;
    case "SS": case "BS": return v;
    case "NS": return v.map((n) => MT.plain({ N: n }));
    case "L": return v.map(MT.plain);
    case "M": return MT.plainItem(v);
    default: return v;
  }
};
MT.plainItem = (item) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, MT.plain(v)]));

const PALETTE = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#65a30d", "#db2777"];
MT.color = function (name) {
  let hash = 0;
  for (const ch of String(name)) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
};
// CSSOM (style.setProperty) rather than a style attribute: the CSP refuses inline styles.
MT.chip = function (entity) {
  if (!entity) return h("span", { class: "muted" }, "—");
  const chip = h("span", { class: "chip" }, entity);
  chip.style.setProperty("--c", MT.color(entity));
  return chip;
};

MT.describe = async function (name, fresh) {
  if (fresh || !MT.tables[name]) MT.tables[name] = (await MT.api("describe", { table: name })).table;
  return MT.tables[name];
};
MT.keyAttrs = (keys) => ({
  pk: keys.find((k) => k.role === "HASH"),
  sk: keys.find((k) => k.role === "RANGE"),
});
MT.keyOf = function (table, item) {
  const key = {};
  for (const k of table.keys) key[k.name] = item[k.name];
  return key;
};
MT.itemHref = (table, key) => "#/table/" + encodeURIComponent(table) + "/item/" + encodeURIComponent(JSON.stringify(key));

// The request sent and the capacity consumed, as the endpoint reported them.
MT.meta = function (result) {
  return h("details", { class: "meta", open: true },
    h("summary", {}, "Request sent and consumed capacity"),
    h("div", { class: "cols" },
      h("div", {}, h("h4", {}, "Request ", h("code", {}, result.request ? result.request.target : "")),
        MT.json(result.request ? result.request.body : null)),
      h("div", {}, h("h4", {}, "ConsumedCapacity"), h("pre", { class: "json", id: "consumed" },
        JSON.stringify(result.consumed || null, null, 2)))));
};

// A downloadable file made in the page (a Blob URL; nothing leaves the browser).
MT.download = function (name, type, text, id) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  return h("a", { href: url, download: name, id, class: "download" }, "Download " + name);
};

MT.page = function (title, ...children) {
  const main = document.getElementById("main");
  main.replaceChildren(h("h2", {}, title), ...children.filter(Boolean));
  return main;
};

// Tabs of one table's pages.
MT.tableTabs = function (name, active) {
  const tabs = (MT.design ? [["overview", "Overview"]] : []).concat([["items", "Items"], ["query", "Query"], ["partiql", "PartiQL"], ["partition", "Partition"], ["patterns", "Access patterns"], ["transfer", "Import / export"], ["settings", "Settings"]]);
  return h("nav", { class: "tabs" }, tabs.map(([path, label]) =>
    h("a", { href: "#/table/" + encodeURIComponent(name) + "/" + path, class: path === active ? "active" : "", id: "tab-" + path }, label)));
};

MT.route = async function () {
  const hash = decodeURIComponent(location.hash.slice(1) || "/");
  MT.onSlash = null;
  if (MT.session.login && !MT.session.signedIn) return MT.loginPage();
  for (const [pattern, render] of MT.routes) {
    const m = pattern.exec(location.hash.slice(1) || "/");
    if (m) {
      try {
        // An optional group that did not match stays undefined.
        await render(...m.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part))));
      } catch (e) {
        document.getElementById("main").append(MT.error(e));
      }
      return;
    }
  }
  MT.page("Not found: " + hash);
};

MT.loginPage = function () {
  const id = h("input", { id: "login-id", autocomplete: "username" });
  const secret = h("input", { id: "login-secret", type: "password", autocomplete: "current-password" });
  const out = h("div");
  const submit = async (ev) => {
    ev.preventDefault();
    try {
      await MT.api("login", { accessKeyId: id.value, secretAccessKey: secret.value });
      secret.value = "";
      MT.session = await MT.api("session");
      MT.route();
    } catch (e) {
      out.replaceChildren(MT.error(e));
    }
  };
  MT.page("Sign in",
    h("p", {}, "This endpoint verifies signatures: sign in with one of its key pairs."),
    h("form", { class: "form", onsubmit: submit },
      h("label", {}, "Access key id", id), h("label", {}, "Secret access key", secret),
      h("button", { type: "submit", id: "login" }, "Sign in")), out);
};

window.addEventListener("hashchange", () => MT.route());
window.addEventListener("DOMContentLoaded", async () => {
  try {
    MT.session = await MT.api("session");
  } catch (e) {
    MT.page("The console cannot start", MT.error(e));
    return;
  }
  document.getElementById("endpoint").textContent = MT.session.label;
  document.getElementById("mode").textContent = MT.session.writable ? "writable" : "read-only";
  if (!MT.session.writable) document.getElementById("nav-create").hidden = true;
  // The grid orders a design's entity fields first, so the design is read before any page.
  if (MT.session.design) await MT.loadDesign().catch(() => undefined);
  MT.route();
});
