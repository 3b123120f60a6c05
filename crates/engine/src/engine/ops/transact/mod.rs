//! Transactions: TransactWriteItems (`write.rs`, with its table-independent first pass in
//! `checks.rs`) and TransactGetItems (`get.rs`), which shares the write side's cancellation
//! reasons.

mod checks;
mod get;
mod write;

pub(in crate::engine) use get::transact_get_items;
pub(in crate::engine) use write::transact_write_items;
