//! TransactWriteItems.
//!
//! A write transaction claims its items (`core/in_flight.rs`: an item another transaction holds
//! cancels it with a `TransactionConflict` reason), locks their stripes (ascending order),
//! evaluates every condition against the current items, and either commits every change in
//! one atomic storage batch or cancels with one reason per action in request order. Client
//! request tokens (`core/tokens.rs`) are remembered for 10 minutes for idempotency.
//!
//! PartiQL's ExecuteTransaction runs through `Engine::transact_write_items` itself, so every
//! conflict rule lives inside [`execute`] for both.

use std::collections::HashMap;
use std::sync::Arc;

use monotable_expr::{ExpressionKind, Params};

use super::checks;
use crate::api::*;
use crate::engine::core::capacity::{self, Report, WriteCost};
use crate::engine::core::in_flight::ItemRef;
use crate::engine::core::params::expr_err;
use crate::engine::core::tokens::Claim;
use crate::engine::core::util::table_for_item_op;
use crate::engine::core::write::{collection_metrics, Mutation, Refusal, Write, CONFLICT_MESSAGE};
use crate::engine::core::Inner;
use crate::storage::WriteBatch;
use crate::table::{Change, Table};
use crate::validate::{self, Constraints};
use crate::{Error, ErrorKind};

const MAX_ACTIONS: usize = 100;

/// The `TransactItems` constraints both transaction operations share: present, 1 to 100.
pub(in crate::engine) fn check_length(c: &mut Constraints, len: Option<usize>) {
    c.not_null("transactItems", len.is_some());
    if let Some(len) = len {
        if len > MAX_ACTIONS {
            c.fail(
                "[...]",
                "transactItems",
                &format!("Member must have length less than or equal to {MAX_ACTIONS}"),
            );
        }
        if len == 0 {
            c.fail("[]", "transactItems", "Member must have length greater than or equal to 1");
        }
    }
}

/// DynamoDB's `TransactionCanceledException`: the message lists every reason's code in request
/// order ("Transaction cancelled, please refer cancellation reasons for specific reasons
/// [None, TransactionConflict]"), and the reasons travel as `CancellationReasons`.
pub(in crate::engine) fn cancelled(reasons: Vec<CancellationReason>) -> Error {
    let codes: Vec<&str> = reasons.iter().filter_map(|r| r.code.as_deref()).collect();
    let mut e = Error::new(
        ErrorKind::TransactionCanceled,
        format!(
            "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
            codes.join(", ")
        ),
    );
    e.cancellation_reasons = Some(reasons);
    e
}

/// One reason per item: `TransactionConflict` at the `busy` positions, `None` elsewhere.
pub(in crate::engine) fn conflict_reasons(len: usize, busy: &[usize]) -> Vec<CancellationReason> {
    (0..len)
        .map(|n| {
            if busy.contains(&n) {
                CancellationReason {
                    item: None,
                    code: Some("TransactionConflict".into()),
                    message: Some(CONFLICT_MESSAGE.into()),
                }
            } else {
                CancellationReason { code: Some("None".into()), ..Default::default() }
            }
        })
        .collect()
}

pub(in crate::engine) struct Action {
    write: Write,
    table_name: String,
    /// A problem that cancels the transaction with a `ValidationError` reason for this action
    /// (its key is then empty and never read).
    invalid: Option<String>,
}

