//! Sending a planned [`Request`] with the SDK, and mapping failures to [`Error`].
//!
//! Invariant: every request asks for consumed capacity and records it on the current
//! `tracing` span (field `consumed_capacity`).

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    ConditionCheck, ConsumedCapacity, Delete, DeleteRequest, KeysAndAttributes, Put, PutRequest,
    ReturnConsumedCapacity, ReturnValue, Select, TransactWriteItem, Update, WriteRequest,
};
use aws_sdk_dynamodb::Client;

use crate::entity::Item;
use crate::error::{backend, code_of, ActionOutcome, ConflictReason, Error};
use crate::request::{Request, TxAction};

/// What came back.
#[derive(Debug, Default)]
pub(crate) struct Response {
    pub item: Option<Item>,
    pub items: Vec<Item>,
    pub last_key: Option<Item>,
    pub unprocessed_keys: Vec<Item>,
    pub unprocessed_puts: Vec<Item>,
    pub unprocessed_deletes: Vec<Item>,
}

fn record(cc: Option<&ConsumedCapacity>) {
    if let Some(units) = cc.and_then(|c| c.capacity_units) {
        tracing::Span::current().record("consumed_capacity", units);
    }
}

fn record_all(cc: &[ConsumedCapacity]) {
    let total: f64 = cc.iter().filter_map(|c| c.capacity_units).sum();
    tracing::Span::current().record("consumed_capacity", total);
}

fn built<T, E: std::fmt::Display>(op: &'static str, r: Result<T, E>) -> Result<T, Error> {
    r.map_err(|e| Error::Backend { operation: op, code: None, message: format!("building the request: {e}") })
}

/// Maps a condition failure to `Conflict{ConditionFailed}` for `entity`; callers refine it.
fn cond_or_backend<E, R>(
    op: &'static str,
    entity: &'static str,
    err: aws_sdk_dynamodb::error::SdkError<E, R>,
) -> Error
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    if code_of(&err) == Some("ConditionalCheckFailedException") {
        return Error::Conflict { entity, reason: ConflictReason::ConditionFailed };
    }
    backend(op, err)
}

