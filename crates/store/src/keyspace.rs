//! [`FjallKeyspace`]: one engine keyspace (a table or an index) as one fjall keyspace.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use monotable_engine::storage::Visitor;
use monotable_engine::{KeyRange, Keyspace, StorageError};
use monotable_types::PackedItem;

use crate::error::storage_err;
use crate::memo::ItemMemo;

/// How many items from its start one scan reads through the item memo. Short reads (a Query
/// of a partition, a page of one) are the ones read again; past this point a long one (a
/// full-table Scan, an export) decodes without the memo, so a scan of items read once neither
/// pays a lookup and an insert per item (measured: 4% of a cold data-dir Scan) nor evicts the
/// items read often, as a RocksDB iterator can leave the block cache unfilled.
const SCAN_MEMO: usize = 128;

/// A keyspace of a [`crate::FjallStore`]. Reads see a snapshot taken when they start, so a
/// scan sees each committed batch entirely or not at all.
pub struct FjallKeyspace {
    pub(crate) name: String,
    pub(crate) tree: fjall::Keyspace,
    /// Set by `drop_keyspace`; commits naming a dropped keyspace are refused.
    pub(crate) dropped: AtomicBool,
    /// This keyspace's number in the store's item memo (unique among its open keyspaces).
    serial: u64,
    memo: Arc<ItemMemo>,
}

impl FjallKeyspace {
    pub(crate) fn new(name: &str, tree: fjall::Keyspace, serial: u64, memo: Arc<ItemMemo>) -> FjallKeyspace {
        FjallKeyspace { name: name.to_owned(), tree, dropped: AtomicBool::new(false), serial, memo }
    }

    /// This keyspace's number in the item memo.
    pub(crate) fn serial(&self) -> u64 {
        self.serial
    }

    fn decode(&self, key: &[u8], value: &[u8], consult: bool) -> Result<PackedItem, StorageError> {
        self.memo.decode(self.serial, &self.name, key, value, consult)
    }

    pub(crate) fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
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
            Some(bytes) => Ok(Some(self.decode(key, &bytes, true)?)),
            None => Ok(None),
        }
    }

    fn scan(&self, range: &KeyRange, visit: &mut Visitor<'_>) -> Result<(), StorageError> {
        if range.is_empty() {
            return Ok(());
        }
        let iter = self.tree.range::<Vec<u8>, _>((range.start.clone(), range.end.clone()));
        let mut read = 0usize;
        let mut step = |guard: fjall::Guard| -> Result<bool, StorageError> {
            let (key, value) = guard.into_inner().map_err(storage_err)?;
            let item = self.decode(&key, &value, read < SCAN_MEMO)?;
            read += 1;
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

    fn as_any(&self) -> &dyn Any {
        self
    }
}
