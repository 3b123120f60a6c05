//! The live table over the DynamoDB API (any endpoint, through the AWS SDK): reading it into a
//! [`TableShape`] and carrying out the [`Change`]s `design apply` decides on.
//! The client is the one every `--endpoint` gets ([`crate::endpoint`]).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction, DeleteGlobalSecondaryIndexAction,
    GlobalSecondaryIndex, GlobalSecondaryIndexUpdate, KeySchemaElement, KeyType, LocalSecondaryIndex,
    Projection as SdkProjection, ProjectionType, ProvisionedThroughput, ScalarAttributeType,
    StreamSpecification, StreamViewType, TableStatus, Tag, TimeToLiveSpecification, TimeToLiveStatus,
};
use aws_sdk_dynamodb::Client;
use monotable_design::deploy::{Change, IndexShape, TableShape};
use monotable_design::{Billing, Projection, StreamView};

/// How long apply waits for a table or index to become ACTIVE.
const ACTIVE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

fn elements(list: &[KeySchemaElement]) -> (Vec<String>, Vec<String>) {
    let of = |t: KeyType| {
        list.iter().filter(|e| *e.key_type() == t).map(|e| e.attribute_name().to_string()).collect()
    };
    (of(KeyType::Hash), of(KeyType::Range))
}

fn projection(p: Option<&SdkProjection>) -> Projection {
    match p.and_then(|p| p.projection_type()) {
        Some(ProjectionType::KeysOnly) => Projection::KeysOnly,
        Some(ProjectionType::Include) => {
            Projection::Include(p.map(|p| p.non_key_attributes().to_vec()).unwrap_or_default())
        }
        _ => Projection::All,
    }
}

/// The live table called `name`, or `None` if there is none.
pub(crate) async fn describe(client: &Client, name: &str) -> anyhow::Result<Option<TableShape>> {
    let out = match client.describe_table().table_name(name).send().await {
        Ok(out) => out,
        Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
            return Ok(None)
        }
        Err(e) => {
            return Err(anyhow::Error::new(e.into_service_error())).context(format!("DescribeTable {name}"))
        }
    };
    let t = out.table().context("DescribeTable returned no table")?;
    let (hash, range) = elements(t.key_schema());
    let attributes: BTreeMap<String, String> = t
        .attribute_definitions()
        .iter()
        .map(|a| (a.attribute_name().to_string(), a.attribute_type().as_str().to_string()))
        .collect();
    let on_demand =
        t.billing_mode_summary().and_then(|b| b.billing_mode()) == Some(&BillingMode::PayPerRequest);
    let billing = if on_demand {
        Billing::OnDemand
    } else {
        let pt = t.provisioned_throughput();
        let units = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok()).unwrap_or(0);
        Billing::Provisioned {
            read: units(pt.and_then(|p| p.read_capacity_units())),
            write: units(pt.and_then(|p| p.write_capacity_units())),
        }
    };
    let gsis = t
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            let (h, r) = elements(g.key_schema());
            IndexShape::new(g.index_name().unwrap_or_default(), h, r, projection(g.projection()))
        })
        .collect();
    let lsis = t
        .local_secondary_indexes()
        .iter()
        .map(|l| {
            let (h, r) = elements(l.key_schema());
            IndexShape::new(l.index_name().unwrap_or_default(), h, r, projection(l.projection()))
        })
        .collect();
    let stream = t
        .stream_specification()
        .filter(|s| s.stream_enabled())
        .and_then(|s| s.stream_view_type())
        .and_then(|v| StreamView::from_aws(v.as_str()));
    let ttl_out = client.describe_time_to_live().table_name(name).send().await;
    let ttl_out =
        ttl_out.map_err(|e| anyhow::Error::new(e.into_service_error())).context("DescribeTimeToLive")?;
    let ttl = ttl_out
        .time_to_live_description()
        .filter(|d| {
            matches!(d.time_to_live_status(), Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling))
        })
        .and_then(|d| d.attribute_name().map(str::to_string));
    let mut tags = BTreeMap::new();
    if let Some(arn) = t.table_arn() {
        let mut token = None;
        loop {
            let page = client.list_tags_of_resource().resource_arn(arn).set_next_token(token).send().await;
            let page =
                page.map_err(|e| anyhow::Error::new(e.into_service_error())).context("ListTagsOfResource")?;
            tags.extend(page.tags().iter().map(|t| (t.key().to_string(), t.value().to_string())));
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                break;
            }
        }
    }
    let mut shape = TableShape {
        name: name.to_string(),
        hash: hash.into_iter().next().unwrap_or_default(),
        range: range.into_iter().next(),
        attributes,
        billing,
        gsis,
        lsis,
        ttl,
        stream,
        tags,
        deletion_protection: t.deletion_protection_enabled().unwrap_or(false),
    };
    shape.normalise();
    Ok(Some(shape))
}

