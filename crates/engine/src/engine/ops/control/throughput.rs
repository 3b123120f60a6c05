//! OnDemandThroughput and WarmThroughput of tables and global secondary indexes: validated,
//! stored and described as DynamoDB does. Nothing is throttled, so the values change nothing
//! else; warm-throughput increases apply at once (`Status` is always `ACTIVE`, where DynamoDB
//! shows `UPDATING` for minutes).
//!
//! Sources: API reference (API_OnDemandThroughput, API_WarmThroughput,
//! API_TableWarmThroughputDescription); the ack-api-quirks DynamoDB findings verified
//! 2026-10-08/09: DDB-TABLE-039 (CreateTable edge values and texts: on-demand maxima below 1,
//! -1 included, are "outside of valid range"; warm throughput below the on-demand initial
//! 12000/4000 or below the provisioned capacity is refused; one member given keeps the other's
//! default), DDB-TABLE-059 and -155 (UpdateTable: on-demand maxima on a PROVISIONED table;
//! no decrease of warm throughput, an equal value is accepted), DDB-TABLE-061 (a provisioned
//! table's warm throughput follows its capacity; an on-demand one's is 12000/4000), the
//! message catalogue (-1 clears a maximum on UpdateTable; index variants name the index);
//! ScyllaDB's test_gsi.py (a CreateTable response carries no WarmThroughput unless one was
//! given).

use crate::api::*;
use crate::Error;

/// The warm throughput of a new on-demand table or index (developer guide,
/// on-demand-capacity-mode.html#on-demand-capacity-mode-initial).
const ON_DEMAND_INITIAL: (i64, i64) = (12_000, 4_000);

const INITIAL_LINK: &str =
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial";

/// "for table" or "for index : <name>" in the on-demand texts.
fn on_demand_target(index: Option<&str>) -> String {
    index.map_or_else(|| "for table".to_owned(), |i| format!("for index : {i}"))
}

/// "for table" or "for index <name>" in the warm-throughput texts.
fn warm_target(index: Option<&str>) -> String {
    index.map_or_else(|| "for table".to_owned(), |i| format!("for index {i}"))
}

/// Checks an OnDemandThroughput of CreateTable (`clear` false) or UpdateTable (`clear`
/// true: -1 removes a maximum).
fn check_on_demand(
    o: &OnDemandThroughput,
    mode: &str,
    index: Option<&str>,
    clear: bool,
) -> Result<(), Error> {
    let members = [
        ("MaxReadRequestUnits", o.max_read_request_units),
        ("MaxWriteRequestUnits", o.max_write_request_units),
    ];
    for (name, value) in members {
        let Some(value) = value else { continue };
        if mode == "PROVISIONED" {
            let target = index.map_or_else(String::new, |i| format!("for index : {i} "));
            return Err(Error::invalid_param(format!(
                "{name} for OnDemandThroughput {target}cannot be specified when the table BillingMode is PROVISIONED"
            )));
        }
        if value < 1 && !(clear && value == -1) {
            return Err(Error::invalid_param(format!(
                "Requested {name} for OnDemandThroughput {} is outside of valid range",
                on_demand_target(index)
            )));
        }
    }
    Ok(())
}

/// Merges an UpdateTable OnDemandThroughput into the stored one (-1 clears a member).
fn merge_on_demand(
    current: Option<OnDemandThroughput>,
    update: &OnDemandThroughput,
) -> Option<OnDemandThroughput> {
    let mut merged = current.unwrap_or_default();
    for (slot, value) in [
        (&mut merged.max_read_request_units, update.max_read_request_units),
        (&mut merged.max_write_request_units, update.max_write_request_units),
    ] {
        match value {
            Some(-1) => *slot = None,
            Some(v) => *slot = Some(v),
            None => {}
        }
    }
    (merged != OnDemandThroughput::default()).then_some(merged)
}

/// The warm throughput a table or index has without one being asked for: the on-demand
/// initial values, or the provisioned capacity.
fn baseline(mode: &str, pt: Option<&ProvisionedThroughputDescription>) -> (i64, i64) {
    match (mode, pt) {
        ("PROVISIONED", Some(pt)) => {
            (pt.read_capacity_units.unwrap_or(0), pt.write_capacity_units.unwrap_or(0))
        }
        _ => ON_DEMAND_INITIAL,
    }
}

