//! The arithmetic of an estimate, from DynamoDB's published billing rules.
//!
//! Sources (each rule is pinned by a test in `crates/design/tests/cost.rs`):
//! - units per request are the engine's `ConsumedCapacity`, already rounded as "DynamoDB
//!   item sizes and formats" and "Read/write capacity mode" state (4 KB per read unit, half for
//!   an eventually consistent read, 1 KB per write unit, twice for a transaction);
//! - on-demand: request units times the price per million, "Amazon DynamoDB pricing for
//!   on-demand capacity" (<https://aws.amazon.com/dynamodb/pricing/on-demand/>);
//! - provisioned: whole capacity units per second for the table and for each GSI, which has
//!   its own ("Provisioned throughput considerations for global secondary indexes",
//!   <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html>); an LSI
//!   uses the table's ("Provisioned throughput considerations for local secondary indexes",
//!   <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html>); at least one
//!   unit each; times hours per month times the unit-hour price
//!   (<https://aws.amazon.com/dynamodb/pricing/provisioned/>);
//! - storage: each table item and each index entry takes its bytes plus 100 bytes of
//!   overhead ("DynamoDB item sizes and formats"; "Storage considerations" of the GSI and
//!   LSI pages), priced per GB-month.
//!
//! Invariant: every input number is checked finite and non-negative before any arithmetic,
//! and every output number is checked finite (`check.rs`), so no input makes a NaN, an
//! infinity or a panic.

use std::collections::BTreeMap;

use super::check;
use super::error::CostError;
use super::estimate::{
    Capacity, Estimate, IndexCost, KeysOnlySaving, ModeCost, PatternCost, PriceInfo, ProvisionedCost,
    StorageCost,
};
use super::measured::{Measured, MeasuredPattern};
use super::prices::Prices;
use super::traffic::Traffic;
use crate::model::{AccessPattern, Design, Index, IndexKind, Projection, TABLE};
use crate::settings::Billing;

/// Bytes one write request unit covers ("DynamoDB item sizes and formats").
const WRITE_UNIT_BYTES: f64 = 1024.0;

/// Request units per month, summed per owner of provisioned capacity.
#[derive(Default, Clone, Copy)]
struct Units {
    read: f64,
    write: f64,
}

/// What the patterns and items put on one secondary index.
#[derive(Default)]
struct IndexLoad {
    read: f64,
    write: f64,
    keys_only_write: f64,
    bytes: f64,
    keys_only_bytes: f64,
}

/// The price table applied: money for request units and bytes, whole capacity units for a
/// month's request units.
struct Rates<'a> {
    prices: &'a Prices,
    /// Seconds in the billed month.
    seconds: f64,
    /// Peak factor over target utilization: capacity per unit of mean load.
    sizing: f64,
}

impl Rates<'_> {
    fn reads(&self, units: f64) -> f64 {
        units / 1e6 * self.prices.on_demand.read_per_million
    }

    fn writes(&self, units: f64) -> f64 {
        units / 1e6 * self.prices.on_demand.write_per_million
    }

    fn storage(&self, bytes: f64) -> f64 {
        bytes / self.prices.storage.bytes_per_gb * self.prices.storage.gb_month
    }

    /// The capacity `owner` is provisioned with for a month of `units`, and its cost.
    fn capacity(&self, owner: &str, units: Units) -> Result<Capacity, CostError> {
        let read_units = whole_units(owner, units.read / self.seconds * self.sizing)?;
        let write_units = whole_units(owner, units.write / self.seconds * self.sizing)?;
        let month = |n: u64, price: f64| n as f64 * self.prices.hours_per_month * price;
        Ok(Capacity {
            read_units,
            write_units,
            reads_usd: month(read_units, self.prices.provisioned.read_unit_hour),
            writes_usd: month(write_units, self.prices.provisioned.write_unit_hour),
        })
    }
}

