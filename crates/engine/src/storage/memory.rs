//! The in-memory store: per keyspace, an ordered map for scans and a hash table for point
//! reads and writes, both under one `parking_lot::RwLock`.
//!
//! Invariant: a commit takes the write locks of all keyspaces it touches, in a global order
//! (by keyspace address), before changing any of them, so a reader holding one keyspace's
//! read lock sees every batch entirely or not at all, and two commits cannot deadlock.
//!
//! Why two structures: a `BTreeMap` lookup compares the probe with a dozen or more keys, each
//! behind its own heap pointer, and an item write made three of them (read the old item, put
//! the new one, put its index entry). Items therefore live in slots; the ordered map takes a
//! key to its slot for scans, and a hash table takes it there for point operations. Replacing
//! an existing item (every update, every overwrite, every index entry whose key did not change)
//! touches only the hash table and the slot; only inserts and deletes change the ordered map.

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

mod slot_table;
use slot_table::SlotTable;

/// A stored key, shared by the ordered map and the key's slot: one allocation holding a
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

/// A slot number. 32 bits, not `usize`: the ordered map and the hash table hold one per entry,
/// and the narrower value makes an ordered-map node 320 bytes instead of 364 (a 384-byte
/// allocation) and the hash table half as large. `commit` refuses a batch that would need
/// slot `u32::MAX` before changing anything (billions of entries: beyond any memory in
/// practice); that number marks a free place in a shard's [`SlotTable`].
type Slot = u32;

/// One stored entry. The key is shared with the ordered map (one allocation).
struct Entry {
    key: SharedKey,
    item: PackedItem,
}

/// Slots are kept in chunks of this many, allocated whole and never moved.
const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;

/// The hash table is split into this many tables by the low six bits of the key's hash.
const SHARDS: usize = 64;

/// A key's hash, split in two: the shard (the low bits) and the 32 bits the shard's table
/// works with (the high half), which the table keeps beside each slot.
#[derive(Clone, Copy)]
struct KeyHash {
    shard: usize,
    short: u32,
}

impl KeyHash {
    fn of(hasher: &DefaultHashBuilder, key: &[u8]) -> KeyHash {
        let full = hasher.hash_one(key);
        KeyHash { shard: full as usize % SHARDS, short: (full >> 32) as u32 }
    }
}

/// The contents of one keyspace.
///
/// Invariant: `order`, `by_key` and the occupied slots hold the same keys: `order[k] == s`
/// exactly when the shard of `k`'s hash in `by_key` holds slot `s` under `k`'s short hash,
/// and slot `s` is `Some` with key `k`. `free` lists the `None` slots, each once.
///
/// Why shards and chunks: growing a hash table rehashes and moves every entry. One table of a
/// million entries, when rehashing still read every key through its slot, stalled every reader
/// and writer of the keyspace for half a second at each doubling (measured: 97 ms at 229k
/// entries, 222 ms at 459k, 525 ms at 918k, on top of a 24 MB copy of the slot vector). With
/// 64 tables a doubling moves 1/64 of the entries, a table's entry carries the key's short
/// hash so no key is read, and slots live in fixed chunks that are never copied, so no single
/// write pays for the keyspace's growth.
#[derive(Default)]
struct Map {
    order: BTreeMap<OrderKey, Slot>,
    /// `SHARDS` tables once the keyspace holds anything, none before.
    by_key: Vec<SlotTable>,
    chunks: Vec<Vec<Option<Entry>>>,
    /// Slots handed out so far (occupied or free): the next new slot number.
    used: usize,
    free: Vec<Slot>,
    hasher: DefaultHashBuilder,
}

/// The entry in slot `s`, if it is occupied. A free function, not a method, so that the hash
/// table's closures can read the slots while a table itself is borrowed mutably.
fn occupied(chunks: &[Vec<Option<Entry>>], s: Slot) -> Option<&Entry> {
    let s = s as usize;
    chunks.get(s >> CHUNK_BITS).and_then(|c| c.get(s & (CHUNK - 1))).and_then(Option::as_ref)
}

/// Whether slot `s` holds `key`.
fn holds(chunks: &[Vec<Option<Entry>>], s: Slot, key: &[u8]) -> bool {
    occupied(chunks, s).is_some_and(|e| e.key.slice == *key)
}

impl Map {
    fn entry(&self, slot: Slot) -> Option<&Entry> {
        occupied(&self.chunks, slot)
    }

    fn place(&mut self, slot: Slot) -> Option<&mut Option<Entry>> {
        let s = slot as usize;
        self.chunks.get_mut(s >> CHUNK_BITS).and_then(|c| c.get_mut(s & (CHUNK - 1)))
    }

