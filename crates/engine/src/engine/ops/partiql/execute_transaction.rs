//! ExecuteTransaction: up to 100 statements, all reads (TransactGetItems) or all writes
//! (TransactWriteItems, with its ClientRequestToken idempotency and cancellation reasons).

use std::collections::BTreeMap;

use monotable_partiql::ast::Statement;

use super::batch_execute_statement::add_capacity;
use super::plan::{mandatory_key_equality, plan, Options, Plan};
use super::result_names::name_by_last_step;
use crate::api::*;
use crate::engine::core::Inner;
use crate::validate::Constraints;
use crate::Engine;
use crate::Error;

/// At most 100 statements (API_ExecuteTransaction: "Array Members: Minimum number of 1 item.
/// Maximum number of 100 items.").
const MAX_STATEMENTS: usize = 100;

pub(in crate::engine) fn execute_transaction(
    engine: &Engine,
    inner: &Inner,
    input: ExecuteTransactionInput,
) -> Result<ExecuteTransactionOutput, Error> {
    let mut c = Constraints::default();
    let statements =
        super::statement_list(&mut c, input.transact_statements, "transactStatements", MAX_STATEMENTS);
    if let Some(token) = &input.client_request_token {
        if token.is_empty() || token.len() > 36 {
            c.fail(token, "clientRequestToken", "Member must have length less than or equal to 36");
        }
    }
    c.finish()?;
    let mut planned = Vec::with_capacity(statements.len());
    for s in &statements {
        let options = Options {
            on_condition_failure: s.return_values_on_condition_check_failure.clone(),
            ..Options::default()
        };
        let params = s.parameters.clone().unwrap_or_default();
        planned.push(plan(inner, s.statement.as_deref().unwrap_or_default(), &params, &options)?);
    }
    let reads = planned.iter().filter(|(_, p)| p.is_read()).count();
    if reads > 0 && reads < planned.len() {
        // The API reference: "The entire transaction must consist of either read statements
        // or write statements, you cannot mix both in one transaction."
        return Err(Error::validation(
            "Read and write requests together in the same transaction is not supported.",
        ));
    }
    if reads > 0 {
        let mut gets = Vec::with_capacity(planned.len());
        let mut selects = Vec::with_capacity(planned.len());
        for (statement, p) in planned {
            let Plan::Get(g) = p else { return Err(mandatory_key_equality()) };
            gets.push(TransactGetItem {
                get: Some(Get {
                    key: g.key,
                    table_name: g.table_name,
                    projection_expression: g.projection_expression,
                    expression_attribute_names: g.expression_attribute_names,
                }),
            });
            selects.push(statement);
        }
        let out = engine.transact_get_items(TransactGetItemsInput {
            transact_items: Some(gets),
            return_consumed_capacity: input.return_consumed_capacity,
        })?;
        // Responses line up with the statements, one each.
        let responses = out.responses.map(|responses| {
            (responses.into_iter().zip(&selects))
                .map(|(r, statement)| ItemResponse { item: r.item.map(|i| name_by_last_step(statement, i)) })
                .collect()
        });
        return Ok(ExecuteTransactionOutput { responses, consumed_capacity: out.consumed_capacity });
    }
    let inserts: Vec<bool> = planned.iter().map(|(s, _)| matches!(s, Statement::Insert(_))).collect();
    let items = planned.into_iter().map(|(_, p)| write_item(p)).collect();
    let result = engine.transact_write_items(TransactWriteItemsInput {
        transact_items: Some(items),
        return_consumed_capacity: input.return_consumed_capacity,
        client_request_token: input.client_request_token,
        ..TransactWriteItemsInput::default()
    });
    match result {
        Ok(out) => {
            let mut totals = BTreeMap::new();
            out.consumed_capacity.into_iter().flatten().for_each(|c| add_capacity(&mut totals, Some(c)));
            let capacity = (!totals.is_empty()).then(|| totals.into_values().collect());
            Ok(ExecuteTransactionOutput { responses: None, consumed_capacity: capacity })
        }
        Err(mut e) => {
            // An INSERT whose key exists is reported as `DuplicateItem`, not as a failed
            // condition (API_CancellationReason; dynoxide-rs 3.2 execute_transaction.rs).
            if let Some(reasons) = &mut e.cancellation_reasons {
                for (reason, insert) in reasons.iter_mut().zip(&inserts) {
                    if *insert && reason.code.as_deref() == Some("ConditionalCheckFailed") {
                        reason.code = Some("DuplicateItem".into());
                        reason.message = Some(super::duplicate_item().message);
                        reason.item = None;
                    }
                }
                let codes: Vec<&str> = reasons.iter().filter_map(|r| r.code.as_deref()).collect();
                e.message = format!(
                    "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
                    codes.join(", ")
                );
            }
            Err(e)
        }
    }
}

/// A planned write as one TransactWriteItems action.
fn write_item(p: Plan) -> TransactWriteItem {
    match p {
        Plan::Insert(i) => TransactWriteItem {
            put: Some(Put {
                item: i.item,
                table_name: i.table_name,
                condition_expression: i.condition_expression,
                expression_attribute_names: i.expression_attribute_names,
                expression_attribute_values: i.expression_attribute_values,
                return_values_on_condition_check_failure: i.return_values_on_condition_check_failure,
            }),
            ..TransactWriteItem::default()
        },
        Plan::Update(u) => TransactWriteItem {
            update: Some(Update {
                key: u.key,
                update_expression: u.update_expression,
                table_name: u.table_name,
                condition_expression: u.condition_expression,
                expression_attribute_names: u.expression_attribute_names,
                expression_attribute_values: u.expression_attribute_values,
                return_values_on_condition_check_failure: u.return_values_on_condition_check_failure,
            }),
            ..TransactWriteItem::default()
        },
        Plan::Delete(d) => TransactWriteItem {
            delete: Some(Delete {
                key: d.key,
                table_name: d.table_name,
                condition_expression: d.condition_expression,
                expression_attribute_names: d.expression_attribute_names,
                expression_attribute_values: d.expression_attribute_values,
                return_values_on_condition_check_failure: d.return_values_on_condition_check_failure,
            }),
            ..TransactWriteItem::default()
        },
        Plan::Get(_) | Plan::Query(_) | Plan::QueryEach { .. } | Plan::Scan(_) => {
            TransactWriteItem::default()
        }
    }
}
