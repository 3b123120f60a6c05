// The PartiQL editor: a statement with `?` parameters (a JSON list of DynamoDB JSON values),
// run with ExecuteStatement; the rows land in the items grid and a SELECT's next page follows
// the endpoint's NextToken. A read-only console runs only SELECT (the server refuses the rest).
"use strict";

// The table a statement reads from (`FROM "name"` or `FROM name`), if it names one.
MT.statementTable = function (statement) {
  const m = /\bfrom\s+(?:"((?:[^"]|"")+)"|([A-Za-z0-9_.-]+))/i.exec(statement);
  return m ? (m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]) : null;
};

MT.routes.push([/^\/(?:table\/([^/]+)\/)?partiql$/, async function (name) {
  const statement = h("textarea", { id: "sql", rows: 4, spellcheck: false,
    value: name ? 'SELECT * FROM "' + name.replace(/"/g, '""') + '"' : "" });
  const params = h("input", { id: "sql-params", placeholder: '[{"S": "ORG#acme"}] for the ? placeholders' });
  const limit = h("input", { id: "sql-limit", type: "number", min: 1, max: 1000, value: 25 });
  const consistent = h("input", { id: "sql-consistent", type: "checkbox" });
  const results = h("div", { id: "results" });
  let pageNo = 0;
  const run = async (nextToken) => {
    try {
      const parameters = params.value.trim() ? JSON.parse(params.value) : null;
      const request = { statement: statement.value, parameters, limit: Number(limit.value), nextToken, consistent: consistent.checked };
      const result = await MT.api("statement", request);
      pageNo = nextToken ? pageNo + 1 : 1;
      const tableName = MT.statementTable(statement.value);
      const t = tableName ? await MT.describe(tableName).catch(() => null) : null;
      results.replaceChildren(
        h("div", { class: "pager" },
          h("span", { id: "sql-page" }, "Page " + pageNo + ": " + result.count + " items"),
          result.nextToken ? h("button", { type: "button", id: "sql-next", onclick: () => run(result.nextToken) }, "Next page") :
            h("span", { class: "muted", id: "sql-last" }, "last page")),
        MT.grid(t || { name: tableName || "", keys: [] }, result.items, { source: { op: "statement", request } }), MT.meta(result));
    } catch (e) {
      results.replaceChildren(MT.error(e));
    }
  };
  statement.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); run(null); }
  });
  MT.onSlash = () => statement.focus();
  MT.page(name ? "PartiQL on " + name : "PartiQL", name ? MT.tableTabs(name, "partiql") : null,
    MT.session.writable ? null : h("p", { class: "muted", id: "sql-read-only" }, "Read-only console: only SELECT statements run."),
    h("form", { class: "form sql", onsubmit: (ev) => { ev.preventDefault(); run(null); } },
      statement,
      h("label", {}, "Parameters", params),
      h("label", {}, "Page size", limit),
      h("label", {}, "Consistent read", consistent),
      h("div", { class: "toolbar" }, h("button", { type: "submit", id: "sql-run" }, "Run statement"), h("span", { class: "muted" }, "Ctrl+Enter runs"))),
    results);
}]);
