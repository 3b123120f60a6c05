//! PartiQL shapes: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction.

use monotable_types::{AttributeValue, Item};

use super::common::*;
use super::transact::ItemResponse;

shape! {
    /// ExecuteStatement request.
    pub struct ExecuteStatementInput {
        statement: String,
        parameters: Vec<AttributeValue>,
        consistent_read: bool,
        next_token: String,
        return_consumed_capacity: String,
        limit: i64,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// ExecuteStatement response.
    pub struct ExecuteStatementOutput {
        items: Vec<SharedItem>,
        next_token: String,
        consumed_capacity: ConsumedCapacity,
        last_evaluated_key: Key,
    }
}
shape! {
    /// One statement of a BatchExecuteStatement.
    pub struct BatchStatementRequest {
        statement: String,
        parameters: Vec<AttributeValue>,
        consistent_read: bool,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// BatchExecuteStatement request.
    pub struct BatchExecuteStatementInput { statements: Vec<BatchStatementRequest>, return_consumed_capacity: String }
}
shape! {
    /// The error of one statement of a batch.
    pub struct BatchStatementError { code: String, message: String, item: Item }
}
shape! {
    /// The outcome of one statement of a batch, in request order.
    pub struct BatchStatementResponse { error: BatchStatementError, table_name: String, item: SharedItem }
}
shape! {
    /// BatchExecuteStatement response.
    pub struct BatchExecuteStatementOutput { responses: Vec<BatchStatementResponse>, consumed_capacity: Vec<ConsumedCapacity> }
}
shape! {
    /// One statement of an ExecuteTransaction.
    pub struct ParameterizedStatement {
        statement: String,
        parameters: Vec<AttributeValue>,
        return_values_on_condition_check_failure: String,
    }
}
shape! {
    /// ExecuteTransaction request.
    pub struct ExecuteTransactionInput {
        transact_statements: Vec<ParameterizedStatement>,
        client_request_token: String,
        return_consumed_capacity: String,
    }
}
shape! {
    /// ExecuteTransaction response.
    pub struct ExecuteTransactionOutput { responses: Vec<ItemResponse>, consumed_capacity: Vec<ConsumedCapacity> }
}
