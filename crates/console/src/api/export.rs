//! Results out: the items of a Scan, a Query or a PartiQL SELECT as CSV (`crate::csv`) or as
//! DynamoDB JSON lines (one `{"Item": …}` per line, the format of DynamoDB's table export),
//! read page by page on the server with the same calls the page makes.
//!
//! Invariant: the answer is bounded: past `MAX_BYTES` of output the export stops with an
//! error naming `monotable export`, rather than holding an unbounded table in memory.

use serde_json::{json, Value};

use super::{partiql, read, string, Ctx};
use crate::csv;
use crate::error::ApiError;

/// The most output one export builds (64 MiB).
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// `{source: "scan"|"query"|"statement", request, format: "csv"|"jsonl", pages?, columns?,
/// keys?}`: runs `request` (the input of that call, with its page size) from its cursor for
/// `pages` pages, or to the end; `columns` orders the CSV (default: `keys` first, then every
/// other attribute by name). Answers `{name, contentType, body, items}`.
pub async fn export(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let source = string(input, "source")?;
    let format = string(input, "format")?;
    if !matches!(format, "csv" | "jsonl") {
        return Err(ApiError::bad(format!("`format` must be csv or jsonl, not `{format}`")));
    }
    let mut request = input
        .get("request")
        .filter(|r| r.is_object())
        .cloned()
        .ok_or_else(|| ApiError::bad("`request` must be the input of a scan, query or statement call"))?;
    let cursor = if source == "statement" { "nextToken" } else { "cursor" };
    let pages = match input.get("pages") {
        None | Some(Value::Null) => u64::MAX,
        Some(v) => v
            .as_u64()
            .filter(|n| *n > 0)
            .ok_or_else(|| ApiError::bad("`pages` must be a positive whole number"))?,
    };
    let mut items = Vec::new();
    let mut jsonl = String::new();
    let mut size = 0usize;
    for _ in 0..pages {
        let page = match source {
            "scan" => read::scan(ctx, &request).await?,
            "query" => read::query(ctx, &request).await?,
            "statement" => partiql::execute(ctx, &request).await?,
            other => {
                return Err(ApiError::bad(format!(
                    "`source` must be scan, query or statement, not `{other}`"
                )))
            }
        };
        for entry in page["items"].as_array().into_iter().flatten() {
            let line = json!({ "Item": entry["item"] }).to_string();
            size += line.len() + 1;
            if size > MAX_BYTES {
                return Err(ApiError::bad(
                    "The result is larger than 64 MiB; export whole tables with `monotable export`.",
                ));
            }
            if format == "jsonl" {
                jsonl.push_str(&line);
                jsonl.push('\n');
            } else {
                items.push(entry["item"].clone());
            }
        }
        match page.get(cursor).filter(|c| !c.is_null()) {
            Some(next) => request[cursor] = next.clone(),
            None => break,
        }
    }
    let base = request.get("table").and_then(Value::as_str).unwrap_or("result").to_string();
    if format == "jsonl" {
        let count = jsonl.lines().count();
        return Ok(
            json!({ "name": format!("{base}.jsonl"), "contentType": "application/x-ndjson", "body": jsonl, "items": count }),
        );
    }
    let columns = columns(input, &items)?;
    Ok(json!({
        "name": format!("{base}.csv"),
        "contentType": "text/csv",
        "body": csv::write(&columns, &items),
        "items": items.len(),
    }))
}

/// The CSV columns: `columns` as given, or `keys` then every other attribute name in order.
fn columns(input: &Value, items: &[Value]) -> Result<Vec<String>, ApiError> {
    let names = |member: &str| -> Result<Option<Vec<String>>, ApiError> {
        match input.get(member) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => serde_json::from_value(v.clone())
                .map(Some)
                .map_err(|_| ApiError::bad(format!("`{member}` must be a list of attribute names"))),
        }
    };
    if let Some(columns) = names("columns")? {
        return Ok(columns);
    }
    let mut out = names("keys")?.unwrap_or_default();
    let mut rest = std::collections::BTreeSet::new();
    for item in items {
        for name in item.as_object().into_iter().flat_map(|o| o.keys()) {
            if !out.contains(name) {
                rest.insert(name.clone());
            }
        }
    }
    out.extend(rest);
    Ok(out)
}
