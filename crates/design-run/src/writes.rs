//! Write patterns (put, update, delete, transact_write, batch_write): executed on the engine
//! after every read, each reporting the write units it consumed on the table and each index.

use std::collections::{BTreeMap, BTreeSet};

use monotable_design::{AccessPattern, Design, Finding, Operation};
use monotable_engine::{
    BatchWriteItemInput, ConsumedCapacity, DeleteItemInput, Engine, Put, PutItemInput, PutRequest,
    TransactWriteItem, TransactWriteItemsInput, UpdateItemInput, WriteRequest,
};
use monotable_types::{AttributeValue, Item};

use crate::keys::vars;
use crate::reads::units;
use crate::report::PatternReport;
use crate::rules::finding;
use crate::sample::{guards, Samples};
use crate::table;

/// Units a write reported, summed over its `ConsumedCapacity` entries.
struct Units {
    table: f64,
    indexes: BTreeMap<String, f64>,
}

impl Units {
    fn of<'a>(cs: impl IntoIterator<Item = &'a ConsumedCapacity>) -> Units {
        let mut u = Units { table: 0.0, indexes: BTreeMap::new() };
        for c in cs {
            let (total, table, indexes) = units(Some(c));
            // Without a per-table figure, the whole is the table's.
            u.table += if c.table.is_some() { table } else { total };
            for (i, n) in indexes {
                *u.indexes.entry(i).or_default() += n;
            }
        }
        u
    }
}

pub(crate) fn execute(
    engine: &Engine,
    design: &Design,
    samples: &mut Samples,
    p: &AccessPattern,
    findings: &mut Vec<Finding>,
) -> PatternReport {
    let mut report = PatternReport::new(p);
    let Some(entity) = p.entities.first().and_then(|n| design.entities.iter().position(|e| &e.name == n))
    else {
        findings.push(finding(
            "MV008",
            &p.name,
            format!("`{}` names no known entity type", p.name),
            "declare the entity type it writes",
        ));
        return report;
    };
    match write(engine, design, samples, p, entity) {
        Ok((items, u)) => {
            report.executed = true;
            report.items = items;
            report.requests = 1;
            report.write_units_table = u.table;
            report.write_units_indexes = u.indexes;
        }
        Err(why) => {
            findings.push(finding("MV008", &p.name, why, "fix the entity type's templates or fields"))
        }
    }
    report
}

