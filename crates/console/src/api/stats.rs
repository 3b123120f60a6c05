//! Single-table statistics, one Scan page at a time: items and bytes per entity type and per
//! partition. The page starts the scan on request, shows its progress and adds the pages up
//! (a table's partitions never have to fit in one answer); sizes follow DynamoDB's item-size
//! formula (`monotable_types::item_size`).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use super::{optional_string, read, string, Ctx};
use crate::error::ApiError;
use crate::single::annotate;
use crate::value::{item_from_json, item_to_json};

/// `{table, pk, cursor?, limit?}` (`pk` names the partition-key attribute): one Scan page as
/// `{scanned, cursor, entities: {name: {items, bytes}}, partitions: [{key, items, bytes}]}`.
pub async fn page(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let table = string(input, "table")?;
    let pk = string(input, "pk")?;
    let limit = input.get("limit").cloned().unwrap_or(json!(1000));
    let scan = json!({ "table": table, "cursor": optional_string(input, "cursor")?, "limit": limit });
    let out = read::scan(ctx, &scan).await?;
    let mut entities: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut partitions: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let entries = out["items"].as_array().map(Vec::as_slice).unwrap_or_default();
    for entry in entries {
        let item = item_from_json(&entry["item"])?;
        let bytes = size(&entry["item"])?;
        let entity = annotate(ctx.design, &item)["entity"].as_str().unwrap_or("(no entity type)").to_string();
        let e = entities.entry(entity).or_default();
        *e = (e.0 + 1, e.1 + bytes);
        let key = item.get(pk).map(key_text).unwrap_or_default();
        let p = partitions.entry(key).or_default();
        *p = (p.0 + 1, p.1 + bytes);
    }
    Ok(json!({
        "scanned": entries.len(),
        "cursor": out["cursor"],
        "entities": entities.into_iter().map(|(k, (items, bytes))| (k, json!({ "items": items, "bytes": bytes }))).collect::<serde_json::Map<_, _>>(),
        "partitions": partitions.into_iter().map(|(key, (items, bytes))| json!({ "key": key, "items": items, "bytes": bytes })).collect::<Vec<_>>(),
    }))
}

/// An item's size (DynamoDB JSON) by DynamoDB's formula.
fn size(item: &Value) -> Result<u64, ApiError> {
    let item: monotable_types::Item =
        serde_json::from_value(item.clone()).map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(monotable_types::item_size(&item) as u64)
}

/// A partition-key value as text: a string or number as is, a binary in base64.
fn key_text(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        AttributeValue::B(b) => STANDARD.encode(b.as_ref()),
        other => item_to_json(&[("k".to_string(), other.clone())].into())["k"].to_string(),
    }
}