/// The monthly estimate of `design` under `traffic`, from what running it `measured`, at
/// `prices`.
pub fn estimate(
    design: &Design,
    measured: &Measured,
    traffic: &Traffic,
    prices: &Prices,
) -> Result<Estimate, CostError> {
    prices.validate()?;
    traffic.validate()?;
    check::measured(measured)?;
    check::names(design, traffic)?;

    let settings = &traffic.provisioned;
    let rates = Rates {
        prices,
        seconds: prices.hours_per_month * 3600.0,
        sizing: settings.peak_factor / (settings.target_utilization_percent / 100.0),
    };
    let mut notes = Vec::new();
    // Owners of provisioned capacity: the table (with its LSIs) and each GSI.
    let mut owners: BTreeMap<String, Units> = BTreeMap::new();
    owners.insert(TABLE.into(), Units::default());
    for i in design.indexes.iter().filter(|i| i.kind == IndexKind::Gsi) {
        owners.insert(i.name.clone(), Units::default());
    }
    let mut loads: BTreeMap<&str, IndexLoad> =
        design.indexes.iter().map(|i| (i.name.as_str(), IndexLoad::default())).collect();

    let mut patterns = Vec::new();
    let mut silent = Vec::new();
    let mut unmeasured = Vec::new();
    for ap in &design.access_patterns {
        if !traffic.patterns.contains_key(&ap.name) {
            silent.push(ap.name.as_str());
        }
        let requests = traffic.requests_per_month(&ap.name, rates.seconds);
        let Some(m) = measured.patterns.iter().find(|m| m.name == ap.name) else {
            if requests > 0.0 {
                return Err(CostError::NotMeasured { kind: "pattern", name: ap.name.clone() });
            }
            unmeasured.push(ap.name.as_str());
            continue;
        };
        let row = pattern_cost(design, measured, traffic, &rates, ap, m, requests, &mut owners, &mut loads)?;
        patterns.push(row);
    }
    if !silent.is_empty() {
        notes.push(format!("no traffic given for {}: counted as zero requests", silent.join(", ")));
    }
    if !unmeasured.is_empty() {
        notes.push(format!("not measured, and left out: {}", unmeasured.join(", ")));
    }

    let table_bytes = storage(design, measured, traffic, prices, &mut loads, &mut notes)?;
    let index_bytes: f64 = loads.values().map(|l| l.bytes).sum();
    let storage = StorageCost {
        table_bytes,
        index_bytes,
        gb: (table_bytes + index_bytes) / prices.storage.bytes_per_gb,
        usd: rates.storage(table_bytes + index_bytes),
    };
    let indexes = design
        .indexes
        .iter()
        .map(|i| index_cost(i, &loads[i.name.as_str()], &owners, &rates))
        .collect::<Result<Vec<_>, _>>()?;

    let total = owners
        .values()
        .fold(Units::default(), |a, u| Units { read: a.read + u.read, write: a.write + u.write });
    let storage_usd = storage.usd;
    let on_demand = mode_cost(rates.reads(total.read), rates.writes(total.write), storage_usd);
    let table = rates.capacity(TABLE, owners[TABLE])?;
    let (mut reads_usd, mut writes_usd) = (table.reads_usd, table.writes_usd);
    for c in indexes.iter().filter_map(|i| i.provisioned.as_ref()) {
        reads_usd += c.reads_usd;
        writes_usd += c.writes_usd;
    }
    // The design's capacity is set on the table and on each GSI alike (as `iac` writes it).
    if let Billing::Provisioned { read, write } = design.table.billing {
        let gsis = indexes.iter().filter_map(|i| Some((i.name.as_str(), i.provisioned.as_ref()?)));
        for (name, needs) in std::iter::once(("the table", &table)).chain(gsis) {
            if read < needs.read_units || write < needs.write_units {
                notes.push(format!(
                    "the design provisions {read} RCU and {write} WCU for {name}; this traffic needs {} and {}",
                    needs.read_units, needs.write_units
                ));
            }
        }
    }
    notes.push("the AWS free tier is per account and region and is not subtracted".into());

    let estimate = Estimate {
        prices: PriceInfo {
            region: prices.region.clone(),
            table_class: prices.table_class.clone(),
            currency: prices.currency.clone(),
            read_on: prices.read_on.clone(),
            source: prices.source.clone(),
        },
        month: traffic.month,
        patterns,
        indexes,
        storage,
        on_demand,
        provisioned: ProvisionedCost {
            target_utilization_percent: settings.target_utilization_percent,
            peak_factor: settings.peak_factor,
            table,
            cost: mode_cost(reads_usd, writes_usd, storage_usd),
        },
        notes,
    };
    check::finite(&estimate)?;
    Ok(estimate)
}

