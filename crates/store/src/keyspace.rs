//! [`FjallKeyspace`]: one engine keyspace (a table or an index) as one fjall keyspace.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};

use fjall::AbstractTree;
use monotable_engine::storage::Visitor;
use monotable_engine::{KeyRange, Keyspace, StorageError};
use monotable_types::PackedItem;

use crate::codec::decode_item;
use crate::error::storage_err;

/// A keyspace of a [`crate::FjallStore`]. Reads see a snapshot taken when they start, so a
/// scan sees each committed batch entirely or not at all.
pub struct FjallKeyspace {
    pub(crate) name: String,
    pub(crate) tree: fjall::Keyspace,
    /// Set by `drop_keyspace`; commits naming a dropped keyspace are refused.
    pub(crate) dropped: AtomicBool,
    /// Deletes written since the store opened that may not yet be in a disk table.
    unflushed_deletes: parking_lot::Mutex<UnflushedDeletes>,
}

/// The deletes this process wrote into the keyspace's active memtable and into the one
/// sealed before it, which a flush soon turns into a disk table (whose tombstones fjall
/// counts). A delete is counted in `active` while the memtable it went into is the active
/// one, then in `sealed` until the rotation after that, by when it has normally been flushed.
/// An error in the count errs towards counting a delete twice (in memory and on disk), which
/// only sends a read to the blocking pool sooner.
#[derive(Default)]
struct UnflushedDeletes {
    memtable: u64,
    active: u64,
    sealed: u64,
}

impl UnflushedDeletes {
    /// Moves the counts along when the active memtable is no longer the one counted.
    fn roll(&mut self, memtable: u64) {
        if memtable != self.memtable {
            self.sealed = self.active;
            self.active = 0;
            self.memtable = memtable;
        }
    }
}

impl FjallKeyspace {
    pub(crate) fn new(name: &str, tree: fjall::Keyspace) -> FjallKeyspace {
        let memtable = tree.tree.active_memtable().id();
        FjallKeyspace {
            name: name.to_owned(),
            tree,
            dropped: AtomicBool::new(false),
            unflushed_deletes: parking_lot::Mutex::new(UnflushedDeletes { memtable, ..Default::default() }),
        }
    }

    pub(crate) fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }

    /// Records that a commit deletes one key of this keyspace.
    pub(crate) fn count_delete(&self) {
        let memtable = self.tree.tree.active_memtable().id();
        let mut deletes = self.unflushed_deletes.lock();
        deletes.roll(memtable);
        deletes.active += 1;
    }
}

impl Keyspace for FjallKeyspace {
    fn name(&self) -> &str {
        &self.name
    }

    fn get(&self, key: &[u8]) -> Result<Option<PackedItem>, StorageError> {
        if key.is_empty() {
            return Ok(None);
        }
        match self.tree.get(key).map_err(storage_err)? {
            Some(bytes) => Ok(Some(decode_item(&self.name, key, &bytes)?)),
            None => Ok(None),
        }
    }

    fn scan(&self, range: &KeyRange, visit: &mut Visitor<'_>) -> Result<(), StorageError> {
        if range.is_empty() {
            return Ok(());
        }
        let iter = self.tree.range::<Vec<u8>, _>((range.start.clone(), range.end.clone()));
        let mut step = |guard: fjall::Guard| -> Result<bool, StorageError> {
            let (key, value) = guard.into_inner().map_err(storage_err)?;
            let item = decode_item(&self.name, &key, &value)?;
            Ok(visit(&key, &item))
        };
        if range.reverse {
            for guard in iter.rev() {
                if !step(guard)? {
                    break;
                }
            }
        } else {
            for guard in iter {
                if !step(guard)? {
                    break;
                }
            }
        }
        Ok(())
    }

    /// fjall's count of the tombstones in the keyspace's disk tables, plus the deletes written
    /// since the store opened that may still be in memory. Deletes replayed from the journal
    /// at start are counted once they are flushed to a disk table.
    fn deleted_entries(&self) -> u64 {
        let memtable = self.tree.tree.active_memtable().id();
        let in_memory = {
            let mut deletes = self.unflushed_deletes.lock();
            deletes.roll(memtable);
            deletes.active + deletes.sealed
        };
        self.tree.tree.tombstone_count() + self.tree.tree.weak_tombstone_count() + in_memory
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
