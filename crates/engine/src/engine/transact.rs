//! TransactWriteItems and TransactGetItems.
//!
//! A write transaction locks the stripes of all its items (ascending order), evaluates every
//! condition against the current items, and either commits every change in one atomic
//! storage batch or cancels with one reason per action in request order. Client request
//! tokens are remembered for 10 minutes for idempotency.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use monotable_expr::{ExpressionKind, Params};
use monotable_types::Item;

use super::capacity::{self, Report, WriteCost};
use super::items::{
    check_placeholders, collection_metrics, expr_err, key_bytes, read_projection, Mutation, Refusal, Write,
};
use super::util::{project, table_for_item_op};
use super::Inner;
use crate::api::*;
use crate::storage::WriteBatch;
use crate::table::{Change, Table};
use crate::validate::{self, Constraints};
use crate::{Error, ErrorKind};

const MAX_ACTIONS: usize = 100;
const TOKEN_TTL: Duration = Duration::from_secs(600);

/// Remembered client request tokens. A token is `Pending` while its transaction runs (a
/// concurrent request with the same token gets `TransactionInProgressException`) and `Done`
/// with the response for 10 minutes afterwards.
#[derive(Default)]
pub(crate) struct Tokens {
    seen: HashMap<String, TokenState>,
}

enum TokenState {
    Pending(String),
    Done(Instant, String, TransactWriteItemsOutput),
}

impl Tokens {
    /// The remembered response for a repeated request, or claims the token for this one.
    fn claim(&mut self, token: &str, fingerprint: &str) -> Result<Option<TransactWriteItemsOutput>, Error> {
        let now = Instant::now();
        self.seen.retain(|_, s| match s {
            TokenState::Pending(_) => true,
            TokenState::Done(t, _, _) => now.duration_since(*t) < TOKEN_TTL,
        });
        let mismatch = || {
            Error::new(
                ErrorKind::IdempotentParameterMismatch,
                "Request with the same client token was already used with different parameters",
            )
        };
        match self.seen.get(token) {
            Some(TokenState::Done(_, f, out)) if f == fingerprint => Ok(Some(out.clone())),
            Some(TokenState::Pending(f)) if f == fingerprint => Err(Error::new(
                ErrorKind::TransactionInProgress,
                "Transaction with the given request token is already in progress.",
            )),
            Some(_) => Err(mismatch()),
            None => {
                self.seen.insert(token.to_owned(), TokenState::Pending(fingerprint.to_owned()));
                Ok(None)
            }
        }
    }

    /// Records the outcome of a claimed token: the response on success; on failure the token
    /// is released so that a retry runs again.
    fn finish(&mut self, token: String, fingerprint: String, out: Option<&TransactWriteItemsOutput>) {
        match out {
            Some(out) => {
                self.seen.insert(token, TokenState::Done(Instant::now(), fingerprint, out.clone()));
            }
            None => {
                self.seen.remove(&token);
            }
        }
    }
}

struct Action {
    write: Write,
    table_name: String,
}

