//! The writing tools of a `--writable` server: an entity put, updated or deleted by the fields
//! of its key templates, conditional on the version read where its entity type has a
//! `version_field` (the library's optimistic locking, S16).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, ReturnValue};
use aws_sdk_dynamodb::Client;
use monotable_design::deploy::TableShape;
use monotable_design::{Design, Entity};
use serde_json::{json, Map, Value};

use crate::entities::{decoded, entity_key, find_entity, index_keys, table_name, target};
use crate::error::{request, ToolError};
use crate::values::{consumed, object, scalar_text, to_json};

/// The condition, names and values that make a write conditional on `entity`'s version
/// field: `expected` the version read (None: the item must not exist yet, for a put).
struct Versioned {
    condition: String,
    names: Vec<(String, String)>,
    values: Vec<(String, AttributeValue)>,
}

fn versioned(
    design: &Design,
    entity: &Entity,
    expected: Option<u64>,
    creating: bool,
) -> Result<Versioned, ToolError> {
    let pk_attr = design.conventions.pk.clone();
    let Some(field) = &entity.version_field else {
        let condition = if creating { String::new() } else { "attribute_exists(#pk)".to_string() };
        let names = if creating { vec![] } else { vec![("#pk".to_string(), pk_attr)] };
        return Ok(Versioned { condition, names, values: vec![] });
    };
    let attr = entity.field(field).map_or(field.as_str(), |f| f.attr()).to_string();
    match expected {
        Some(v) => Ok(Versioned {
            condition: "#ver = :expected".into(),
            names: vec![("#ver".into(), attr)],
            values: vec![(":expected".into(), AttributeValue::N(v.to_string()))],
        }),
        None if creating => Ok(Versioned {
            condition: "attribute_not_exists(#pk)".into(),
            names: vec![("#pk".into(), pk_attr)],
            values: vec![],
        }),
        None => Err(ToolError::bad(format!(
            "{} has the version field {field}: pass `expected_version`, the version get_entity read",
            entity.name
        ))),
    }
}

/// The write's outcome, a failed condition explained.
fn write_error<E, R>(operation: &str, e: aws_sdk_dynamodb::error::SdkError<E, R>) -> ToolError
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug,
{
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    if e.code() == Some("ConditionalCheckFailedException") {
        return ToolError::Request(format!(
            "{operation} refused: the item is not as expected (it exists already, is missing, or has another version). Read it with get_entity and retry with its current version"
        ));
    }
    request(operation, e)
}

/// `put_entity`: the item with its table keys and entity type, conditional on its version.
pub(crate) async fn put_entity(
    client: &Client,
    design: &Design,
    input: &crate::inputs::PutEntity,
) -> Result<Value, ToolError> {
    let entity = find_entity(design, &input.entity)?;
    let params: BTreeMap<String, String> =
        input.item.iter().filter_map(|(k, v)| Some((k.clone(), scalar_text(v)?))).collect();
    let mut fields = Map::new();
    for (name, v) in &input.item {
        let attr = entity.field(name).map_or(name.as_str(), |f| f.attr());
        fields.insert(attr.to_string(), v.clone());
    }
    let mut stored = object(&fields, "item")?;
    stored.extend(entity_key(design, entity, &params)?);
    stored.extend(index_keys(design, entity, &params));
    stored.insert(design.conventions.entity_type.clone(), AttributeValue::S(entity.name.clone()));
    let v = versioned(design, entity, input.expected_version, true)?;
    if let Some(field) = &entity.version_field {
        let attr = entity.field(field).map_or(field.as_str(), |f| f.attr());
        let next = input.expected_version.map_or(1, |n| n + 1);
        stored.insert(attr.to_string(), AttributeValue::N(next.to_string()));
    }
    let table = table_name(design, input.table.as_deref(), input.stage.as_deref());
    let out = client
        .put_item()
        .table_name(&table)
        .set_item(Some(stored.clone()))
        .set_condition_expression((!v.condition.is_empty()).then_some(v.condition))
        .set_expression_attribute_names((!v.names.is_empty()).then(|| v.names.into_iter().collect()))
        .set_expression_attribute_values((!v.values.is_empty()).then(|| v.values.into_iter().collect()))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(|e| write_error("PutItem", e))?;
    Ok(
        json!({ "table": table, "item": to_json(&stored), "consumed_capacity": consumed(out.consumed_capacity()) }),
    )
}

