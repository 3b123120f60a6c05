//! A `SELECT` with `pk IN [...]`: one Query per distinct partition key value, in the order the
//! statement lists them, as one page. DynamoDB runs such a statement without a full scan ("the
//! WHERE clause condition must specify a partition key. Use the equality or IN operator",
//! Developer Guide, PartiQL select statements).
//!
//! `Limit` counts the items read over all the queries together. A page ends where a query
//! stops early (its `Limit` or 1 MB); its `LastEvaluatedKey` then holds that query's partition
//! key value, which is how the next page knows to resume with that query and go on with the
//! ones after it.

use std::collections::BTreeMap;

use super::batch_execute_statement::add_capacity;
use crate::api::*;
use crate::Engine;
use crate::Error;
use monotable_types::AttributeValue;

/// Runs the queries of `pk IN [...]` from where `query.exclusive_start_key` left off.
pub(super) fn run(
    engine: &Engine,
    query: QueryInput,
    pk: &str,
    in_value: &str,
    values: &[AttributeValue],
) -> Result<QueryOutput, Error> {
    let start = query.exclusive_start_key.clone();
    let first = match &start {
        Some(key) => values.iter().position(|v| key.get(pk) == Some(v)).ok_or_else(|| {
            Error::validation(
                "The provided starting key is invalid: the partition key is not one of the IN values",
            )
        })?,
        None => 0,
    };
    let mut out = QueryOutput {
        items: Some(Vec::new()),
        count: Some(0),
        scanned_count: Some(0),
        ..QueryOutput::default()
    };
    let mut remaining = query.limit;
    // Every query reads the same table (and index): one entry.
    let mut capacity = BTreeMap::new();
    for (i, value) in values.iter().enumerate().skip(first) {
        let mut q = query.clone();
        if i > first {
            q.exclusive_start_key = None;
        }
        q.limit = remaining;
        if let Some(v) = q.expression_attribute_values.as_mut() {
            v.insert(in_value.to_owned(), value.clone());
        }
        let page = engine.query(q)?;
        let scanned = page.scanned_count.unwrap_or(0);
        out.count = Some(out.count.unwrap_or(0) + page.count.unwrap_or(0));
        out.scanned_count = Some(out.scanned_count.unwrap_or(0) + scanned);
        if let (Some(all), Some(items)) = (out.items.as_mut(), page.items) {
            all.extend(items);
        }
        add_capacity(&mut capacity, page.consumed_capacity);
        if page.last_evaluated_key.is_some() {
            out.last_evaluated_key = page.last_evaluated_key;
            break;
        }
        if let Some(left) = remaining.as_mut() {
            *left -= scanned;
            if *left <= 0 {
                break;
            }
        }
    }
    out.consumed_capacity = capacity.into_values().next();
    Ok(out)
}