fn prepare(inner: &Inner, item: &TransactWriteItem) -> Result<Action, Error> {
    let count =
        [item.condition_check.is_some(), item.put.is_some(), item.delete.is_some(), item.update.is_some()]
            .iter()
            .filter(|x| **x)
            .count();
    if count != 1 {
        return Err(Error::validation("TransactItems can only contain one of Check, Put, Update or Delete"));
    }
    let (table_name, names, values, cond_text, rvoccf) = if let Some(c) = &item.condition_check {
        if c.condition_expression.is_none() {
            return Err(Error::validation(
                "1 validation error detected: Value null at 'transactItems.1.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null",
            ));
        }
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
    if item.update.is_some() && update_text.is_none() {
        return Err(Error::validation(
            "1 validation error detected: Value null at 'transactItems.1.member.update.updateExpression' failed to satisfy constraint: Member must not be null",
        ));
    }
    let mut exprs = vec![("ConditionExpression", cond_text.is_some())];
    if item.update.is_some() {
        exprs.insert(0, ("UpdateExpression", update_text.is_some()));
    }
    super::legacy::check_mixing(&[], &exprs, names.is_some(), values.is_some())?;
    check_placeholders(names.as_ref(), values.as_ref())?;
    let table = table_for_item_op(inner, table_name.as_deref())?;
    let schema = table.schema();
    let key_names: Vec<&str> = schema.key.attrs().map(|a| a.name.as_str()).collect();
    let mut params = Params::new(names.as_ref(), values.as_ref());
    let mutation = if let Some(p) = &item.put {
        let it = p.item.clone().unwrap_or_default();
        validate::check_values(it.values())?;
        validate::check_item_key(&schema.key, &it)?;
        let size = validate::check_item_size(&it)?;
        validate::check_index_keys(&schema, &it)?;
        Mutation::Put(Arc::new(it), size)
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
            key_bytes(&schema, &k)?;
            k
        }
    };
    let mut key = Vec::with_capacity(64);
    schema.key.encode_from(&key_item, &mut key);
    Ok(Action {
        table_name: table.name.clone(),
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

fn fingerprint(input: &TransactWriteItemsInput) -> String {
    let mut copy = input.clone();
    copy.return_consumed_capacity = None;
    serde_json::to_string(&copy).unwrap_or_default()
}

pub(super) fn transact_write_items(
    inner: &Inner,
    input: TransactWriteItemsInput,
) -> Result<TransactWriteItemsOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("transactItems", input.transact_items.is_some());
    if let Some(items) = &input.transact_items {
        if items.len() > MAX_ACTIONS {
            c.fail(
                "[...]",
                "transactItems",
                &format!("Member must have length less than or equal to {MAX_ACTIONS}"),
            );
        }
        if items.is_empty() {
            c.fail("[]", "transactItems", "Member must have length greater than or equal to 1");
        }
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
    let fp = input.client_request_token.as_ref().map(|_| fingerprint(&input));
    if let (Some(token), Some(fp)) = (&input.client_request_token, &fp) {
        if let Some(out) = inner.tokens.lock().claim(token, fp)? {
            return Ok(out);
        }
    }
    let result = run(inner, &input);
    if let (Some(token), Some(fp)) = (input.client_request_token, fp) {
        inner.tokens.lock().finish(token, fp, result.as_ref().ok());
    }
    result
}

fn run(inner: &Inner, input: &TransactWriteItemsInput) -> Result<TransactWriteItemsOutput, Error> {
    let mut actions = Vec::new();
    for item in input.transact_items.iter().flatten() {
        let action = prepare(inner, item)?;
        if actions.iter().any(|a: &Action| {
            Arc::ptr_eq(&a.write.table, &action.write.table) && a.write.key == action.write.key
        }) {
            return Err(Error::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        actions.push(action);
    }
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    execute(inner, &actions, report, input.return_item_collection_metrics.as_deref())
}

fn execute(
    inner: &Inner,
    actions: &[Action],
    report: Report,
    ricm: Option<&str>,
) -> Result<TransactWriteItemsOutput, Error> {
    // Gates (shared) in table order, then item stripes in ascending order.
    let mut tables: Vec<&Arc<Table>> = actions.iter().map(|a| &a.write.table).collect();
    tables.sort_by_key(|t| t.seq);
    tables.dedup_by_key(|t| t.seq);
    let _gates: Vec<_> = tables.iter().map(|t| t.gate.read()).collect();
    let _locks = inner.locks.lock_many(actions.iter().map(|a| a.write.stripe()).collect());
    let mut changes: Vec<(Change, Arc<crate::table::Schema>)> = Vec::with_capacity(actions.len());
    let mut reasons = Vec::with_capacity(actions.len());
    let mut failed = false;
    for a in actions {
        let schema = a.write.table.schema();
        let old = a.write.table.base.get(&a.write.key)?;
        match Write::evaluate(&a.write, &schema, old) {
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
        let codes: Vec<&str> = reasons.iter().filter_map(|r| r.code.as_deref()).collect();
        let mut e = Error::new(
            ErrorKind::TransactionCanceled,
            format!(
                "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
                codes.join(", ")
            ),
        );
        e.cancellation_reasons = Some(reasons);
        return Err(e);
    }
    let mut batch = WriteBatch::default();
    let mut deltas = Vec::with_capacity(changes.len());
    for ((change, schema), a) in changes.iter().zip(actions) {
        if !matches!(a.write.mutation, Mutation::Check) {
            deltas.push((Arc::clone(&a.write.table), a.write.table.stage(schema, change, &mut batch)));
        }
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

pub(super) fn transact_get_items(
    inner: &Inner,
    input: TransactGetItemsInput,
) -> Result<TransactGetItemsOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("transactItems", input.transact_items.is_some());
    if let Some(items) = &input.transact_items {
        if items.len() > MAX_ACTIONS {
            c.fail(
                "[...]",
                "transactItems",
                &format!("Member must have length less than or equal to {MAX_ACTIONS}"),
            );
        }
        if items.is_empty() {
            c.fail("[]", "transactItems", "Member must have length greater than or equal to 1");
        }
    }
    capacity::check(&mut c, input.return_consumed_capacity.as_deref());
    c.finish()?;
    let mut reads = Vec::new();
    for item in input.transact_items.iter().flatten() {
        let get = item.get.as_ref().ok_or_else(|| {
            Error::validation("1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null")
        })?;
        super::legacy::check_mixing(
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
        let key = key_bytes(&schema, get.key.as_ref().unwrap_or(&Item::new()))?;
        if reads.iter().any(|(t, k, _): &(Arc<Table>, Vec<u8>, _)| Arc::ptr_eq(t, &table) && *k == key) {
            return Err(Error::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        reads.push((table, key, projection));
    }
    let _locks =
        inner.locks.lock_many(reads.iter().map(|(t, k, _)| crate::table::Locks::stripe(t.seq, k)).collect());
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    let mut responses = Vec::with_capacity(reads.len());
    let mut units: Vec<(String, f64)> = Vec::new();
    for (table, key, projection) in &reads {
        let found = table.base.get(key)?;
        let u = 2.0 * capacity::read_units(found.as_deref().map_or(0, monotable_types::item_size), true);
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
