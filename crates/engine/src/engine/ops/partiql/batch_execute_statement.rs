//! BatchExecuteStatement: up to 25 statements, all reads (each naming one item by its whole
//! key) or all writes, each run on its own with its outcome or error in `Responses`.

use std::collections::BTreeMap;

use monotable_partiql::ast::Statement;

use super::execute_statement::run;
use super::plan::{mandatory_key_equality, plan, Options, Plan};
use crate::api::*;
use crate::engine::core::Inner;
use crate::validate::Constraints;
use crate::Engine;
use crate::{Error, ErrorKind};

/// At most 25 statements (API_BatchExecuteStatement: "Array Members: Minimum number of 1 item.
/// Maximum number of 25 items.").
const MAX_STATEMENTS: usize = 25;

/// The `Code` of a statement's error (API_BatchStatementError's valid values).
pub(super) fn error_code(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::ConditionalCheckFailed => "ConditionalCheckFailed",
        ErrorKind::Validation => "ValidationError",
        ErrorKind::ResourceNotFound => "ResourceNotFound",
        ErrorKind::DuplicateItem => "DuplicateItem",
        ErrorKind::TransactionConflict => "TransactionConflict",
        ErrorKind::ItemCollectionSizeLimitExceeded => "ItemCollectionSizeLimitExceeded",
        ErrorKind::ProvisionedThroughputExceeded => "ProvisionedThroughputExceeded",
        ErrorKind::RequestLimitExceeded => "RequestLimitExceeded",
        _ => "InternalServerError",
    }
}

/// Adds one operation's capacity to the per-table totals.
pub(super) fn add_capacity(totals: &mut BTreeMap<String, ConsumedCapacity>, c: Option<ConsumedCapacity>) {
    let Some(c) = c else { return };
    let Some(name) = c.table_name.clone() else { return };
    let total = totals
        .entry(name.clone())
        .or_insert_with(|| ConsumedCapacity { table_name: Some(name), ..Default::default() });
    let add = |a: &mut Option<f64>, b: Option<f64>| {
        if let Some(b) = b {
            *a = Some(a.unwrap_or(0.0) + b);
        }
    };
    add(&mut total.capacity_units, c.capacity_units);
    add(&mut total.read_capacity_units, c.read_capacity_units);
    add(&mut total.write_capacity_units, c.write_capacity_units);
    if let Some(t) = c.table {
        let mine = total.table.get_or_insert_with(Capacity::default);
        add(&mut mine.capacity_units, t.capacity_units);
        add(&mut mine.read_capacity_units, t.read_capacity_units);
        add(&mut mine.write_capacity_units, t.write_capacity_units);
    }
    for (mine, theirs) in [
        (&mut total.global_secondary_indexes, c.global_secondary_indexes),
        (&mut total.local_secondary_indexes, c.local_secondary_indexes),
    ] {
        for (name, t) in theirs.into_iter().flatten() {
            let mine = mine.get_or_insert_with(Default::default).entry(name).or_default();
            add(&mut mine.capacity_units, t.capacity_units);
            add(&mut mine.read_capacity_units, t.read_capacity_units);
            add(&mut mine.write_capacity_units, t.write_capacity_units);
        }
    }
}

fn table_of(planned: &Plan) -> Option<String> {
    match planned {
        Plan::Get(i) => i.table_name.clone(),
        Plan::Query(i) | Plan::QueryEach { query: i, .. } => i.table_name.clone(),
        Plan::Scan(i) => i.table_name.clone(),
        Plan::Insert(i) => i.table_name.clone(),
        Plan::Update(i) => i.table_name.clone(),
        Plan::Delete(i) => i.table_name.clone(),
    }
}

pub(in crate::engine) fn batch_execute_statement(
    engine: &Engine,
    inner: &Inner,
    input: BatchExecuteStatementInput,
) -> Result<BatchExecuteStatementOutput, Error> {
    let mut c = Constraints::default();
    let statements = super::statement_list(&mut c, input.statements, "statements", MAX_STATEMENTS);
    c.finish()?;
    let planned: Vec<Result<(Statement, Plan), Error>> = statements
        .iter()
        .map(|s| {
            let options = Options {
                consistent_read: s.consistent_read,
                return_consumed_capacity: input.return_consumed_capacity.clone(),
                on_condition_failure: s.return_values_on_condition_check_failure.clone(),
                ..Options::default()
            };
            let params = s.parameters.clone().unwrap_or_default();
            plan(inner, s.statement.as_deref().unwrap_or_default(), &params, &options)
        })
        .collect();
    let reads = planned.iter().flatten().filter(|(_, p)| p.is_read()).count();
    let writes = planned.iter().flatten().count() - reads;
    if reads > 0 && writes > 0 {
        // Source: dynoxide-rs 3.2 src/actions/batch_execute_statement.rs (DynamoDB's text).
        return Err(Error::validation(
            "Read and write requests together in the same batch is not supported.",
        ));
    }
    let mut totals = BTreeMap::new();
    let mut responses = Vec::with_capacity(planned.len());
    for p in planned {
        let table = p.as_ref().ok().and_then(|(_, p)| table_of(p));
        let outcome = p.and_then(|(statement, p)| match p {
            Plan::Query(_) | Plan::Scan(_) => Err(mandatory_key_equality()),
            p => run(engine, &statement, p),
        });
        responses.push(match outcome {
            Ok(out) => {
                add_capacity(&mut totals, out.consumed_capacity);
                let item = if reads > 0 { out.items.and_then(|i| i.into_iter().next()) } else { None };
                BatchStatementResponse { table_name: table, item, error: None }
            }
            Err(e) => BatchStatementResponse {
                table_name: table,
                item: None,
                error: Some(BatchStatementError {
                    code: Some(error_code(e.kind).to_owned()),
                    message: Some(e.message),
                    item: e.item,
                }),
            },
        });
    }
    let wanted = input.return_consumed_capacity.as_deref().is_some_and(|r| r != "NONE");
    Ok(BatchExecuteStatementOutput {
        responses: Some(responses),
        consumed_capacity: wanted.then(|| totals.into_values().collect()),
    })
}
