//! A shard's point-lookup table: the shard's entries themselves (short hash, key, item), kept
//! by linear probing in one array.
//!
//! Why the entries live in the table: a point read waits for each cache miss on its way to
//! the item, one after the other. With the table holding a slot number and the slot holding
//! the key and the item, a GetItem on a keyspace larger than the cache waited for three: the
//! table entry, the slot, then the key and the item together (measured with `perf` under
//! wrk: the slot's miss alone was 160 ns of a 9 µs request). Here the table entry holds both
//! pointers, so the key and the item are fetched together right after the first miss.
//!
//! Why by hand and not `hashbrown`'s `HashTable`: a hashbrown lookup reads a group of control
//! bytes and then the bucket the group points to, two cache lines in two places, one after
//! the other. Here the first probe reads the entry itself.
//!
//! Invariant: the array is empty or its length is a power of two at least [`MIN_CAPACITY`],
//! and at most three quarters of it is occupied, so every probe sequence reaches an empty
//! place and a lookup always ends. Every entry sits in the run of occupied places that starts
//! at its home position ([`home`] of its short hash): nothing empty lies between its home and
//! its position. Removal keeps this by shifting later entries of the run back (no
//! tombstones), so a lookup never reads past the end of a run.

use monotable_types::PackedItem;

use super::SharedKey;

/// The smallest non-empty table: 192 bytes, three cache lines.
const MIN_CAPACITY: usize = 8;

/// One stored entry. The key is shared with the ordered map (one allocation).
pub(super) struct Entry {
    /// The key's short hash (see `KeyHash`): the table filters on it without reading the
    /// key, and grows without hashing a key again.
    pub(super) short: u32,
    pub(super) key: SharedKey,
    pub(super) item: PackedItem,
}

/// Where the probe sequence of `short` starts in a table of `mask + 1` places. The low bits
/// of the short hash choose the shard (`KeyHash`) and so are the same for every entry of a
/// table: the home takes the short hash rotated, so that all 32 bits count.
fn home(short: u32, mask: usize) -> usize {
    short.rotate_right(super::SHARD_BITS) as usize & mask
}

/// See the module docs.
#[derive(Default)]
pub(super) struct EntryTable {
    places: Box<[Option<Entry>]>,
    len: usize,
}

impl EntryTable {
    /// The entry with short hash `short` for which `is` holds (the caller compares the key),
    /// if any. `is` sees only entries whose short hash matches.
    pub(super) fn find(&self, short: u32, is: impl FnMut(&Entry) -> bool) -> Option<&Entry> {
        let at = self.position(short, is)?;
        self.places.get(at)?.as_ref()
    }

    /// [`EntryTable::find`], for changing the entry's item.
    pub(super) fn find_mut(&mut self, short: u32, is: impl FnMut(&Entry) -> bool) -> Option<&mut Entry> {
        let at = self.position(short, is)?;
        self.places.get_mut(at)?.as_mut()
    }

    /// Adds `entry`. The caller has checked that no entry for the same key is present
    /// (`find` found none).
    pub(super) fn insert(&mut self, entry: Entry) {
        if (self.len + 1) * 4 > self.places.len() * 3 {
            self.grow();
        }
        place(&mut self.places, entry);
        self.len += 1;
    }

    /// Removes the entry that `find(short, is)` would return, and returns it.
    pub(super) fn remove(&mut self, short: u32, is: impl FnMut(&Entry) -> bool) -> Option<Entry> {
        let mut hole = self.position(short, is)?;
        let removed = self.places.get_mut(hole)?.take()?;
        let mask = self.places.len() - 1;
        // Backward shift: walk the rest of the run; an entry may move into the hole when the
        // hole lies on its probe path, that is between its home and its position (cyclically).
        // Moving it keeps the invariant for it, and the new hole is where it was.
        let mut at = hole;
        loop {
            at = (at + 1) & mask;
            let Some(Some(entry)) = self.places.get(at) else { break };
            let from_home = at.wrapping_sub(home(entry.short, mask)) & mask;
            let from_hole = at.wrapping_sub(hole) & mask;
            if from_home >= from_hole {
                let moved = self.places.get_mut(at).and_then(Option::take);
                if let Some(h) = self.places.get_mut(hole) {
                    *h = moved;
                }
                hole = at;
            }
        }
        self.len -= 1;
        Some(removed)
    }