/// Prepares one action whose table-independent checks ([`checks::precheck`]) passed:
/// looks its table up, checks its key and item against the schema and resolves its
/// expressions. A problem DynamoDB reports as a cancellation reason is kept in
/// [`Action::invalid`] rather than returned.
fn prepare(inner: &Inner, item: &TransactWriteItem) -> Result<Action, Error> {
    let (table_name, names, values, cond_text, rvoccf) = if let Some(c) = &item.condition_check {
        (
            &c.table_name,
            &c.expression_attribute_names,
            &c.expression_attribute_values,
            &c.condition_expression,
            &c.return_values_on_condition_check_failure,
        )
    } else if let Some(p) = &item.put {
        (
            &p.table_name,
            &p.expression_attribute_names,
            &p.expression_attribute_values,
            &p.condition_expression,
            &p.return_values_on_condition_check_failure,
        )
    } else if let Some(d) = &item.delete {
        (
            &d.table_name,
            &d.expression_attribute_names,
            &d.expression_attribute_values,
            &d.condition_expression,
            &d.return_values_on_condition_check_failure,
        )
    } else if let Some(u) = &item.update {
        (
            &u.table_name,
            &u.expression_attribute_names,
            &u.expression_attribute_values,
            &u.condition_expression,
            &u.return_values_on_condition_check_failure,
        )
    } else {
        return Err(Error::validation("TransactItems can only contain one of Check, Put, Update or Delete"));
    };
    let update_text = item.update.as_ref().and_then(|u| u.update_expression.as_deref());
    let table = table_for_item_op(inner, table_name.as_deref())?;
    let schema = table.schema();
    let key_names: Vec<&str> = schema.key.attrs().map(|a| a.name.as_str()).collect();
    let mut params = Params::new(names.as_ref(), values.as_ref());
    let mut invalid = None;
    let mutation = if let Some(p) = &item.put {
        let it = p.item.clone().unwrap_or_default();
        invalid = checks::put_key_problem(&schema, &it)?;
        let size = validate::check_item_size(&it)?;
        if invalid.is_none() {
            invalid = checks::index_key_problem(&schema, &it)?;
        }
        Mutation::Put(SharedItem::from(it), size)
    } else if item.delete.is_some() {
        Mutation::Delete
    } else if let Some(text) = update_text {
        Mutation::Update(params.update(text, &key_names).map_err(expr_err)?)
    } else {
        Mutation::Check
    };
    let condition = cond_text
        .as_deref()
        .map(|t| params.condition(t, ExpressionKind::Condition))
        .transpose()
        .map_err(expr_err)?;
    params.finish().map_err(expr_err)?;
    let key_item = match &mutation {
        Mutation::Put(it, _) => schema.key.extract(it),
        _ => {
            let k = item
                .condition_check
                .as_ref()
                .and_then(|c| c.key.clone())
                .or_else(|| item.delete.as_ref().and_then(|d| d.key.clone()))
                .or_else(|| item.update.as_ref().and_then(|u| u.key.clone()))
                .unwrap_or_default();
            invalid = checks::key_problem(&schema, &k)?;
            k
        }
    };
    let mut key = Vec::with_capacity(64);
    if invalid.is_none() {
        schema.key.encode_from(&key_item, &mut key);
    }
    Ok(Action {
        table_name: table.name.clone(),
        invalid,
        write: Write {
            table,
            key,
            key_item,
            mutation,
            condition,
            return_old_on_failure: rvoccf.as_deref() == Some("ALL_OLD"),
        },
    })
}

