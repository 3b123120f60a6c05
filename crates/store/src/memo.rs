//! [`ItemMemo`]: a bounded memo of stored items already checked and unpacked, so that reading
//! an item again costs a hash lookup and a byte comparison instead of the value's CRC and
//! `PackedItem::from_bytes`'s validating walk (about 1,600 instructions for a 256-byte item,
//! a fifth of a 25-item Query on the data directory).
//!
//! Invariant: the memo never decides what an item *is*. A read always takes the value bytes
//! from fjall first; a memoized item is used only when its packed bytes are exactly the
//! value's payload (version 2), so it is the item `from_bytes` would return for them. A stale
//! entry (the key was overwritten or deleted since) therefore cannot be returned: its bytes
//! differ, and the read decodes and checks the stored value as if the memo were empty. Only
//! the value's stored CRC is not recomputed on a hit, and a hit means the payload is
//! byte-for-byte one that was checked against its CRC before.
//!
//! Memory: at most `StoreOptions::item_cache_bytes`, counted as key plus packed bytes plus a
//! fixed overhead per entry; 0 turns the memo off.

use std::hash::{Hash, Hasher};

use monotable_engine::StorageError;
use monotable_types::PackedItem;
use quick_cache::sync::Cache;
use quick_cache::{Equivalent, Weighter};

use crate::codec::{decode_item, memo_payload};

/// Bytes charged per entry beyond its key and packed bytes: the cache's slot, the key's and
/// the item's allocation headers.
const ENTRY_OVERHEAD: u64 = 96;
/// The memo's sizing guess for the mean entry (key, 256-byte item, overhead).
const TYPICAL_ENTRY: u64 = 400;

/// A memo key: the keyspace's serial number (unique among the store's open keyspaces, never
/// reused) and the storage key.
struct MemoKey {
    keyspace: u64,
    key: Box<[u8]>,
}

/// A lookup key that borrows the storage key; hashes and compares as the [`MemoKey`] it
/// stands for.
struct Probe<'a> {
    keyspace: u64,
    key: &'a [u8],
}

fn hash_parts<H: Hasher>(keyspace: u64, key: &[u8], state: &mut H) {
    state.write_u64(keyspace);
    state.write(key);
}

impl Hash for MemoKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_parts(self.keyspace, &self.key, state);
    }
}

impl PartialEq for MemoKey {
    fn eq(&self, other: &MemoKey) -> bool {
        self.keyspace == other.keyspace && self.key == other.key
    }
}

impl Eq for MemoKey {}

impl Hash for Probe<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_parts(self.keyspace, self.key, state);
    }
}

impl Equivalent<MemoKey> for Probe<'_> {
    fn equivalent(&self, key: &MemoKey) -> bool {
        self.keyspace == key.keyspace && *self.key == *key.key
    }
}

#[derive(Clone)]
struct ByBytes;

impl Weighter<MemoKey, PackedItem> for ByBytes {
    fn weight(&self, key: &MemoKey, item: &PackedItem) -> u64 {
        (key.key.len() + item.as_bytes().len()) as u64 + ENTRY_OVERHEAD
    }
}

/// See the module documentation.
pub(crate) struct ItemMemo {
    cache: Option<Cache<MemoKey, PackedItem, ByBytes>>,
}

impl ItemMemo {
    /// A memo of at most `bytes` (none at all for 0).
    pub(crate) fn new(bytes: u64) -> ItemMemo {
        let cache = (bytes > 0).then(|| {
            let items = usize::try_from((bytes / TYPICAL_ENTRY).max(16)).unwrap_or(usize::MAX);
            Cache::with_weighter(items, bytes, ByBytes)
        });
        ItemMemo { cache }
    }

    /// The item stored as `value` under `key` of keyspace `name` (serial `keyspace`):
    /// the memoized item when its bytes are the value's payload, else the value decoded and
    /// checked by [`decode_item`] and memoized. With `consult` unset it is decoded without
    /// the memo, which costs a miss nothing.
    pub(crate) fn decode(
        &self,
        keyspace: u64,
        name: &str,
        key: &[u8],
        value: &[u8],
        consult: bool,
    ) -> Result<PackedItem, StorageError> {
        let Some(cache) = self.cache.as_ref().filter(|_| consult) else {
            return decode_item(name, key, value);
        };
        let probe = Probe { keyspace, key };
        if let (Some(payload), Some(item)) = (memo_payload(value), cache.get(&probe)) {
            if item.as_bytes() == payload {
                return Ok(item);
            }
        }
        let item = decode_item(name, key, value)?;
        cache.insert(MemoKey { keyspace, key: key.into() }, item.clone());
        Ok(item)
    }

    /// Whether the memo holds anything at all (a budget above 0).
    pub(crate) fn is_on(&self) -> bool {
        self.cache.is_some()
    }