pub(crate) async fn send(client: &Client, entity: &'static str, req: &Request) -> Result<Response, Error> {
    let total = ReturnConsumedCapacity::Total;
    match req {
        Request::GetItem { table, key, projection, ph, consistent } => {
            let out = client
                .get_item()
                .table_name(table)
                .set_key(Some(key.clone()))
                .set_projection_expression(projection.clone())
                .set_expression_attribute_names(non_empty_names(ph))
                .consistent_read(*consistent)
                .return_consumed_capacity(total)
                .send()
                .await
                .map_err(|e| backend("GetItem", e))?;
            record(out.consumed_capacity());
            Ok(Response { item: out.item, ..Default::default() })
        }
        Request::PutItem { table, item, condition, ph } => {
            let out = client
                .put_item()
                .table_name(table)
                .set_item(Some(item.clone()))
                .set_condition_expression(condition.clone())
                .set_expression_attribute_names(non_empty_names(ph))
                .set_expression_attribute_values(non_empty_values(ph))
                .return_consumed_capacity(total)
                .send()
                .await
                .map_err(|e| cond_or_backend("PutItem", entity, e))?;
            record(out.consumed_capacity());
            Ok(Response::default())
        }
        Request::UpdateItem { table, key, update, condition, ph } => {
            let out = client
                .update_item()
                .table_name(table)
                .set_key(Some(key.clone()))
                .update_expression(update)
                .set_condition_expression(condition.clone())
                .set_expression_attribute_names(non_empty_names(ph))
                .set_expression_attribute_values(non_empty_values(ph))
                .return_values(ReturnValue::AllNew)
                .return_consumed_capacity(total)
                .send()
                .await
                .map_err(|e| cond_or_backend("UpdateItem", entity, e))?;
            record(out.consumed_capacity());
            Ok(Response { item: out.attributes, ..Default::default() })
        }
        Request::DeleteItem { table, key, condition, ph } => {
            let out = client
                .delete_item()
                .table_name(table)
                .set_key(Some(key.clone()))
                .set_condition_expression(condition.clone())
                .set_expression_attribute_names(non_empty_names(ph))
                .set_expression_attribute_values(non_empty_values(ph))
                .return_values(ReturnValue::AllOld)
                .return_consumed_capacity(total)
                .send()
                .await
                .map_err(|e| cond_or_backend("DeleteItem", entity, e))?;
            record(out.consumed_capacity());
            Ok(Response { item: out.attributes, ..Default::default() })
        }
        Request::Query { table, index, key_condition, filter, projection, ph, limit, forward, start } => {
            let out = client
                .query()
                .table_name(table)
                .set_index_name(index.clone())
                .key_condition_expression(key_condition)
                .set_filter_expression(filter.clone())
                .set_projection_expression(projection.clone())
                .set_select(projection.as_ref().map(|_| Select::SpecificAttributes))
                .set_expression_attribute_names(non_empty_names(ph))
                .set_expression_attribute_values(non_empty_values(ph))
                .set_limit(*limit)
                .scan_index_forward(*forward)
                .set_exclusive_start_key(start.clone())
                .return_consumed_capacity(total)
                .send()
                .await
                .map_err(|e| backend("Query", e))?;
            record(out.consumed_capacity());
            Ok(Response {
                items: out.items.unwrap_or_default(),
                last_key: out.last_evaluated_key,
                ..Default::default()
            })
        }
        Request::Scan { table, filter, ph, limit, start } => {
            let out = client
                .scan()
                .table_name(table)
                .set_filter_expression(filter.clone())
                .set_expression_attribute_names(non_empty_names(ph))
                .set_expression_attribute_values(non_empty_values(ph))
                .set_limit(*limit)
                .set_exclusive_start_key(start.clone())
                .return_consumed_capacity(total)
                .send()
                .await
                .map_err(|e| backend("Scan", e))?;
            record(out.consumed_capacity());
            Ok(Response {
                items: out.items.unwrap_or_default(),
                last_key: out.last_evaluated_key,
                ..Default::default()
            })
        }
        Request::TransactWrite { table, actions, token } => {
            let mut items = Vec::with_capacity(actions.len());
            for a in actions {
                items.push(tx_item(table, a)?);
            }
            let out = client
                .transact_write_items()
                .set_transact_items(Some(items))
                .set_client_request_token(token.clone())
                .return_consumed_capacity(total)
                .send()
                .await;
            match out {
                Ok(out) => {
                    record_all(out.consumed_capacity());
                    Ok(Response::default())
                }
                Err(e) => {
                    use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError as E;
                    if let Some(E::TransactionCanceledException(c)) = e.as_service_error() {
                        let reasons = c.cancellation_reasons();
                        let outcomes = reasons.iter().map(|r| outcome(r.code())).collect();
                        return Err(Error::TransactionCancelled(outcomes));
                    }
                    Err(backend("TransactWriteItems", e))
                }
            }
        }
        Request::BatchGet { table, keys } => {
            let ka =
                built("BatchGetItem", KeysAndAttributes::builder().set_keys(Some(keys.clone())).build())?;
            let out = client
                .batch_get_item()
                .request_items(table, ka)
                .return_consumed_capacity(total)
                .send()
                .await
                .map_err(|e| backend("BatchGetItem", e))?;
            record_all(out.consumed_capacity());
            let items = out.responses.and_then(|mut r| r.remove(table)).unwrap_or_default();
            let unprocessed =
                out.unprocessed_keys.and_then(|mut u| u.remove(table)).map(|k| k.keys).unwrap_or_default();
            Ok(Response { items, unprocessed_keys: unprocessed, ..Default::default() })
        }
        Request::BatchWrite { table, puts, deletes } => {
            let mut reqs = Vec::new();
            for p in puts {
                let put = built("BatchWriteItem", PutRequest::builder().set_item(Some(p.clone())).build())?;
                reqs.push(WriteRequest::builder().put_request(put).build());
            }
            for k in deletes {
                let del = built("BatchWriteItem", DeleteRequest::builder().set_key(Some(k.clone())).build())?;
                reqs.push(WriteRequest::builder().delete_request(del).build());
            }
            let out = client
                .batch_write_item()
                .request_items(table, reqs)
                .return_consumed_capacity(total)
                .send()
                .await
                .map_err(|e| backend("BatchWriteItem", e))?;
            record_all(out.consumed_capacity());
            let mut resp = Response::default();
            for w in out.unprocessed_items.and_then(|mut u| u.remove(table)).unwrap_or_default() {
                if let Some(p) = w.put_request {
                    resp.unprocessed_puts.push(p.item);
                }
                if let Some(d) = w.delete_request {
                    resp.unprocessed_deletes.push(d.key);
                }
            }
            Ok(resp)
        }
    }
}

