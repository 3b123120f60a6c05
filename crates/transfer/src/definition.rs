//! The table definition file (`<table>.table.json`, format `monotable-table-definition/1`,
//! the same file `monotable export --data-dir` writes): a CreateTable request in DynamoDB
//! JSON (with `DeletionProtectionEnabled` when the table has it on) plus the TTL attribute. Read from an endpoint's DescribeTable, and turned back into
//! CreateTable and UpdateTimeToLive calls on another endpoint.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, LocalSecondaryIndex,
    Projection, ProjectionType, ProvisionedThroughput, ScalarAttributeType, TableStatus,
    TimeToLiveSpecification, TimeToLiveStatus,
};
use aws_sdk_dynamodb::Client;
use serde_json::{json, Map, Value};

use crate::client::endpoint_error;
use crate::TransferError;

/// The `Format` of definition files (shared with `monotable_store::DEFINITION_FORMAT`).
pub const DEFINITION_FORMAT: &str = "monotable-table-definition/1";

/// A table's definition: the JSON document of the definition file.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition(pub Value);

fn key_schema_json(keys: &[KeySchemaElement]) -> Value {
    keys.iter()
        .map(|k| json!({"AttributeName": k.attribute_name(), "KeyType": k.key_type().as_str()}))
        .collect()
}

fn projection_json(p: Option<&Projection>) -> Value {
    let mut o = Map::new();
    if let Some(t) = p.and_then(Projection::projection_type) {
        o.insert("ProjectionType".into(), json!(t.as_str()));
    }
    if let Some(attrs) = p.map(Projection::non_key_attributes).filter(|a| !a.is_empty()) {
        o.insert("NonKeyAttributes".into(), json!(attrs));
    }
    Value::Object(o)
}

fn throughput_json(read: Option<i64>, write: Option<i64>) -> Value {
    json!({"ReadCapacityUnits": read.unwrap_or(1).max(1), "WriteCapacityUnits": write.unwrap_or(1).max(1)})
}

