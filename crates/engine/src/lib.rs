//! monotable's embedded DynamoDB engine.
//!
//! [`Engine`] exposes one synchronous method per DynamoDB operation, taking and returning the
//! DynamoDB request/response shapes of [`api`] (which (de)serialise with DynamoDB's JSON
//! member names). It knows nothing of HTTP. Layers, top to bottom:
//!
//! 1. **Operations** (`engine`): request validation in DynamoDB's order, expression parsing
//!    through `monotable_expr`, legacy-parameter translation, capacity accounting. `Engine`
//!    dispatches to operation families (`engine::ops`) built on a core (`engine::core`: the
//!    shared state, the conditional single-item write, the read path) that names none of them.
//! 2. **Tables** (`table`): the resolved schema (key attributes, indexes, projections), the
//!    write path that derives index entries from an item, counters, and striped key locks.
//! 3. **Storage** ([`storage`]): ordered byte-keyed keyspaces with atomic multi-keyspace
//!    commits; [`MemoryStorage`] is the default, a durable store plugs in via
//!    [`Engine::with_storage`].
//!
//! An engine is one [`Location`] (an account's region): its ARNs name it, and engines of several
//! locations can share one store, each seeing only its own tables.
//!
//! Keys are encoded by [`keys`] so that byte order is DynamoDB's key order.

pub mod api;
mod engine;
mod error;
mod hash;
pub mod keys;
mod location;
pub mod storage;
mod stream;
mod table;
mod validate;

pub use api::*;
pub use engine::{
    budget_exceeded, within_budget, DirectoryStore, Engine, InFlightHook, InlineBudget, ObjectStore,
    ObjectStoreError,
};
pub use error::{Error, ErrorKind};
pub use location::{Location, DEFAULT_ACCOUNT, DEFAULT_REGION};
pub use storage::{
    defer_sync, KeyRange, Keyspace, MemoryStorage, PendingSync, Storage, StorageError, SyncWaiter,
    WriteBatch, WriteOp,
};
