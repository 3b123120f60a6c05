//! A table's settings, each change the one call a client would make: UpdateTimeToLive (TTL),
//! UpdateTable (stream, billing mode and capacity, deletion protection, a GSI added or
//! deleted), TagResource and UntagResource (tags). UpdateTable takes one of these changes per
//! call ("UpdateTable", Amazon DynamoDB API Reference), so the page sends one at a time, each
//! after the user confirmed it. Every change needs a writable console.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction, DeleteGlobalSecondaryIndexAction,
    GlobalSecondaryIndexUpdate, Projection, ProjectionType, ProvisionedThroughput, StreamSpecification,
    StreamViewType, Tag, TimeToLiveSpecification, UpdateGlobalSecondaryIndexAction,
};
use serde_json::{json, Value};

use super::admin::{key_schema, list};
use super::{flag, string, Ctx};
use crate::capture::Capture;
use crate::error::ApiError;

/// `{"tags": {key: value}}` of `table` (ListTagsOfResource on its ARN).
pub async fn tags(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let arn = arn(ctx, string(input, "table")?).await?;
    let mut tags = BTreeMap::new();
    let mut next: Option<String> = None;
    loop {
        let page =
            ctx.client.list_tags_of_resource().resource_arn(&arn).set_next_token(next.take()).send().await?;
        tags.extend(page.tags().iter().map(|t| (t.key().to_string(), t.value().to_string())));
        match page.next_token() {
            Some(token) => next = Some(token.to_string()),
            None => break,
        }
    }
    Ok(json!({ "tags": tags }))
}

/// One change of `table`: `{table, change: {kind, …}}` with `kind` one of `ttl` (`attribute`,
/// `enabled`), `stream` (`enabled`, `viewType`), `billing` (`mode`, `read`, `write`),
/// `deletionProtection` (`enabled`), `tags` (`add: {key: value}`, `remove: [key]`),
/// `addIndex` (`name`, `pk`, `sk?`) or `deleteIndex` (`name`). Answers `{request}`, the
/// call as sent.
pub async fn update(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    ctx.require_writable()?;
    let table = string(input, "table")?;
    let change =
        input.get("change").filter(|c| c.is_object()).ok_or_else(|| ApiError::bad("`change` is required"))?;
    let capture = Capture::new();
    let kind = string(change, "kind")?;
    match kind {
        "ttl" => {
            set_ttl(ctx, table, string(change, "attribute")?, flag(change, "enabled", true)?, &capture)
                .await?;
        }
        "tags" => {
            let arn = arn(ctx, table).await?;
            let add = tag_list(change, "add")?;
            let remove: Vec<String> = list(change, "remove")?
                .iter()
                .map(|k| {
                    k.as_str().map(str::to_string).ok_or_else(|| ApiError::bad("`remove` must list tag keys"))
                })
                .collect::<Result<_, _>>()?;
            if add.is_empty() == remove.is_empty() {
                return Err(ApiError::bad("Give tags to add or tag keys to remove, not both or neither."));
            }
            if remove.is_empty() {
                let tags = add;
                ctx.client
                    .tag_resource()
                    .resource_arn(arn)
                    .set_tags(Some(tags))
                    .customize()
                    .interceptor(capture.clone())
                    .send()
                    .await?;
            } else {
                ctx.client
                    .untag_resource()
                    .resource_arn(arn)
                    .set_tag_keys(Some(remove))
                    .customize()
                    .interceptor(capture.clone())
                    .send()
                    .await?;
            }
        }
        _ => {
            let mut update = ctx.client.update_table().table_name(table);
            match kind {
                "stream" => {
                    let enabled = flag(change, "enabled", true)?;
                    let mut spec = StreamSpecification::builder().stream_enabled(enabled);
                    if enabled {
                        spec = spec.stream_view_type(view_type(string(change, "viewType")?)?);
                    }
                    update =
                        update.stream_specification(spec.build().map_err(|e| ApiError::bad(e.to_string()))?);
                }
                "billing" => match string(change, "mode")? {
                    "PAY_PER_REQUEST" => update = update.billing_mode(BillingMode::PayPerRequest),
                    "PROVISIONED" => {
                        // Leaving on-demand sets the capacity of the table and of every GSI.
                        let throughput = throughput(change)?;
                        let described = ctx.client.describe_table().table_name(table).send().await?;
                        let indexes =
                            described.table().map(|t| t.global_secondary_indexes()).unwrap_or_default();
                        for index in indexes {
                            let name = index.index_name().unwrap_or_default();
                            let action = UpdateGlobalSecondaryIndexAction::builder()
                                .index_name(name)
                                .provisioned_throughput(throughput.clone())
                                .build()
                                .map_err(|e| ApiError::bad(e.to_string()))?;
                            update = update.global_secondary_index_updates(
                                GlobalSecondaryIndexUpdate::builder().update(action).build(),
                            );
                        }
                        update =
                            update.billing_mode(BillingMode::Provisioned).provisioned_throughput(throughput);
                    }
                    other => {
                        return Err(ApiError::bad(format!(
                            "billing mode `{other}` is not PAY_PER_REQUEST or PROVISIONED"
                        )))
                    }
                },
                "deletionProtection" => {
                    update = update.deletion_protection_enabled(flag(change, "enabled", true)?);
                }
                "addIndex" => {
                    let mut definitions: Vec<AttributeDefinition> = Vec::new();
                    let mut action = CreateGlobalSecondaryIndexAction::builder()
                        .index_name(string(change, "name")?)
                        .set_key_schema(Some(key_schema(change, &mut definitions)?))
                        .projection(Projection::builder().projection_type(ProjectionType::All).build());
                    if change.get("read").is_some_and(|v| !v.is_null()) {
                        action = action.provisioned_throughput(throughput(change)?);
                    }
                    update =
                        update.set_attribute_definitions(Some(definitions)).global_secondary_index_updates(
                            GlobalSecondaryIndexUpdate::builder()
                                .create(action.build().map_err(|e| ApiError::bad(e.to_string()))?)
                                .build(),
                        );
                }
                "deleteIndex" => {
                    let action = DeleteGlobalSecondaryIndexAction::builder()
                        .index_name(string(change, "name")?)
                        .build()
                        .map_err(|e| ApiError::bad(e.to_string()))?;
                    update = update.global_secondary_index_updates(
                        GlobalSecondaryIndexUpdate::builder().delete(action).build(),
                    );
                }
                other => return Err(ApiError::bad(format!("unknown table change `{other}`"))),
            }
            update.customize().interceptor(capture.clone()).send().await?;
        }
    }
    Ok(json!({ "request": capture.sent() }))
}

