//! Creating and deleting tables. Both need a writable console; deletion also needs the
//! table's name typed again (`confirm`), so a stray click cannot drop a table. A table is
//! created with one CreateTable (keys, indexes, billing, stream, deletion protection, tags);
//! TTL, which CreateTable does not take, follows with UpdateTimeToLive once the table is
//! ACTIVE.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, LocalSecondaryIndex,
    Projection, ProjectionType, ScalarAttributeType, StreamSpecification, TableStatus,
};
use serde_json::{json, Value};

use super::settings::{set_ttl, tag_list, throughput, view_type};
use super::{flag, optional_string, string, Ctx};
use crate::capture::Capture;
use crate::error::ApiError;

/// How long a new table may stay CREATING before its TTL is set (DynamoDB takes seconds).
const ACTIVE_WAIT: Duration = Duration::from_secs(60);

/// CreateTable (indexes projecting all attributes): `{table, pk: {name, type}, sk?, gsis?:
/// [{name, pk, sk?}], lsis?: [{name, sk}], billing?: {mode, read?, write?}, stream?: view
/// type, deletionProtection?, tags?: {key: value}, ttl?: attribute}`. On-demand by default; a
/// provisioned table gives its GSIs the table's capacity.
pub async fn create_table(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    ctx.require_writable()?;
    let table = string(input, "table")?;
    let mut definitions: Vec<AttributeDefinition> = Vec::new();
    let schema = key_schema(input, &mut definitions)?;
    let billing = input.get("billing").filter(|b| !b.is_null());
    let provisioned = match billing.map(|b| string(b, "mode")).transpose()? {
        None | Some("PAY_PER_REQUEST") => None,
        Some("PROVISIONED") => Some(throughput(billing.unwrap_or(&Value::Null))?),
        Some(other) => {
            return Err(ApiError::bad(format!(
                "billing mode `{other}` is not PAY_PER_REQUEST or PROVISIONED"
            )))
        }
    };
    let mut gsis = Vec::new();
    for gsi in list(input, "gsis")? {
        gsis.push(
            GlobalSecondaryIndex::builder()
                .index_name(string(gsi, "name")?)
                .set_key_schema(Some(key_schema(gsi, &mut definitions)?))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .set_provisioned_throughput(provisioned.clone())
                .build()
                .map_err(|e| ApiError::bad(e.to_string()))?,
        );
    }
    let mut lsis = Vec::new();
    for lsi in list(input, "lsis")? {
        let mut keys = vec![schema[0].clone()];
        keys.push(key(lsi.get("sk"), KeyType::Range, &mut definitions)?);
        lsis.push(
            LocalSecondaryIndex::builder()
                .index_name(string(lsi, "name")?)
                .set_key_schema(Some(keys))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .map_err(|e| ApiError::bad(e.to_string()))?,
        );
    }
    let stream = optional_string(input, "stream")?
        .map(|view| {
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(view_type(view)?)
                .build()
                .map_err(|e| ApiError::bad(e.to_string()))
        })
        .transpose()?;
    let tags = tag_list(input, "tags")?;
    let ttl = optional_string(input, "ttl")?;
    let capture = Capture::new();
    ctx.client
        .create_table()
        .table_name(table)
        .billing_mode(if provisioned.is_some() {
            BillingMode::Provisioned
        } else {
            BillingMode::PayPerRequest
        })
        .set_provisioned_throughput(provisioned)
        .set_key_schema(Some(schema))
        .set_attribute_definitions(Some(definitions))
        .set_global_secondary_indexes((!gsis.is_empty()).then_some(gsis))
        .set_local_secondary_indexes((!lsis.is_empty()).then_some(lsis))
        .set_stream_specification(stream)
        .deletion_protection_enabled(flag(input, "deletionProtection", false)?)
        .set_tags((!tags.is_empty()).then_some(tags))
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    let mut requests = vec![capture.sent()];
    if let Some(attribute) = ttl {
        wait_active(ctx, table).await?;
        let capture = Capture::new();
        set_ttl(ctx, table, attribute, true, &capture).await?;
        requests.push(capture.sent());
    }
    Ok(json!({ "request": requests[0], "requests": requests }))
}

/// Polls DescribeTable until `table` is ACTIVE (at most `ACTIVE_WAIT`).
async fn wait_active(ctx: &Ctx<'_>, table: &str) -> Result<(), ApiError> {
    let deadline = tokio::time::Instant::now() + ACTIVE_WAIT;
    loop {
        let described = ctx.client.describe_table().table_name(table).send().await?;
        if described.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(ApiError::bad(format!(
                "{table} was created but is not ACTIVE after a minute; set its TTL on the Settings tab"
            )));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// DeleteTable: `{table, confirm}` where `confirm` repeats the name.
pub async fn delete_table(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    ctx.require_writable()?;
    let table = string(input, "table")?;
    if input.get("confirm").and_then(Value::as_str) != Some(table) {
        return Err(ApiError::bad("Type the table's name to confirm its deletion."));
    }
    let capture = Capture::new();
    ctx.client.delete_table().table_name(table).customize().interceptor(capture.clone()).send().await?;
    Ok(json!({ "request": capture.sent() }))
}

pub fn list<'a>(input: &'a Value, name: &str) -> Result<&'a [Value], ApiError> {
    match input.get(name) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(ApiError::bad(format!("`{name}` must be a list"))),
    }
}

/// `pk` and optional `sk` of `spec` as a key schema, adding their attribute definitions.
pub fn key_schema(
    spec: &Value,
    definitions: &mut Vec<AttributeDefinition>,
) -> Result<Vec<KeySchemaElement>, ApiError> {
    let mut schema = vec![key(spec.get("pk"), KeyType::Hash, definitions)?];
    if let Some(sk) = spec.get("sk").filter(|v| !v.is_null()) {
        schema.push(key(Some(sk), KeyType::Range, definitions)?);
    }
    Ok(schema)
}

/// One key attribute `{name, type}` (type `S`, `N` or `B`). An attribute used twice must
/// keep one type.
fn key(
    spec: Option<&Value>,
    role: KeyType,
    definitions: &mut Vec<AttributeDefinition>,
) -> Result<KeySchemaElement, ApiError> {
    let spec = spec.ok_or_else(|| ApiError::bad("a key attribute is missing"))?;
    let name = string(spec, "name")?;
    let ty = match string(spec, "type")? {
        "S" => ScalarAttributeType::S,
        "N" => ScalarAttributeType::N,
        "B" => ScalarAttributeType::B,
        other => return Err(ApiError::bad(format!("key type `{other}` is not S, N or B"))),
    };
    match definitions.iter().find(|d| d.attribute_name() == name) {
        Some(d) if *d.attribute_type() != ty => {
            return Err(ApiError::bad(format!("attribute `{name}` is given two different types")))
        }
        Some(_) => {}
        None => definitions.push(
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ty)
                .build()
                .map_err(|e| ApiError::bad(e.to_string()))?,
        ),
    }
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(role)
        .build()
        .map_err(|e| ApiError::bad(e.to_string()))
}
