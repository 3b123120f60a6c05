//! Striped item locks for conditional writes and transactions.
//!
//! Architecture Invariant: a writer holds the stripe lock of every item it reads-then-writes
//! from before its read until after its commit, and acquires several stripes only in
//! ascending stripe order, so read-modify-write is serializable and lock acquisition cannot
//! deadlock. Plain reads take no stripe lock: storage commits are atomic per keyspace.

use parking_lot::{Mutex, MutexGuard};

/// A fixed array of mutexes; an item maps to one by hashing its table and key.
pub(crate) struct Locks {
    stripes: Box<[Mutex<()>]>,
}

const STRIPES: usize = 4096;

impl Locks {
    pub fn new() -> Locks {
        Locks { stripes: (0..STRIPES).map(|_| Mutex::new(())).collect() }
    }

    /// The stripe of an item.
    pub fn stripe(table_seq: u64, key: &[u8]) -> usize {
        // FNV-1a: fast on short keys, and only spreads keys over stripes (no adversary gains
        // more than lock contention from collisions).
        let h = crate::hash::fnv1a(crate::hash::FNV_OFFSET ^ table_seq, key);
        (h as usize) % STRIPES
    }

    /// Locks one stripe.
    pub fn lock(&self, stripe: usize) -> MutexGuard<'_, ()> {
        self.stripes[stripe % STRIPES].lock()
    }

    /// Locks one stripe if no other writer holds it.
    pub fn try_lock(&self, stripe: usize) -> Option<MutexGuard<'_, ()>> {
        self.stripes[stripe % STRIPES].try_lock()
    }

    /// Locks several stripes in ascending order (duplicates locked once).
    pub fn lock_many(&self, mut stripes: Vec<usize>) -> Vec<MutexGuard<'_, ()>> {
        stripes.sort_unstable();
        stripes.dedup();
        stripes.into_iter().map(|s| self.lock(s)).collect()
    }
}
