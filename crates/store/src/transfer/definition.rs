//! [`TableDefinition`]: the file that lets an import recreate a table with its indexes.

use monotable_engine::{CreateTableInput, DescribeTableInput, DescribeTimeToLiveInput, Engine};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::TransferError;

/// The `Format` value of definition files this build writes and reads.
pub const DEFINITION_FORMAT: &str = "monotable-table-definition/1";

/// A table's schema as a CreateTable request (with its deletion protection), plus its TTL
/// attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
#[non_exhaustive]
pub struct TableDefinition {
    /// Always [`DEFINITION_FORMAT`].
    pub format: String,
    /// The CreateTable request that recreates the table and its indexes.
    pub create_table: CreateTableInput,
    /// The TTL attribute, when TTL is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_live_attribute: Option<String>,
}

/// Copies `fields` of `from` (when present) into a new object.
fn pick(from: &Value, fields: &[&str]) -> Map<String, Value> {
    fields.iter().filter_map(|f| Some(((*f).to_owned(), from.get(*f)?.clone()))).collect()
}

impl TableDefinition {
    /// The definition of an existing table of `engine`.
    pub fn of_table(engine: &Engine, table: &str) -> Result<TableDefinition, TransferError> {
        let described = engine.describe_table(DescribeTableInput { table_name: Some(table.to_owned()) })?;
        let desc = serde_json::to_value(described.table.unwrap_or_default())
            .map_err(|e| TransferError::Definition(e.to_string()))?;
        let mut create = pick(&desc, &["TableName", "AttributeDefinitions", "KeySchema"]);
        let provisioned = desc
            .pointer("/BillingModeSummary/BillingMode")
            .and_then(Value::as_str)
            .is_none_or(|m| m == "PROVISIONED")
            && desc.pointer("/ProvisionedThroughput/ReadCapacityUnits").and_then(Value::as_i64).unwrap_or(0)
                > 0;
        let throughput = |d: &Value| {
            json!({
                "ReadCapacityUnits": d.pointer("/ProvisionedThroughput/ReadCapacityUnits").cloned().unwrap_or(json!(1)),
                "WriteCapacityUnits": d.pointer("/ProvisionedThroughput/WriteCapacityUnits").cloned().unwrap_or(json!(1)),
            })
        };
        if provisioned {
            create.insert("BillingMode".into(), json!("PROVISIONED"));
            create.insert("ProvisionedThroughput".into(), throughput(&desc));
        } else {
            create.insert("BillingMode".into(), json!("PAY_PER_REQUEST"));
        }
        // Deletion protection is a CreateTable parameter too; written only when on, so a
        // definition of an unprotected table is unchanged.
        if desc.get("DeletionProtectionEnabled").and_then(Value::as_bool) == Some(true) {
            create.insert("DeletionProtectionEnabled".into(), json!(true));
        }
        for (field, global) in [("GlobalSecondaryIndexes", true), ("LocalSecondaryIndexes", false)] {
            let Some(indexes) = desc.get(field).and_then(Value::as_array) else { continue };
            let list: Vec<Value> = indexes
                .iter()
                .map(|i| {
                    let mut o = pick(i, &["IndexName", "KeySchema", "Projection"]);
                    if global && provisioned {
                        o.insert("ProvisionedThroughput".into(), throughput(i));
                    }
                    Value::Object(o)
                })
                .collect();
            if !list.is_empty() {
                create.insert(field.into(), Value::Array(list));
            }
        }
        let create_table: CreateTableInput = serde_json::from_value(Value::Object(create))
            .map_err(|e| TransferError::Definition(e.to_string()))?;
        let ttl =
            engine.describe_time_to_live(DescribeTimeToLiveInput { table_name: Some(table.to_owned()) })?;
        let time_to_live_attribute = ttl
            .time_to_live_description
            .filter(|d| d.time_to_live_status.as_deref() == Some("ENABLED"))
            .and_then(|d| d.attribute_name);
        Ok(TableDefinition { format: DEFINITION_FORMAT.to_owned(), create_table, time_to_live_attribute })
    }

    /// Parses a definition file's contents.
    pub fn from_json(text: &str) -> Result<TableDefinition, TransferError> {
        let def: TableDefinition =
            serde_json::from_str(text).map_err(|e| TransferError::Definition(e.to_string()))?;
        if def.format != DEFINITION_FORMAT {
            return Err(TransferError::Definition(format!(
                "format {:?} is not {DEFINITION_FORMAT:?}",
                def.format
            )));
        }
        Ok(def)
    }

    /// The definition as pretty-printed JSON.
    pub fn to_json(&self) -> Result<String, TransferError> {
        serde_json::to_string_pretty(self).map_err(|e| TransferError::Definition(e.to_string()))
    }

    /// The table name (empty if the definition lacks one).
    pub fn table_name(&self) -> &str {
        self.create_table.table_name.as_deref().unwrap_or_default()
    }

    /// The names of the table's key attributes.
    pub fn key_attributes(&self) -> Vec<String> {
        self.create_table.key_schema.iter().flatten().filter_map(|k| k.attribute_name.clone()).collect()
    }

    /// Creates the table (and sets its TTL) in `engine`, under `name` if given.
    pub fn create(&self, engine: &Engine, name: Option<&str>) -> Result<(), TransferError> {
        let mut input = self.create_table.clone();
        if let Some(n) = name {
            input.table_name = Some(n.to_owned());
        }
        let table = input.table_name.clone().unwrap_or_default();
        engine.create_table(input)?;
        if let Some(attr) = &self.time_to_live_attribute {
            let spec = json!({"TableName": table, "TimeToLiveSpecification": {"Enabled": true, "AttributeName": attr}});
            let input = serde_json::from_value(spec).map_err(|e| TransferError::Definition(e.to_string()))?;
            engine.update_time_to_live(input)?;
        }
        Ok(())
    }
}