impl Definition {
    /// Reads the definition of `table` from `client`'s endpoint.
    pub async fn describe(client: &Client, table: &str) -> Result<Definition, TransferError> {
        let out = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| endpoint_error("DescribeTable", e))?;
        let t = out.table.ok_or_else(|| {
            TransferError::Definition(format!("DescribeTable of {table} returned no table"))
        })?;
        let provisioned = t
            .billing_mode_summary()
            .and_then(|b| b.billing_mode())
            .is_none_or(|m| *m == BillingMode::Provisioned)
            && t.provisioned_throughput().and_then(|p| p.read_capacity_units()).unwrap_or(0) > 0;
        let mut create = Map::new();
        create.insert("TableName".into(), json!(table));
        create.insert(
            "AttributeDefinitions".into(),
            t.attribute_definitions()
                .iter()
                .map(|a| json!({"AttributeName": a.attribute_name(), "AttributeType": a.attribute_type().as_str()}))
                .collect(),
        );
        create.insert("KeySchema".into(), key_schema_json(t.key_schema()));
        if provisioned {
            create.insert("BillingMode".into(), json!("PROVISIONED"));
            let p = t.provisioned_throughput();
            create.insert(
                "ProvisionedThroughput".into(),
                throughput_json(
                    p.and_then(|p| p.read_capacity_units()),
                    p.and_then(|p| p.write_capacity_units()),
                ),
            );
        } else {
            create.insert("BillingMode".into(), json!("PAY_PER_REQUEST"));
        }
        let gsis: Vec<Value> = t
            .global_secondary_indexes()
            .iter()
            .map(|i| {
                let mut o = Map::new();
                o.insert("IndexName".into(), json!(i.index_name()));
                o.insert("KeySchema".into(), key_schema_json(i.key_schema()));
                o.insert("Projection".into(), projection_json(i.projection()));
                if provisioned {
                    let p = i.provisioned_throughput();
                    o.insert(
                        "ProvisionedThroughput".into(),
                        throughput_json(
                            p.and_then(|p| p.read_capacity_units()),
                            p.and_then(|p| p.write_capacity_units()),
                        ),
                    );
                }
                Value::Object(o)
            })
            .collect();
        if !gsis.is_empty() {
            create.insert("GlobalSecondaryIndexes".into(), Value::Array(gsis));
        }
        let lsis: Vec<Value> = t
            .local_secondary_indexes()
            .iter()
            .map(|i| {
                json!({"IndexName": i.index_name(), "KeySchema": key_schema_json(i.key_schema()),
                       "Projection": projection_json(i.projection())})
            })
            .collect();
        if !lsis.is_empty() {
            create.insert("LocalSecondaryIndexes".into(), Value::Array(lsis));
        }
        // Deletion protection is a CreateTable parameter too; written only when on, so a
        // definition of an unprotected table is unchanged.
        if t.deletion_protection_enabled() == Some(true) {
            create.insert("DeletionProtectionEnabled".into(), json!(true));
        }
        let mut doc = Map::new();
        doc.insert("Format".into(), json!(DEFINITION_FORMAT));
        doc.insert("CreateTable".into(), Value::Object(create));
        // A peer without TTL support answers DescribeTimeToLive with an error: its tables
        // have no TTL attribute to carry over.
        if let Ok(ttl) = client.describe_time_to_live().table_name(table).send().await {
            if let Some(d) = ttl.time_to_live_description() {
                if d.time_to_live_status() == Some(&TimeToLiveStatus::Enabled) {
                    doc.insert("TimeToLiveAttribute".into(), json!(d.attribute_name()));
                }
            }
        }
        Ok(Definition(Value::Object(doc)))
    }

    /// Parses a definition file's text.
    pub fn from_json(text: &str) -> Result<Definition, TransferError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| TransferError::Definition(e.to_string()))?;
        match value.get("Format").and_then(Value::as_str) {
            Some(DEFINITION_FORMAT) => Ok(Definition(value)),
            other => Err(TransferError::Definition(format!("format {other:?} is not {DEFINITION_FORMAT:?}"))),
        }
    }

    /// The definition as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.0).unwrap_or_default()
    }

    /// The names of the table's primary key attributes.
    pub fn key_attributes(&self) -> Vec<String> {
        self.0
            .pointer("/CreateTable/KeySchema")
            .and_then(Value::as_array)
            .map(|ks| ks.iter().filter_map(|k| k.get("AttributeName")?.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    }

    /// Creates the table on `client`'s endpoint as `name`, waits until it is ACTIVE, and
    /// enables its TTL attribute if it has one.
    pub async fn create(&self, client: &Client, name: &str) -> Result<(), TransferError> {
        let create =
            self.0.get("CreateTable").ok_or_else(|| TransferError::Definition("no CreateTable".into()))?;
        let bad =
            |what: &str| TransferError::Definition(format!("CreateTable.{what} is missing or malformed"));
        let mut req = client.create_table().table_name(name);
        for a in create
            .get("AttributeDefinitions")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("AttributeDefinitions"))?
        {
            req = req.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(str_field(a, "AttributeName").ok_or_else(|| bad("AttributeDefinitions"))?)
                    .attribute_type(ScalarAttributeType::from(str_field(a, "AttributeType").unwrap_or("")))
                    .build()
                    .map_err(|e| TransferError::Definition(e.to_string()))?,
            );
        }
        for k in key_schema(create.get("KeySchema")).ok_or_else(|| bad("KeySchema"))? {
            req = req.key_schema(k);
        }
        let provisioned = str_field(create, "BillingMode") == Some("PROVISIONED");
        req =
            req.billing_mode(if provisioned { BillingMode::Provisioned } else { BillingMode::PayPerRequest });
        if provisioned {
            req = req.provisioned_throughput(throughput(create.get("ProvisionedThroughput"))?);
        }
        for g in create.get("GlobalSecondaryIndexes").and_then(Value::as_array).into_iter().flatten() {
            let mut b = GlobalSecondaryIndex::builder()
                .index_name(str_field(g, "IndexName").ok_or_else(|| bad("GlobalSecondaryIndexes"))?)
                .set_key_schema(key_schema(g.get("KeySchema")))
                .projection(projection(g.get("Projection")));
            if provisioned {
                b = b.provisioned_throughput(throughput(g.get("ProvisionedThroughput"))?);
            }
            req = req
                .global_secondary_indexes(b.build().map_err(|e| TransferError::Definition(e.to_string()))?);
        }
        for l in create.get("LocalSecondaryIndexes").and_then(Value::as_array).into_iter().flatten() {
            let b = LocalSecondaryIndex::builder()
                .index_name(str_field(l, "IndexName").ok_or_else(|| bad("LocalSecondaryIndexes"))?)
                .set_key_schema(key_schema(l.get("KeySchema")))
                .projection(projection(l.get("Projection")));
            req =
                req.local_secondary_indexes(b.build().map_err(|e| TransferError::Definition(e.to_string()))?);
        }
        if let Some(protected) = create.get("DeletionProtectionEnabled").and_then(Value::as_bool) {
            req = req.deletion_protection_enabled(protected);
        }
        req.send().await.map_err(|e| endpoint_error("CreateTable", e))?;
        wait_active(client, name).await?;
        if let Some(attr) = self.0.get("TimeToLiveAttribute").and_then(Value::as_str) {
            let spec = TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name(attr)
                .build()
                .map_err(|e| TransferError::Definition(e.to_string()))?;
            client
                .update_time_to_live()
                .table_name(name)
                .time_to_live_specification(spec)
                .send()
                .await
                .map_err(|e| endpoint_error("UpdateTimeToLive", e))?;
        }
        Ok(())
    }
}

