//! A shard's point-lookup table: from a key's 32-bit short hash to the key's slot, by linear
//! probing over one array of 8-byte entries, each holding the short hash and the slot side by
//! side.
//!
//! Why not `hashbrown`'s `HashTable`, which this replaced: a hashbrown lookup reads a group of
//! control bytes and then the bucket the group points to, two cache lines in two places, one
//! after the other. On a keyspace larger than the cache each is a miss, and a GetItem waits
//! for both before it can even read the slot (measured with `perf` under wrk: the two were a
//! third of the time a GetItem spent in the store). Here the first probe reads the entry
//! itself, and a run of probes stays in one 64-byte line of eight entries far more often
//! than not, at the same memory per entry (8 bytes at a load between 3/8 and 3/4, where
//! hashbrown spends 9 bytes at a load between 7/16 and 7/8).
//!
//! Invariant: the array is empty or its length is a power of two at least [`MIN_CAPACITY`],
//! and at most three quarters of it is occupied, so every probe sequence reaches an
//! [`EMPTY`] entry and a lookup always ends. Every occupied entry sits in the run of
//! occupied entries that starts at its home position (its short hash modulo the length):
//! nothing empty lies between its home and its position. Removal keeps this by shifting later
//! entries of the run back (no tombstones), so a lookup never reads past the end of a run.

use super::Slot;

/// The free entry. No occupied entry can equal it: `commit` never hands out slot
/// `u32::MAX` (see `Slot`).
const EMPTY: u64 = u64::MAX;

/// The smallest non-empty table: one cache line.
const MIN_CAPACITY: usize = 8;

fn pack(short: u32, slot: Slot) -> u64 {
    (u64::from(short) << 32) | u64::from(slot)
}

fn short_of(entry: u64) -> u32 {
    (entry >> 32) as u32
}

fn slot_in(entry: u64) -> Slot {
    entry as u32
}

/// See the module docs.
#[derive(Default)]
pub(super) struct SlotTable {
    entries: Box<[u64]>,
    len: usize,
}

impl SlotTable {
    /// The slot of the entry with short hash `short` for which `is` holds (the caller compares
    /// the slot's key), if any. `is` sees only slots whose short hash matches.
    pub(super) fn find(&self, short: u32, is: impl FnMut(Slot) -> bool) -> Option<Slot> {
        let at = self.position(short, is)?;
        self.entries.get(at).copied().map(slot_in)
    }

    /// Adds `slot` under `short`. The caller has checked that no entry for the same key is
    /// present (`find` found none).
    pub(super) fn insert(&mut self, short: u32, slot: Slot) {
        if (self.len + 1) * 4 > self.entries.len() * 3 {
            self.grow();
        }
        place(&mut self.entries, pack(short, slot));
        self.len += 1;
    }