/// One index on its own: its reads, its copies' writes, its entries, a GSI's capacity, and
/// what `KEYS_ONLY` copies would save (an LSI's writes are saved on the table's capacity).
fn index_cost(
    index: &Index,
    load: &IndexLoad,
    owners: &BTreeMap<String, Units>,
    rates: &Rates,
) -> Result<IndexCost, CostError> {
    let owner = if index.kind == IndexKind::Gsi { index.name.as_str() } else { TABLE };
    let keys_only = match index.projection {
        Projection::KeysOnly => None,
        _ => {
            let saved_writes = load.write - load.keys_only_write;
            let saved_bytes = load.bytes - load.keys_only_bytes;
            let now = rates.capacity(owner, owners[owner])?;
            let narrower = Units { write: owners[owner].write - saved_writes, ..owners[owner] };
            let then = rates.capacity(owner, narrower)?;
            Some(KeysOnlySaving {
                write_units_per_month: load.keys_only_write,
                storage_bytes: load.keys_only_bytes,
                on_demand_usd: rates.writes(saved_writes) + rates.storage(saved_bytes),
                provisioned_usd: now.writes_usd - then.writes_usd + rates.storage(saved_bytes),
            })
        }
    };
    Ok(IndexCost {
        name: index.name.clone(),
        kind: if index.kind == IndexKind::Gsi { "gsi" } else { "lsi" }.into(),
        projection: match index.projection {
            Projection::All => "all",
            Projection::KeysOnly => "keys_only",
            Projection::Include(_) => "include",
        }
        .into(),
        read_units_per_month: load.read,
        write_units_per_month: load.write,
        on_demand_usd: rates.reads(load.read) + rates.writes(load.write),
        storage_bytes: load.bytes,
        storage_usd: rates.storage(load.bytes),
        provisioned: match index.kind {
            IndexKind::Gsi => Some(rates.capacity(owner, owners[owner])?),
            IndexKind::Lsi => None,
        },
        keys_only,
    })
}

/// One pattern's row, adding its units to the capacity owners and the indexes it touches.
#[allow(clippy::too_many_arguments)]
fn pattern_cost(
    design: &Design,
    measured: &Measured,
    traffic: &Traffic,
    rates: &Rates,
    ap: &AccessPattern,
    m: &MeasuredPattern,
    requests: f64,
    owners: &mut BTreeMap<String, Units>,
    loads: &mut BTreeMap<&str, IndexLoad>,
) -> Result<PatternCost, CostError> {
    let consistent = traffic.patterns.get(&ap.name).is_some_and(|p| p.consistent);
    let reads_gsi = design.index(&ap.index).is_some_and(|i| i.kind == IndexKind::Gsi);
    let read_units = match (ap.operation.reads(), consistent) {
        (false, true) => return Err(CostError::NoStrongRead { pattern: ap.name.clone() }),
        (false, false) => 0.0,
        (true, false) => m.read_units_eventual,
        (true, true) if reads_gsi => return Err(CostError::NoStrongRead { pattern: ap.name.clone() }),
        (true, true) => {
            m.read_units_strong.ok_or_else(|| CostError::NoStrongRead { pattern: ap.name.clone() })?
        }
    };
    let read_month = read_units * requests;
    owners.entry(owner(design, &ap.index)).or_default().read += read_month;
    if let Some(load) = loads.get_mut(ap.index.as_str()) {
        load.read += read_month;
    }

    owners.entry(TABLE.into()).or_default().write += m.write_units_table * requests;
    let mut write_units = m.write_units_table;
    for (index, &units) in &m.write_units_indexes {
        let unknown = || CostError::UnknownIndex { subject: ap.name.clone(), index: index.clone() };
        let load = loads.get_mut(index.as_str()).ok_or_else(unknown)?;
        load.write += units * requests;
        load.keys_only_write += keys_only_units(design, measured, ap, index, units) * requests;
        owners.entry(owner(design, index)).or_default().write += units * requests;
        write_units += units;
    }
    let write_month = write_units * requests;
    Ok(PatternCost {
        name: ap.name.clone(),
        operation: ap.operation,
        index: ap.index.clone(),
        consistent,
        requests_per_month: requests,
        read_units_per_request: read_units,
        write_units_per_request: write_units,
        read_units_per_month: read_month,
        write_units_per_month: write_month,
        on_demand_usd: rates.reads(read_month) + rates.writes(write_month),
        read_units_per_second: read_month / rates.seconds,
        write_units_per_second: write_month / rates.seconds,
    })
}

