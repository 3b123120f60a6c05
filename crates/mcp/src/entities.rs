//! The design-driven reads: access patterns run by name, and entities read by the fields of
//! their key templates (the writes are `writes.rs`).
//!
//! Key templates are filled with `monotable_console::render` and read back with
//! `monotable_console::decode`, the functions the console's access patterns use, so a key
//! written here is the key the library and the console write.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use aws_sdk_dynamodb::Client;
use monotable_console::{decode, render};
use monotable_design::{AccessPattern, Design, Entity, Operation, SortOp, TABLE};
use serde_json::{json, Value};

use crate::error::{request, ToolError};
use crate::values::{consumed, item, to_json, SdkItem};

/// The table a call works on: the one named, else the design's `<app>-<stage>-<model>`.
pub(crate) fn table_name(design: &Design, table: Option<&str>, stage: Option<&str>) -> String {
    table.map_or_else(|| design.table_name(stage.unwrap_or("dev")), str::to_string)
}

/// The single partition- and sort-key attribute of `index`.
fn key_attrs(design: &Design, index: &str) -> Result<(String, String), ToolError> {
    let (pk, sk) = design
        .key_attrs(index)
        .ok_or_else(|| ToolError::bad(format!("the design has no index {index:?}")))?;
    match (<[String; 1]>::try_from(pk), <[String; 1]>::try_from(sk)) {
        (Ok([pk]), Ok([sk])) => Ok((pk, sk)),
        _ => Err(ToolError::bad(format!(
            "{index} has a multi-attribute key; run this pattern with the query tool and its own key condition"
        ))),
    }
}

pub(crate) fn find_entity<'d>(design: &'d Design, name: &str) -> Result<&'d Entity, ToolError> {
    design.entity(name).ok_or_else(|| {
        let names: Vec<&str> = design.entities.iter().map(|e| e.name.as_str()).collect();
        ToolError::bad(format!("the design has no entity type {name:?}; it has {}", names.join(", ")))
    })
}

fn find_pattern<'d>(design: &'d Design, name: &str) -> Result<&'d AccessPattern, ToolError> {
    design.access_patterns.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = design.access_patterns.iter().map(|p| p.name.as_str()).collect();
        ToolError::bad(format!("the design has no access pattern {name:?}; it has {}", names.join(", ")))
    })
}

/// The design's entity type of `item`: the one its entity-type attribute names or, failing
/// that, the first whose table key templates both match the item's keys.
fn entity_of<'d>(design: &'d Design, item: &SdkItem) -> Option<&'d Entity> {
    let text = |attr: &str| item.get(attr).and_then(|v| v.as_s().ok()).map(String::as_str);
    let named = text(&design.conventions.entity_type).and_then(|n| design.entity(n));
    named.or_else(|| {
        let (pk, sk) = (text(&design.conventions.pk)?, text(&design.conventions.sk)?);
        design.entities.iter().find(|e| decode(&e.pk, pk).is_some() && decode(&e.sk, sk).is_some())
    })
}

/// `{"entity", "keys": {field: value read from the key templates}, "item"}` for one item.
pub(crate) fn decoded(design: &Design, item: &SdkItem) -> Value {
    let Some(entity) = entity_of(design, item) else {
        return json!({ "entity": null, "keys": {}, "item": to_json(item) });
    };
    let text = |attr: &str| item.get(attr).and_then(|v| v.as_s().ok());
    let mut keys = BTreeMap::new();
    for (template, attr) in [(&entity.pk, &design.conventions.pk), (&entity.sk, &design.conventions.sk)] {
        if let Some(values) = text(attr).and_then(|k| decode(template, k)) {
            keys.extend(values);
        }
    }
    json!({ "entity": entity.name, "keys": keys, "item": to_json(item) })
}

/// The table key of `entity` with `params`, as attribute → value.
pub(crate) fn entity_key(
    design: &Design,
    entity: &Entity,
    params: &BTreeMap<String, String>,
) -> Result<SdkItem, ToolError> {
    let (pk_attr, sk_attr) = key_attrs(design, TABLE)?;
    let fill =
        |t: &str| render(t, params, false).map_err(|e| ToolError::bad(format!("{}: {e}", entity.name)));
    Ok(SdkItem::from([
        (pk_attr, AttributeValue::S(fill(&entity.pk)?)),
        (sk_attr, AttributeValue::S(fill(&entity.sk)?)),
    ]))
}

/// The secondary-index keys of `entity` that `params` fill completely (an index whose
/// templates name a field the item lacks is left out: the item is not in that sparse index).
pub(crate) fn index_keys(design: &Design, entity: &Entity, params: &BTreeMap<String, String>) -> SdkItem {
    let mut out = SdkItem::new();
    for (index, key) in &entity.indexes {
        let Ok((pk_attr, sk_attr)) = key_attrs(design, index) else { continue };
        let filled = [(pk_attr, &key.pk), (sk_attr, &key.sk)]
            .into_iter()
            .filter_map(|(attr, t)| Some((attr, t.as_ref()?)))
            .map(|(attr, t)| render(t, params, false).map(|v| (attr, AttributeValue::S(v))))
            .collect::<Result<Vec<_>, _>>();
        if let Ok(filled) = filled {
            out.extend(filled);
        }
    }
    out
}