/// UpdateTimeToLive turning TTL on `attribute` on or off, recorded in `capture`.
pub async fn set_ttl(
    ctx: &Ctx<'_>,
    table: &str,
    attribute: &str,
    enabled: bool,
    capture: &Capture,
) -> Result<(), ApiError> {
    let spec = TimeToLiveSpecification::builder()
        .attribute_name(attribute)
        .enabled(enabled)
        .build()
        .map_err(|e| ApiError::bad(e.to_string()))?;
    ctx.client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(spec)
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    Ok(())
}

/// The tags `{key: value}` of member `name` (none when absent).
pub fn tag_list(input: &Value, name: &str) -> Result<Vec<Tag>, ApiError> {
    let tags: BTreeMap<String, String> = match input.get(name) {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|_| ApiError::bad(format!("`{name}` must map tag keys to values")))?,
    };
    tags.into_iter()
        .map(|(k, v)| Tag::builder().key(k).value(v).build().map_err(|e| ApiError::bad(e.to_string())))
        .collect()
}

async fn arn(ctx: &Ctx<'_>, table: &str) -> Result<String, ApiError> {
    let described = ctx.client.describe_table().table_name(table).send().await?;
    described
        .table()
        .and_then(|t| t.table_arn())
        .map(str::to_string)
        .ok_or_else(|| ApiError::bad("DescribeTable returned no table ARN"))
}

/// `{read, write}` capacity units (whole numbers from 1).
pub fn throughput(spec: &Value) -> Result<ProvisionedThroughput, ApiError> {
    let units = |name: &str| {
        spec.get(name)
            .and_then(Value::as_i64)
            .filter(|n| *n >= 1)
            .ok_or_else(|| ApiError::bad(format!("`{name}` capacity units must be a whole number from 1")))
    };
    ProvisionedThroughput::builder()
        .read_capacity_units(units("read")?)
        .write_capacity_units(units("write")?)
        .build()
        .map_err(|e| ApiError::bad(e.to_string()))
}

/// A stream view type by its DynamoDB name.
pub fn view_type(name: &str) -> Result<StreamViewType, ApiError> {
    match name {
        "KEYS_ONLY" | "NEW_IMAGE" | "OLD_IMAGE" | "NEW_AND_OLD_IMAGES" => Ok(StreamViewType::from(name)),
        other => Err(ApiError::bad(format!(
            "stream view type `{other}` is not KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES"
        ))),
    }
}