/// Polls DescribeTable until the table is ACTIVE (a minute at most).
async fn wait_active(client: &Client, name: &str) -> Result<(), TransferError> {
    for _ in 0..600 {
        let out = client
            .describe_table()
            .table_name(name)
            .send()
            .await
            .map_err(|e| endpoint_error("DescribeTable", e))?;
        if out.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(TransferError::Definition(format!("table {name} did not become ACTIVE within a minute")))
}

fn str_field<'a>(v: &'a Value, field: &str) -> Option<&'a str> {
    v.get(field)?.as_str()
}

fn key_schema(v: Option<&Value>) -> Option<Vec<KeySchemaElement>> {
    v?.as_array()?
        .iter()
        .map(|k| {
            KeySchemaElement::builder()
                .attribute_name(str_field(k, "AttributeName")?)
                .key_type(KeyType::from(str_field(k, "KeyType")?))
                .build()
                .ok()
        })
        .collect()
}

fn projection(v: Option<&Value>) -> Projection {
    let mut b = Projection::builder();
    if let Some(t) = v.and_then(|p| str_field(p, "ProjectionType")) {
        b = b.projection_type(ProjectionType::from(t));
    }
    for a in v.and_then(|p| p.get("NonKeyAttributes")).and_then(Value::as_array).into_iter().flatten() {
        if let Some(a) = a.as_str() {
            b = b.non_key_attributes(a);
        }
    }
    b.build()
}

fn throughput(v: Option<&Value>) -> Result<ProvisionedThroughput, TransferError> {
    let units = |f: &str| v.and_then(|p| p.get(f)).and_then(Value::as_i64).unwrap_or(1);
    ProvisionedThroughput::builder()
        .read_capacity_units(units("ReadCapacityUnits"))
        .write_capacity_units(units("WriteCapacityUnits"))
        .build()
        .map_err(|e| TransferError::Definition(e.to_string()))
}
