//! Reads: a table's items page by page (Scan, behind an explicit button on the page), the
//! query builder's Query, and one item by key. Every answer carries the exact request sent
//! (`request`) and the capacity the endpoint reported (`consumed`).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnConsumedCapacity};
use serde_json::{json, Map, Value};

use super::{flag, limit, optional_string, string, Ctx};
use crate::capture::Capture;
use crate::error::ApiError;
use crate::single::annotate;
use crate::value::{item_from_json, item_to_json, value_from_json, values_from_json, SdkItem};

/// One page of a Scan: `{table, index?, filter?, names?, values?, projection?, limit?, cursor?,
/// consistent?}` (the expression members as for [`query`]).
pub async fn scan(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let table = string(input, "table")?;
    let index = optional_string(input, "index")?;
    let (mut names, values) = caller_expressions(input)?;
    let projection = projection(input, &mut names)?;
    let start = start_key(ctx, input, table, index)?;
    let capture = Capture::new();
    let out = ctx
        .client
        .scan()
        .table_name(table)
        .set_index_name(index.map(str::to_string))
        .set_filter_expression(optional_string(input, "filter")?.map(str::to_string))
        .set_projection_expression(projection)
        // DynamoDB refuses empty ExpressionAttributeNames and ExpressionAttributeValues maps.
        .set_expression_attribute_names((!names.is_empty()).then_some(names))
        .set_expression_attribute_values((!values.is_empty()).then_some(values))
        .limit(limit(input)?)
        .consistent_read(flag(input, "consistent", false)?)
        .set_exclusive_start_key(start)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    Ok(page(
        ctx,
        (table, index),
        out.items(),
        (out.count(), out.scanned_count()),
        out.last_evaluated_key(),
        out.consumed_capacity(),
        &capture,
    ))
}

/// One page of a Query built from the query builder's fields:
/// `{table, index?, pk: {name, value}, sk?: {name, op, values}, filter?, names?, values?,
/// projection?, forward?, consistent?, limit?, cursor?}`. Key placeholders are `#ck…`/`:ck…`
/// and projection placeholders `#cp…`; the caller's own placeholders must not use them.
pub async fn query(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let table = string(input, "table")?;
    let index = optional_string(input, "index")?;
    let (mut names, mut values) = caller_expressions(input)?;
    let pk = input.get("pk").ok_or_else(|| ApiError::bad("`pk` is required"))?;
    names.insert("#ck0".into(), string(pk, "name")?.to_string());
    values.insert(":ck0".into(), value_from_json(pk.get("value").unwrap_or(&Value::Null))?);
    let mut key_condition = "#ck0 = :ck0".to_string();
    if let Some(sk) = input.get("sk").filter(|v| !v.is_null()) {
        key_condition.push_str(" AND ");
        key_condition.push_str(&sort_condition(sk, &mut names, &mut values)?);
    }
    let projection = projection(input, &mut names)?;
    let start = start_key(ctx, input, table, index)?;
    let capture = Capture::new();
    let out = ctx
        .client
        .query()
        .table_name(table)
        .set_index_name(index.map(str::to_string))
        .key_condition_expression(key_condition)
        .set_filter_expression(optional_string(input, "filter")?.map(str::to_string))
        .set_projection_expression(projection)
        .set_expression_attribute_names(Some(names))
        .set_expression_attribute_values(Some(values))
        .scan_index_forward(flag(input, "forward", true)?)
        .consistent_read(flag(input, "consistent", false)?)
        .limit(limit(input)?)
        .set_exclusive_start_key(start)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    Ok(page(
        ctx,
        (table, index),
        out.items(),
        (out.count(), out.scanned_count()),
        out.last_evaluated_key(),
        out.consumed_capacity(),
        &capture,
    ))
}

/// The caller's `names` and `values` (the filter's placeholders), refused when they use the
/// console's own prefixes `#ck`, `:ck` (key condition) or `#cp` (projection).
fn caller_expressions(input: &Value) -> Result<(HashMap<String, String>, SdkItem), ApiError> {
    let names: HashMap<String, String> = match input.get("names") {
        None | Some(Value::Null) => HashMap::new(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|_| ApiError::bad("`names` must map #placeholders to attribute names"))?,
    };
    let values = values_from_json(input.get("values"))?;
    if names
        .keys()
        .chain(values.keys())
        .any(|k| k.starts_with("#ck") || k.starts_with(":ck") || k.starts_with("#cp"))
    {
        return Err(ApiError::bad("placeholders starting with #ck, :ck or #cp are the console's own"));
    }
    Ok((names, values))
}

