//! The in-memory store: a `BTreeMap` per keyspace under a `parking_lot::RwLock`.
//!
//! Invariant: a commit takes the write locks of all keyspaces it touches, in a global order
//! (by keyspace address), before changing any of them, so a reader holding one keyspace's
//! read lock sees every batch entirely or not at all, and two commits cannot deadlock.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use monotable_types::Item;
use parking_lot::{Mutex, RwLock, RwLockWriteGuard};

use super::{KeyRange, Keyspace, Storage, StorageError, Visitor, WriteBatch};

type Map = BTreeMap<Vec<u8>, Arc<Item>>;

/// One in-memory keyspace.
pub struct MemoryKeyspace {
    name: String,
    map: RwLock<Map>,
}

fn as_ref_bound(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// True when the bounds describe an empty range, which `BTreeMap::range` would panic on.
fn empty_range(range: &KeyRange) -> bool {
    match (&range.start, &range.end) {
        (Bound::Included(s), Bound::Included(e)) => s > e,
        (Bound::Included(s), Bound::Excluded(e))
        | (Bound::Excluded(s), Bound::Included(e))
        | (Bound::Excluded(s), Bound::Excluded(e)) => s >= e,
        _ => false,
    }
}

impl Keyspace for MemoryKeyspace {
    fn name(&self) -> &str {
        &self.name
    }

    fn get(&self, key: &[u8]) -> Result<Option<Arc<Item>>, StorageError> {
        Ok(self.map.read().get(key).cloned())
    }

    fn scan(&self, range: &KeyRange, visit: &mut Visitor<'_>) -> Result<(), StorageError> {
        if empty_range(range) {
            return Ok(());
        }
        let map = self.map.read();
        let bounds = (as_ref_bound(&range.start), as_ref_bound(&range.end));
        let iter = map.range::<[u8], _>(bounds);
        if range.reverse {
            for (k, v) in iter.rev() {
                if !visit(k, v) {
                    break;
                }
            }
        } else {
            for (k, v) in iter {
                if !visit(k, v) {
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

/// The in-memory [`Storage`]. Nothing survives the process.
#[derive(Default)]
pub struct MemoryStorage {
    keyspaces: Mutex<HashMap<String, Arc<MemoryKeyspace>>>,
    catalog: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl MemoryStorage {
    /// An empty store.
    pub fn new() -> MemoryStorage {
        MemoryStorage::default()
    }
}

impl Storage for MemoryStorage {
    fn open_keyspace(&self, name: &str) -> Result<Arc<dyn Keyspace>, StorageError> {
        let mut all = self.keyspaces.lock();
        let ks = all.entry(name.to_owned()).or_insert_with(|| {
            Arc::new(MemoryKeyspace { name: name.to_owned(), map: RwLock::new(Map::new()) })
        });
        Ok(Arc::clone(ks) as Arc<dyn Keyspace>)
    }

    fn drop_keyspace(&self, name: &str) -> Result<(), StorageError> {
        self.keyspaces.lock().remove(name);
        Ok(())
    }

    fn commit(&self, batch: WriteBatch) -> Result<(), StorageError> {
        // Resolve every op to our keyspace type, then lock each distinct keyspace once, in
        // address order.
        let handles: Vec<Arc<dyn Keyspace>> = batch.ops.iter().map(|op| Arc::clone(&op.keyspace)).collect();
        let mut targets: Vec<&MemoryKeyspace> = Vec::with_capacity(handles.len());
        for handle in &handles {
            let ks = handle
                .as_any()
                .downcast_ref::<MemoryKeyspace>()
                .ok_or_else(|| StorageError::NoKeyspace(handle.name().to_owned()))?;
            targets.push(ks);
        }
        let mut order: Vec<*const MemoryKeyspace> = targets.iter().map(|k| *k as *const _).collect();
        order.sort_unstable();
        order.dedup();
        let mut guards: Vec<(*const MemoryKeyspace, RwLockWriteGuard<'_, Map>)> =
            Vec::with_capacity(order.len());
        for ptr in &order {
            // The pointer came from a live reference in `targets`; find that reference again
            // instead of dereferencing the raw pointer.
            if let Some(ks) = targets.iter().find(|k| std::ptr::eq(**k, *ptr)) {
                guards.push((*ptr, ks.map.write()));
            }
        }
        for (op, ks) in batch.ops.into_iter().zip(targets.iter()) {
            let ptr = *ks as *const MemoryKeyspace;
            let Some((_, map)) = guards.iter_mut().find(|(p, _)| *p == ptr) else { continue };
            match op.value {
                Some(v) => {
                    map.insert(op.key, v);
                }
                None => {
                    map.remove(&op.key);
                }
            }
        }
        Ok(())
    }

    fn load_catalog(&self) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        Ok(self.catalog.lock().iter().map(|(k, v)| (k.clone(), v.clone())).collect())
    }

    fn put_catalog(&self, name: &str, value: Option<Vec<u8>>) -> Result<(), StorageError> {
        let mut catalog = self.catalog.lock();
        match value {
            Some(v) => catalog.insert(name.to_owned(), v),
            None => catalog.remove(name),
        };
        Ok(())
    }
}