fn key_schema(hash: &[String], range: &[String]) -> anyhow::Result<Vec<KeySchemaElement>> {
    let hash = hash.iter().map(|a| (a, KeyType::Hash));
    let range = range.iter().map(|a| (a, KeyType::Range));
    hash.chain(range)
        .map(|(a, t)| Ok(KeySchemaElement::builder().attribute_name(a).key_type(t).build()?))
        .collect()
}

fn sdk_projection(p: &Projection) -> SdkProjection {
    match p {
        Projection::All => SdkProjection::builder().projection_type(ProjectionType::All).build(),
        Projection::KeysOnly => SdkProjection::builder().projection_type(ProjectionType::KeysOnly).build(),
        Projection::Include(a) => SdkProjection::builder()
            .projection_type(ProjectionType::Include)
            .set_non_key_attributes(Some(a.clone()))
            .build(),
    }
}

fn throughput(b: Billing) -> anyhow::Result<Option<ProvisionedThroughput>> {
    let Billing::Provisioned { read, write } = b else { return Ok(None) };
    let (read, write) = (i64::try_from(read)?, i64::try_from(write)?);
    Ok(Some(ProvisionedThroughput::builder().read_capacity_units(read).write_capacity_units(write).build()?))
}

fn billing_mode(b: Billing) -> BillingMode {
    match b {
        Billing::OnDemand => BillingMode::PayPerRequest,
        Billing::Provisioned { .. } => BillingMode::Provisioned,
    }
}

fn definitions(shape: &TableShape, names: &[&String]) -> anyhow::Result<Vec<AttributeDefinition>> {
    let mut out: Vec<AttributeDefinition> = Vec::new();
    for a in names {
        if out.iter().any(|d| d.attribute_name() == a.as_str()) {
            continue;
        }
        let ty = shape.attributes.get(*a).map_or("S", String::as_str);
        out.push(
            AttributeDefinition::builder()
                .attribute_name(*a)
                .attribute_type(ScalarAttributeType::from(ty))
                .build()?,
        );
    }
    Ok(out)
}

fn stream_spec(view: Option<StreamView>) -> anyhow::Result<StreamSpecification> {
    let b = StreamSpecification::builder().stream_enabled(view.is_some());
    Ok(b.set_stream_view_type(view.map(|v| StreamViewType::from(v.as_aws()))).build()?)
}

/// CreateTable with the keys, indexes, billing, stream, tags and deletion protection of
/// `shape`; TTL follows with UpdateTimeToLive once the table is ACTIVE.
pub(crate) async fn create(client: &Client, shape: &TableShape) -> anyhow::Result<()> {
    let range: Vec<String> = shape.range.iter().cloned().collect();
    let mut keyed: Vec<&String> = std::iter::once(&shape.hash).chain(&range).collect();
    let mut req = client
        .create_table()
        .table_name(&shape.name)
        .set_key_schema(Some(key_schema(std::slice::from_ref(&shape.hash), &range)?))
        .billing_mode(billing_mode(shape.billing))
        .set_provisioned_throughput(throughput(shape.billing)?)
        .deletion_protection_enabled(shape.deletion_protection);
    for g in &shape.gsis {
        keyed.extend(g.hash.iter().chain(&g.range));
        req = req.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(&g.name)
                .set_key_schema(Some(key_schema(&g.hash, &g.range)?))
                .projection(sdk_projection(&g.projection))
                .set_provisioned_throughput(throughput(shape.billing)?)
                .build()?,
        );
    }
    for l in &shape.lsis {
        keyed.extend(l.hash.iter().chain(&l.range));
        req = req.local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name(&l.name)
                .set_key_schema(Some(key_schema(&l.hash, &l.range)?))
                .projection(sdk_projection(&l.projection))
                .build()?,
        );
    }
    if shape.stream.is_some() {
        req = req.stream_specification(stream_spec(shape.stream)?);
    }
    for (k, v) in &shape.tags {
        req = req.tags(Tag::builder().key(k).value(v).build()?);
    }
    req = req.set_attribute_definitions(Some(definitions(shape, &keyed)?));
    req.send().await.map_err(|e| anyhow::Error::new(e.into_service_error())).context("CreateTable")?;
    wait_active(client, &shape.name).await?;
    if let Some(ttl) = &shape.ttl {
        apply(client, shape, &Change::SetTtl(Some(ttl.clone())), None).await?;
    }
    Ok(())
}

