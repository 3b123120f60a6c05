//! The in-memory store: per keyspace, an ordered map for scans and a hash table for point
//! reads and writes, both under one `parking_lot::RwLock`.
//!
//! Invariant: a commit takes the write locks of all keyspaces it touches, in a global order
//! (by keyspace address), before changing any of them, so a reader holding one keyspace's
//! read lock sees every batch entirely or not at all, and two commits cannot deadlock.
//!
//! Why two structures: a `BTreeMap` lookup compares the probe with a dozen or more keys, each
//! behind its own heap pointer, and an item write made three of them (read the old item, put
//! the new one, put its index entry). Entries (key and item) therefore live in hash tables
//! (`entry_table.rs`), which point operations use; the ordered map takes a key to its short
//! hash, with which a scan finds the entry in its table by pointer, without hashing or
//! comparing the key. Replacing an existing item (every update, every overwrite, every index
//! entry whose key did not change) touches only the hash table; only inserts and deletes
//! change the ordered map.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;
use std::ops::Bound;
use std::sync::Arc;

use hashbrown::DefaultHashBuilder;
use monotable_types::PackedItem;
use parking_lot::{Mutex, RwLock, RwLockWriteGuard};
use smallvec::SmallVec;
use triomphe::ThinArc;

use super::{KeyRange, Keyspace, Storage, StorageError, Visitor, WriteBatch};

mod entry_table;
use entry_table::{Entry, EntryTable};

/// A stored key, shared by the ordered map and the key's table entry: one allocation holding a
/// reference count, the length and the bytes, behind a one-word pointer (a `std` `Arc<[u8]>`
/// would carry the length in a second word beside every copy of the pointer).
type SharedKey = ThinArc<(), u8>;

fn share(key: &[u8]) -> SharedKey {
    ThinArc::from_header_and_slice((), key)
}

/// A key of the ordered map: the key's first sixteen bytes as two big-endian numbers
/// (zero-padded) beside the shared key, so most comparisons are integer comparisons instead
/// of a `memcmp` behind a pointer. Sixteen bytes, not eight: keys of one partition, and index
/// keys of one index partition, share their first eight bytes more often than not (`ORG#12…`,
/// a GSI partition value plus a sort key prefix), and a `memcmp` behind a pointer is a cache
/// miss on a table larger than the cache. The two words and the thin pointer take 24 bytes,
/// as an eight-byte head beside a fat `Arc<[u8]>` did.
///
/// Invariant: the order is exactly the bytewise order of `key`. The head only decides when the
/// heads differ, and then the keys differ in the same direction: at the first differing byte
/// of the padded heads either both keys have a real byte, or the shorter key has ended (a
/// padding zero) and is a prefix of the other, hence smaller. That is also why `Borrow<[u8]>`
/// is sound: looking up by `&[u8]` sees the same order.
#[derive(Clone)]
struct OrderKey {
    head: [u64; 2],
    key: SharedKey,
}

impl OrderKey {
    fn new(key: SharedKey) -> OrderKey {
        let mut head = [0u8; 16];
        let bytes = &key.slice;
        let n = bytes.len().min(16);
        head[..n].copy_from_slice(&bytes[..n]);
        let head = u128::from_be_bytes(head);
        OrderKey { head: [(head >> 64) as u64, head as u64], key }
    }
}

impl PartialEq for OrderKey {
    fn eq(&self, other: &OrderKey) -> bool {
        self.head == other.head && self.key.slice == other.key.slice
    }
}

impl Eq for OrderKey {}

