//! The storage boundary: ordered byte-keyed keyspaces holding items, atomic write batches and
//! a catalog of table descriptions.
//!
//! The engine owns all DynamoDB semantics (validation, conditions, index maintenance, locking);
//! a [`Storage`] only stores what it is told. Implementations must provide:
//!
//! * **Keyspaces** — one per table and one per secondary index, named by the engine
//!   (`"<table_id>"`, `"<table_id>/<index name>"`). Keys are byte strings built by
//!   [`crate::keys`]: ordering them bytewise is DynamoDB's key order, and every entry of one
//!   partition shares the partition key's encoding as a prefix. Values are whole items in the
//!   packed form ([`PackedItem`], one shared byte allocation; docs/PACKED.md): an index that
//!   projects every attribute is given a clone of the base item's handle, so a store that
//!   keeps values in memory holds the item's bytes once. A durable store writes the packed
//!   bytes (checking them with `PackedItem::from_bytes` when it reads them back).
//! * **Point reads and range scans** in both directions, from any start key, stopping when
//!   the visitor returns `false`. A scan observes a consistent state of its keyspace with
//!   respect to [`Storage::commit`] (it sees a batch entirely or not at all).
//! * **Atomic commits** — a [`WriteBatch`] may touch several keyspaces (an item, its index
//!   entries, every item of a transaction); after `commit` returns, all of it is visible and
//!   durable (as durable as the store promises), and no reader sees part of it.
//! * **A catalog** — opaque bytes per table name (the engine stores JSON), read once at start.
//!
//! Concurrency control for conditional writes and transactions lives in the engine: `commit`
//! is never called concurrently for the same key, but may be called concurrently for
//! different keys and keyspaces.

mod deferred;
mod memory;
mod namespaced;

use std::any::Any;
use std::ops::Bound;
use std::sync::Arc;

use monotable_types::PackedItem;

pub use deferred::{defer, defer_sync, PendingSync, SyncWaiter};
pub use memory::MemoryStorage;
pub(crate) use namespaced::Namespaced;

/// A failure of the storage layer (surfaced to clients as `InternalServerError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// The named keyspace does not exist (dropped concurrently).
    #[error("keyspace {0} does not exist")]
    NoKeyspace(String),
    /// An I/O or corruption problem in a durable store.
    #[error("storage failure: {0}")]
    Io(String),
}

/// A range of keys to visit: `[start, end)` style bounds and a direction.
#[derive(Debug, Clone)]
pub struct KeyRange {
    pub start: Bound<Vec<u8>>,
    pub end: Bound<Vec<u8>>,
    /// Visit from the high end down to the low end.
    pub reverse: bool,
}

impl KeyRange {
    /// True when the bounds describe an empty range (start above end, or equal with either
    /// end excluded). Implementations skip such scans: `BTreeMap::range` panics on them.
    pub fn is_empty(&self) -> bool {
        match (&self.start, &self.end) {
            (Bound::Included(s), Bound::Included(e)) => s > e,
            (Bound::Included(s), Bound::Excluded(e))
            | (Bound::Excluded(s), Bound::Included(e))
            | (Bound::Excluded(s), Bound::Excluded(e)) => s >= e,
            _ => false,
        }
    }
}

/// A visitor called for each entry in key order; returning `false` stops the scan.
pub type Visitor<'a> = dyn FnMut(&[u8], &PackedItem) -> bool + 'a;

/// One ordered keyspace (a table or an index).
pub trait Keyspace: Send + Sync + Any {
    /// The name given to [`Storage::open_keyspace`].
    fn name(&self) -> &str;
    /// The item stored under `key`.
    fn get(&self, key: &[u8]) -> Result<Option<PackedItem>, StorageError>;
    /// Visits entries within `range` in order until the visitor returns `false`.
    fn scan(&self, range: &KeyRange, visit: &mut Visitor<'_>) -> Result<(), StorageError>;
    /// An estimate of the deleted entries a [`Keyspace::scan`] of this keyspace may have to
    /// walk past without visiting them (an LSM tree keeps a delete as an entry until
    /// compaction drops it), anywhere in the keyspace. A read under an inline budget counts
    /// them as work. Zero, the default, for a store that forgets a deleted key at once.
    fn deleted_entries(&self) -> u64 {
        0
    }
    /// Lets a storage find its own keyspace type inside a [`WriteBatch`].
    fn as_any(&self) -> &dyn Any;
}

/// One write inside a batch: put (`Some`) or delete (`None`) one key of one keyspace.
pub struct WriteOp {
    pub keyspace: Arc<dyn Keyspace>,
    pub key: Vec<u8>,
    pub value: Option<PackedItem>,
}

/// Writes that commit atomically together, possibly across keyspaces.
#[derive(Default)]
pub struct WriteBatch {
    pub ops: Vec<WriteOp>,
}

impl WriteBatch {
    /// Adds a put.
    pub fn put(&mut self, keyspace: &Arc<dyn Keyspace>, key: Vec<u8>, value: PackedItem) {
        self.ops.push(WriteOp { keyspace: Arc::clone(keyspace), key, value: Some(value) });
    }

    /// Adds a delete.
    pub fn delete(&mut self, keyspace: &Arc<dyn Keyspace>, key: Vec<u8>) {
        self.ops.push(WriteOp { keyspace: Arc::clone(keyspace), key, value: None });
    }
}

/// A store of keyspaces and the table catalog. See the module docs for the contract.
pub trait Storage: Send + Sync {
    /// Opens a keyspace, creating it empty when it does not exist.
    fn open_keyspace(&self, name: &str) -> Result<Arc<dyn Keyspace>, StorageError>;
    /// Removes a keyspace and everything in it. Handles already open may keep reading the
    /// old contents; the engine stops using them first.
    fn drop_keyspace(&self, name: &str) -> Result<(), StorageError>;
    /// Applies every op of the batch atomically (see the module docs). A store that makes
    /// commits durable asynchronously hands its wait to an enclosing [`defer_sync`] scope
    /// ([`defer`]) instead of blocking.
    fn commit(&self, batch: WriteBatch) -> Result<(), StorageError>;
    /// Whether a `commit` may block its thread for long right now, even inside a
    /// [`defer_sync`] scope: a device flush inside every commit, or back-pressure from a
    /// store falling behind. A server keeps such writes off the threads that answer light
    /// requests. In-memory stores never block.
    fn writes_may_block(&self) -> bool {
        false
    }
    /// Makes every commit that has returned so far durable before the caller acknowledges
    /// something that depends on it, as a commit of its own would: inside a [`defer_sync`]
    /// scope the wait is handed to the scope's caller ([`defer`]), outside one it blocks. The
    /// engine calls it where it answers for a write without writing (the replay of a
    /// completed `ClientRequestToken`, whose original may still be waiting for its flush).
    /// A store whose commits are durable when they return (or never are) has nothing to do.
    fn barrier(&self) -> Result<(), StorageError> {
        Ok(())
    }
    /// Every catalog entry, as stored by [`Storage::put_catalog`].
    fn load_catalog(&self) -> Result<Vec<(String, Vec<u8>)>, StorageError>;
    /// Stores (`Some`) or removes (`None`) a catalog entry.
    fn put_catalog(&self, name: &str, value: Option<Vec<u8>>) -> Result<(), StorageError>;
}
