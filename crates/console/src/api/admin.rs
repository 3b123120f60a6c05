//! Creating and deleting tables. Both need a writable console; deletion also needs the
//! table's name typed again (`confirm`), so a stray click cannot drop a table.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, LocalSecondaryIndex,
    Projection, ProjectionType, ScalarAttributeType,
};
use serde_json::{json, Value};

use super::{string, Ctx};
use crate::capture::Capture;
use crate::error::ApiError;

/// CreateTable (on-demand, indexes projecting all attributes):
/// `{table, pk: {name, type}, sk?, gsis?: [{name, pk, sk?}], lsis?: [{name, sk}]}`.
pub async fn create_table(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    ctx.require_writable()?;
    let table = string(input, "table")?;
    let mut definitions: Vec<AttributeDefinition> = Vec::new();
    let schema = key_schema(input, &mut definitions)?;
    let mut gsis = Vec::new();
    for gsi in list(input, "gsis")? {
        gsis.push(
            GlobalSecondaryIndex::builder()
                .index_name(string(gsi, "name")?)
                .set_key_schema(Some(key_schema(gsi, &mut definitions)?))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
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
    let capture = Capture::new();
    ctx.client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .set_key_schema(Some(schema))
        .set_attribute_definitions(Some(definitions))
        .set_global_secondary_indexes((!gsis.is_empty()).then_some(gsis))
        .set_local_secondary_indexes((!lsis.is_empty()).then_some(lsis))
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    Ok(json!({ "request": capture.sent() }))
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

fn list<'a>(input: &'a Value, name: &str) -> Result<&'a [Value], ApiError> {
    match input.get(name) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(ApiError::bad(format!("`{name}` must be a list"))),
    }
}

/// `pk` and optional `sk` of `spec` as a key schema, adding their attribute definitions.
fn key_schema(
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
