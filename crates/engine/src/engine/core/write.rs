//! The conditional single-item write every write goes through: a prepared [`Write`] (key,
//! [`Mutation`], condition) is evaluated against the stored item under the item's stripe
//! lock and committed in one storage batch with its index entries and stream record
//! (`Table::stage`). PutItem, UpdateItem, DeleteItem, BatchWriteItem and TransactWriteItems
//! all prepare a `Write`; only transactions evaluate several under one commit.

use std::sync::Arc;

use monotable_expr::{Condition, UpdateAction, UpdatePlan};
use monotable_types::{AttributeType, AttributeValue, Item};

use crate::api::*;
use crate::engine::core::inline_budget;
use crate::engine::core::params::expr_err;
use crate::engine::core::Inner;
use crate::storage::WriteBatch;
use crate::table::{Change, Locks, Schema, Table};
use crate::validate;
use crate::Error;

/// The message of a `TransactionConflict` cancellation reason and of
/// `TransactionConflictException` ("Transaction is ongoing for the item"): a write meeting an
/// item an in-flight transaction holds fails with it.
pub(in crate::engine) const CONFLICT_MESSAGE: &str = "Transaction is ongoing for the item";

/// The storage key of a validated `Key` parameter.
pub(in crate::engine) fn key_bytes(schema: &Schema, key: &Item) -> Result<Vec<u8>, Error> {
    validate::check_key(&schema.key, key)?;
    let mut out = Vec::with_capacity(64);
    schema.key.encode_from(key, &mut out);
    Ok(out)
}

/// What a conditional write does to its item.
pub(in crate::engine) enum Mutation {
    /// A whole new item and its size.
    Put(SharedItem, usize),
    Update(UpdatePlan),
    Delete,
    Check,
}

/// A prepared single-item write: the item's key, what to do and under which condition.
pub(in crate::engine) struct Write {
    pub table: Arc<Table>,
    pub key: Vec<u8>,
    pub key_item: Item,
    pub mutation: Mutation,
    pub condition: Option<Condition>,
    pub return_old_on_failure: bool,
}

/// Why a prepared write did not happen.
pub(in crate::engine) enum Refusal {
    /// The condition was false; carries the old item when asked for.
    Condition(Option<Item>),
    /// The resulting item is invalid (size, index keys, update type errors).
    Invalid(Error),
    /// The request itself is refused, even inside a transaction, where an `Invalid` result
    /// only cancels (see `ops/transact/checks.rs`).
    Request(Error),
}

impl Write {
    /// The lock stripe of the item.
    pub fn stripe(&self) -> usize {
        Locks::stripe(self.table.seq, &self.key)
    }

    /// Evaluates the condition against `old` and computes the change. The caller holds the
    /// item's stripe lock.
    pub fn evaluate(self_: &Write, schema: &Schema, old: Option<SharedItem>) -> Result<Change, Refusal> {
        static EMPTY: std::sync::OnceLock<Item> = std::sync::OnceLock::new();
        if let Some(c) = &self_.condition {
            // Only a condition decodes the old item; a plain overwrite reads its index keys
            // and size from the packed bytes.
            let current: &Item = old.as_deref().unwrap_or_else(|| EMPTY.get_or_init(Item::new));
            // Under an inline budget an expensive condition stops here, before anything is
            // written: the caller runs the whole request again where it may take its time.
            if !inline_budget::charge_evaluation(c, current) {
                return Err(Refusal::Request(Error::internal(
                    "the condition went past its evaluation budget",
                )));
            }
            if !c.eval(current) {
                return Err(Refusal::Condition(if self_.return_old_on_failure {
                    old.as_deref().cloned()
                } else {
                    None
                }));
            }
        }
        let mut updated_paths = Vec::new();
        let (new, new_size) = match &self_.mutation {
            Mutation::Check => (old.clone(), None),
            Mutation::Delete => (None, Some(0)),
            // The new item is packed once (the store needs the bytes anyway) and the change
            // holds the packed form only: a copy of the request's decoded item would cost a
            // deep clone of every attribute.
            Mutation::Put(item, size) => (Some(SharedItem::from_packed(item.packed().clone())), Some(*size)),
            // An update that only removes attributes or set members does not create a missing
            // item, while any other update (even an empty AttributeUpdates) creates it with its
            // key. Source: ScyllaDB Alternator's `test_update_item_non_existent` and
            // `test_update_item_delete`, written against DynamoDB (issue scylladb#5862):
            // `REMOVE a` and AttributeUpdates DELETE (with or without a Value) on a missing item
            // leave no item.
            Mutation::Update(plan)
                if old.is_none()
                    && !plan.actions.is_empty()
                    && plan
                        .actions
                        .iter()
                        .all(|a| matches!(a, UpdateAction::Remove(_) | UpdateAction::Delete(..))) =>
            {
                (None, Some(0))
            }
            Mutation::Update(plan) => {
                let base = match &old {
                    Some(o) => (**o).clone(),
                    None => self_.key_item.clone(),
                };
                let (mut item, changed) =
                    plan.apply_owned(base).map_err(|e| Refusal::Invalid(expr_err(e)))?;
                // Packing stores sets in canonical order; the decoded item the response and
                // the stream read must hold them in the same order (an `ADD` appends, a
                // `SET` copies the request's order).
                item.sort_sets();
                updated_paths = changed.paths;
                let size = validate::check_updated_item_size(&item).map_err(Refusal::Invalid)?;
                if let Some(e) = empty_updated_index_key(schema, &item) {
                    return Err(Refusal::Request(e));
                }
                validate::check_index_keys(schema, &item).map_err(Refusal::Invalid)?;
                (Some(SharedItem::from(item)), Some(size))
            }
        };
        let mut change = Change::new(self_.key.clone(), old, new, new_size);
        change.updated_paths = updated_paths;
        Ok(change)
    }
}

