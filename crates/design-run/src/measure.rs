//! [`measure`]: a run's figures in the shape the cost estimate reads.

use std::collections::BTreeMap;

use monotable_design::cost::{IndexCopy, Measured, MeasuredEntity, MeasuredPattern};
use monotable_design::{Design, IndexKind, Projection};
use monotable_types::{item_size, Item};

use crate::error::RunError;
use crate::sample::Sample;

/// Runs `design` on samples from `seed` (as [`crate::validate`]) and returns what it measured:
/// per entity type the mean sizes of its items and of their copies in each index it is written
/// to, per access pattern the mean items and units of one request. Sizes follow DynamoDB's
/// item-size rules (names plus values), without the 100 bytes of per-item index overhead
/// DynamoDB adds for storage only.
pub fn measure(design: &Design, seed: u64) -> Result<Measured, RunError> {
    let run = crate::run(design, seed)?;
    let entities = design
        .entities
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mine: Vec<&Sample> = run.samples.items.iter().filter(|s| s.entity == Some(i)).collect();
            let indexes = e
                .indexes
                .keys()
                .filter_map(|name| {
                    let index = design.index(name)?;
                    let copies: Vec<&Sample> = mine
                        .iter()
                        .copied()
                        .filter(|s| crate::keys::key_on(design, name, &s.item).is_some())
                        .collect();
                    let keys = key_names(design, name);
                    let projected = |s: &Sample| match &index.projection {
                        Projection::All => item_size(&s.item),
                        Projection::KeysOnly => size_of(&s.item, &keys),
                        Projection::Include(extra) => {
                            size_of(&s.item, &keys.iter().chain(extra).cloned().collect::<Vec<_>>())
                        }
                    };
                    let copy = IndexCopy {
                        projected_bytes: mean(&copies, projected),
                        keys_only_bytes: mean(&copies, |s| size_of(&s.item, &keys)),
                    };
                    Some((name.clone(), copy))
                })
                .collect();
            MeasuredEntity { name: e.name.clone(), item_bytes: mean(&mine, |s| item_size(&s.item)), indexes }
        })
        .collect();
    let patterns = run
        .report
        .patterns
        .iter()
        .map(|p| {
            let requests = p.requests.max(1) as f64;
            let per_request: BTreeMap<String, f64> = p.write_units_indexes.clone();
            let strong = p.read_units_strong.map(|u| u / requests);
            let is_gsi = design.index(&p.index).is_some_and(|i| i.kind == IndexKind::Gsi);
            MeasuredPattern {
                name: p.name.clone(),
                operation: p.operation,
                index: p.index.clone(),
                items: p.items as f64 / requests,
                read_units_eventual: p.read_units_eventual / requests,
                read_units_strong: if p.operation.reads() && !is_gsi { strong } else { None },
                write_units_table: p.write_units_table,
                write_units_indexes: per_request,
            }
        })
        .collect();
    Ok(Measured { entities, patterns })
}

/// The table's and the index's key attributes.
fn key_names(design: &Design, index: &str) -> Vec<String> {
    let (tpk, tsk) = design.key_attrs(monotable_design::TABLE).unwrap_or_default();
    let (ipk, isk) = design.key_attrs(index).unwrap_or_default();
    tpk.into_iter().chain(tsk).chain(ipk).chain(isk).collect()
}

fn size_of(item: &Item, names: &[String]) -> usize {
    let kept: Item = item
        .iter()
        .filter(|(n, _)| names.iter().any(|k| k == n.as_str()))
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect();
    item_size(&kept)
}

fn mean(samples: &[&Sample], f: impl Fn(&Sample) -> usize) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.iter().map(|s| f(s) as f64).sum::<f64>() / samples.len() as f64
}
