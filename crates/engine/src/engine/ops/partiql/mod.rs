//! PartiQL: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
//!
//! Statements are parsed and checked by `monotable-partiql`, then planned (`plan.rs`) onto
//! the engine's own GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem, TransactGetItems
//! and TransactWriteItems requests, with conditions written as expressions with placeholders
//! (`exprs.rs`). A statement therefore has exactly the semantics, capacity and locking of the
//! equivalent expression request.
//!
//! PartiQL is a front end: it runs those requests through the public [`Engine`](crate::Engine)
//! handle, as a client would, and reads the core only to plan (a table's key schema), so it
//! names no other operation family.

mod batch_execute_statement;
mod execute_statement;
mod execute_transaction;
mod exprs;
mod plan;
mod query_each;
mod result_names;

pub(in crate::engine) use batch_execute_statement::batch_execute_statement;
pub(in crate::engine) use execute_statement::execute_statement;
pub(in crate::engine) use execute_transaction::execute_transaction;

use crate::validate::Constraints;
use crate::{Error, ErrorKind};

/// DynamoDB's answer to an INSERT whose key exists: `DuplicateItemException`
/// ("Duplicate primary key exists in table", source: dynoxide-rs 3.2
/// `src/partiql/executor.rs`; the exception is named in
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html).
pub(super) fn duplicate_item() -> Error {
    Error::new(ErrorKind::DuplicateItem, "Duplicate primary key exists in table")
}

/// The statements of a batch or transaction, with the list's constraints (present, 1 to `max`
/// members) recorded in `c`.
pub(super) fn statement_list<T>(c: &mut Constraints, list: Option<Vec<T>>, path: &str, max: usize) -> Vec<T> {
    c.not_null(path, list.is_some());
    let present = list.is_some();
    let list = list.unwrap_or_default();
    if list.len() > max {
        c.fail("[...]", path, &format!("Member must have length less than or equal to {max}"));
    }
    if list.is_empty() && present {
        c.fail("[]", path, "Member must have length greater than or equal to 1");
    }
    list
}