/// Runs one conditional write under its stripe lock, returning the committed change.
/// A write meeting an item of an in-flight transaction fails with
/// `TransactionConflictException` instead of waiting (`in_flight.rs`).
pub(in crate::engine) fn run_write(inner: &Inner, write: &Write) -> Result<(Change, Arc<Schema>), Error> {
    let table = &write.table;
    let stripe = write.stripe();
    let _claim = inner
        .in_flight
        .begin_write(stripe, table.seq, &write.key)
        .ok_or_else(|| Error::new(crate::ErrorKind::TransactionConflict, CONFLICT_MESSAGE))?;
    let _gate = table.gate.read();
    let schema = table.schema();
    // Under an inline budget (an async worker) the write does not wait for a stripe another
    // write holds, perhaps for a long evaluation on the pool: it stops, before any effect,
    // and is run again where it may wait.
    let _lock = if inline_budget::in_scope() {
        inner.locks.try_lock(stripe).ok_or_else(|| {
            inline_budget::exceeded();
            Error::internal("the item is locked by a write in progress")
        })?
    } else {
        inner.locks.lock(stripe)
    };
    let old = table.base.get(&write.key)?;
    let change = match Write::evaluate(write, &schema, old.map(SharedItem::from_packed)) {
        Ok(c) => c,
        Err(Refusal::Condition(item)) => return Err(Error::conditional_failed(item)),
        Err(Refusal::Invalid(e) | Refusal::Request(e)) => return Err(e),
    };
    if !matches!(write.mutation, Mutation::Check) {
        let mut batch = WriteBatch::default();
        let deltas = table.stage(&schema, &change, &mut batch);
        inner.storage.commit(batch)?;
        table.account(deltas);
    }
    Ok((change, schema))
}

/// Stops a write under an inline budget that would sum its item collection
/// (`ReturnItemCollectionMetrics=SIZE` on a table with local secondary indexes), before it
/// starts. [`collection_metrics`] walks the item's whole partition after the commit, where no
/// budget can stop it; the caller runs the whole request again where it may take its time.
/// Outside a budget this costs one comparison.
pub(in crate::engine) fn sums_collection_off_the_worker(
    table: &Table,
    ricm: Option<&str>,
) -> Result<(), Error> {
    if ricm == Some("SIZE") && inline_budget::in_scope() && table.schema().has_lsi() {
        inline_budget::exceeded();
        return Err(Error::internal(
            "the write sums its item collection, which is work for the blocking pool",
        ));
    }
    Ok(())
}

/// `ReturnItemCollectionMetrics=SIZE` for tables with local secondary indexes: the item's
/// partition key and a one-gigabyte range around the collection's size (its base items plus
/// their local index entries), measured after the write.
pub(in crate::engine) fn collection_metrics(
    table: &Table,
    schema: &Schema,
    change: &Change,
    ricm: Option<&str>,
) -> Result<Option<ItemCollectionMetrics>, Error> {
    if ricm != Some("SIZE") || !schema.has_lsi() {
        return Ok(None);
    }
    let Some(item) = change.new.as_ref().or(change.old.as_ref()) else { return Ok(None) };
    let Some(pk) = item.get(&schema.key.pk.name) else { return Ok(None) };
    let mut prefix = Vec::with_capacity(64);
    crate::keys::encode_value(pk, &mut prefix);
    let range = crate::storage::KeyRange {
        start: std::ops::Bound::Included(prefix.clone()),
        end: crate::keys::prefix_end(&prefix),
        reverse: false,
    };
    let mut bytes = 0usize;
    table.base.scan(&range, &mut |_, stored| {
        let item = &SharedItem::from_packed(stored.clone());
        bytes += stored.size();
        for index in schema.indexes.iter().filter(|i| !i.global) {
            if index.entry_key(&schema.key, item).is_some() {
                bytes += index.projected_size(&schema.key, item);
            }
        }
        true
    })?;
    let lower = (bytes as f64 / (1u64 << 30) as f64).floor();
    Ok(Some(ItemCollectionMetrics {
        item_collection_key: Some(Item::from([(schema.key.pk.name.clone(), pk.clone())])),
        size_estimate_range_gb: Some(vec![lower, lower + 1.0]),
    }))
}

/// The refusal of an update that sets an index key attribute to an empty string or binary:
/// raised before the transaction opens, with the update path's own wording
/// (transactIndexKeys.test.ts, "Update empty-string index key" and "Update empty-binary index
/// key").
pub(in crate::engine) fn empty_updated_index_key(schema: &Schema, item: &Item) -> Option<Error> {
    let empty = schema
        .indexes
        .iter()
        .flat_map(|i| i.key.attrs())
        .filter_map(|a| item.get(&a.name).filter(|v| v.attribute_type() == a.ty))
        .find(|v| is_empty(v))?;
    let what = if empty.attribute_type() == AttributeType::S { "string" } else { "binary" };
    Some(Error::validation(format!(
        "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty {what} value."
    )))
}

/// Whether a key value is the empty string or empty binary DynamoDB refuses as a key.
pub(in crate::engine) fn is_empty(v: &AttributeValue) -> bool {
    matches!(v, AttributeValue::S(s) if s.is_empty()) || matches!(v, AttributeValue::B(b) if b.is_empty())
}