    /// Removes the entry that `find(short, is)` would return, and returns its slot.
    pub(super) fn remove(&mut self, short: u32, is: impl FnMut(Slot) -> bool) -> Option<Slot> {
        let mut hole = self.position(short, is)?;
        let removed = self.entries.get(hole).copied().map(slot_in)?;
        let mask = self.entries.len() - 1;
        // Backward shift: walk the rest of the run; an entry may move into the hole when the
        // hole lies on its probe path, that is between its home and its position (cyclically).
        // Moving it keeps the invariant for it, and the new hole is where it was.
        let mut at = hole;
        loop {
            at = (at + 1) & mask;
            let Some(&entry) = self.entries.get(at) else { break };
            if entry == EMPTY {
                break;
            }
            let home = short_of(entry) as usize & mask;
            let from_home = at.wrapping_sub(home) & mask;
            let from_hole = at.wrapping_sub(hole) & mask;
            if from_home >= from_hole {
                if let Some(h) = self.entries.get_mut(hole) {
                    *h = entry;
                }
                hole = at;
            }
        }
        if let Some(h) = self.entries.get_mut(hole) {
            *h = EMPTY;
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
        self.entries.len()
    }

    /// The index of the entry `find` looks for.
    fn position(&self, short: u32, mut is: impl FnMut(Slot) -> bool) -> Option<usize> {
        let mask = self.entries.len().checked_sub(1)?;
        let mut at = short as usize & mask;
        // Ends: the table always has an empty entry (see the module's invariant).
        loop {
            let entry = *self.entries.get(at)?;
            if entry == EMPTY {
                return None;
            }
            if short_of(entry) == short && is(slot_in(entry)) {
                return Some(at);
            }
            at = (at + 1) & mask;
        }
    }

    /// Doubles the array and places every entry again, from its short hash alone: growing
    /// reads no key.
    fn grow(&mut self) {
        let capacity = (self.entries.len() * 2).max(MIN_CAPACITY);
        let mut bigger = vec![EMPTY; capacity].into_boxed_slice();
        for &entry in self.entries.iter().filter(|&&e| e != EMPTY) {
            place(&mut bigger, entry);
        }
        self.entries = bigger;
    }
}

/// Puts `entry` in the first empty place of its probe sequence in `entries`, which has one.
fn place(entries: &mut [u64], entry: u64) {
    let mask = entries.len() - 1;
    let mut at = short_of(entry) as usize & mask;
    while let Some(e) = entries.get_mut(at) {
        if *e == EMPTY {
            *e = entry;
            return;
        }
        at = (at + 1) & mask;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

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

    fn ops() -> impl Strategy<Value = (u32, Vec<Op>)> {
        let op = prop_oneof![(0u16..200).prop_map(Op::Insert), (0u16..200).prop_map(Op::Remove)];
        (1u32..64, prop::collection::vec(op, 0..600))
    }

    /// Checks the module's invariant: every entry is reachable from its home without crossing
    /// an empty place, and the load stays at most three quarters.
    fn check_invariant(t: &SlotTable) {
        let n = t.entries.len();
        assert!(n == 0 || (n.is_power_of_two() && n >= MIN_CAPACITY));
        assert!(t.len * 4 <= n * 3, "load above 3/4: {} of {n}", t.len);
        assert_eq!(t.entries.iter().filter(|&&e| e != EMPTY).count(), t.len);
        for (at, &e) in t.entries.iter().enumerate().filter(|(_, &e)| e != EMPTY) {
            let mut i = short_of(e) as usize & (n - 1);
            while i != at {
                assert_ne!(t.entries[i], EMPTY, "an empty place between entry {at}'s home and it");
                i = (i + 1) & (n - 1);
            }
        }
    }

    proptest! {
        /// The table answers every lookup as a `HashMap` from key to slot does, after any mix of
        /// inserts and removes (slots play the part of the stored keys: a slot's key is its
        /// number here).
        #[test]
        fn lookups_match_a_hash_map_after_any_inserts_and_removes((spread, ops) in ops()) {
            let mut table = SlotTable::default();
            let mut model: HashMap<u16, Slot> = HashMap::new();
            let mut next_slot: Slot = 0;
            // The slot stands for a stored key; this maps it back, as a store's slots do.
            let mut key_of: HashMap<Slot, u16> = HashMap::new();
            for op in ops {
                match op {
                    Op::Insert(k) => {
                        let short = short_hash(k, spread);
                        let found = table.find(short, |s| key_of[&s] == k);
                        prop_assert_eq!(found, model.get(&k).copied());
                        if found.is_none() {
                            table.insert(short, next_slot);
                            key_of.insert(next_slot, k);
                            model.insert(k, next_slot);
                            next_slot += 1;
                        }
                    }
                    Op::Remove(k) => {
                        let short = short_hash(k, spread);
                        let removed = table.remove(short, |s| key_of[&s] == k);
                        prop_assert_eq!(removed, model.remove(&k));
                    }
                }
                check_invariant(&table);
                prop_assert_eq!(table.len(), model.len());
            }
            for k in 0u16..200 {
                let found = table.find(short_hash(k, spread), |s| key_of[&s] == k);
                prop_assert_eq!(found, model.get(&k).copied());
            }
        }
    }

    #[test]
    fn an_empty_table_finds_nothing_and_allocates_nothing() {
        let mut table = SlotTable::default();
        assert_eq!(table.find(7, |_| true), None);
        assert_eq!(table.remove(7, |_| true), None);
        assert_eq!(table.capacity(), 0);
    }

    #[test]
    fn the_table_doubles_before_it_is_three_quarters_full() {
        let mut table = SlotTable::default();
        for slot in 0..6 {
            table.insert(slot * 31, slot);
        }
        assert_eq!(table.capacity(), 8, "six of eight is exactly three quarters");
        table.insert(1000, 6);
        assert_eq!(table.capacity(), 16);
        for slot in 0..6 {
            assert_eq!(table.find(slot * 31, |s| s == slot), Some(slot));
        }
    }

    #[test]
    fn a_removal_shifts_back_a_run_that_wraps_past_the_end() {
        let mut table = SlotTable::default();
        // Short hashes 7, 7, 0 in eight places: the run is 7, 0, 1 (wrapping), and removing
        // the first must bring both others back onto their probe paths.
        table.insert(7, 1);
        table.insert(7, 2);
        table.insert(0, 3);
        assert_eq!(table.remove(7, |s| s == 1), Some(1));
        check_invariant(&table);
        assert_eq!(table.find(7, |s| s == 2), Some(2));
        assert_eq!(table.find(0, |s| s == 3), Some(3));
        assert_eq!(table.entries[7], pack(7, 2));
        assert_eq!(table.entries[0], pack(0, 3));
    }
}
