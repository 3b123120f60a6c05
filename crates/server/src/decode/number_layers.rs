//! The two layers in which DynamoDB reports a malformed number, and their wordings.
//!
//! The request parser (`monotable_types`' wire form) refuses a number that is not one with
//! "The parameter cannot be converted to a numeric value: TEXT", or with the overflow,
//! underflow or precision text. DynamoDB then words it by operation (paritysuite/
//! dynamodb-conformance, tests/tier3/error-messages/valueLayers.test.ts, four regions,
//! 2026-10-09):
//!
//! * PutItem, UpdateItem and DeleteItem put it in the `1 validation error detected: `
//!   envelope, wherever the value sits;
//! * GetItem, BatchGetItem and Query give it bare;
//! * BatchWriteItem, TransactWriteItems, TransactGetItems and Scan (the older layer) give it
//!   bare and write an empty number's refusal without the colon.
//!
//! Not reproduced: the older layer reads `1e2147483647` as an underflow (its exponent wraps),
//! and some regions run the current layer on transactions.

use crate::operation::Operation;
use crate::ServerError;

/// The request parser's refusal of a text that is not a number.
const NOT_NUMERIC: &str = "The parameter cannot be converted to a numeric value";

/// The texts a malformed number is refused with.
const NUMBER_ERRORS: &[&str] = &[
    NOT_NUMERIC,
    "Number overflow",
    "Number underflow",
    "Attempting to store more than 38 significant digits",
];

/// `e` as `op` reports it, when `e` is the request parser's refusal of a number.
pub(crate) fn reword(op: Operation, e: ServerError) -> ServerError {
    let ServerError::Validation(message) = &e else { return e };
    if !NUMBER_ERRORS.iter().any(|p| message.starts_with(p)) {
        return e;
    }
    match op {
        Operation::PutItem | Operation::UpdateItem | Operation::DeleteItem => {
            ServerError::Validation(format!("1 validation error detected: {message}"))
        }
        Operation::BatchWriteItem
        | Operation::TransactWriteItems
        | Operation::TransactGetItems
        | Operation::Scan
            if message.strip_prefix(NOT_NUMERIC) == Some(": ") =>
        {
            ServerError::Validation(NOT_NUMERIC.to_owned())
        }
        _ => e,
    }
}