    /// Records that `item` was just committed under `key` of keyspace `keyspace`, so the next
    /// read of it (a write's read of the old item, most often) needs no check. Called after
    /// the commit succeeded; a later commit of other bytes only makes the entry stale.
    pub(crate) fn remember(&self, keyspace: u64, key: Box<[u8]>, item: PackedItem) {
        if let Some(cache) = &self.cache {
            cache.insert(MemoKey { keyspace, key }, item);
        }
    }

    /// Forgets `key` of keyspace `keyspace` (it was deleted): only to give the bytes back, since
    /// a stale entry is never returned.
    pub(crate) fn forget(&self, keyspace: u64, key: &[u8]) {
        if let Some(cache) = &self.cache {
            cache.remove(&Probe { keyspace, key });
        }
    }

    /// Entries held (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.cache.as_ref().map_or(0, Cache::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encode_item;
    use monotable_types::{AttributeValue, Item};

    fn item(v: &str) -> PackedItem {
        PackedItem::encode(&Item::from([("v".to_owned(), AttributeValue::from(v))]))
    }

    #[test]
    fn a_second_read_of_the_same_bytes_is_the_memoized_item() {
        let memo = ItemMemo::new(1 << 20);
        let stored = encode_item(&item("x"));
        let first = memo.decode(1, "t", b"k", &stored, true).unwrap();
        let second = memo.decode(1, "t", b"k", &stored, true).unwrap();
        assert_eq!(first, item("x"));
        assert_eq!(first.as_bytes().as_ptr(), second.as_bytes().as_ptr(), "the same allocation");
        assert_eq!(memo.len(), 1);
    }

    #[test]
    fn an_overwritten_value_is_read_as_stored_not_as_memoized() {
        let memo = ItemMemo::new(1 << 20);
        memo.decode(1, "t", b"k", &encode_item(&item("old")), true).unwrap();
        let now = memo.decode(1, "t", b"k", &encode_item(&item("new")), true).unwrap();
        assert_eq!(now, item("new"));
        // Another keyspace's key of the same bytes is another entry.
        let other = memo.decode(2, "u", b"k", &encode_item(&item("other")), true).unwrap();
        assert_eq!(other, item("other"));
        assert_eq!(memo.decode(1, "t", b"k", &encode_item(&item("new")), true).unwrap(), item("new"));
    }

    #[test]
    fn a_damaged_value_is_refused_even_when_its_key_is_memoized() {
        let memo = ItemMemo::new(1 << 20);
        let mut stored = encode_item(&item("abc"));
        memo.decode(1, "t", b"k", &stored, true).unwrap();
        let last = stored.len() - 2;
        stored[last] ^= 0x40;
        let err = memo.decode(1, "t", b"k", &stored, true).expect_err("corrupt");
        assert!(err.to_string().contains("checksum mismatch"), "{err}");
    }

    #[test]
    fn a_remembered_write_is_read_back_without_a_decode_and_a_forgotten_one_is_gone() {
        let memo = ItemMemo::new(1 << 20);
        let written = item("w");
        memo.remember(1, b"k".as_slice().into(), written.clone());
        let read = memo.decode(1, "t", b"k", &encode_item(&written), true).unwrap();
        assert_eq!(read.as_bytes().as_ptr(), written.as_bytes().as_ptr(), "the committed allocation");
        memo.forget(1, b"k");
        assert_eq!(memo.len(), 0);
    }

    #[test]
    fn a_read_that_does_not_consult_the_memo_neither_uses_nor_fills_it() {
        let memo = ItemMemo::new(1 << 20);
        let stored = encode_item(&item("x"));
        assert_eq!(memo.decode(1, "t", b"k", &stored, false).unwrap(), item("x"));
        assert_eq!(memo.len(), 0);
        let filled = memo.decode(1, "t", b"k", &stored, true).unwrap();
        let apart = memo.decode(1, "t", b"k", &stored, false).unwrap();
        assert_eq!(apart, filled);
        assert_ne!(apart.as_bytes().as_ptr(), filled.as_bytes().as_ptr(), "decoded again");
    }

    #[test]
    fn a_memo_of_zero_bytes_holds_nothing_and_still_decodes() {
        let memo = ItemMemo::new(0);
        let stored = encode_item(&item("x"));
        assert_eq!(memo.decode(1, "t", b"k", &stored, true).unwrap(), item("x"));
        assert_eq!(memo.len(), 0);
    }

    #[test]
    fn the_memo_stays_within_its_byte_budget() {
        let memo = ItemMemo::new(64 << 10);
        let stored = encode_item(&item(&"x".repeat(200)));
        for i in 0..10_000u32 {
            memo.decode(1, "t", &i.to_be_bytes(), &stored, true).unwrap();
        }
        let most = (64 << 10) / (200 + 4 + ENTRY_OVERHEAD as usize);
        assert!(memo.len() <= most + 16, "{} entries for a budget of about {most}", memo.len());
    }
}
