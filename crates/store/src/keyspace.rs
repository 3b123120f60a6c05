//! [`FjallKeyspace`]: one engine keyspace (a table or an index) as one fjall keyspace.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};

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
}

impl FjallKeyspace {
    pub(crate) fn new(name: &str, tree: fjall::Keyspace) -> FjallKeyspace {
        FjallKeyspace { name: name.to_owned(), tree, dropped: AtomicBool::new(false) }
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

    fn as_any(&self) -> &dyn Any {
        self
    }
}