/// Adds each entity type's index entries to `loads` and returns the table's bytes.
fn storage(
    design: &Design,
    measured: &Measured,
    traffic: &Traffic,
    prices: &Prices,
    loads: &mut BTreeMap<&str, IndexLoad>,
    notes: &mut Vec<String>,
) -> Result<f64, CostError> {
    let overhead = prices.storage.item_overhead_bytes;
    let mut table_bytes = 0.0;
    let mut empty = Vec::new();
    for e in &design.entities {
        let items = traffic.mean_items(&e.name);
        if !traffic.entities.contains_key(&e.name) {
            empty.push(e.name.as_str());
        }
        if items == 0.0 {
            continue;
        }
        let m = measured
            .entities
            .iter()
            .find(|m| m.name == e.name)
            .ok_or_else(|| CostError::NotMeasured { kind: "entity", name: e.name.clone() })?;
        table_bytes += items * (m.item_bytes + overhead);
        for (index, copy) in &m.indexes {
            let unknown = || CostError::UnknownIndex { subject: e.name.clone(), index: index.clone() };
            let load = loads.get_mut(index.as_str()).ok_or_else(unknown)?;
            load.bytes += items * (copy.projected_bytes + overhead);
            load.keys_only_bytes += items * (copy.keys_only_bytes + overhead);
        }
    }
    if !empty.is_empty() {
        notes.push(format!("no item count given for {}: counted as no items", empty.join(", ")));
    }
    Ok(table_bytes)
}

/// Which capacity a request on `index` consumes: a GSI's own, else the table's.
fn owner(design: &Design, index: &str) -> String {
    match design.index(index) {
        Some(i) if i.kind == IndexKind::Gsi => i.name.clone(),
        _ => TABLE.into(),
    }
}

/// The write units a `KEYS_ONLY` copy would take where the measured copy took `units`: the
/// copies the request wrote (measured units over the units of one copy of the mean projected
/// size) times the units of one copy of the mean keys-only size, each copy rounded up to
/// whole 1 KB units. Unchanged when the pattern's entity types have no copy measured there.
fn keys_only_units(design: &Design, measured: &Measured, ap: &AccessPattern, index: &str, units: f64) -> f64 {
    let copies: Vec<_> = ap
        .entities
        .iter()
        .filter_map(|name| measured.entities.iter().find(|m| &m.name == name))
        .filter_map(|m| m.indexes.get(index))
        .collect();
    if copies.is_empty() || design.index(index).is_none() {
        return units;
    }
    let n = copies.len() as f64;
    let projected = copies.iter().map(|c| c.projected_bytes).sum::<f64>() / n;
    let keys_only = copies.iter().map(|c| c.keys_only_bytes).sum::<f64>() / n;
    let per_copy = |bytes: f64| (bytes / WRITE_UNIT_BYTES).ceil().max(1.0);
    units / per_copy(projected) * per_copy(keys_only)
}

/// Whole capacity units for a mean of `per_second`: rounded up, at least one (the least a
/// table or GSI can be provisioned with). A float a hair above a whole number from division
/// (3.5 / 0.7) rounds to that number, not the next.
fn whole_units(owner: &str, per_second: f64) -> Result<u64, CostError> {
    let rounded = ((per_second * 1e9).round() / 1e9).ceil().max(1.0);
    if rounded.is_finite() && rounded <= 9_007_199_254_740_992.0 {
        Ok(rounded as u64)
    } else {
        Err(CostError::BadNumber {
            what: format!("the provisioned capacity of {owner}"),
            value: per_second,
            expected: "at most 2^53 units per second",
        })
    }
}

fn mode_cost(reads_usd: f64, writes_usd: f64, storage_usd: f64) -> ModeCost {
    ModeCost { reads_usd, writes_usd, storage_usd, total_usd: reads_usd + writes_usd + storage_usd }
}