/// `update`: SET of the given attributes on an existing item, conditional on its version.
pub(crate) async fn update(
    client: &Client,
    design: &Design,
    input: &crate::inputs::Update,
) -> Result<Value, ToolError> {
    let entity = find_entity(design, &input.entity)?;
    if input.set.is_empty() {
        return Err(ToolError::bad("`set` is empty: name at least one attribute to set"));
    }
    let key = entity_key(design, entity, &input.params)?;
    let v = versioned(design, entity, input.expected_version, false)?;
    let mut names: Vec<(String, String)> = v.names;
    let mut values: Vec<(String, AttributeValue)> = v.values;
    let mut sets = Vec::new();
    for (i, (name, value)) in input.set.iter().enumerate() {
        let attr = entity.field(name).map_or(name.as_str(), |f| f.attr());
        if key.contains_key(attr) || attr == design.conventions.entity_type {
            return Err(ToolError::bad(format!("{attr} is part of the item's identity and cannot be set")));
        }
        names.push((format!("#a{i}"), attr.to_string()));
        values.push((format!(":a{i}"), crate::values::value(value, &format!("set.{name}"))?));
        sets.push(format!("#a{i} = :a{i}"));
    }
    if let (Some(_), Some(expected)) = (&entity.version_field, input.expected_version) {
        values.push((":next".into(), AttributeValue::N((expected + 1).to_string())));
        sets.push("#ver = :next".into());
    }
    let table = table_name(design, input.table.as_deref(), input.stage.as_deref());
    let out = client
        .update_item()
        .table_name(&table)
        .set_key(Some(key))
        .update_expression(format!("SET {}", sets.join(", ")))
        .condition_expression(v.condition)
        .set_expression_attribute_names(Some(names.into_iter().collect()))
        .set_expression_attribute_values(Some(values.into_iter().collect()))
        .return_values(ReturnValue::AllNew)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(|e| write_error("UpdateItem", e))?;
    Ok(json!({
        "table": table,
        "item": out.attributes().map(|i| decoded(design, i)),
        "consumed_capacity": consumed(out.consumed_capacity()),
    }))
}

/// `delete`: the item, conditional on its version where the entity type has one.
pub(crate) async fn delete(
    client: &Client,
    design: &Design,
    input: &crate::inputs::EntityKey,
) -> Result<Value, ToolError> {
    let (entity, key, table) = target(design, input)?;
    let v = versioned(design, entity, input.expected_version, false)?;
    let out = client
        .delete_item()
        .table_name(&table)
        .set_key(Some(key.clone()))
        .condition_expression(v.condition)
        .set_expression_attribute_names(Some(v.names.into_iter().collect()))
        .set_expression_attribute_values((!v.values.is_empty()).then(|| v.values.into_iter().collect()))
        .return_values(ReturnValue::AllOld)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .map_err(|e| write_error("DeleteItem", e))?;
    Ok(json!({
        "table": table,
        "deleted": out.attributes().map(|i| decoded(design, i)),
        "consumed_capacity": consumed(out.consumed_capacity()),
    }))
}

/// `create_table_from_design`: the design's table, when there is none of that name yet.
pub(crate) async fn create_table(
    client: &Client,
    design: &Design,
    input: &crate::inputs::CreateTable,
    create: &crate::server::CreateTable,
) -> Result<Value, ToolError> {
    let name = table_name(design, input.table.as_deref(), input.stage.as_deref());
    match client.describe_table().table_name(&name).send().await {
        Ok(_) => {
            return Err(ToolError::bad(format!(
                "the table {name} exists already; bring it to the design with `monotable design apply` (or `design diff` to see how it differs)"
            )))
        }
        Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {}
        Err(e) => return Err(request("DescribeTable", e)),
    }
    let shape = TableShape::desired(design, &name);
    create(client.clone(), shape).await.map_err(ToolError::Request)?;
    Ok(json!({ "created": name }))
}
