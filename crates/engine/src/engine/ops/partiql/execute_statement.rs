//! ExecuteStatement: one statement, planned onto one of the engine's operations.

use base64::Engine as _;

use monotable_partiql::ast::Statement;

use super::plan::{plan, Options, Plan};
use super::result_names::name_by_last_step;
use crate::api::*;
use crate::engine::core::Inner;
use crate::validate::Constraints;
use crate::Engine;
use crate::{Error, ErrorKind};

/// What a `NextToken` is bound to: the statement's text and parameters (FNV-1a, 64 bits). A
/// token replayed with another statement or other parameters is refused with "NextToken does
/// not match request", while another `Limit` or `ConsistentRead` is accepted (characterised
/// on DynamoDB, eu-west-1, 2026-09-03, as recorded in a Java DynamoDB emulator's PartiQL
/// handler).
fn binding(statement: &str, params: &[monotable_types::AttributeValue]) -> String {
    use crate::hash::{fnv1a, FNV_OFFSET};
    // Each part is followed by a zero byte, so parts cannot run into each other.
    let mut h = fnv1a(fnv1a(FNV_OFFSET, statement.as_bytes()), &[0]);
    for p in params {
        h = fnv1a(fnv1a(h, &serde_json::to_vec(p).unwrap_or_default()), &[0]);
    }
    format!("{h:016x}")
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Token {
    /// The page's `LastEvaluatedKey`.
    k: Key,
    /// The request it belongs to ([`binding`]).
    b: String,
}

/// The `NextToken` of a page: its `LastEvaluatedKey` and binding as base64 JSON.
fn next_token(key: Key, binding: String) -> String {
    let token = Token { k: key, b: binding };
    base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&token).unwrap_or_default())
}

fn start_key(token: &str, binding: &str) -> Result<Key, Error> {
    let invalid = || Error::validation("Invalid NextToken");
    let bytes = base64::engine::general_purpose::STANDARD.decode(token).map_err(|_| invalid())?;
    let token: Token = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
    if token.b != binding {
        return Err(Error::validation("NextToken does not match request"));
    }
    Ok(token.k)
}

pub(in crate::engine) fn execute_statement(
    engine: &Engine,
    inner: &Inner,
    input: ExecuteStatementInput,
) -> Result<ExecuteStatementOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("statement", input.statement.is_some());
    c.finish()?;
    let statement = input.statement.unwrap_or_default();
    let params = input.parameters.unwrap_or_default();
    let bound = binding(&statement, &params);
    let options = Options {
        consistent_read: input.consistent_read,
        limit: input.limit,
        start_key: input.next_token.as_deref().map(|t| start_key(t, &bound)).transpose()?,
        return_consumed_capacity: input.return_consumed_capacity,
        on_condition_failure: input.return_values_on_condition_check_failure,
    };
    let (parsed, planned) = plan(inner, &statement, &params, &options)?;
    if options.start_key.is_some() && !planned.is_read() {
        return Err(Error::validation("NextToken is only valid on a SELECT statement"));
    }
    let mut out = run(engine, &parsed, planned)?;
    out.next_token = out.last_evaluated_key.clone().map(|k| next_token(k, bound));
    Ok(out)
}

/// Runs a planned statement and shapes its answer: a SELECT's items name their attributes
/// as its select list does (`result_names`).
pub(super) fn run(
    engine: &Engine,
    statement: &Statement,
    planned: Plan,
) -> Result<ExecuteStatementOutput, Error> {
    let named = |item| name_by_last_step(statement, item);
    let page = |items: Option<Vec<SharedItem>>, last: Option<Key>, capacity| ExecuteStatementOutput {
        items: Some(items.unwrap_or_default().into_iter().map(named).collect()),
        next_token: None,
        last_evaluated_key: last,
        consumed_capacity: capacity,
    };
    let returned = |attributes: Option<SharedItem>, capacity| ExecuteStatementOutput {
        items: Some(attributes.into_iter().map(named).collect()),
        consumed_capacity: capacity,
        ..ExecuteStatementOutput::default()
    };
    Ok(match planned {
        Plan::Get(i) => {
            let out = engine.get_item(i)?;
            returned(out.item, out.consumed_capacity)
        }
        Plan::Query(i) => {
            let out = engine.query(i)?;
            page(out.items, out.last_evaluated_key, out.consumed_capacity)
        }
        Plan::QueryEach { query, pk, in_value, values } => {
            let out = super::query_each::run(engine, query, &pk, &in_value, &values)?;
            page(out.items, out.last_evaluated_key, out.consumed_capacity)
        }
        Plan::Scan(i) => {
            let out = engine.scan(i)?;
            page(out.items, out.last_evaluated_key, out.consumed_capacity)
        }
        Plan::Insert(i) => match engine.put_item(i) {
            Ok(out) => returned(None, out.consumed_capacity),
            Err(e) if e.kind == ErrorKind::ConditionalCheckFailed => return Err(super::duplicate_item()),
            Err(e) => return Err(e),
        },
        Plan::Update(i) => {
            let out = engine.update_item(i)?;
            returned(out.attributes, out.consumed_capacity)
        }
        Plan::Delete(i) => {
            let out = engine.delete_item(i)?;
            returned(out.attributes, out.consumed_capacity)
        }
    })
}