/// The request's parameters as a digest: canonical JSON (object members sorted, so the
/// hash maps of placeholders print the same in every process) without
/// `ReturnConsumedCapacity`, which a replay may change.
fn fingerprint(input: &TransactWriteItemsInput) -> String {
    fn canonical(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::Object(map) => {
                let mut members: Vec<(&String, &serde_json::Value)> = map.iter().collect();
                members.sort_by(|a, b| a.0.cmp(b.0));
                out.push('{');
                for (n, (k, v)) in members.into_iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::Value::String(k.clone()).to_string());
                    out.push(':');
                    canonical(v, out);
                }
                out.push('}');
            }
            serde_json::Value::Array(items) => {
                out.push('[');
                for (n, v) in items.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    canonical(v, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut copy = input.clone();
    copy.return_consumed_capacity = None;
    let mut text = String::new();
    canonical(&serde_json::to_value(&copy).unwrap_or_default(), &mut text);
    format!("{:x}", md5::compute(text.as_bytes()))
}

pub(in crate::engine) fn transact_write_items(
    inner: &Inner,
    input: TransactWriteItemsInput,
) -> Result<TransactWriteItemsOutput, Error> {
    let mut c = Constraints::default();
    check_length(&mut c, input.transact_items.as_ref().map(Vec::len));
    if let Some(items) = &input.transact_items {
        // Each action's ReturnValuesOnConditionCheckFailure is an enum member of the request,
        // checked with the other constraints (API_TransactWriteItems: Valid Values ALL_OLD | NONE).
        for (n, item) in items.iter().enumerate() {
            let actions = [
                (
                    "conditionCheck",
                    item.condition_check
                        .as_ref()
                        .and_then(|x| x.return_values_on_condition_check_failure.as_deref()),
                ),
                (
                    "put",
                    item.put.as_ref().and_then(|x| x.return_values_on_condition_check_failure.as_deref()),
                ),
                (
                    "delete",
                    item.delete.as_ref().and_then(|x| x.return_values_on_condition_check_failure.as_deref()),
                ),
                (
                    "update",
                    item.update.as_ref().and_then(|x| x.return_values_on_condition_check_failure.as_deref()),
                ),
            ];
            for (member, value) in actions {
                let path =
                    format!("transactItems.{}.member.{member}.returnValuesOnConditionCheckFailure", n + 1);
                c.one_of(value, &path, &["ALL_OLD", "NONE"]);
            }
        }
    }
    if let Some(t) = &input.client_request_token {
        if t.is_empty() || t.len() > 36 {
            c.fail(t, "clientRequestToken", "Member must have length less than or equal to 36");
        }
    }
    capacity::check(&mut c, input.return_consumed_capacity.as_deref());
    c.one_of(
        input.return_item_collection_metrics.as_deref(),
        "returnItemCollectionMetrics",
        &["SIZE", "NONE"],
    );
    c.finish()?;
    let Some(token) = input.client_request_token.clone() else {
        return run(inner, &input, None);
    };
    let fp = fingerprint(&input);
    let now = crate::stream::now_millis();
    if inner.tokens.lock().claim(&token, &fp, now)? == Claim::Replay {
        return replay(inner, &input);
    }
    let result = run(inner, &input, Some((&token, &fp)));
    inner.tokens.lock().finish(&token, &fp, result.is_ok(), crate::stream::now_millis());
    result
}

/// The answer to a repeat of a committed call: nothing changes, and the consumed capacity is
/// the read capacity of reading the items (API_TransactWriteItems, `ClientRequestToken`).
///
/// A replay acknowledges the original's writes, which may still be waiting for their group
/// commit (the token is marked completed when the original's batch is written, before it is
/// flushed): the storage barrier makes the replay's answer wait for that flush too.
fn replay(inner: &Inner, input: &TransactWriteItemsInput) -> Result<TransactWriteItemsOutput, Error> {
    inner.storage.barrier()?;
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    if report == Report::None {
        return Ok(TransactWriteItemsOutput::default());
    }
    let mut units: Vec<(String, f64)> = Vec::new();
    for item in input.transact_items.iter().flatten() {
        let action = prepare(inner, item)?;
        let found = action.write.table.base.get(&action.write.key)?;
        let u = capacity::read_units(found.as_ref().map_or(0, monotable_types::PackedItem::size), true);
        match units.iter_mut().find(|(n, _)| *n == action.table_name) {
            Some((_, x)) => *x += u,
            None => units.push((action.table_name, u)),
        }
    }
    Ok(TransactWriteItemsOutput {
        consumed_capacity: Some(
            units.iter().filter_map(|(n, u)| capacity::for_read(report, n, None, *u)).collect(),
        ),
        item_collection_metrics: None,
    })
}

fn run(
    inner: &Inner,
    input: &TransactWriteItemsInput,
    token: Option<(&str, &str)>,
) -> Result<TransactWriteItemsOutput, Error> {
    for item in input.transact_items.iter().flatten() {
        checks::precheck(item)?;
    }
    let mut actions = Vec::new();
    let mut total = 0;
    for item in input.transact_items.iter().flatten() {
        let action = prepare(inner, item)?;
        total += match &action.write.mutation {
            Mutation::Put(_, size) => *size,
            _ => monotable_types::item_size(&action.write.key_item),
        };
        if action.invalid.is_none()
            && actions.iter().any(|a: &Action| {
                a.invalid.is_none()
                    && Arc::ptr_eq(&a.write.table, &action.write.table)
                    && a.write.key == action.write.key
            })
        {
            return Err(Error::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        actions.push(action);
    }
    if total > checks::MAX_TOTAL_BYTES {
        return Err(checks::too_large());
    }
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    let ricm = input.return_item_collection_metrics.as_deref();
    match token {
        None => execute(inner, &actions, report, ricm),
        Some(_) => execute_with(inner, &actions, report, ricm, token),
    }
}

/// Runs prepared actions as one transaction (see the module docs).
pub(in crate::engine) fn execute(
    inner: &Inner,
    actions: &[Action],
    report: Report,
    ricm: Option<&str>,
) -> Result<TransactWriteItemsOutput, Error> {
    execute_with(inner, actions, report, ricm, None)
}

/// [`execute`], also storing a completed client request token `(token, fingerprint)` in the
/// transaction's own commit.
fn execute_with(
    inner: &Inner,
    actions: &[Action],
    report: Report,
    ricm: Option<&str>,
    token: Option<(&str, &str)>,
) -> Result<TransactWriteItemsOutput, Error> {
    let items: Vec<ItemRef<'_>> = actions
        .iter()
        .map(|a| ItemRef { stripe: a.write.stripe(), table: a.write.table.seq, key: &a.write.key })
        .collect();
    // An item of another in-flight transaction cancels this one before anything is read.
    let _claim = inner
        .in_flight
        .begin_transaction(&items)
        .map_err(|busy| cancelled(conflict_reasons(actions.len(), &busy)))?;
    // Gates (shared) in table order, then item stripes in ascending order.
    let mut tables: Vec<&Arc<Table>> = actions.iter().map(|a| &a.write.table).collect();
    tables.sort_by_key(|t| t.seq);
    tables.dedup_by_key(|t| t.seq);
    let _gates: Vec<_> = tables.iter().map(|t| t.gate.read()).collect();
    let _locks = inner.locks.lock_many(items.iter().map(|i| i.stripe).collect());
    let mut changes: Vec<(Change, Arc<crate::table::Schema>)> = Vec::with_capacity(actions.len());
    let mut reasons = Vec::with_capacity(actions.len());
    let mut failed = false;
    for a in actions {
        if let Some(message) = &a.invalid {
            failed = true;
            reasons.push(CancellationReason {
                item: None,
                code: Some("ValidationError".into()),
                message: Some(message.clone()),
            });
            continue;
        }
        let schema = a.write.table.schema();
        let old = a.write.table.base.get(&a.write.key)?;
        match Write::evaluate(&a.write, &schema, old.map(SharedItem::from_packed)) {
            Ok(change) => {
                reasons.push(CancellationReason { code: Some("None".into()), ..Default::default() });
                changes.push((change, schema));
            }
            Err(Refusal::Condition(item)) => {
                failed = true;
                reasons.push(CancellationReason {
                    item,
                    code: Some("ConditionalCheckFailed".into()),
                    message: Some("The conditional request failed".into()),
                });
            }
            // An action whose result is invalid (an update type error, an item grown past
            // 400 KB) cancels the transaction with a ValidationError reason.
            Err(Refusal::Request(e)) => return Err(e),
            Err(Refusal::Invalid(e)) => {
                failed = true;
                reasons.push(CancellationReason {
                    item: None,
                    code: Some("ValidationError".into()),
                    message: Some(e.message),
                });
            }
        }
    }
    if failed {
        return Err(cancelled(reasons));
    }
    let mut batch = WriteBatch::default();
    let mut deltas = Vec::with_capacity(changes.len());
    for ((change, schema), a) in changes.iter().zip(actions) {
        if !matches!(a.write.mutation, Mutation::Check) {
            deltas.push((Arc::clone(&a.write.table), a.write.table.stage(schema, change, &mut batch)));
        }
    }
    if let Some((token, fp)) = token {
        inner.tokens.lock().stage(
            inner.storage.as_ref(),
            token,
            fp,
            crate::stream::now_millis(),
            &mut batch,
        )?;
    }
    inner.storage.commit(batch)?;
    for (table, d) in deltas {
        table.account(d);
    }
    let mut metrics: HashMap<String, Vec<ItemCollectionMetrics>> = HashMap::new();
    let mut costs: Vec<(String, WriteCost)> = Vec::new();
    for ((change, schema), a) in changes.iter().zip(actions) {
        if !matches!(a.write.mutation, Mutation::Check) {
            if let Some(m) = collection_metrics(&a.write.table, schema, change, ricm)? {
                metrics.entry(a.table_name.clone()).or_default().push(m);
            }
        }
        let cost = WriteCost::of(schema, change).scale(2.0);
        match costs.iter_mut().find(|(n, _)| *n == a.table_name) {
            Some((_, c)) => c.add(cost),
            None => costs.push((a.table_name.clone(), cost)),
        }
    }
    Ok(TransactWriteItemsOutput {
        consumed_capacity: (report != Report::None)
            .then(|| costs.iter().filter_map(|(n, c)| c.report(report, n)).collect()),
        item_collection_metrics: (!metrics.is_empty()).then_some(metrics),
    })
}
