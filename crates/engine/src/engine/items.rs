//! GetItem, PutItem, UpdateItem, DeleteItem, and the conditional single-item write core that
//! batches and transactions reuse.

use std::sync::Arc;

use monotable_expr::{Condition, ExpressionKind, Params, Projection, UpdateAction, UpdatePlan};
use monotable_types::{AttributeValue, Item};

use super::capacity::{self, Report, WriteCost};
use super::legacy;
use super::util::{project, validated_table};
use super::Inner;
use crate::api::*;
use crate::storage::WriteBatch;
use crate::table::{Change, Locks, Schema, Table};
use crate::validate::{self, Constraints};
use crate::Error;

/// Maps an expression error to DynamoDB's `ValidationException`.
pub(super) fn expr_err(e: monotable_expr::ExprError) -> Error {
    Error::validation(e.message())
}

/// DynamoDB's checks of the `ExpressionAttributeNames`/`Values` maps themselves: not
/// empty, placeholder syntax, valid values.
pub(super) fn check_placeholders(
    names: Option<&ExpressionAttributeNames>,
    values: Option<&ExpressionAttributeValues>,
) -> Result<(), Error> {
    let syntax = |key: &str, sigil: char| {
        key.strip_prefix(sigil).is_some_and(|rest| {
            !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
    };
    // Fast path: well-formed, non-empty maps of scalar values pass every check below; only
    // when one may fail are the keys sorted to find the first failure in DynamoDB's order.
    let scalar = |v: &monotable_types::AttributeValue| {
        use monotable_types::AttributeValue as V;
        matches!(v, V::S(_) | V::N(_) | V::B(_) | V::Bool(_) | V::Null)
    };
    if names.is_none_or(|m| {
        !m.is_empty() && m.iter().all(|(k, v)| syntax(k, '#') && v.len() <= validate::MAX_NAME_BYTES)
    }) && values.is_none_or(|m| !m.is_empty() && m.iter().all(|(k, v)| syntax(k, ':') && scalar(v)))
    {
        return Ok(());
    }
    if let Some(names) = names {
        if names.is_empty() {
            return Err(Error::validation("ExpressionAttributeNames must not be empty"));
        }
        let mut keys: Vec<&String> = names.keys().collect();
        keys.sort();
        if let Some(bad) = keys.iter().find(|k| !syntax(k, '#')) {
            return Err(Error::validation(format!(
                "ExpressionAttributeNames contains invalid key: Syntax error; key: \"{bad}\""
            )));
        }
        names.values().try_for_each(|n| validate::check_name(n))?;
    }
    if let Some(values) = values {
        if values.is_empty() {
            return Err(Error::validation("ExpressionAttributeValues must not be empty"));
        }
        let mut keys: Vec<&String> = values.keys().collect();
        keys.sort();
        if let Some(bad) = keys.iter().find(|k| !syntax(k, ':')) {
            return Err(Error::validation(format!(
                "ExpressionAttributeValues contains invalid key: Syntax error; key: \"{bad}\""
            )));
        }
        for k in keys {
            validate::check_nested_names(&values[k])?;
            validate::check_values(std::iter::once(&values[k])).map_err(|e| {
                if let Some(enveloped) = validate::enveloped_nesting(&e, values[k].depth()) {
                    return enveloped;
                }
                Error::validation(format!(
                    "ExpressionAttributeValues contains invalid value: {} for key {k}",
                    e.message
                ))
            })?;
        }
    }
    Ok(())
}

/// The storage key of a validated `Key` parameter.
pub(super) fn key_bytes(schema: &Schema, key: &Item) -> Result<Vec<u8>, Error> {
    validate::check_key(&schema.key, key)?;
    let mut out = Vec::with_capacity(64);
    schema.key.encode_from(key, &mut out);
    Ok(out)
}

/// What a conditional write does to its item.
pub(super) enum Mutation {
    /// A whole new item and its size.
    Put(SharedItem, usize),
    Update(UpdatePlan),
    Delete,
    Check,
}

/// A prepared single-item write: the item's key, what to do and under which condition.
pub(super) struct Write {
    pub table: Arc<Table>,
    pub key: Vec<u8>,
    pub key_item: Item,
    pub mutation: Mutation,
    pub condition: Option<Condition>,
    pub return_old_on_failure: bool,
}

/// Why a prepared write did not happen.
pub(super) enum Refusal {
    /// The condition was false; carries the old item when asked for.
    Condition(Option<Item>),
    /// The resulting item is invalid (size, index keys, update type errors).
    Invalid(Error),
    /// The request itself is refused, even inside a transaction, where an `Invalid` result
    /// only cancels (see `transact_checks.rs`).
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
                if let Some(e) = super::transact_checks::empty_updated_index_key(schema, &item) {
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
pub(super) fn run_write(inner: &Inner, write: &Write) -> Result<(Change, Arc<Schema>), Error> {
    let table = &write.table;
    let stripe = write.stripe();
    let _claim = inner.in_flight.begin_write(stripe, table.seq, &write.key).ok_or_else(|| {
        Error::new(crate::ErrorKind::TransactionConflict, super::transact::CONFLICT_MESSAGE)
    })?;
    let _gate = table.gate.read();
    let schema = table.schema();
    let _lock = inner.locks.lock(stripe);
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

/// Common enum constraints of the single-item writes.
fn write_constraints(
    c: &mut Constraints,
    return_values: Option<&str>,
    rcc: Option<&str>,
    ricm: Option<&str>,
    rvoccf: Option<&str>,
) {
    c.one_of(return_values, "returnValues", &["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"]);
    capacity::check(c, rcc);
    c.one_of(ricm, "returnItemCollectionMetrics", &["SIZE", "NONE"]);
    c.one_of(rvoccf, "returnValuesOnConditionCheckFailure", &["ALL_OLD", "NONE"]);
}

/// Resolves the condition of a write from `ConditionExpression` or legacy `Expected`.
fn write_condition(
    params: &mut Params<'_>,
    expression: Option<&str>,
    expected: Option<&std::collections::HashMap<String, ExpectedAttributeValue>>,
    operator: Option<&str>,
) -> Result<Option<Condition>, Error> {
    if let Some(text) = expression {
        return params.condition(text, ExpressionKind::Condition).map(Some).map_err(expr_err);
    }
    match expected {
        Some(e) => legacy::expected(e, operator),
        None if operator.is_some() => Err(Error::validation(
            "ConditionalOperator can only be used when Filter or Expected has two or more elements",
        )),
        None => Ok(None),
    }
}

/// The capacity report of a single-item write (computed only when asked for).
fn write_report(report: Report, schema: &Schema, change: &Change, table: &str) -> Option<ConsumedCapacity> {
    match report {
        Report::None => None,
        _ => WriteCost::of(schema, change).report(report, table),
    }
}

/// `ReturnItemCollectionMetrics=SIZE` for tables with local secondary indexes: the item's
/// partition key and a one-gigabyte range around the collection's size (its base items plus
/// their local index entries), measured after the write.
pub(super) fn collection_metrics(
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

pub(super) fn get_item(inner: &Inner, input: GetItemInput) -> Result<GetItemOutput, Error> {
    let mut c = Constraints::default();
    c.name(input.table_name.as_deref(), "tableName", true);
    c.not_null("key", input.key.is_some());
    capacity::check(&mut c, input.return_consumed_capacity.as_deref());
    // dynalite's test suite, written against DynamoDB (test/getItem.js).
    c.non_empty(input.attributes_to_get.as_ref().map(Vec::len), "attributesToGet");
    c.finish()?;
    legacy::check_mixing(
        &[("AttributesToGet", input.attributes_to_get.is_some())],
        &[("ProjectionExpression", input.projection_expression.is_some())],
        input.expression_attribute_names.is_some(),
        false,
    )?;
    check_placeholders(input.expression_attribute_names.as_ref(), None)?;
    let projection = read_projection(
        input.projection_expression.as_deref(),
        input.attributes_to_get.as_deref(),
        input.expression_attribute_names.as_ref(),
    )?;
    let table = validated_table(inner, input.table_name.as_deref())?;
    let schema = table.schema();
    let key = key_bytes(&schema, input.key.as_ref().unwrap_or(&Item::new()))?;
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    read_one(&table, &key, input.consistent_read == Some(true), report, projection.as_ref())
}

/// GetItem's answer once the request has passed every check: the item stored under `key`,
/// projected, and the capacity report.
pub(super) fn read_one(
    table: &Table,
    key: &[u8],
    consistent: bool,
    report: Report,
    projection: Option<&Projection>,
) -> Result<GetItemOutput, Error> {
    let found = table.base.get(key)?;
    // Item sizes only matter for the capacity report.
    let size =
        if report == Report::None { 0 } else { found.as_ref().map_or(0, monotable_types::PackedItem::size) };
    let item = found.map(|i| project(i, projection));
    Ok(GetItemOutput {
        item,
        consumed_capacity: capacity::for_read(
            report,
            &table.name,
            None,
            capacity::read_units(size, consistent),
        ),
    })
}

/// Resolves `ProjectionExpression` or `AttributesToGet`, checking unused names.
pub(super) fn read_projection(
    expression: Option<&str>,
    attributes_to_get: Option<&[String]>,
    names: Option<&ExpressionAttributeNames>,
) -> Result<Option<Projection>, Error> {
    if let Some(text) = expression {
        let mut params = Params::new(names, None);
        let p = params.projection(text).map_err(expr_err)?;
        params.finish().map_err(expr_err)?;
        return Ok(Some(p));
    }
    attributes_to_get.map(legacy::attributes_to_get).transpose()
}

fn return_values_failure(rv: Option<&str>, allowed: &[&str]) -> Result<(), Error> {
    match rv {
        Some(v) if !allowed.contains(&v) => Err(Error::validation("Return values set to invalid value")),
        _ => Ok(()),
    }
}

/// The members PutItem and DeleteItem share, borrowed from either request, and the steps the
/// two run alike: the first checks, the condition, and the run with its `ALL_OLD` output.
struct OldImageWrite<'a> {
    table_name: Option<&'a str>,
    return_values: Option<&'a str>,
    return_consumed_capacity: Option<&'a str>,
    return_item_collection_metrics: Option<&'a str>,
    return_values_on_condition_check_failure: Option<&'a str>,
    expected: Option<&'a std::collections::HashMap<String, ExpectedAttributeValue>>,
    conditional_operator: Option<&'a str>,
    condition_expression: Option<&'a str>,
    names: Option<&'a ExpressionAttributeNames>,
    values: Option<&'a ExpressionAttributeValues>,
}

/// An [`OldImageWrite`] view of a `PutItemInput` or a `DeleteItemInput` (same member names).
macro_rules! old_image_write {
    ($input:expr) => {
        OldImageWrite {
            table_name: $input.table_name.as_deref(),
            return_values: $input.return_values.as_deref(),
            return_consumed_capacity: $input.return_consumed_capacity.as_deref(),
            return_item_collection_metrics: $input.return_item_collection_metrics.as_deref(),
            return_values_on_condition_check_failure: $input
                .return_values_on_condition_check_failure
                .as_deref(),
            expected: $input.expected.as_ref(),
            conditional_operator: $input.conditional_operator.as_deref(),
            condition_expression: $input.condition_expression.as_deref(),
            names: $input.expression_attribute_names.as_ref(),
            values: $input.expression_attribute_values.as_ref(),
        }
    };
}

impl OldImageWrite<'_> {
    /// DynamoDB's first checks, in its order: member constraints (with the request's required
    /// member `required`), the allowed `ReturnValues`, then legacy/expression mixing.
    fn check(&self, required: &'static str, present: bool) -> Result<(), Error> {
        let mut c = Constraints::default();
        c.name(self.table_name, "tableName", true);
        c.not_null(required, present);
        write_constraints(
            &mut c,
            self.return_values,
            self.return_consumed_capacity,
            self.return_item_collection_metrics,
            self.return_values_on_condition_check_failure,
        );
        c.finish()?;
        return_values_failure(self.return_values, &["NONE", "ALL_OLD"])?;
        legacy::check_mixing(
            &[("Expected", self.expected.is_some())],
            &[("ConditionExpression", self.condition_expression.is_some())],
            self.names.is_some(),
            self.values.is_some(),
        )
    }

    /// The write's condition, its only expression: placeholder-map checks, the condition (or
    /// its legacy `Expected` form), then the unused-placeholder check, in DynamoDB's order.
    fn condition(&self) -> Result<Option<Condition>, Error> {
        check_placeholders(self.names, self.values)?;
        let mut params = Params::new(self.names, self.values);
        let condition = write_condition(
            &mut params,
            self.condition_expression,
            self.expected,
            self.conditional_operator,
        )?;
        params.finish().map_err(expr_err)?;
        Ok(condition)
    }

    fn return_old_on_failure(&self) -> bool {
        self.return_values_on_condition_check_failure == Some("ALL_OLD")
    }

    /// Runs `write` and builds the response members PutItem and DeleteItem share: collection
    /// metrics, `ALL_OLD` attributes and consumed capacity.
    fn run(&self, inner: &Inner, write: &Write) -> Result<OldImageOutput, Error> {
        let (change, schema) = run_write(inner, write)?;
        let report = Report::parse(self.return_consumed_capacity);
        Ok(OldImageOutput {
            item_collection_metrics: collection_metrics(
                &write.table,
                &schema,
                &change,
                self.return_item_collection_metrics,
            )?,
            attributes: match self.return_values {
                Some("ALL_OLD") => change.old.clone(),
                _ => None,
            },
            consumed_capacity: write_report(report, &schema, &change, &write.table.name),
        })
    }
}

/// The response members of a write that can return only the old item (PutItem, DeleteItem).
struct OldImageOutput {
    item_collection_metrics: Option<ItemCollectionMetrics>,
    attributes: Option<SharedItem>,
    consumed_capacity: Option<ConsumedCapacity>,
}

impl From<OldImageOutput> for PutItemOutput {
    fn from(o: OldImageOutput) -> PutItemOutput {
        PutItemOutput {
            item_collection_metrics: o.item_collection_metrics,
            attributes: o.attributes,
            consumed_capacity: o.consumed_capacity,
        }
    }
}

impl From<OldImageOutput> for DeleteItemOutput {
    fn from(o: OldImageOutput) -> DeleteItemOutput {
        DeleteItemOutput {
            item_collection_metrics: o.item_collection_metrics,
            attributes: o.attributes,
            consumed_capacity: o.consumed_capacity,
        }
    }
}

pub(super) fn put_item(inner: &Inner, mut input: PutItemInput) -> Result<PutItemOutput, Error> {
    let item = input.item.take();
    let w = old_image_write!(input);
    w.check("item", item.is_some())?;
    let item = item.unwrap_or_default();
    validate::check_item_names(item.keys())?;
    validate::check_values(item.values()).map_err(|e| {
        let depth = item.values().map(AttributeValue::depth).max().unwrap_or(0);
        validate::enveloped_nesting(&e, depth).unwrap_or(e)
    })?;
    let condition = w.condition()?;
    let table = validated_table(inner, w.table_name)?;
    let schema = table.schema();
    validate::check_item_key(&schema.key, &item)?;
    let size = validate::check_item_size(&item)?;
    validate::check_index_keys(&schema, &item)?;
    let mut key = Vec::with_capacity(64);
    schema.key.encode_from(&item, &mut key);
    let write = Write {
        // Only updates build on the key item.
        key_item: Item::new(),
        table: Arc::clone(&table),
        key,
        mutation: Mutation::Put(SharedItem::from(item), size),
        condition,
        return_old_on_failure: w.return_old_on_failure(),
    };
    w.run(inner, &write).map(PutItemOutput::from)
}

pub(super) fn delete_item(inner: &Inner, mut input: DeleteItemInput) -> Result<DeleteItemOutput, Error> {
    let key_item = input.key.take();
    let w = old_image_write!(input);
    w.check("key", key_item.is_some())?;
    let condition = w.condition()?;
    let table = validated_table(inner, w.table_name)?;
    let schema = table.schema();
    let key_item = key_item.unwrap_or_default();
    let key = key_bytes(&schema, &key_item)?;
    let write = Write {
        table: Arc::clone(&table),
        key,
        key_item,
        mutation: Mutation::Delete,
        condition,
        return_old_on_failure: w.return_old_on_failure(),
    };
    w.run(inner, &write).map(DeleteItemOutput::from)
}

pub(super) fn update_item(inner: &Inner, mut input: UpdateItemInput) -> Result<UpdateItemOutput, Error> {
    let mut c = Constraints::default();
    c.name(input.table_name.as_deref(), "tableName", true);
    c.not_null("key", input.key.is_some());
    write_constraints(
        &mut c,
        input.return_values.as_deref(),
        input.return_consumed_capacity.as_deref(),
        input.return_item_collection_metrics.as_deref(),
        input.return_values_on_condition_check_failure.as_deref(),
    );
    c.finish()?;
    legacy::check_mixing(
        &[("AttributeUpdates", input.attribute_updates.is_some()), ("Expected", input.expected.is_some())],
        &[
            ("UpdateExpression", input.update_expression.is_some()),
            ("ConditionExpression", input.condition_expression.is_some()),
        ],
        input.expression_attribute_names.is_some(),
        input.expression_attribute_values.is_some(),
    )?;
    check_placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
    )?;
    if let Some(u) = &input.attribute_updates {
        validate::check_values(u.values().filter_map(|u| u.value.as_ref()))?;
    }
    let table = validated_table(inner, input.table_name.as_deref())?;
    let schema = table.schema();
    let key_names: Vec<&str> = schema.key.attrs().map(|a| a.name.as_str()).collect();
    let mut params =
        Params::new(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref());
    let plan = match (&input.update_expression, &input.attribute_updates) {
        (Some(text), _) => params.update(text, &key_names).map_err(expr_err)?,
        (None, Some(u)) => legacy::attribute_updates(u, &schema.key)?,
        (None, None) => UpdatePlan::default(),
    };
    // UpdateItem reports a ConditionExpression's undefined value in the "1 validation error
    // detected: " envelope (paritysuite/dynamodb-conformance, tests/tier3/error-messages/
    // updateItem.test.ts, eu-west-2 and us-east-1, 2026-10-09).
    let condition = match input.condition_expression.as_deref() {
        Some(text) => Some(params.condition(text, ExpressionKind::Condition).map_err(|e| {
            if e.kind() == monotable_expr::ErrorKind::UndefinedValue {
                Error::validation(format!("1 validation error detected: {}", e.message()))
            } else {
                expr_err(e)
            }
        })?),
        None => write_condition(
            &mut params,
            None,
            input.expected.as_ref(),
            input.conditional_operator.as_deref(),
        )?,
    };
    params.finish().map_err(expr_err)?;
    let key_item = input.key.take().unwrap_or_default();
    let key = key_bytes(&schema, &key_item)?;
    let write = Write {
        table: Arc::clone(&table),
        key,
        key_item,
        mutation: Mutation::Update(plan),
        condition,
        return_old_on_failure: input.return_values_on_condition_check_failure.as_deref() == Some("ALL_OLD"),
    };
    let (change, schema) = run_write(inner, &write)?;
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    let attributes = update_return_values(input.return_values.as_deref(), &change);
    Ok(UpdateItemOutput {
        item_collection_metrics: collection_metrics(
            &table,
            &schema,
            &change,
            input.return_item_collection_metrics.as_deref(),
        )?,
        attributes,
        consumed_capacity: write_report(report, &schema, &change, &table.name),
    })
}

/// The `Attributes` of an UpdateItem response for each `ReturnValues` mode. `UPDATED_*`
/// project the paths the update targeted, as they are in the old or new item.
fn update_return_values(rv: Option<&str>, change: &Change) -> Option<SharedItem> {
    let changed = |item: &Option<SharedItem>| -> Option<SharedItem> {
        let out = Projection { paths: change.updated_paths.clone() }.apply(item.as_deref()?);
        (!out.is_empty()).then(|| SharedItem::from(out))
    };
    match rv {
        Some("ALL_OLD") => change.old.clone(),
        Some("ALL_NEW") => change.new.clone(),
        Some("UPDATED_OLD") => changed(&change.old),
        Some("UPDATED_NEW") => changed(&change.new),
        _ => None,
    }
}