    /// How many entries the table holds.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// How many entries the array has room for.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.places.len()
    }

    /// The index of the entry `find` looks for.
    fn position(&self, short: u32, mut is: impl FnMut(&Entry) -> bool) -> Option<usize> {
        let mask = self.places.len().checked_sub(1)?;
        let mut at = home(short, mask);
        // Ends: the table always has an empty place (see the module's invariant).
        loop {
            let entry = self.places.get(at)?.as_ref()?;
            if entry.short == short && is(entry) {
                return Some(at);
            }
            at = (at + 1) & mask;
        }
    }

    /// Doubles the array and places every entry again, from its short hash alone: growing
    /// reads no key, and moves the entries without touching their reference counts.
    fn grow(&mut self) {
        let capacity = (self.places.len() * 2).max(MIN_CAPACITY);
        let mut bigger: Box<[Option<Entry>]> = (0..capacity).map(|_| None).collect();
        for entry in std::mem::take(&mut self.places).into_vec().into_iter().flatten() {
            place(&mut bigger, entry);
        }
        self.places = bigger;
    }
}

/// Puts `entry` in the first empty place of its probe sequence in `places`, which has one.
fn place(places: &mut [Option<Entry>], entry: Entry) {
    let mask = places.len() - 1;
    let mut at = home(entry.short, mask);
    loop {
        match places.get_mut(at) {
            Some(p @ None) => {
                *p = Some(entry);
                return;
            }
            Some(Some(_)) => at = (at + 1) & mask,
            // Unreachable: `at` is masked to the array's length, which is not zero.
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use monotable_types::{AttributeValue, Item, ValueRef};
    use proptest::prelude::*;

    use super::super::share;
    use super::*;

    /// An operation on the table and on the model: keys are small numbers, and a key's short
    /// hash is taken from a tiny range so that runs, collisions of short hashes and wrapping
    /// around the end of the array all happen often.
    #[derive(Debug, Clone)]
    enum Op {
        Insert(u16),
        Remove(u16),
    }

    fn short_hash(key: u16, spread: u32) -> u32 {
        // Keys collide on the short hash in groups, and `u32::MAX`-adjacent hashes occur.
        (u32::from(key) % spread).wrapping_mul(0x9E37_79B9).rotate_left(u32::from(key) % 3)
    }

    fn entry(key: u16, short: u32, version: u32) -> Entry {
        let number = version.to_string().parse().expect("a u32 is a number");
        let item = Item::from([("v".to_owned(), AttributeValue::N(number))]);
        Entry { short, key: share(&key.to_be_bytes()), item: PackedItem::encode(&item) }
    }

    fn is_key(key: u16) -> impl Fn(&Entry) -> bool {
        move |e: &Entry| e.key.slice == key.to_be_bytes()
    }

    fn version(e: &Entry) -> Option<String> {
        match e.item.get("v") {
            Some(ValueRef::N(n)) => Some(n.to_owned()),
            _ => None,
        }
    }

    fn ops() -> impl Strategy<Value = (u32, Vec<Op>)> {
        let op = prop_oneof![(0u16..200).prop_map(Op::Insert), (0u16..200).prop_map(Op::Remove)];
        (1u32..64, prop::collection::vec(op, 0..600))
    }

    /// Checks the module's invariant: every entry is reachable from its home without crossing
    /// an empty place, and the load stays at most three quarters.
    fn check_invariant(t: &EntryTable) {
        let n = t.places.len();
        assert!(n == 0 || (n.is_power_of_two() && n >= MIN_CAPACITY));
        assert!(t.len * 4 <= n * 3, "load above 3/4: {} of {n}", t.len);
        assert_eq!(t.places.iter().filter(|e| e.is_some()).count(), t.len);
        for (at, e) in t.places.iter().enumerate() {
            let Some(e) = e else { continue };
            let mut i = home(e.short, n - 1);
            while i != at {
                assert!(t.places[i].is_some(), "an empty place between entry {at}'s home and it");
                i = (i + 1) & (n - 1);
            }
        }
    }

    proptest! {
        /// The table answers every lookup as a `HashMap` does, after any mix of inserts,
        /// replacements of the item and removes.
        #[test]
        fn lookups_match_a_hash_map_after_any_inserts_and_removes((spread, ops) in ops()) {
            let mut table = EntryTable::default();
            let mut model: HashMap<u16, u32> = HashMap::new();
            for (n, op) in ops.into_iter().enumerate() {
                let n = n as u32;
                match op {
                    Op::Insert(k) => {
                        let short = short_hash(k, spread);
                        let found = table.find(short, is_key(k)).and_then(version);
                        prop_assert_eq!(found, model.get(&k).map(u32::to_string));
                        match table.find_mut(short, is_key(k)) {
                            Some(e) => e.item = entry(k, short, n).item,
                            None => table.insert(entry(k, short, n)),
                        }
                        model.insert(k, n);
                    }
                    Op::Remove(k) => {
                        let short = short_hash(k, spread);
                        let removed = table.remove(short, is_key(k)).and_then(|e| version(&e));
                        prop_assert_eq!(removed, model.remove(&k).map(|v| v.to_string()));
                    }
                }
                check_invariant(&table);
                prop_assert_eq!(table.len(), model.len());
            }
            for k in 0u16..200 {
                let found = table.find(short_hash(k, spread), is_key(k)).and_then(version);
                prop_assert_eq!(found, model.get(&k).map(u32::to_string));
            }
        }
    }

    #[test]
    fn an_entry_takes_three_words() {
        assert_eq!(std::mem::size_of::<Option<Entry>>(), 24);
    }

    #[test]
    fn an_empty_table_finds_nothing_and_allocates_nothing() {
        let mut table = EntryTable::default();
        assert!(table.find(7, |_| true).is_none());
        assert!(table.remove(7, |_| true).is_none());
        assert_eq!(table.capacity(), 0);
    }

    #[test]
    fn the_table_doubles_before_it_is_three_quarters_full() {
        let mut table = EntryTable::default();
        for k in 0..6u16 {
            table.insert(entry(k, u32::from(k) * 31, 0));
        }
        assert_eq!(table.capacity(), 8, "six of eight is exactly three quarters");
        table.insert(entry(6, 1000, 0));
        assert_eq!(table.capacity(), 16);
        for k in 0..6u16 {
            assert!(table.find(u32::from(k) * 31, is_key(k)).is_some());
        }
        check_invariant(&table);
    }

    #[test]
    fn a_removal_shifts_back_a_run_that_wraps_past_the_end() {
        let mut table = EntryTable::default();
        // Homes 7, 7, 0 in eight places: the run is 7, 0, 1 (wrapping), and removing the
        // first must bring both others back onto their probe paths.
        let at = |h: u32| h.rotate_left(super::super::SHARD_BITS);
        table.insert(entry(1, at(7), 0));
        table.insert(entry(2, at(7), 0));
        table.insert(entry(3, at(0), 0));
        assert!(table.remove(at(7), is_key(1)).is_some());
        check_invariant(&table);
        assert!(table.find(at(7), is_key(2)).is_some());
        assert!(table.find(at(0), is_key(3)).is_some());
        assert!(table.places[7].as_ref().is_some_and(is_key(2)));
        assert!(table.places[0].as_ref().is_some_and(is_key(3)));
    }
}