/// Checks a WarmThroughput given to CreateTable against the baseline and returns the values
/// to store (a member not given is the baseline's).
fn create_warm(
    w: &WarmThroughput,
    mode: &str,
    pt: Option<&ProvisionedThroughput>,
    index: Option<&str>,
) -> Result<(i64, i64), Error> {
    let base = match (mode, pt) {
        ("PROVISIONED", Some(pt)) => {
            (pt.read_capacity_units.unwrap_or(0), pt.write_capacity_units.unwrap_or(0))
        }
        _ => ON_DEMAND_INITIAL,
    };
    let target = warm_target(index);
    for (name, capacity, value, floor) in [
        ("ReadUnitsPerSecond", "ReadCapacityUnits", w.read_units_per_second, base.0),
        ("WriteUnitsPerSecond", "WriteCapacityUnits", w.write_units_per_second, base.1),
    ] {
        if value.is_some_and(|v| v < floor) {
            return Err(Error::invalid_param(if mode == "PROVISIONED" {
                format!("Requested {name} for WarmThroughput {target} is lower than {capacity} of ProvisionedThroughput")
            } else {
                format!("Requested {name} for WarmThroughput {target} is lower than initial throughput for OnDemand. See: {INITIAL_LINK}")
            }));
        }
    }
    Ok((w.read_units_per_second.unwrap_or(base.0), w.write_units_per_second.unwrap_or(base.1)))
}

/// Checks an UpdateTable WarmThroughput against the current values: no member may decrease.
fn update_warm(w: &WarmThroughput, current: (i64, i64), index: Option<&str>) -> Result<(i64, i64), Error> {
    if index.is_some() && w.read_units_per_second.is_none() && w.write_units_per_second.is_none() {
        return Err(Error::invalid_param(format!(
            "WarmThroughput must have at least one of ReadUnitsPerSecond or WriteUnitsPerSecond specified for index: {}",
            index.unwrap_or_default()
        )));
    }
    for (name, value, now) in [
        ("ReadUnitsPerSecond", w.read_units_per_second, current.0),
        ("WriteUnitsPerSecond", w.write_units_per_second, current.1),
    ] {
        if value.is_some_and(|v| v < now) {
            return Err(Error::invalid_param(format!(
                "Requested {name} for WarmThroughput {} is lower than current WarmThroughput, decreasing WarmThroughput is not supported",
                warm_target(index)
            )));
        }
    }
    Ok((w.read_units_per_second.unwrap_or(current.0), w.write_units_per_second.unwrap_or(current.1)))
}

fn table_warm((read, write): (i64, i64)) -> TableWarmThroughputDescription {
    TableWarmThroughputDescription {
        read_units_per_second: Some(read),
        write_units_per_second: Some(write),
        status: Some("ACTIVE".into()),
    }
}

fn index_warm((read, write): (i64, i64)) -> GlobalSecondaryIndexWarmThroughputDescription {
    GlobalSecondaryIndexWarmThroughputDescription {
        read_units_per_second: Some(read),
        write_units_per_second: Some(write),
        status: Some("ACTIVE".into()),
    }
}

fn pair(read: Option<i64>, write: Option<i64>) -> (i64, i64) {
    (read.unwrap_or(0), write.unwrap_or(0))
}

/// The larger of two warm throughputs, member by member.
fn max_pair(a: (i64, i64), b: (i64, i64)) -> (i64, i64) {
    (a.0.max(b.0), a.1.max(b.1))
}

fn mode_of(d: &TableDescription) -> String {
    d.billing_mode_summary
        .as_ref()
        .and_then(|b| b.billing_mode.clone())
        .unwrap_or_else(|| "PROVISIONED".into())
}