fn write(
    engine: &Engine,
    design: &Design,
    samples: &mut Samples,
    p: &AccessPattern,
    entity: usize,
) -> Result<(usize, Units), String> {
    let name = table::name(design);
    let c = &design.conventions;
    let key_of = |item: &Item| -> Item {
        [&c.pk, &c.sk].into_iter().filter_map(|a| Some((a.as_str(), item.get(a)?.clone()))).collect()
    };
    let existing = samples.items.iter().rev().find(|s| s.entity == Some(entity)).cloned();
    let salt = design.access_patterns.iter().position(|x| x.name == p.name).unwrap_or_default() as u64;
    match p.operation {
        Operation::Put => {
            let s = samples.fresh(design, entity, salt);
            let input = PutItemInput {
                table_name: Some(name),
                item: Some(s.item),
                return_consumed_capacity: Some("INDEXES".into()),
                ..Default::default()
            };
            let out = engine.put_item(input).map_err(|e| format!("PutItem: {e}"))?;
            Ok((1, Units::of(out.consumed_capacity.iter())))
        }
        Operation::Update => {
            let old = existing.ok_or("no sample to update")?;
            let fresh = samples.fresh(design, entity, salt);
            let e = &design.entities[entity];
            // Fields no key template uses get new values, and the updated stamp moves.
            let keyed: BTreeSet<String> = [&e.pk, &e.sk]
                .into_iter()
                .chain(e.indexes.values().flat_map(|k| k.pk.iter().chain(&k.sk)))
                .flat_map(|t| vars(t))
                .collect();
            let mut sets: Vec<(String, AttributeValue)> = e
                .fields
                .iter()
                .filter(|f| !keyed.contains(&f.name) && e.version_field.as_ref() != Some(&f.name))
                .filter_map(|f| Some((f.attr().to_string(), fresh.item.get(f.attr())?.clone())))
                .collect();
            if let Some(u) = c.updated.as_ref().filter(|_| e.stamps) {
                sets.push((
                    u.clone(),
                    fresh.item.get(u).cloned().unwrap_or(AttributeValue::S(String::new())),
                ));
            }
            if sets.is_empty() {
                return Err("nothing to update: every field is part of a key".into());
            }
            let expr = (0..sets.len()).map(|i| format!("#u{i} = :u{i}")).collect::<Vec<_>>().join(", ");
            let input = UpdateItemInput {
                table_name: Some(name),
                key: Some(key_of(&old.item)),
                update_expression: Some(format!("SET {expr}")),
                expression_attribute_names: Some(
                    sets.iter().enumerate().map(|(i, (a, _))| (format!("#u{i}"), a.clone())).collect(),
                ),
                expression_attribute_values: Some(
                    sets.into_iter().enumerate().map(|(i, (_, v))| (format!(":u{i}"), v)).collect(),
                ),
                return_consumed_capacity: Some("INDEXES".into()),
                ..Default::default()
            };
            let out = engine.update_item(input).map_err(|e| format!("UpdateItem: {e}"))?;
            Ok((1, Units::of(out.consumed_capacity.iter())))
        }
        Operation::Delete => {
            let old = existing.ok_or("no sample to delete")?;
            let input = DeleteItemInput {
                table_name: Some(name),
                key: Some(key_of(&old.item)),
                return_consumed_capacity: Some("INDEXES".into()),
                ..Default::default()
            };
            let out = engine.delete_item(input).map_err(|e| format!("DeleteItem: {e}"))?;
            Ok((1, Units::of(out.consumed_capacity.iter())))
        }
        Operation::TransactWrite => {
            // The item and the guard of each unique field, each put only if absent, as the
            // library's create does (`crates/monotable/src/unique.rs`).
            let s = samples.fresh(design, entity, salt);
            let items: Vec<Item> = std::iter::once(s.item.clone())
                .chain(guards(design, &s).into_iter().map(|g| g.item))
                .collect();
            let n = items.len();
            let actions = items
                .into_iter()
                .map(|item| TransactWriteItem {
                    put: Some(Put {
                        item: Some(item),
                        table_name: Some(name.clone()),
                        condition_expression: Some("attribute_not_exists(#pk)".into()),
                        expression_attribute_names: Some([("#pk".to_string(), c.pk.clone())].into()),
                        ..Default::default()
                    }),
                    ..Default::default()
                })
                .collect();
            let input = TransactWriteItemsInput {
                transact_items: Some(actions),
                return_consumed_capacity: Some("INDEXES".into()),
                ..Default::default()
            };
            let out = engine.transact_write_items(input).map_err(|e| format!("TransactWriteItems: {e}"))?;
            Ok((n, Units::of(out.consumed_capacity.iter().flatten())))
        }
        Operation::BatchWrite => {
            let n = p.limit.map_or(1, |l| l.clamp(1, 25)) as u64;
            let requests: Vec<WriteRequest> = (0..n)
                .map(|k| WriteRequest {
                    put_request: Some(PutRequest {
                        item: Some(samples.fresh(design, entity, salt * 100 + k).item),
                    }),
                    delete_request: None,
                })
                .collect();
            let input = BatchWriteItemInput {
                request_items: Some([(name, requests)].into()),
                return_consumed_capacity: Some("INDEXES".into()),
                ..Default::default()
            };
            let out = engine.batch_write_item(input).map_err(|e| format!("BatchWriteItem: {e}"))?;
            Ok((n as usize, Units::of(out.consumed_capacity.iter().flatten())))
        }
        _ => Err("not a write".into()),
    }
}
