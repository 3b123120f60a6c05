//! The operation families, one module each. Each validates its requests in DynamoDB's order
//! and calls down into `super::core`; none names another family. The front ends that run
//! other operations (PartiQL, import/export) call them through the public
//! [`Engine`](crate::Engine) handle, as a client would.
//!
//! Invariant: a file here names `super::core`, its own family and the public crate API only
//! (`crates/engine/tests/layers.rs` checks it). A new operation goes into the family whose
//! requests it shares; what two families need goes down into the core.

pub(super) mod backup;
pub(super) mod batch;
pub(super) mod control;
pub(super) mod items;
pub(super) mod partiql;
pub(super) mod policy;
pub(super) mod read;
pub(super) mod streams;
pub(super) mod transact;
pub(super) mod transfer;