fn outcome(code: Option<&str>) -> ActionOutcome {
    match code {
        None | Some("None") => ActionOutcome::Ok,
        Some("ConditionalCheckFailed") => ActionOutcome::ConditionFailed,
        Some("TransactionConflict") => ActionOutcome::TransactionConflict,
        Some("ThrottlingError" | "ProvisionedThroughputExceeded") => ActionOutcome::Throttled,
        Some("ValidationError") => ActionOutcome::Invalid("ValidationError".into()),
        Some(other) => ActionOutcome::Other(other.into()),
    }
}

fn tx_item(table: &str, a: &TxAction) -> Result<TransactWriteItem, Error> {
    const OP: &str = "TransactWriteItems";
    Ok(match a {
        TxAction::Put { item, condition, ph } => TransactWriteItem::builder()
            .put(built(
                OP,
                Put::builder()
                    .table_name(table)
                    .set_item(Some(item.clone()))
                    .set_condition_expression(condition.clone())
                    .set_expression_attribute_names(non_empty_names(ph))
                    .set_expression_attribute_values(non_empty_values(ph))
                    .build(),
            )?)
            .build(),
        TxAction::Update { key, update, condition, ph } => TransactWriteItem::builder()
            .update(built(
                OP,
                Update::builder()
                    .table_name(table)
                    .set_key(Some(key.clone()))
                    .update_expression(update)
                    .set_condition_expression(condition.clone())
                    .set_expression_attribute_names(non_empty_names(ph))
                    .set_expression_attribute_values(non_empty_values(ph))
                    .build(),
            )?)
            .build(),
        TxAction::Delete { key, condition, ph } => TransactWriteItem::builder()
            .delete(built(
                OP,
                Delete::builder()
                    .table_name(table)
                    .set_key(Some(key.clone()))
                    .set_condition_expression(condition.clone())
                    .set_expression_attribute_names(non_empty_names(ph))
                    .set_expression_attribute_values(non_empty_values(ph))
                    .build(),
            )?)
            .build(),
        TxAction::Check { key, condition, ph } => TransactWriteItem::builder()
            .condition_check(built(
                OP,
                ConditionCheck::builder()
                    .table_name(table)
                    .set_key(Some(key.clone()))
                    .condition_expression(condition)
                    .set_expression_attribute_names(non_empty_names(ph))
                    .set_expression_attribute_values(non_empty_values(ph))
                    .build(),
            )?)
            .build(),
    })
}

fn non_empty_names(ph: &crate::expr::Placeholders) -> Option<std::collections::HashMap<String, String>> {
    (!ph.names.is_empty()).then(|| ph.names.clone().into_iter().collect())
}

fn non_empty_values(
    ph: &crate::expr::Placeholders,
) -> Option<std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>> {
    (!ph.values.is_empty()).then(|| ph.values.clone().into_iter().collect())
}