    fn slot_of(&self, hash: KeyHash, key: &[u8]) -> Option<Slot> {
        let table = self.by_key.get(hash.shard)?;
        table.find(hash.short, |s| holds(&self.chunks, s, key))
    }

    /// The item stored under `key`. Unlike [`Map::slot_of`], it warms the candidate entry's
    /// item before comparing the key: the key and the item are two separate allocations, each
    /// a cache miss on a keyspace larger than the cache, and this way their fetches overlap
    /// instead of following each other (measured: the item's miss was a sixth of a GetItem's
    /// time in the store).
    fn get(&self, key: &[u8]) -> Option<&PackedItem> {
        let hash = KeyHash::of(&self.hasher, key);
        let table = self.by_key.get(hash.shard)?;
        let chunks = &self.chunks;
        let found = table.find(hash.short, |s| {
            occupied(chunks, s).is_some_and(|e| {
                e.item.warm();
                e.key.slice == *key
            })
        })?;
        self.entry(found).map(|e| &e.item)
    }

    /// Slots handed out so far; `commit` checks that new ones still fit a [`Slot`].
    fn slots_used(&self) -> usize {
        self.used
    }

    fn put(&mut self, key: Vec<u8>, item: PackedItem) {
        let hash = KeyHash::of(&self.hasher, &key);
        if let Some(slot) = self.slot_of(hash, &key) {
            if let Some(Some(e)) = self.place(slot) {
                e.item = item;
            }
            return;
        }
        let key = share(&key);
        let entry = Some(Entry { key: key.clone(), item });
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                // `commit` checked that the new slot number fits (see `Slot`).
                let s = self.used as Slot;
                self.used += 1;
                // The first chunk grows as a vector does (a keyspace of a few items stays
                // small); every later one is allocated whole.
                if self.chunks.last().is_none_or(|c| c.len() == CHUNK) {
                    let capacity = if self.chunks.is_empty() { 0 } else { CHUNK };
                    self.chunks.push(Vec::with_capacity(capacity));
                }
                if let Some(chunk) = self.chunks.last_mut() {
                    chunk.push(None);
                }
                s
            }
        };
        if let Some(place) = self.place(slot) {
            *place = entry;
        }
        if self.by_key.is_empty() {
            self.by_key = (0..SHARDS).map(|_| SlotTable::default()).collect();
        }
        if let Some(table) = self.by_key.get_mut(hash.shard) {
            table.insert(hash.short, slot);
        }
        self.order.insert(OrderKey::new(key), slot);
    }

    fn delete(&mut self, key: &[u8]) {
        let hash = KeyHash::of(&self.hasher, key);
        let chunks = &self.chunks;
        let Some(table) = self.by_key.get_mut(hash.shard) else { return };
        let Some(slot) = table.remove(hash.short, |s| holds(chunks, s, key)) else { return };
        if let Some(place) = self.place(slot) {
            *place = None;
        }
        self.free.push(slot);
        self.order.remove(key);
        // A keyspace emptied by deletes gives its slots and hash tables back.
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
        let mut visit_slot = |slot: Slot| match map.entry(slot) {
            Some(e) => visit(&e.key.slice, &e.item),
            None => true,
        };
        if range.reverse {
            for (_, &slot) in iter.rev() {
                if !visit_slot(slot) {
                    break;
                }
            }
        } else {
            for (_, &slot) in iter {
                if !visit_slot(slot) {
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
        // Every new entry may need a new slot number: refuse the batch whole, before any
        // change, if one could fail to fit (see `Slot`).
        let puts = batch.ops.iter().filter(|op| op.value.is_some()).count() as u64;
        if guards.iter().any(|g| g.slots_used() as u64 + puts > u64::from(Slot::MAX)) {
            return Err(StorageError::Io("an in-memory keyspace holds at most 2^32 - 1 entries".to_owned()));
        }
        for op in batch.ops {
            let Some(slot) = distinct.iter().position(|k| addr(k) == addr(&op.keyspace)) else { continue };
            let map = &mut guards[slot];
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
    fn replacing_an_item_keeps_one_entry_and_deleted_slots_are_reused() {
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
        assert_eq!(ks.map.read().slots_used(), 1, "the freed slot was reused");
    }

    /// The sizes the memory-per-item figures rest on: an ordered-map key of three words (a
    /// 16-byte head and a thin pointer) and a slot of three (the thin key and the item).
    #[test]
    fn an_order_key_and_a_slot_take_three_words_each() {
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