/// CreateTable's checks of both settings, for the table and each GSI. Runs after the billing
/// checks; fills the new table's description with the warm throughput that was asked for.
pub(in crate::engine) fn create(
    input: &CreateTableInput,
    mode: &str,
    d: &mut TableDescription,
) -> Result<(), Error> {
    if let Some(o) = &input.on_demand_throughput {
        check_on_demand(o, mode, None, false)?;
    }
    for g in input.global_secondary_indexes.iter().flatten() {
        if let Some(o) = &g.on_demand_throughput {
            check_on_demand(o, mode, g.index_name.as_deref(), false)?;
        }
    }
    if let Some(w) = &input.warm_throughput {
        d.warm_throughput =
            Some(table_warm(create_warm(w, mode, input.provisioned_throughput.as_ref(), None)?));
    }
    for g in input.global_secondary_indexes.iter().flatten() {
        let Some(w) = &g.warm_throughput else { continue };
        let values = create_warm(w, mode, g.provisioned_throughput.as_ref(), g.index_name.as_deref())?;
        if let Some(desc) =
            d.global_secondary_indexes.iter_mut().flatten().find(|x| x.index_name == g.index_name)
        {
            desc.warm_throughput = Some(index_warm(values));
        }
    }
    Ok(())
}

/// An UpdateTable GSI `Create` action's OnDemandThroughput and WarmThroughput, checked as
/// CreateTable checks an index's and recorded in its new description.
pub(in crate::engine) fn create_index(
    cr: &CreateGlobalSecondaryIndexAction,
    mode: &str,
    g: &mut GlobalSecondaryIndexDescription,
) -> Result<(), Error> {
    let name = cr.index_name.as_deref();
    if let Some(o) = &cr.on_demand_throughput {
        check_on_demand(o, mode, name, false)?;
    }
    if let Some(w) = &cr.warm_throughput {
        g.warm_throughput = Some(index_warm(create_warm(w, mode, cr.provisioned_throughput.as_ref(), name)?));
    }
    Ok(())
}

/// UpdateTable's table-level OnDemandThroughput and WarmThroughput, applied to `d` (whose
/// billing mode and capacity the update has already changed).
pub(in crate::engine) fn update_table(
    input: &UpdateTableInput,
    d: &mut TableDescription,
) -> Result<(), Error> {
    let mode = mode_of(d);
    if mode == "PROVISIONED" {
        // A provisioned table has no on-demand maxima (DDB-TABLE-059 describes none).
        d.on_demand_throughput = None;
    }
    if let Some(o) = &input.on_demand_throughput {
        check_on_demand(o, &mode, None, true)?;
        d.on_demand_throughput = merge_on_demand(d.on_demand_throughput.take(), o);
    }
    if let Some(w) = &input.warm_throughput {
        let current = effective_table(d);
        d.warm_throughput = Some(table_warm(update_warm(w, current, None)?));
    }
    Ok(())
}

/// An UpdateTable GSI `Update` action's OnDemandThroughput and WarmThroughput.
pub(in crate::engine) fn update_index(
    up: &UpdateGlobalSecondaryIndexAction,
    mode: &str,
    g: &mut GlobalSecondaryIndexDescription,
) -> Result<(), Error> {
    let name = g.index_name.clone().unwrap_or_default();
    if let Some(o) = &up.on_demand_throughput {
        check_on_demand(o, mode, Some(&name), true)?;
        g.on_demand_throughput = merge_on_demand(g.on_demand_throughput.take(), o);
    }
    if let Some(w) = &up.warm_throughput {
        let current = effective_index(mode, g);
        g.warm_throughput = Some(index_warm(update_warm(w, current, Some(&name))?));
    }
    Ok(())
}

fn effective_table(d: &TableDescription) -> (i64, i64) {
    let base = baseline(&mode_of(d), d.provisioned_throughput.as_ref());
    let asked = d
        .warm_throughput
        .as_ref()
        .map_or((0, 0), |w| pair(w.read_units_per_second, w.write_units_per_second));
    max_pair(base, asked)
}

fn effective_index(mode: &str, g: &GlobalSecondaryIndexDescription) -> (i64, i64) {
    let base = baseline(mode, g.provisioned_throughput.as_ref());
    let asked = g
        .warm_throughput
        .as_ref()
        .map_or((0, 0), |w| pair(w.read_units_per_second, w.write_units_per_second));
    max_pair(base, asked)
}

/// DescribeTable's view: every table and GSI has a warm throughput, the one asked for or the
/// baseline, whichever is larger.
pub(in crate::engine) fn describe(d: &mut TableDescription) {
    let mode = mode_of(d);
    d.warm_throughput = Some(table_warm(effective_table(d)));
    for g in d.global_secondary_indexes.iter_mut().flatten() {
        g.warm_throughput = Some(index_warm(effective_index(&mode, g)));
    }
}