impl PartialOrd for OrderKey {
    fn partial_cmp(&self, other: &OrderKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderKey {
    fn cmp(&self, other: &OrderKey) -> std::cmp::Ordering {
        self.head.cmp(&other.head).then_with(|| self.key.slice.cmp(&other.key.slice))
    }
}

impl std::borrow::Borrow<[u8]> for OrderKey {
    fn borrow(&self) -> &[u8] {
        &self.key.slice
    }
}

/// The hash table is split into this many tables by the low bits of the key's short hash.
const SHARD_BITS: u32 = 6;
const SHARDS: usize = 1 << SHARD_BITS;

/// A key's short hash: the high half of its 64-bit hash. Its low [`SHARD_BITS`] bits choose
/// the shard, and the shard's table keeps all 32 beside the entry. The ordered map keeps it
/// too (32 bits: an ordered-map node is 320 bytes where a `usize` would make it 364, a
/// 384-byte allocation), so that a scan goes from a key to its entry without hashing.
#[derive(Clone, Copy)]
struct KeyHash {
    short: u32,
}

impl KeyHash {
    fn of(hasher: &DefaultHashBuilder, key: &[u8]) -> KeyHash {
        KeyHash { short: (hasher.hash_one(key) >> 32) as u32 }
    }

    fn shard(self) -> usize {
        self.short as usize % SHARDS
    }
}

/// The contents of one keyspace.
///
/// Invariant: `order` and `by_key` hold the same keys: `order[k] == h` exactly when the
/// table of `h`'s shard in `by_key` holds an entry with short hash `h` whose key is the very
/// allocation `order` holds for `k`, and `h` is `k`'s short hash.
///
/// Why shards: growing a hash table moves every entry. One table of a million entries stalled
/// every reader and writer of the keyspace at each doubling (measured when growing still read
/// every key: 97 ms at 229k entries, 222 ms at 459k, 525 ms at 918k). With 64 tables a
/// doubling moves 1/64 of the entries, and an entry carries its key's short hash, so growing
/// reads no key: no single write pays for the keyspace's growth.
#[derive(Default)]
struct Map {
    order: BTreeMap<OrderKey, u32>,
    /// `SHARDS` tables once the keyspace holds anything, none before.
    by_key: Vec<EntryTable>,
    hasher: DefaultHashBuilder,
}

impl Map {
    /// The entry for the key that `order` holds as `key`, with short hash `short`: found by
    /// comparing pointers, not bytes (see the invariant).
    fn entry_of(&self, short: u32, key: &SharedKey) -> Option<&Entry> {
        let table = self.by_key.get(KeyHash { short }.shard())?;
        table.find(short, |e| std::ptr::eq(e.key.as_ptr(), key.as_ptr()))
    }

    /// The item stored under `key`. It warms each candidate entry's item before comparing the
    /// key: the key and the item are two separate allocations, each a cache miss on a
    /// keyspace larger than the cache, and this way their fetches overlap instead of
    /// following each other (measured: the item's miss was a sixth of a GetItem's time in
    /// the store).
    fn get(&self, key: &[u8]) -> Option<&PackedItem> {
        let hash = KeyHash::of(&self.hasher, key);
        let table = self.by_key.get(hash.shard())?;
        let found = table.find(hash.short, |e| {
            e.item.warm();
            e.key.slice == *key
        })?;
        Some(&found.item)
    }

    /// How many entries the keyspace holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_key.iter().map(EntryTable::len).sum()
    }

    fn put(&mut self, key: Vec<u8>, item: PackedItem) {
        let hash = KeyHash::of(&self.hasher, &key);
        if self.by_key.is_empty() {
            self.by_key = (0..SHARDS).map(|_| EntryTable::default()).collect();
        }
        let Some(table) = self.by_key.get_mut(hash.shard()) else { return };
        if let Some(e) = table.find_mut(hash.short, |e| e.key.slice == *key) {
            e.item = item;
            return;
        }
        let key = share(&key);
        table.insert(Entry { short: hash.short, key: key.clone(), item });
        self.order.insert(OrderKey::new(key), hash.short);
    }

    fn delete(&mut self, key: &[u8]) {
        let hash = KeyHash::of(&self.hasher, key);
        let Some(table) = self.by_key.get_mut(hash.shard()) else { return };
        if table.remove(hash.short, |e| e.key.slice == *key).is_none() {
            return;
        }
        self.order.remove(key);
        // A keyspace emptied by deletes gives its hash tables back.
        if self.order.is_empty() {
            *self = Map { hasher: self.hasher, ..Map::default() };
        }
    }
}

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

    fn get(&self, key: &[u8]) -> Result<Option<PackedItem>, StorageError> {
        Ok(self.map.read().get(key).cloned())
    }

