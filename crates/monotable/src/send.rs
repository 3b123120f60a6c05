//! Sending a planned [`Request`] with the SDK, and mapping failures to [`Error`].
//!
//! Invariant: while the current `tracing` span is recorded by a subscriber, every request
//! asks for consumed capacity and records it on that span (field `consumed_capacity`). With
//! no subscriber listening, nobody would see the figure, so the request does not ask for it
//! (it costs response bytes and parsing on every call).

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    ConditionCheck, ConsumedCapacity, Delete, DeleteRequest, KeysAndAttributes, Put, PutRequest,
    ReturnConsumedCapacity, ReturnValue, Select, TransactWriteItem, Update, WriteRequest,
};
use aws_sdk_dynamodb::Client;

use crate::entity::Item;
use crate::error::{backend, code_of, ActionOutcome, ConflictReason, Error};
use crate::request::{Request, TxAction};
use crate::table::Inner;

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

/// `ReturnConsumedCapacity` for the next request: `TOTAL` when the current span is recorded.
fn capacity() -> Option<ReturnConsumedCapacity> {
    (!tracing::Span::current().is_disabled()).then_some(ReturnConsumedCapacity::Total)
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

/// The parts every conditional write shares, on any of the SDK's builders (fluent or
/// transaction item): table, condition expression and placeholders.
macro_rules! conditional {
    ($builder:expr, $table:expr, $condition:expr, $ph:expr) => {{
        let ph: crate::expr::Placeholders = $ph;
        $builder
            .table_name($table)
            .set_condition_expression($condition)
            .set_expression_attribute_names(non_empty(ph.names))
            .set_expression_attribute_values(non_empty(ph.values))
    }};
}

/// The parts Query and Scan share: table, filter, placeholders, limit, start key, capacity.
macro_rules! paged {
    ($builder:expr, $table:expr, $filter:expr, $ph:expr, $limit:expr, $start:expr) => {{
        let ph: crate::expr::Placeholders = $ph;
        $builder
            .table_name($table)
            .set_filter_expression($filter)
            .set_expression_attribute_names(non_empty(ph.names))
            .set_expression_attribute_values(non_empty(ph.values))
            .set_limit($limit)
            .set_exclusive_start_key($start)
            .set_return_consumed_capacity(capacity())
    }};
}

/// Sends `req` (on `table`'s table) with `table`'s client. A missing table is
/// [`Error::TableNotFound`], naming it.
pub(crate) async fn send(table: &Inner, entity: &'static str, req: Request) -> Result<Response, Error> {
    send_request(&table.client, entity, req).await.map_err(|e| e.on_table(&table.name))
}

/// Sends `req`, moving its parts into the SDK's input (no copies of items or placeholders).
async fn send_request(client: &Client, entity: &'static str, req: Request) -> Result<Response, Error> {
    let total = capacity();
    match req {
        Request::GetItem { table, key, projection, ph, consistent } => {
            let out = client
                .get_item()
                .table_name(table)
                .set_key(Some(key))
                .set_projection_expression(projection)
                .set_expression_attribute_names(non_empty(ph.names))
                .consistent_read(consistent)
                .set_return_consumed_capacity(total.clone())
                .send()
                .await
                .map_err(|e| backend("GetItem", e))?;
            record(out.consumed_capacity());
            Ok(Response { item: out.item, ..Default::default() })
        }
        Request::PutItem { table, item, condition, ph } => {
            let out = conditional!(client.put_item().set_item(Some(item)), table, condition, ph)
                .set_return_consumed_capacity(total.clone())
                .send()
                .await
                .map_err(|e| cond_or_backend("PutItem", entity, e))?;
            record(out.consumed_capacity());
            Ok(Response::default())
        }
        Request::UpdateItem { table, key, update, condition, ph } => {
            let out = conditional!(client.update_item().set_key(Some(key)), table, condition, ph)
                .update_expression(update)
                .return_values(ReturnValue::AllNew)
                .set_return_consumed_capacity(total.clone())
                .send()
                .await
                .map_err(|e| cond_or_backend("UpdateItem", entity, e))?;
            record(out.consumed_capacity());
            Ok(Response { item: out.attributes, ..Default::default() })
        }
        Request::DeleteItem { table, key, condition, ph } => {
            let out = conditional!(client.delete_item().set_key(Some(key)), table, condition, ph)
                .return_values(ReturnValue::AllOld)
                .set_return_consumed_capacity(total.clone())
                .send()
                .await
                .map_err(|e| cond_or_backend("DeleteItem", entity, e))?;
            record(out.consumed_capacity());
            Ok(Response { item: out.attributes, ..Default::default() })
        }
        Request::Query { table, index, key_condition, filter, projection, ph, limit, forward, start } => {
            let select = projection.as_ref().map(|_| Select::SpecificAttributes);
            let out = paged!(client.query(), table, filter, ph, limit, start)
                .set_index_name(index)
                .key_condition_expression(key_condition)
                .set_projection_expression(projection)
                .set_select(select)
                // Ascending is the default; only a descending query says so (as the dry run renders).
                .set_scan_index_forward((!forward).then_some(false))
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
            let out = paged!(client.scan(), table, filter, ph, limit, start)
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
                items.push(tx_item(&table, a)?);
            }
            let out = client
                .transact_write_items()
                .set_transact_items(Some(items))
                .set_client_request_token(token)
                .set_return_consumed_capacity(total.clone())
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
            let ka = built("BatchGetItem", KeysAndAttributes::builder().set_keys(Some(keys)).build())?;
            let out = client
                .batch_get_item()
                .request_items(&table, ka)
                .set_return_consumed_capacity(total.clone())
                .send()
                .await
                .map_err(|e| backend("BatchGetItem", e))?;
            record_all(out.consumed_capacity());
            let items = out.responses.and_then(|mut r| r.remove(&table)).unwrap_or_default();
            let unprocessed =
                out.unprocessed_keys.and_then(|mut u| u.remove(&table)).map(|k| k.keys).unwrap_or_default();
            Ok(Response { items, unprocessed_keys: unprocessed, ..Default::default() })
        }
        Request::BatchWrite { table, puts, deletes } => {
            let mut reqs = Vec::with_capacity(puts.len() + deletes.len());
            for p in puts {
                let put = built("BatchWriteItem", PutRequest::builder().set_item(Some(p)).build())?;
                reqs.push(WriteRequest::builder().put_request(put).build());
            }
            for k in deletes {
                let del = built("BatchWriteItem", DeleteRequest::builder().set_key(Some(k)).build())?;
                reqs.push(WriteRequest::builder().delete_request(del).build());
            }
            let out = client
                .batch_write_item()
                .request_items(&table, reqs)
                .set_return_consumed_capacity(total.clone())
                .send()
                .await
                .map_err(|e| backend("BatchWriteItem", e))?;
            record_all(out.consumed_capacity());
            let mut resp = Response::default();
            for w in out.unprocessed_items.and_then(|mut u| u.remove(&table)).unwrap_or_default() {
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

fn tx_item(table: &str, a: TxAction) -> Result<TransactWriteItem, Error> {
    const OP: &str = "TransactWriteItems";
    let item = TransactWriteItem::builder();
    Ok(match a {
        TxAction::Put { item: i, condition, ph } => {
            item.put(built(OP, conditional!(Put::builder().set_item(Some(i)), table, condition, ph).build())?)
        }
        TxAction::Update { key, update, condition, ph } => item.update(built(
            OP,
            conditional!(Update::builder().set_key(Some(key)), table, condition, ph)
                .update_expression(update)
                .build(),
        )?),
        TxAction::Delete { key, condition, ph } => item.delete(built(
            OP,
            conditional!(Delete::builder().set_key(Some(key)), table, condition, ph).build(),
        )?),
        TxAction::Check { key, condition, ph } => item.condition_check(built(
            OP,
            conditional!(ConditionCheck::builder().set_key(Some(key)), table, Some(condition), ph).build(),
        )?),
    }
    .build())
}

/// `None` for an empty placeholder map (DynamoDB refuses empty maps), else the map for the SDK.
fn non_empty<V>(m: std::collections::BTreeMap<String, V>) -> Option<std::collections::HashMap<String, V>> {
    (!m.is_empty()).then(|| m.into_iter().collect())
}
