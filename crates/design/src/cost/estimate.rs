//! The result of an estimate: plain data, serialised as JSON and printed by `to_text`.

use serde::Serialize;

use crate::model::Operation;

/// A month's DynamoDB bill for a design under a traffic file, on-demand and provisioned side
/// by side. Money is in the price table's currency; `*_usd` names assume its default, USD.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// The price table used.
    pub prices: PriceInfo,
    /// The month estimated (1 = the first).
    pub month: u32,
    /// Per access pattern, in the design's order.
    pub patterns: Vec<PatternCost>,
    /// Per secondary index, in the design's order.
    pub indexes: Vec<IndexCost>,
    /// Storage of the table and its indexes.
    pub storage: StorageCost,
    /// The month on-demand.
    pub on_demand: ModeCost,
    /// The month provisioned.
    pub provisioned: ProvisionedCost,
    /// What the estimate assumed or left out (missing patterns, entity types without items).
    pub notes: Vec<String>,
}

/// Where the prices came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceInfo {
    /// Region.
    pub region: String,
    /// Table class.
    pub table_class: String,
    /// Currency.
    pub currency: String,
    /// The date the prices were read.
    pub read_on: String,
    /// Where they were read.
    pub source: Vec<String>,
}

/// One access pattern's share of the bill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PatternCost {
    /// Its name.
    pub name: String,
    /// Its operation.
    pub operation: Operation,
    /// `table` or the index it reads.
    pub index: String,
    /// Whether its reads are strongly consistent.
    pub consistent: bool,
    /// Requests per month.
    pub requests_per_month: f64,
    /// Read request units one request consumes.
    pub read_units_per_request: f64,
    /// Write request units one request consumes: the table's and every index's.
    pub write_units_per_request: f64,
    /// Read request units per month.
    pub read_units_per_month: f64,
    /// Write request units per month.
    pub write_units_per_month: f64,
    /// Its on-demand cost per month (reads and writes).
    pub on_demand_usd: f64,
    /// Mean read units per second it needs provisioned (before utilization and peak).
    pub read_units_per_second: f64,
    /// Mean write units per second it needs provisioned (table and indexes).
    pub write_units_per_second: f64,
}

/// One secondary index on its own: what its copies cost, and what `KEYS_ONLY` would save.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexCost {
    /// Its name.
    pub name: String,
    /// `gsi` or `lsi`.
    pub kind: String,
    /// `all`, `keys_only` or `include`.
    pub projection: String,
    /// Read request units per month of the patterns that read it.
    pub read_units_per_month: f64,
    /// Write request units per month of the copies written to it.
    pub write_units_per_month: f64,
    /// On-demand cost of those reads and writes.
    pub on_demand_usd: f64,
    /// Bytes its entries take, overhead included.
    pub storage_bytes: f64,
    /// Their cost per month.
    pub storage_usd: f64,
    /// Its own provisioned capacity (a GSI; an LSI shares the table's).
    pub provisioned: Option<Capacity>,
    /// What a `KEYS_ONLY` projection would save; `None` when it is `KEYS_ONLY` already.
    pub keys_only: Option<KeysOnlySaving>,
}

/// What an index would cost less with a `KEYS_ONLY` projection: narrower copies, rounded to
/// whole 1 KB write units again, and smaller entries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeysOnlySaving {
    /// Write request units per month with `KEYS_ONLY` copies.
    pub write_units_per_month: f64,
    /// Bytes its entries would take.
    pub storage_bytes: f64,
    /// The saving per month on-demand (writes and storage).
    pub on_demand_usd: f64,
    /// The saving per month provisioned (write capacity of a GSI, and storage).
    pub provisioned_usd: f64,
}

/// Storage of the table and its indexes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StorageCost {
    /// Bytes of the table's items, 100 bytes of overhead each included.
    pub table_bytes: f64,
    /// Bytes of every index's entries, overhead included.
    pub index_bytes: f64,
    /// All of it in GB of the price table's size.
    pub gb: f64,
    /// Its cost per month.
    pub usd: f64,
}

/// A month in one capacity mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeCost {
    /// Reads.
    pub reads_usd: f64,
    /// Writes.
    pub writes_usd: f64,
    /// Storage (the same in both modes).
    pub storage_usd: f64,
    /// The sum.
    pub total_usd: f64,
}

/// Whole capacity units provisioned for the table or one GSI, and their monthly cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Capacity {
    /// Read capacity units.
    pub read_units: u64,
    /// Write capacity units.
    pub write_units: u64,
    /// Read capacity per month.
    pub reads_usd: f64,
    /// Write capacity per month.
    pub writes_usd: f64,
}

/// The month provisioned: the table's capacity (its LSIs included) and every GSI's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProvisionedCost {
    /// The target utilization used, in percent.
    pub target_utilization_percent: f64,
    /// The peak factor used.
    pub peak_factor: f64,
    /// The table's capacity.
    pub table: Capacity,
    /// Totals over the table and its GSIs.
    pub cost: ModeCost,
}