    fn scan(&self, range: &KeyRange, visit: &mut Visitor<'_>) -> Result<(), StorageError> {
        if range.is_empty() {
            return Ok(());
        }
        let map = self.map.read();
        let bounds = (as_ref_bound(&range.start), as_ref_bound(&range.end));
        let iter = map.order.range::<[u8], _>(bounds);
        let mut visit_entry = |key: &OrderKey, short: u32| match map.entry_of(short, &key.key) {
            Some(e) => visit(&e.key.slice, &e.item),
            None => true,
        };
        if range.reverse {
            for (key, &short) in iter.rev() {
                if !visit_entry(key, short) {
                    break;
                }
            }
        } else {
            for (key, &short) in iter {
                if !visit_entry(key, short) {
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
            Arc::new(MemoryKeyspace { name: name.to_owned(), map: RwLock::new(Map::default()) })
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
            let Some(at) = distinct.iter().position(|k| addr(k) == addr(&op.keyspace)) else { continue };
            let map = &mut guards[at];
            match op.value {
                Some(v) => map.put(op.key, v),
                None => map.delete(&op.key),
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
    use monotable_types::Item;

    fn item(v: &str) -> PackedItem {
        PackedItem::encode(&Item::from([("v".to_owned(), monotable_types::AttributeValue::from(v))]))
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
        assert_eq!(b.get(&[9]).unwrap().as_ref(), Some(&item("y")));
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
    fn replacing_an_item_keeps_one_entry() {
        let s = MemoryStorage::new();
        let a = s.open_keyspace("a").unwrap();
        for v in ["x", "y"] {
            let mut batch = WriteBatch::default();
            batch.put(&a, vec![1], item(v));
            s.commit(batch).unwrap();
        }
        let all = KeyRange { start: Bound::Unbounded, end: Bound::Unbounded, reverse: false };
        assert_eq!(keys(&a, all.clone()), vec![vec![1]]);
        assert_eq!(a.get(&[1]).unwrap().as_ref(), Some(&item("y")));
        let mut batch = WriteBatch::default();
        batch.delete(&a, vec![1]);
        batch.put(&a, vec![2], item("z"));
        s.commit(batch).unwrap();
        assert_eq!(keys(&a, all), vec![vec![2]]);
        assert!(a.get(&[1]).unwrap().is_none());
        let ks = a.as_any().downcast_ref::<MemoryKeyspace>().unwrap();
        assert_eq!(ks.map.read().len(), 1);
    }

    /// The sizes the memory-per-item figures rest on: an ordered-map key of three words (a
    /// 16-byte head and a thin pointer) and a hash table place of three (the short hash, the
    /// thin key and the thin item).
    #[test]
    fn an_order_key_and_a_table_place_take_three_words_each() {
        assert_eq!(std::mem::size_of::<OrderKey>(), 24);
        assert_eq!(std::mem::size_of::<Option<Entry>>(), 24);
    }

    proptest::proptest! {
        /// The ordered map's keys compare exactly as their bytes do, whatever their lengths
        /// (zero bytes and prefixes included, where the padded heads tie).
        #[test]
        fn order_keys_compare_as_their_bytes(
            a in proptest::collection::vec(proptest::sample::select(vec![0u8, 1, 255]), 0..24),
            b in proptest::collection::vec(proptest::sample::select(vec![0u8, 1, 255]), 0..24),
        ) {
            let (x, y) = (OrderKey::new(share(&a)), OrderKey::new(share(&b)));
            proptest::prop_assert_eq!(x.cmp(&y), a.cmp(&b));
            proptest::prop_assert_eq!(x == y, a == b);
        }
    }

    proptest::proptest! {
        /// The keyspace agrees with a `BTreeMap` after any sequence of batched puts and
        /// deletes: point reads, scans in both directions and bounded scans.
        #[test]
        fn the_keyspace_agrees_with_a_btreemap(
            batches in proptest::collection::vec(
                proptest::collection::vec((0u8..24, proptest::option::of(0u8..4)), 1..6),
                1..40,
            ),
            low in 0u8..24,
            high in 0u8..24,
        ) {
            let s = MemoryStorage::new();
            let a = s.open_keyspace("a").unwrap();
            let mut model: BTreeMap<Vec<u8>, PackedItem> = BTreeMap::new();
            for ops in batches {
                let mut batch = WriteBatch::default();
                for (k, v) in ops {
                    let key = vec![k / 8, k];
                    match v {
                        Some(v) => {
                            let value = item(&v.to_string());
                            batch.put(&a, key.clone(), value.clone());
                            model.insert(key, value);
                        }
                        None => {
                            batch.delete(&a, key.clone());
                            model.remove(&key);
                        }
                    }
                }
                s.commit(batch).unwrap();
                for k in 0u8..24 {
                    let key = vec![k / 8, k];
                    proptest::prop_assert_eq!(a.get(&key).unwrap(), model.get(&key).cloned());
                }
            }
            let entries = |range: KeyRange| {
                let mut out = Vec::new();
                a.scan(&range, &mut |k, v| {
                    out.push((k.to_vec(), v.clone()));
                    true
                })
                .unwrap();
                out
            };
            let all = KeyRange { start: Bound::Unbounded, end: Bound::Unbounded, reverse: false };
            let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            proptest::prop_assert_eq!(entries(all.clone()), want.clone());
            let mut reversed = want;
            reversed.reverse();
            proptest::prop_assert_eq!(entries(KeyRange { reverse: true, ..all }), reversed);
            let (start, end) = (vec![low / 8, low], vec![high / 8, high]);
            let bounded = KeyRange {
                start: Bound::Included(start.clone()),
                end: Bound::Excluded(end.clone()),
                reverse: false,
            };
            let want: Vec<_> = if start < end {
                model.range(start..end).map(|(k, v)| (k.clone(), v.clone())).collect()
            } else {
                Vec::new()
            };
            proptest::prop_assert_eq!(entries(bounded), want);
        }
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
