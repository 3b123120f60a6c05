//! Sub-shapes shared by several operations.

use std::collections::HashMap;

use monotable_types::{AttributeValue, Item};
use serde::{Deserialize, Serialize};

/// `ExpressionAttributeNames`: `#name` placeholders to attribute names.
pub type ExpressionAttributeNames = HashMap<String, String>;
/// `ExpressionAttributeValues`: `:value` placeholders to values.
pub type ExpressionAttributeValues = HashMap<String, AttributeValue>;
pub use super::shared::{AttrRef, SharedItem};
/// A primary key given as an attribute map (`Key`, `ExclusiveStartKey`, `LastEvaluatedKey`).
pub type Key = Item;

/// Read/write capacity consumed by one table or index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Capacity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_units: Option<f64>,
}

/// The capacity an operation consumed (`ReturnConsumedCapacity`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ConsumedCapacity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<Capacity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_secondary_indexes: Option<HashMap<String, Capacity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<HashMap<String, Capacity>>,
}

/// Size estimate of an item collection (tables with local secondary indexes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ItemCollectionMetrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_collection_key: Option<Item>,
    #[serde(rename = "SizeEstimateRangeGB", skip_serializing_if = "Option::is_none")]
    pub size_estimate_range_gb: Option<Vec<f64>>,
}

/// Legacy `Expected` entry (conditional writes before condition expressions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExpectedAttributeValue {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<AttributeValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison_operator: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute_value_list: Option<Vec<AttributeValue>>,
}

/// Legacy `KeyConditions` / `QueryFilter` / `ScanFilter` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Condition {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute_value_list: Option<Vec<AttributeValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison_operator: Option<String>,
}

/// Legacy `AttributeUpdates` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct AttributeValueUpdate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<AttributeValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// One reason in a `TransactionCanceledException`, in request order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CancellationReason {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}
