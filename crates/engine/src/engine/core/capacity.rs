//! Consumed capacity with DynamoDB's rounding rules.
//!
//! * A read consumes one unit per started 4 KB of the item (or, for Query and Scan, of the
//!   sum of all items read), at least one; eventually consistent reads cost half.
//! * A write consumes one unit per started 1 KB of the larger of the old and new item, at
//!   least one. Each index the write touches consumes the same way on the projected entry;
//!   an index key change costs a delete plus a put.
//! * Transactions cost twice the plain amount.

use std::collections::HashMap;

use crate::api::{Capacity, ConsumedCapacity};
use crate::table::{Change, Schema};
use crate::validate::Constraints;

/// What `ReturnConsumedCapacity` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Report {
    None,
    Total,
    Indexes,
}

impl Report {
    /// Parses the member (unknown values were refused by [`check`]).
    pub fn parse(value: Option<&str>) -> Report {
        match value {
            Some("TOTAL") => Report::Total,
            Some("INDEXES") => Report::Indexes,
            _ => Report::None,
        }
    }
}

/// Adds the enum constraint for `ReturnConsumedCapacity`.
pub(crate) fn check(c: &mut Constraints, value: Option<&str>) {
    c.one_of(value, "returnConsumedCapacity", &["INDEXES", "TOTAL", "NONE"]);
}

/// Read units for `bytes` read.
pub(crate) fn read_units(bytes: usize, consistent: bool) -> f64 {
    let units = bytes.div_ceil(4096).max(1) as f64;
    if consistent {
        units
    } else {
        units / 2.0
    }
}

fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

/// Capacity of one table (and, for index reads, the index) consumed by a read.
pub(crate) fn for_read(
    report: Report,
    table: &str,
    index: Option<(&str, bool)>,
    units: f64,
) -> Option<ConsumedCapacity> {
    if report == Report::None {
        return None;
    }
    let mut out = ConsumedCapacity {
        table_name: Some(table.to_owned()),
        capacity_units: Some(units),
        read_capacity_units: Some(units),
        ..Default::default()
    };
    if report == Report::Indexes {
        let cap =
            Capacity { read_capacity_units: Some(units), capacity_units: Some(units), ..Default::default() };
        match index {
            None => out.table = Some(cap),
            Some((name, global)) => {
                out.table = Some(Capacity {
                    read_capacity_units: Some(0.0),
                    capacity_units: Some(0.0),
                    ..Default::default()
                });
                let map = HashMap::from([(name.to_owned(), cap)]);
                if global {
                    out.global_secondary_indexes = Some(map);
                } else {
                    out.local_secondary_indexes = Some(map);
                }
            }
        }
    }
    Some(out)
}

/// Write units consumed by one change on the table and on each index.
pub(crate) struct WriteCost {
    pub table: f64,
    pub indexes: Vec<(String, bool, f64)>,
}

impl WriteCost {
    /// The cost of `change` under `schema`.
    pub fn of(schema: &Schema, change: &Change) -> WriteCost {
        let table = write_units(change.old_size.max(change.new_size));
        let mut indexes = Vec::new();
        for index in &schema.indexes {
            let entry = |i: &Option<crate::api::SharedItem>, size: usize| {
                i.as_ref().and_then(|item| {
                    index
                        .entry_key(&schema.key, item)
                        .map(|k| (k, index.projected_size_known(&schema.key, item, size)))
                })
            };
            let units = match (entry(&change.old, change.old_size), entry(&change.new, change.new_size)) {
                (Some((ko, so)), Some((kn, sn))) if ko == kn => write_units(so.max(sn)),
                (Some((_, so)), Some((_, sn))) => write_units(so) + write_units(sn),
                (Some((_, s)), None) | (None, Some((_, s))) => write_units(s),
                (None, None) => continue,
            };
            indexes.push((index.name.clone(), index.global, units));
        }
        WriteCost { table, indexes }
    }

    /// Adds another cost (same table) to this one.
    pub fn add(&mut self, other: WriteCost) {
        self.table += other.table;
        for (name, global, units) in other.indexes {
            match self.indexes.iter_mut().find(|(n, _, _)| *n == name) {
                Some(e) => e.2 += units,
                None => self.indexes.push((name, global, units)),
            }
        }
    }

    /// Multiplies every unit (transactions cost double).
    pub fn scale(mut self, factor: f64) -> WriteCost {
        self.table *= factor;
        for e in &mut self.indexes {
            e.2 *= factor;
        }
        self
    }

    /// The `ConsumedCapacity` report for this cost.
    pub fn report(&self, report: Report, table: &str) -> Option<ConsumedCapacity> {
        let total = self.table + self.indexes.iter().map(|e| e.2).sum::<f64>();
        let mut out = ConsumedCapacity {
            table_name: Some(table.to_owned()),
            capacity_units: Some(total),
            write_capacity_units: Some(total),
            ..Default::default()
        };
        match report {
            Report::None => return None,
            Report::Total => {}
            Report::Indexes => {
                out.table = Some(Capacity {
                    write_capacity_units: Some(self.table),
                    capacity_units: Some(self.table),
                    ..Default::default()
                });
                let pick = |global: bool| {
                    let m: HashMap<String, Capacity> = self
                        .indexes
                        .iter()
                        .filter(|e| e.1 == global)
                        .map(|(n, _, u)| {
                            (
                                n.clone(),
                                Capacity {
                                    write_capacity_units: Some(*u),
                                    capacity_units: Some(*u),
                                    ..Default::default()
                                },
                            )
                        })
                        .collect();
                    (!m.is_empty()).then_some(m)
                };
                out.global_secondary_indexes = pick(true);
                out.local_secondary_indexes = pick(false);
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_round_up_to_4kb_and_eventual_reads_cost_half() {
        assert_eq!(read_units(1, true), 1.0);
        assert_eq!(read_units(4096, true), 1.0);
        assert_eq!(read_units(4097, true), 2.0);
        assert_eq!(read_units(4097, false), 1.0);
        assert_eq!(read_units(0, false), 0.5);
    }

    #[test]
    fn writes_round_up_to_1kb() {
        assert_eq!(write_units(1), 1.0);
        assert_eq!(write_units(1025), 2.0);
    }
}
