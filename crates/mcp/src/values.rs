//! Items between DynamoDB and the agent: plain JSON both ways (serde_dynamo's mapping: `S` a
//! string, `N` a number, `M` an object, `L` and sets arrays), and what a request consumed.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, ConsumedCapacity};
use serde_json::{json, Map, Value};

use crate::error::ToolError;

/// An SDK item.
pub(crate) type SdkItem = HashMap<String, AttributeValue>;

/// `item` as plain JSON.
pub(crate) fn to_json(item: &SdkItem) -> Value {
    serde_dynamo::aws_sdk_dynamodb_1::from_item(item.clone())
        .unwrap_or_else(|e| json!({ "unreadable": e.to_string() }))
}

/// One plain JSON value as an attribute value; `what` names it in the error.
pub(crate) fn value(v: &Value, what: &str) -> Result<AttributeValue, ToolError> {
    serde_dynamo::aws_sdk_dynamodb_1::to_attribute_value(v)
        .map_err(|e| ToolError::bad(format!("{what} cannot be stored: {e}")))
}

/// A plain JSON object as an item (a key: `exclusive_start_key`); `what` names it.
pub(crate) fn item(v: &Value, what: &str) -> Result<SdkItem, ToolError> {
    let Value::Object(map) = v else {
        return Err(ToolError::bad(format!(
            "{what} must be a JSON object, as a previous page's last_evaluated_key"
        )));
    };
    object(map, what)
}

/// A plain JSON object as an item.
pub(crate) fn object(map: &Map<String, Value>, what: &str) -> Result<SdkItem, ToolError> {
    map.iter().map(|(k, v)| Ok((k.clone(), value(v, &format!("{what}.{k}"))?))).collect()
}

/// `{"total": units, "table": units, "indexes": {name: units}}`, or null.
pub(crate) fn consumed(c: Option<&ConsumedCapacity>) -> Value {
    let Some(c) = c else { return Value::Null };
    let indexes: Map<String, Value> = c
        .global_secondary_indexes()
        .into_iter()
        .flatten()
        .chain(c.local_secondary_indexes().into_iter().flatten())
        .map(|(name, u)| (name.clone(), json!(u.capacity_units())))
        .collect();
    json!({
        "total": c.capacity_units(),
        "table": c.table().and_then(|t| t.capacity_units()),
        "indexes": indexes,
    })
}

/// The text of a scalar as a key template's placeholder takes it: a string as is, a number or
/// boolean as written; `None` for anything else.
pub(crate) fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