/// Waits until the table and all its GSIs are ACTIVE (a new or deleted GSI takes minutes on
/// DynamoDB; one GSI is created or deleted per UpdateTable).
pub(crate) async fn wait_active(client: &Client, name: &str) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(50);
    loop {
        let out = client.describe_table().table_name(name).send().await;
        let out = out.map_err(|e| anyhow::Error::new(e.into_service_error())).context("DescribeTable")?;
        let t = out.table().context("DescribeTable returned no table")?;
        let active = t.table_status() == Some(&TableStatus::Active)
            && t.global_secondary_indexes()
                .iter()
                .all(|g| g.index_status().is_none_or(|s| s.as_str() == "ACTIVE"));
        if active {
            return Ok(());
        }
        if start.elapsed() > ACTIVE_TIMEOUT {
            bail!("table {name} is not ACTIVE after {} s", ACTIVE_TIMEOUT.as_secs());
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(10));
    }
}

/// Carries out one change on the live table. `live` is the table as it was before, for
/// changes that must first undo a setting (a different TTL attribute or stream view).
pub(crate) async fn apply(
    client: &Client,
    shape: &TableShape,
    change: &Change,
    live: Option<&TableShape>,
) -> anyhow::Result<()> {
    let name = &shape.name;
    let sdk = |e: aws_sdk_dynamodb::Error| anyhow::Error::new(e);
    match change {
        Change::CreateGsi(g) => {
            let keyed: Vec<&String> = g.hash.iter().chain(&g.range).collect();
            let create = CreateGlobalSecondaryIndexAction::builder()
                .index_name(&g.name)
                .set_key_schema(Some(key_schema(&g.hash, &g.range)?))
                .projection(sdk_projection(&g.projection))
                .set_provisioned_throughput(throughput(shape.billing)?)
                .build()?;
            client
                .update_table()
                .table_name(name)
                .set_attribute_definitions(Some(definitions(shape, &keyed)?))
                .global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().create(create).build())
                .send()
                .await
                .map_err(|e| sdk(e.into()))?;
        }
        Change::DeleteGsi(index) => {
            let delete = DeleteGlobalSecondaryIndexAction::builder().index_name(index).build()?;
            client
                .update_table()
                .table_name(name)
                .global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().delete(delete).build())
                .send()
                .await
                .map_err(|e| sdk(e.into()))?;
        }
        Change::ReplaceGsi(g) => {
            Box::pin(apply(client, shape, &Change::DeleteGsi(g.name.clone()), live)).await?;
            wait_active(client, name).await?;
            Box::pin(apply(client, shape, &Change::CreateGsi(g.clone()), live)).await?;
        }
        Change::SetTtl(ttl) => {
            // A table has one TTL setting: a different attribute is disabled first.
            if let Some(old) = live.and_then(|l| l.ttl.as_ref()) {
                let off = TimeToLiveSpecification::builder().enabled(false).attribute_name(old).build()?;
                let req = client.update_time_to_live().table_name(name).time_to_live_specification(off);
                req.send().await.map_err(|e| sdk(e.into()))?;
            }
            if let Some(attr) = ttl {
                let on = TimeToLiveSpecification::builder().enabled(true).attribute_name(attr).build()?;
                let req = client.update_time_to_live().table_name(name).time_to_live_specification(on);
                req.send().await.map_err(|e| sdk(e.into()))?;
            }
        }
        Change::SetBilling(b) => {
            let req = client.update_table().table_name(name).billing_mode(billing_mode(*b));
            req.set_provisioned_throughput(throughput(*b)?).send().await.map_err(|e| sdk(e.into()))?;
        }
        Change::SetStream(view) => {
            // An enabled stream's view type cannot change: it is disabled first.
            if live.is_some_and(|l| l.stream.is_some()) && view.is_some() {
                let req = client.update_table().table_name(name).stream_specification(stream_spec(None)?);
                req.send().await.map_err(|e| sdk(e.into()))?;
                wait_active(client, name).await?;
            }
            let req = client.update_table().table_name(name).stream_specification(stream_spec(*view)?);
            req.send().await.map_err(|e| sdk(e.into()))?;
        }
        Change::Tag(k, v) => {
            let tag = Tag::builder().key(k).value(v).build()?;
            let req = client.tag_resource().resource_arn(table_arn(client, name).await?).tags(tag);
            req.send().await.map_err(|e| sdk(e.into()))?;
        }
        Change::Untag(k) => {
            let req = client.untag_resource().resource_arn(table_arn(client, name).await?).tag_keys(k);
            req.send().await.map_err(|e| sdk(e.into()))?;
        }
        Change::SetDeletionProtection(on) => {
            let req = client.update_table().table_name(name).deletion_protection_enabled(*on);
            req.send().await.map_err(|e| sdk(e.into()))?;
        }
        other => bail!("UpdateTable cannot make this change: {other:?}"),
    }
    wait_active(client, name).await
}

async fn table_arn(client: &Client, name: &str) -> anyhow::Result<String> {
    let out = client.describe_table().table_name(name).send().await;
    let out = out.map_err(|e| anyhow::Error::new(e.into_service_error())).context("DescribeTable")?;
    out.table().and_then(|t| t.table_arn()).map(str::to_string).context("DescribeTable returned no ARN")
}
