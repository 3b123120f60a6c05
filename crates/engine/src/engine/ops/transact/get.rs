//! TransactGetItems.
//!
//! The reads take their items' stripe locks (ascending order) so that they see every
//! transaction entirely or not at all; an item that an in-flight write holds cancels the whole
//! request with a `TransactionConflict` reason, as DynamoDB's TransactGetItems is cancelled by
//! an ongoing PutItem, UpdateItem, DeleteItem, BatchWriteItem or TransactWriteItems on it
//! (API_TransactGetItems; developer guide, "Transaction conflict handling in DynamoDB").

use std::sync::Arc;

use monotable_types::Item;

use super::write::{cancelled, check_length, conflict_reasons};
use crate::api::*;
use crate::engine::core::capacity::{self, Report};
use crate::engine::core::in_flight::ItemRef;
use crate::engine::core::params::check_placeholders;
use crate::engine::core::read_one::read_projection;
use crate::engine::core::util::{project, table_for_item_op};
use crate::engine::core::write::key_bytes;
use crate::engine::core::Inner;
use crate::table::{Locks, Table};
use crate::validate::Constraints;
use crate::Error;

pub(in crate::engine) fn transact_get_items(
    inner: &Inner,
    input: TransactGetItemsInput,
) -> Result<TransactGetItemsOutput, Error> {
    let mut c = Constraints::default();
    check_length(&mut c, input.transact_items.as_ref().map(Vec::len));
    capacity::check(&mut c, input.return_consumed_capacity.as_deref());
    c.finish()?;
    let mut reads = Vec::new();
    let empty = Item::new();
    // (position in the request, reason) of each action whose key cannot name an item.
    let mut invalid: Vec<(usize, String)> = Vec::new();
    for (n, item) in input.transact_items.iter().flatten().enumerate() {
        let get = item.get.as_ref().ok_or_else(|| {
            Error::validation("1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null")
        })?;
        crate::engine::core::legacy::check_mixing(
            &[],
            &[("ProjectionExpression", get.projection_expression.is_some())],
            get.expression_attribute_names.is_some(),
            false,
        )?;
        check_placeholders(get.expression_attribute_names.as_ref(), None)?;
        let projection = read_projection(
            get.projection_expression.as_deref(),
            None,
            get.expression_attribute_names.as_ref(),
        )?;
        let table = table_for_item_op(inner, get.table_name.as_deref())?;
        let schema = table.schema();
        let key_item = get.key.as_ref().unwrap_or(&empty);
        // A `Key` naming the wrong attributes or types cancels the request with a
        // ValidationError reason (see `transact_checks.rs`); an empty value is refused outright.
        if let Some(message) = super::checks::key_problem(&schema, key_item)? {
            invalid.push((n, message));
            continue;
        }
        let key = key_bytes(&schema, key_item)?;
        if reads.iter().any(|(t, k, _): &(Arc<Table>, Vec<u8>, _)| Arc::ptr_eq(t, &table) && *k == key) {
            return Err(Error::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        reads.push((table, key, projection));
    }
    if !invalid.is_empty() {
        let len = input.transact_items.as_ref().map_or(0, Vec::len);
        let reasons = (0..len)
            .map(|n| match invalid.iter().find(|(at, _)| *at == n) {
                Some((_, m)) => CancellationReason {
                    item: None,
                    code: Some("ValidationError".into()),
                    message: Some(m.clone()),
                },
                None => CancellationReason { code: Some("None".into()), ..Default::default() },
            })
            .collect();
        return Err(cancelled(reasons));
    }
    let items: Vec<ItemRef<'_>> = reads
        .iter()
        .map(|(t, k, _)| ItemRef { stripe: Locks::stripe(t.seq, k), table: t.seq, key: k })
        .collect();
    let busy = inner.in_flight.busy_for_read(&items);
    if !busy.is_empty() {
        return Err(cancelled(conflict_reasons(reads.len(), &busy)));
    }
    let _locks = inner.locks.lock_many(items.iter().map(|i| i.stripe).collect());
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    let mut responses = Vec::with_capacity(reads.len());
    let mut units: Vec<(String, f64)> = Vec::new();
    for (table, key, projection) in &reads {
        let found = table.base.get(key)?;
        let u = 2.0 * capacity::read_units(found.as_ref().map_or(0, monotable_types::PackedItem::size), true);
        match units.iter_mut().find(|(n, _)| *n == table.name) {
            Some((_, x)) => *x += u,
            None => units.push((table.name.clone(), u)),
        }
        responses.push(ItemResponse { item: found.map(|i| project(i, projection.as_ref())) });
    }
    Ok(TransactGetItemsOutput {
        consumed_capacity: (report != Report::None)
            .then(|| units.iter().filter_map(|(n, u)| capacity::for_read(report, n, None, *u)).collect()),
        responses: Some(responses),
    })
}