/// `projection` (attribute names separated by commas) as a ProjectionExpression of `#cp…`
/// placeholders, which are added to `names`.
fn projection(input: &Value, names: &mut HashMap<String, String>) -> Result<Option<String>, ApiError> {
    let Some(list) = optional_string(input, "projection")? else {
        return Ok(None);
    };
    let mut parts = Vec::new();
    for (i, attr) in list.split(',').map(str::trim).filter(|a| !a.is_empty()).enumerate() {
        names.insert(format!("#cp{i}"), attr.to_string());
        parts.push(format!("#cp{i}"));
    }
    Ok((!parts.is_empty()).then(|| parts.join(", ")))
}

/// The sort-key part of a key condition: `{name, op, values}` with `op` one of `eq`, `lt`,
/// `le`, `gt`, `ge`, `between` (two values) or `begins_with`.
fn sort_condition(
    sk: &Value,
    names: &mut HashMap<String, String>,
    values: &mut SdkItem,
) -> Result<String, ApiError> {
    names.insert("#ck1".into(), string(sk, "name")?.to_string());
    let given = sk.get("values").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let op = string(sk, "op")?;
    let wanted = if op == "between" { 2 } else { 1 };
    if given.len() != wanted {
        return Err(ApiError::bad(format!("the sort-key condition `{op}` takes {wanted} value(s)")));
    }
    for (i, v) in given.iter().enumerate() {
        values.insert(format!(":ck{}", i + 1), value_from_json(v)?);
    }
    Ok(match op {
        "eq" => "#ck1 = :ck1".into(),
        "lt" => "#ck1 < :ck1".into(),
        "le" => "#ck1 <= :ck1".into(),
        "gt" => "#ck1 > :ck1".into(),
        "ge" => "#ck1 >= :ck1".into(),
        "between" => "#ck1 BETWEEN :ck1 AND :ck2".into(),
        "begins_with" => "begins_with(#ck1, :ck1)".into(),
        other => return Err(ApiError::bad(format!("unknown sort-key operator `{other}`"))),
    })
}

/// The start key of the page after the one whose `cursor` the input carries.
fn start_key(
    ctx: &Ctx<'_>,
    input: &Value,
    table: &str,
    index: Option<&str>,
) -> Result<Option<SdkItem>, ApiError> {
    optional_string(input, "cursor")?.map(|cursor| ctx.cursors.open(table, index, cursor)).transpose()
}

/// One item by its key: `{table, key}` (a consistent read, so an edit sees the latest
/// version).
pub async fn get(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let table = string(input, "table")?;
    let key = item_from_json(input.get("key").unwrap_or(&Value::Null))?;
    let capture = Capture::new();
    let out = ctx
        .client
        .get_item()
        .table_name(table)
        .set_key(Some(key))
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    let item = out.item().map(|item| entry(ctx, item));
    Ok(json!({
        "item": item,
        "consumed": out.consumed_capacity().map(capacity),
        "request": capture.sent(),
    }))
}

/// `{item, entity, decoded}` for one item.
pub fn entry(ctx: &Ctx<'_>, item: &SdkItem) -> Value {
    let mut out = annotate(ctx.design, item);
    out["item"] = item_to_json(item);
    out
}

fn page(
    ctx: &Ctx<'_>,
    (table, index): (&str, Option<&str>),
    items: &[SdkItem],
    (count, scanned): (i32, i32),
    last_key: Option<&SdkItem>,
    consumed: Option<&ConsumedCapacity>,
    capture: &Capture,
) -> Value {
    json!({
        "items": items.iter().map(|item| entry(ctx, item)).collect::<Vec<_>>(),
        "count": count,
        "scannedCount": scanned,
        "cursor": last_key.map(|key| ctx.cursors.seal(table, index, key)),
        "consumed": consumed.map(capacity),
        "request": capture.sent(),
    })
}

/// ConsumedCapacity in DynamoDB's member names.
pub fn capacity(c: &ConsumedCapacity) -> Value {
    let mut out = Map::new();
    out.insert("TableName".into(), json!(c.table_name()));
    out.insert("CapacityUnits".into(), json!(c.capacity_units()));
    if let Some(units) = c.read_capacity_units() {
        out.insert("ReadCapacityUnits".into(), json!(units));
    }
    if let Some(units) = c.write_capacity_units() {
        out.insert("WriteCapacityUnits".into(), json!(units));
    }
    if let Some(t) = c.table() {
        out.insert("Table".into(), json!({ "CapacityUnits": t.capacity_units() }));
    }
    for (member, indexes) in [
        ("GlobalSecondaryIndexes", c.global_secondary_indexes()),
        ("LocalSecondaryIndexes", c.local_secondary_indexes()),
    ] {
        if let Some(indexes) = indexes {
            let map: Map<String, Value> = indexes
                .iter()
                .map(|(name, cap)| (name.clone(), json!({ "CapacityUnits": cap.capacity_units() })))
                .collect();
            out.insert(member.into(), Value::Object(map));
        }
    }
    Value::Object(out)
}
