//! The input of the estimate: what running a design on sample items measured.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::Operation;

/// What executing a design on sample items measured: per entity type the sizes of its items
/// and of their index copies, per access pattern the capacity one request consumed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// One entry per entity type of the design.
    pub entities: Vec<MeasuredEntity>,
    /// One entry per access pattern of the design.
    pub patterns: Vec<MeasuredPattern>,
}

/// Sizes of one entity type's sample items, by DynamoDB's item-size rules (attribute names
/// plus values, "Item sizes and formats" in the DynamoDB developer guide).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MeasuredEntity {
    /// The entity type's name.
    pub name: String,
    /// Mean size in bytes of one item in the base table.
    pub item_bytes: f64,
    /// Per secondary index the entity type is written to (it has that index's key
    /// attributes): the sizes of its copy there.
    pub indexes: BTreeMap<String, IndexCopy>,
}

/// The size of an entity type's copy in one secondary index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexCopy {
    /// Mean size in bytes of the copy under the index's declared projection.
    pub projected_bytes: f64,
    /// Mean size in bytes the copy would have under `KEYS_ONLY` (table and index keys).
    pub keys_only_bytes: f64,
}

/// The capacity one request of an access pattern consumed on the engine, as its
/// `ConsumedCapacity` (`ReturnConsumedCapacity: INDEXES`) reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredPattern {
    /// The access pattern's name.
    pub name: String,
    /// Its operation.
    pub operation: Operation,
    /// `table` or the index it reads.
    pub index: String,
    /// Mean items one request returned (reads) or wrote (writes).
    pub items: f64,
    /// Read units of one eventually consistent request (reads; 0 for writes).
    pub read_units_eventual: f64,
    /// Read units of one strongly consistent request; `None` where DynamoDB allows no
    /// strongly consistent read (a GSI) and for writes.
    pub read_units_strong: Option<f64>,
    /// Write units one request consumed on the base table (writes; 0 for reads). A
    /// transaction's units are already doubled, as DynamoDB reports them.
    pub write_units_table: f64,
    /// Write units one request consumed on each secondary index it changed.
    pub write_units_indexes: BTreeMap<String, f64>,
}
