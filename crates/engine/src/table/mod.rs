//! A live table: its schema, keyspaces, counters, metadata and the write path that keeps
//! secondary indexes in step with the base table.
//!
//! Architecture Invariant: every change to an item goes through [`Table::stage`], which puts
//! the base entry and every index entry (old entries deleted, new ones put; items lacking an
//! index's key attributes are left out of it) into the same [`WriteBatch`], so indexes never
//! disagree with the base table once a commit returns. With a stream enabled, the change's
//! stream record goes into the same batch (see [`crate::stream`]).

mod locks;
mod schema;
mod subresources;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::api::{SharedItem, TableDescription, Tag, TimeToLiveSpecification};
use crate::storage::{Keyspace, WriteBatch};

pub(crate) use locks::Locks;
pub(crate) use schema::{Index, KeyAttr, KeySchema, ProjectionKind, Schema};
pub(crate) use subresources::{Pitr, StoredPolicy, SubResources};

/// Mutable table metadata (what DescribeTable shows, minus live counters).
pub(crate) struct Meta {
    pub description: TableDescription,
    pub ttl: Option<TimeToLiveSpecification>,
    pub tags: Vec<Tag>,
    pub sub: SubResources,
    /// The table's streams, oldest first (the last one may be enabled).
    pub streams: Vec<crate::stream::Info>,
    /// The change log, once the table has had a stream.
    pub log: Option<Arc<crate::stream::Log>>,
}

/// One table.
pub(crate) struct Table {
    pub name: String,
    /// A process-unique number, mixed into lock hashes.
    pub seq: u64,
    pub base: Arc<dyn Keyspace>,
    pub schema: RwLock<Arc<Schema>>,
    pub meta: Mutex<Meta>,
    pub item_count: AtomicI64,
    pub size_bytes: AtomicI64,
    /// Writers hold this shared; UpdateTable holds it exclusively while it backfills a new
    /// index, so no write slips between the backfill scan and the schema swap.
    pub gate: RwLock<()>,
}

/// One item change: the item's storage key, what was there and what will be.
///
/// Invariant: `key` is the encoded table key of `old` and of `new` (the key their own key
/// attributes encode to), so index entries end with it (`Index::entry_key_at`).
///
/// Invariant: `old_size` and `new_size` are the DynamoDB sizes of `old` and `new` (0 when
/// absent). They are computed once, by [`Change::new`] (from the packed header when the item
/// is packed), because staging, index accounting and capacity reports all need them.
///
/// `old` is the stored item as read (packed; decoded only if a condition, an update or a
/// returned value needs it); `new` is the item to store, packed once by [`Table::stage`] and
/// shared by the base keyspace, ALL-projection indexes and the stream images.
pub(crate) struct Change {
    pub key: Vec<u8>,
    pub old: Option<SharedItem>,
    pub new: Option<SharedItem>,
    pub old_size: usize,
    pub new_size: usize,
    /// For updates: the document paths the update targeted (for `UPDATED_OLD`/`UPDATED_NEW`).
    pub updated_paths: Vec<monotable_expr::Path>,
}

impl Change {
    /// A change whose new item's size the caller may already know (`new_size`); the sizes
    /// the caller does not supply are computed here.
    pub fn new(
        key: Vec<u8>,
        old: Option<SharedItem>,
        new: Option<SharedItem>,
        new_size: Option<usize>,
    ) -> Change {
        let size = |i: &Option<SharedItem>| i.as_ref().map_or(0, SharedItem::size);
        Change {
            key,
            old_size: size(&old),
            new_size: new_size.unwrap_or_else(|| size(&new)),
            old,
            new,
            updated_paths: Vec::new(),
        }
    }
}

impl Table {
    /// The current schema.
    pub fn schema(&self) -> Arc<Schema> {
        Arc::clone(&self.schema.read())
    }

    /// Adds the base and index writes of `change` to `batch`, returning the counter changes
    /// to apply with [`Table::account`] once the batch has committed.
    pub fn stage(&self, schema: &Schema, change: &Change, batch: &mut WriteBatch) -> Deltas {
        let count = |i: &Option<SharedItem>| i.is_some() as i64;
        let mut deltas = Deltas {
            count: count(&change.new) - count(&change.old),
            size: change.new_size as i64 - change.old_size as i64,
            indexes: Vec::with_capacity(schema.indexes.len()),
            stream: None,
        };
        match &change.new {
            Some(item) => batch.put(&self.base, change.key.clone(), item.packed().clone()),
            None if change.old.is_some() => batch.delete(&self.base, change.key.clone()),
            None => {}
        }
        for index in &schema.indexes {
            // Both items are stored at `change.key`, so their index entries end with it.
            let old_key = change.old.as_ref().and_then(|i| index.entry_key_at(&schema.key, &change.key, i));
            let new_key = change.new.as_ref().and_then(|i| index.entry_key_at(&schema.key, &change.key, i));
            let (mut dc, mut ds) = (0i64, 0i64);
            if let (Some(_), Some(item)) = (&old_key, &change.old) {
                dc -= 1;
                ds -= index.projected_size_known(&schema.key, item, change.old_size) as i64;
            }
            if let Some(old_key) = &old_key {
                if new_key.as_ref() != Some(old_key) {
                    batch.delete(&index.keyspace, old_key.clone());
                }
            }
            if let (Some(new_key), Some(item)) = (new_key, &change.new) {
                dc += 1;
                ds += index.projected_size_known(&schema.key, item, change.new_size) as i64;
                batch.put(&index.keyspace, new_key, index.project(&schema.key, item));
            }
            deltas.indexes.push((Arc::clone(index), dc, ds));
        }
        if let Some(writer) = &schema.stream {
            deltas.stream = writer.record(&schema.key, change, batch);
        }
        deltas
    }

    /// Applies the counter changes of a committed change.
    pub fn account(&self, deltas: Deltas) {
        self.item_count.fetch_add(deltas.count, Ordering::Relaxed);
        self.size_bytes.fetch_add(deltas.size, Ordering::Relaxed);
        for (index, count, size) in deltas.indexes {
            index.item_count.fetch_add(count, Ordering::Relaxed);
            index.size_bytes.fetch_add(size, Ordering::Relaxed);
        }
    }
}

/// Item-count and size changes of one staged change, per table and index.
pub(crate) struct Deltas {
    count: i64,
    size: i64,
    indexes: Vec<(Arc<Index>, i64, i64)>,
    /// The sequence number of the change's stream record, in flight until this is dropped
    /// (after the commit, or when it failed).
    stream: Option<crate::stream::Ticket>,
}
