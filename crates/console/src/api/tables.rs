//! The tables page: every table with status, item count, size, keys, indexes, TTL and stream.

use aws_sdk_dynamodb::types::{TableDescription, TimeToLiveDescription};
use serde_json::{json, Value};

use super::{string, Ctx};
use crate::error::ApiError;

/// `{"tables": [summary…]}` for every table of the endpoint.
pub async fn list(ctx: &Ctx<'_>) -> Result<Value, ApiError> {
    let mut names = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let page = ctx.client.list_tables().set_exclusive_start_table_name(start.take()).send().await?;
        names.extend(page.table_names().iter().cloned());
        match page.last_evaluated_table_name() {
            Some(last) => start = Some(last.to_string()),
            None => break,
        }
    }
    let mut tables = Vec::with_capacity(names.len());
    for name in names {
        tables.push(summary_of(ctx, &name).await?);
    }
    Ok(json!({ "tables": tables }))
}

/// `{"table": summary}` for the table named by `table`.
pub async fn describe(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let name = string(input, "table")?;
    Ok(json!({ "table": summary_of(ctx, name).await? }))
}

async fn summary_of(ctx: &Ctx<'_>, name: &str) -> Result<Value, ApiError> {
    let described = ctx.client.describe_table().table_name(name).send().await?;
    let table = described.table().ok_or_else(|| ApiError::bad("DescribeTable returned no table"))?;
    // TTL is a separate call; an endpoint without it still gets a tables page.
    let ttl = ctx.client.describe_time_to_live().table_name(name).send().await.ok();
    Ok(summary(table, ttl.as_ref().and_then(|t| t.time_to_live_description())))
}

fn summary(table: &TableDescription, ttl: Option<&TimeToLiveDescription>) -> Value {
    let attr_type = |attr: &str| {
        table
            .attribute_definitions()
            .iter()
            .find(|d| d.attribute_name() == attr)
            .map(|d| d.attribute_type().as_str().to_string())
    };
    let keys = |schema: &[aws_sdk_dynamodb::types::KeySchemaElement]| {
        schema
            .iter()
            .map(|k| {
                json!({
                    "name": k.attribute_name(),
                    "role": k.key_type().as_str(),
                    "type": attr_type(k.attribute_name()),
                })
            })
            .collect::<Vec<_>>()
    };
    let mut indexes = Vec::new();
    for gsi in table.global_secondary_indexes() {
        indexes.push(json!({
            "name": gsi.index_name(),
            "kind": "GSI",
            "keys": keys(gsi.key_schema()),
            "projection": gsi.projection().and_then(|p| p.projection_type()).map(|p| p.as_str()),
            "status": gsi.index_status().map(|s| s.as_str()),
            "itemCount": gsi.item_count(),
        }));
    }
    for lsi in table.local_secondary_indexes() {
        indexes.push(json!({
            "name": lsi.index_name(),
            "kind": "LSI",
            "keys": keys(lsi.key_schema()),
            "projection": lsi.projection().and_then(|p| p.projection_type()).map(|p| p.as_str()),
            "itemCount": lsi.item_count(),
        }));
    }
    let stream = table.stream_specification();
    json!({
        "name": table.table_name(),
        "status": table.table_status().map(|s| s.as_str()),
        "itemCount": table.item_count(),
        "sizeBytes": table.table_size_bytes(),
        "keys": keys(table.key_schema()),
        "indexes": indexes,
        "arn": table.table_arn(),
        // DynamoDB may leave out BillingModeSummary for a provisioned table (the default mode).
        "billingMode": table
            .billing_mode_summary()
            .and_then(|b| b.billing_mode())
            .map(|b| b.as_str())
            .unwrap_or("PROVISIONED"),
        "provisioned": table.provisioned_throughput().map(|p| json!({
            "read": p.read_capacity_units(),
            "write": p.write_capacity_units(),
        })),
        "deletionProtection": table.deletion_protection_enabled(),
        "ttl": ttl.map(|t| json!({
            "status": t.time_to_live_status().map(|s| s.as_str()),
            "attribute": t.attribute_name(),
        })),
        "stream": stream.map(|s| json!({
            "enabled": s.stream_enabled(),
            "viewType": s.stream_view_type().map(|v| v.as_str()),
        })),
        "created": table.creation_date_time().map(|t| t.to_string()),
    })
}