/// The sort-key condition of a pattern, with its placeholders `#sk` and `:sk`.
fn sort_condition(op: SortOp) -> Result<&'static str, ToolError> {
    Ok(match op {
        SortOp::Eq => "#sk = :sk",
        SortOp::BeginsWith => "begins_with(#sk, :sk)",
        SortOp::Lt => "#sk < :sk",
        SortOp::Le => "#sk <= :sk",
        SortOp::Gt => "#sk > :sk",
        SortOp::Ge => "#sk >= :sk",
        SortOp::Between => {
            return Err(ToolError::bad(
                "a BETWEEN pattern needs two sort-key values: run it with the query tool and a key condition",
            ))
        }
    })
}

/// `run_access_pattern`: a get or query pattern with its key templates filled from `params`.
pub(crate) async fn run_pattern(
    client: &Client,
    design: &Design,
    input: &crate::inputs::RunPattern,
) -> Result<Value, ToolError> {
    let p = find_pattern(design, &input.pattern)?;
    if !p.operation.reads() {
        return Err(ToolError::bad(format!(
            "{} writes; run_access_pattern runs reading patterns (get, query). Write with put_entity, update or delete on a --writable server",
            p.name
        )));
    }
    let key = p.key.as_ref().ok_or_else(|| {
        ToolError::bad(format!(
            "{} has no key condition: only a Scan could serve it (lint rule MT002)",
            p.name
        ))
    })?;
    let (pk_attr, sk_attr) = key_attrs(design, &p.index)?;
    let bad = |e: String| ToolError::bad(format!("{}: {e}; pass it in `params`", p.name));
    let pk = render(&key.pk, &input.params, false).map_err(bad)?;
    let sk = match &key.sk {
        None => None,
        Some(c) => Some((c.op, render(&c.value, &input.params, c.op == SortOp::BeginsWith).map_err(bad)?)),
    };
    let table = table_name(design, input.table.as_deref(), input.stage.as_deref());
    let (items, last, capacity) = match p.operation {
        Operation::Get => {
            let Some((_, sk)) = sk else {
                return Err(ToolError::bad(format!("{} has no sort-key value to get by", p.name)));
            };
            let out = client
                .get_item()
                .table_name(&table)
                .key(&pk_attr, AttributeValue::S(pk.clone()))
                .key(&sk_attr, AttributeValue::S(sk))
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                .send()
                .await
                .map_err(|e| request("GetItem", e))?;
            (out.item().into_iter().cloned().collect::<Vec<_>>(), None, consumed(out.consumed_capacity()))
        }
        Operation::Query => {
            let mut condition = "#pk = :pk".to_string();
            let mut request_builder = client
                .query()
                .table_name(&table)
                .set_index_name((p.index != TABLE).then(|| p.index.clone()))
                .expression_attribute_names("#pk", &pk_attr)
                .expression_attribute_values(":pk", AttributeValue::S(pk.clone()));
            if let Some((op, value)) = sk {
                condition = format!("{condition} AND {}", sort_condition(op)?);
                request_builder = request_builder
                    .expression_attribute_names("#sk", &sk_attr)
                    .expression_attribute_values(":sk", AttributeValue::S(value));
            }
            let start =
                input.exclusive_start_key.as_ref().map(|k| item(k, "exclusive_start_key")).transpose()?;
            let out = request_builder
                .key_condition_expression(condition)
                .scan_index_forward(p.order != Some(monotable_design::Order::Descending))
                .set_limit(input.limit.or(p.limit).map(|l| l.min(i32::MAX as u32) as i32))
                .set_exclusive_start_key(start)
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                .send()
                .await
                .map_err(|e| request("Query", e))?;
            (out.items().to_vec(), out.last_evaluated_key().map(to_json), consumed(out.consumed_capacity()))
        }
        _ => {
            return Err(ToolError::bad(format!("{} is a batch read; read each key with get_entity", p.name)))
        }
    };
    Ok(json!({
        "pattern": p.name,
        "table": table,
        "index": p.index,
        "count": items.len(),
        "items": items.iter().map(|i| decoded(design, i)).collect::<Vec<_>>(),
        "last_evaluated_key": last,
        "consumed_capacity": capacity,
    }))
}

/// The entity type, table key and table an [`EntityKey`](crate::inputs::EntityKey) names.
pub(crate) fn target<'d>(
    design: &'d Design,
    input: &crate::inputs::EntityKey,
) -> Result<(&'d Entity, SdkItem, String), ToolError> {
    let entity = find_entity(design, &input.entity)?;
    let key = entity_key(design, entity, &input.params)?;
    Ok((entity, key, table_name(design, input.table.as_deref(), input.stage.as_deref())))
}

/// `get_entity`: one item by its entity type and key fields.
pub(crate) async fn get_entity(
    client: &Client,
    design: &Design,
    input: &crate::inputs::EntityKey,
) -> Result<Value, ToolError> {
    let (_, key, table) = target(design, input)?;
    let out = client
        .get_item()
        .table_name(&table)
        .set_key(Some(key.clone()))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(|e| request("GetItem", e))?;
    Ok(json!({
        "table": table,
        "key": to_json(&key),
        "found": out.item().is_some(),
        "item": out.item().map(|i| decoded(design, i)),
        "consumed_capacity": consumed(out.consumed_capacity()),
    }))
}
