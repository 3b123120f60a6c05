//! The checks around the arithmetic: names against the design, measured numbers before it,
//! and the results after it.
//!
//! Invariant: `compute.rs` does no arithmetic before `measured` and `names` pass, and returns
//! no estimate `finite` refuses.

use super::error::{non_negative, CostError};
use super::estimate::Estimate;
use super::measured::Measured;
use super::traffic::Traffic;
use crate::model::Design;

/// Rejects the traffic file's names the design does not have.
pub(super) fn names(design: &Design, traffic: &Traffic) -> Result<(), CostError> {
    let patterns: Vec<String> = traffic
        .patterns
        .keys()
        .filter(|n| !design.access_patterns.iter().any(|p| &&p.name == n))
        .cloned()
        .collect();
    if !patterns.is_empty() {
        return Err(CostError::UnknownPatterns(patterns));
    }
    let entities: Vec<String> =
        traffic.entities.keys().filter(|n| design.entity(n).is_none()).cloned().collect();
    if !entities.is_empty() {
        return Err(CostError::UnknownEntities(entities));
    }
    Ok(())
}

/// Every measured number must be finite and not negative.
pub(super) fn measured(measured: &Measured) -> Result<(), CostError> {
    for e in &measured.entities {
        non_negative(|| format!("measured {}.item_bytes", e.name), e.item_bytes)?;
        for (index, copy) in &e.indexes {
            non_negative(|| format!("measured {}.{index}.projected_bytes", e.name), copy.projected_bytes)?;
            non_negative(|| format!("measured {}.{index}.keys_only_bytes", e.name), copy.keys_only_bytes)?;
        }
    }
    for p in &measured.patterns {
        non_negative(|| format!("measured {}.items", p.name), p.items)?;
        non_negative(|| format!("measured {}.read_units_eventual", p.name), p.read_units_eventual)?;
        if let Some(strong) = p.read_units_strong {
            non_negative(|| format!("measured {}.read_units_strong", p.name), strong)?;
        }
        non_negative(|| format!("measured {}.write_units_table", p.name), p.write_units_table)?;
        for (index, &units) in &p.write_units_indexes {
            non_negative(|| format!("measured {}.write_units_indexes.{index}", p.name), units)?;
        }
    }
    Ok(())
}

/// Inputs too large for a float make an infinity somewhere; the totals and the per-index
/// figures (the only ones not summed into a total) show it.
pub(super) fn finite(e: &Estimate) -> Result<(), CostError> {
    let mut figures = vec![e.on_demand.total_usd, e.provisioned.cost.total_usd, e.storage.gb];
    for i in &e.indexes {
        figures.push(i.on_demand_usd);
        figures.push(i.storage_usd);
        if let Some(k) = &i.keys_only {
            figures.extend([k.on_demand_usd, k.provisioned_usd]);
        }
    }
    for p in &e.patterns {
        figures.push(p.on_demand_usd);
    }
    match figures.into_iter().find(|v| !v.is_finite()) {
        Some(value) => Err(CostError::BadNumber {
            what: "the estimate".into(),
            value,
            expected: "finite: the traffic, counts or prices are too large",
        }),
        None => Ok(()),
    }
}
