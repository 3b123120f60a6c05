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
use smallvec::SmallVec;

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

impl Keyspace for MemoryKeyspace {
    fn name(&self) -> &str {
        &self.name
    }

    fn get(&self, key: &[u8]) -> Result<Option<Arc<Item>>, StorageError> {
        Ok(self.map.read().get(key).cloned())
    }

    fn scan(&self, range: &KeyRange, visit: &mut Visitor<'_>) -> Result<(), StorageError> {
        if range.is_empty() {
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
        // The distinct keyspaces of the batch (an item write touches the table and a few
        // indexes: no heap allocation below five), in address order, which is the lock order.
        let addr = |k: &Arc<dyn Keyspace>| Arc::as_ptr(k) as *const () as usize;
        let mut distinct: SmallVec<[Arc<dyn Keyspace>; 4]> = SmallVec::new();
        for op in &batch.ops {
            if !distinct.iter().any(|k| addr(k) == addr(&op.keyspace)) {
                distinct.push(Arc::clone(&op.keyspace));
            }
        }
        distinct.sort_unstable_by_key(addr);
        let mut targets: SmallVec<[&MemoryKeyspace; 4]> = SmallVec::new();
        for handle in &distinct {
            let ks = handle
                .as_any()
                .downcast_ref::<MemoryKeyspace>()
                .ok_or_else(|| StorageError::NoKeyspace(handle.name().to_owned()))?;
            targets.push(ks);
        }
        let mut guards: SmallVec<[RwLockWriteGuard<'_, Map>; 4]> =
            targets.iter().map(|ks| ks.map.write()).collect();
        for op in batch.ops {
            let Some(slot) = distinct.iter().position(|k| addr(k) == addr(&op.keyspace)) else { continue };
            let map = &mut guards[slot];
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

#[cfg(test)]
mod tests {
    use super::*;

    fn item(v: &str) -> Arc<Item> {
        Arc::new(Item::from([("v".to_owned(), monotable_types::AttributeValue::from(v))]))
    }

    fn keys(ks: &Arc<dyn Keyspace>, range: KeyRange) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        ks.scan(&range, &mut |k, _| {
            out.push(k.to_vec());
            true
        })
        .unwrap();
        out
    }

    #[test]
    fn a_batch_spans_keyspaces_and_scans_run_both_ways() {
        let s = MemoryStorage::new();
        let a = s.open_keyspace("a").unwrap();
        let b = s.open_keyspace("b").unwrap();
        let mut batch = WriteBatch::default();
        for k in [1u8, 3, 2] {
            batch.put(&a, vec![k], item("x"));
        }
        batch.put(&b, vec![9], item("y"));
        s.commit(batch).unwrap();
        let all = KeyRange { start: Bound::Unbounded, end: Bound::Unbounded, reverse: false };
        assert_eq!(keys(&a, all.clone()), vec![vec![1], vec![2], vec![3]]);
        assert_eq!(keys(&a, KeyRange { reverse: true, ..all.clone() }), vec![vec![3], vec![2], vec![1]]);
        let from =
            KeyRange { start: Bound::Excluded(vec![1]), end: Bound::Excluded(vec![3]), reverse: false };
        assert_eq!(keys(&a, from), vec![vec![2]]);
        assert_eq!(b.get(&[9]).unwrap().as_deref(), Some(&*item("y")));
        let mut del = WriteBatch::default();
        del.delete(&a, vec![2]);
        s.commit(del).unwrap();
        assert!(a.get(&[2]).unwrap().is_none());
    }

    #[test]
    fn an_inverted_range_is_empty_not_a_panic() {
        let s = MemoryStorage::new();
        let a = s.open_keyspace("a").unwrap();
        let r = KeyRange { start: Bound::Included(vec![5]), end: Bound::Excluded(vec![1]), reverse: false };
        assert!(keys(&a, r).is_empty());
    }

    #[test]
    fn the_catalog_round_trips() {
        let s = MemoryStorage::new();
        s.put_catalog("t", Some(b"x".to_vec())).unwrap();
        assert_eq!(s.load_catalog().unwrap(), vec![("t".to_owned(), b"x".to_vec())]);
        s.put_catalog("t", None).unwrap();
        assert!(s.load_catalog().unwrap().is_empty());
    }
}
