//! The design document and its access patterns, run by name.
//!
//! Running a pattern fills its key templates with the page's parameters (escaped as the
//! library escapes them) and sends the same Query or GetItem the query builder would, so the
//! page shows the exact request. Only reading patterns (get, query) run here; a write
//! pattern's shape is shown but never executed from a form.

use std::collections::BTreeMap;

use monotable_design::{Design, Operation, SortOp, TABLE};
use serde_json::{json, Value};

use super::{read, string, Ctx};
use crate::error::ApiError;
use crate::single::render;

/// `{"design": document or null}`.
pub fn design(ctx: &Ctx<'_>) -> Value {
    json!({ "design": ctx.design.map(|d| serde_json::to_value(d).unwrap_or(Value::Null)) })
}

/// Runs the access pattern `pattern` on `table` with `params` (`{field: raw value}`):
/// `{table, pattern, params, limit?, cursor?}`.
pub async fn run(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let design =
        ctx.design.ok_or_else(|| ApiError::bad("The console was started without a design document."))?;
    let table = string(input, "table")?;
    let name = string(input, "pattern")?;
    let pattern = design
        .access_patterns
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| ApiError::bad(format!("The design has no access pattern `{name}`.")))?;
    let params: BTreeMap<String, String> = match input.get("params") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|_| ApiError::bad("`params` must map field names to strings"))?,
    };
    let key = pattern.key.as_ref().ok_or_else(|| ApiError::bad(format!("`{name}` has no key condition")))?;
    let (pk_attr, sk_attr) = key_attrs(design, &pattern.index)?;
    let pk = render(&key.pk, &params, false).map_err(ApiError::BadRequest)?;
    let sk = match &key.sk {
        None => None,
        Some(cond) => {
            let value =
                render(&cond.value, &params, cond.op == SortOp::BeginsWith).map_err(ApiError::BadRequest)?;
            Some((cond.op, value))
        }
    };
    let index = (pattern.index != TABLE).then_some(pattern.index.as_str());
    let mut result = match pattern.operation {
        Operation::Get => {
            let (_, sk) = sk.ok_or_else(|| ApiError::bad(format!("`{name}` has no sort-key value")))?;
            let key = json!({ pk_attr.clone(): { "S": pk }, sk_attr: { "S": sk } });
            read::get(ctx, &json!({ "table": table, "key": key })).await?
        }
        Operation::Query => {
            let sk = sk
                .map(|(op, value)| json!({ "name": sk_attr, "op": op_name(op), "values": [{ "S": value }] }));
            let query = json!({
                "table": table,
                "index": index,
                "pk": { "name": pk_attr, "value": { "S": pk } },
                "sk": sk,
                "limit": input.get("limit"),
                "cursor": input.get("cursor"),
            });
            read::query(ctx, &query).await?
        }
        _ => {
            return Err(ApiError::bad(format!("`{name}` writes; only reading patterns run from the console")))
        }
    };
    result["pattern"] = json!(name);
    Ok(result)
}

/// The single partition- and sort-key attribute of `index`. Patterns on an index with a
/// multi-attribute key are not filled from templates here (the query builder runs them).
fn key_attrs(design: &Design, index: &str) -> Result<(String, String), ApiError> {
    let (pk, sk) = design
        .key_attrs(index)
        .ok_or_else(|| ApiError::bad(format!("The design has no index `{index}`.")))?;
    match (<[String; 1]>::try_from(pk), <[String; 1]>::try_from(sk)) {
        (Ok([pk]), Ok([sk])) => Ok((pk, sk)),
        _ => Err(ApiError::bad(format!(
            "`{index}` has a multi-attribute key; run this pattern from the query builder"
        ))),
    }
}

fn op_name(op: SortOp) -> &'static str {
    match op {
        SortOp::Eq => "eq",
        SortOp::BeginsWith => "begins_with",
        SortOp::Between => "between",
        SortOp::Lt => "lt",
        SortOp::Le => "le",
        SortOp::Gt => "gt",
        SortOp::Ge => "ge",
    }
}
