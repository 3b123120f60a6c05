//! Writes from the item editor and the importer. Every one needs a writable console.
//!
//! The editor saves conditionally on the version it read: `expected` is the item as the page
//! read it, and the write requires every one of its attributes to still hold the value read
//! (`#e0 = :e0 AND …`). A concurrent change to any attribute the page saw makes the save fail
//! with the endpoint's `ConditionalCheckFailedException` instead of overwriting it. With a
//! design, a versioned entity's save also writes the next version and the updated stamp
//! (`versioned`), so applications that hold the old version conflict with the console's edit.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{PutRequest, ReturnConsumedCapacity, WriteRequest};
use serde_json::{json, Value};

use super::read::capacity;
use super::{optional_string, string, versioned, Ctx};
use crate::capture::Capture;
use crate::error::ApiError;
use crate::value::{item_from_json, SdkItem};

/// DynamoDB's limit on an expression's length (4 KB).
const MAX_EXPRESSION: usize = 4096;
/// BatchWriteItem's limit on requests per call.
const MAX_BATCH: usize = 25;

/// A condition that holds only while every attribute of `expected` has the value read, or,
/// without `expected`, only while no item has the key (`create` names the partition key).
struct Guard {
    expression: String,
    names: HashMap<String, String>,
    values: SdkItem,
}

/// The item as the page read it (`expected`), if the write is an edit of one.
fn expected(input: &Value) -> Result<Option<SdkItem>, ApiError> {
    input.get("expected").filter(|v| !v.is_null()).map(item_from_json).transpose()
}

fn guard(
    input: &Value,
    expected: Option<SdkItem>,
    absent: Option<String>,
) -> Result<Option<Guard>, ApiError> {
    if let Some(expected) = expected {
        let mut attrs: Vec<_> = expected.into_iter().collect();
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut guard = Guard { expression: String::new(), names: HashMap::new(), values: SdkItem::new() };
        for (i, (name, value)) in attrs.into_iter().enumerate() {
            if i > 0 {
                guard.expression.push_str(" AND ");
            }
            guard.expression.push_str(&format!("#e{i} = :e{i}"));
            guard.names.insert(format!("#e{i}"), name);
            guard.values.insert(format!(":e{i}"), value);
        }
        if let Some(attr) = absent {
            let i = guard.names.len();
            if i > 0 {
                guard.expression.push_str(" AND ");
            }
            guard.expression.push_str(&format!("attribute_not_exists(#e{i})"));
            guard.names.insert(format!("#e{i}"), attr);
        }
        if guard.expression.len() > MAX_EXPRESSION {
            return Err(ApiError::bad("The item has too many attributes to save conditionally."));
        }
        return Ok((!guard.names.is_empty()).then_some(guard));
    }
    Ok(optional_string(input, "create")?.map(|pk| Guard {
        expression: "attribute_not_exists(#e0)".into(),
        names: [("#e0".to_string(), pk.to_string())].into(),
        values: SdkItem::new(),
    }))
}

/// PutItem: `{table, item, expected? | create?}`. With a design, an edit of a versioned
/// entity is saved as the library saves it (`versioned`).
pub async fn put(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    ctx.require_writable()?;
    let table = string(input, "table")?;
    let mut item = item_from_json(input.get("item").unwrap_or(&Value::Null))?;
    let expected = expected(input)?;
    let absent = match (ctx.design, &expected) {
        (Some(design), Some(read)) => versioned::stamp(design, read, &mut item)?.absent_version,
        _ => None,
    };
    let guard = guard(input, expected, absent)?;
    let capture = Capture::new();
    let (expression, names, values) = split(guard);
    let out = ctx
        .client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .set_condition_expression(expression)
        .set_expression_attribute_names(names)
        .set_expression_attribute_values(values)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    Ok(json!({ "consumed": out.consumed_capacity().map(capacity), "request": capture.sent() }))
}

/// DeleteItem: `{table, key, expected?}`.
pub async fn delete(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    ctx.require_writable()?;
    let table = string(input, "table")?;
    let key = item_from_json(input.get("key").unwrap_or(&Value::Null))?;
    let (expression, names, values) = split(guard(input, expected(input)?, None)?);
    let capture = Capture::new();
    let out = ctx
        .client
        .delete_item()
        .table_name(table)
        .set_key(Some(key))
        .set_condition_expression(expression)
        .set_expression_attribute_names(names)
        .set_expression_attribute_values(values)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    Ok(json!({ "consumed": out.consumed_capacity().map(capacity), "request": capture.sent() }))
}

type Parts = (Option<String>, Option<HashMap<String, String>>, Option<SdkItem>);

fn split(guard: Option<Guard>) -> Parts {
    match guard {
        None => (None, None, None),
        // DynamoDB refuses an empty ExpressionAttributeValues map.
        Some(g) => (Some(g.expression), Some(g.names), (!g.values.is_empty()).then_some(g.values)),
    }
}

/// BatchWriteItem of up to 25 puts (the importer's unit): `{table, items}`. Unprocessed
/// items are retried with a growing pause; whatever is still unprocessed after that is an
/// error rather than a silent loss.
pub async fn batch_put(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    ctx.require_writable()?;
    let table = string(input, "table")?;
    let items =
        input.get("items").and_then(Value::as_array).ok_or_else(|| ApiError::bad("`items` is required"))?;
    if items.is_empty() || items.len() > MAX_BATCH {
        return Err(ApiError::bad(format!("`items` must hold 1 to {MAX_BATCH} items")));
    }
    let mut requests = Vec::with_capacity(items.len());
    for item in items {
        let put = PutRequest::builder()
            .set_item(Some(item_from_json(item)?))
            .build()
            .map_err(|e| ApiError::bad(e.to_string()))?;
        requests.push(WriteRequest::builder().put_request(put).build());
    }
    for attempt in 0..6u32 {
        let out = ctx.client.batch_write_item().request_items(table, requests).send().await?;
        requests = out.unprocessed_items().and_then(|u| u.get(table)).cloned().unwrap_or_default();
        if requests.is_empty() {
            return Ok(json!({ "written": items.len() }));
        }
        tokio::time::sleep(Duration::from_millis(50 << attempt)).await;
    }
    Err(ApiError::Endpoint {
        code: "UnprocessedItems".into(),
        message: format!("{} item(s) were still unprocessed after retries", requests.len()),
    })
}
