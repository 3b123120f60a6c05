//! The items of writes that are in flight, so that work meeting them is refused the way
//! DynamoDB refuses it instead of waiting behind them.
//!
//! DynamoDB documents three conflicts ("Transaction conflict handling in DynamoDB", developer
//! guide, transaction-apis): a PutItem, UpdateItem or DeleteItem on an item of an ongoing
//! TransactWriteItems fails with `TransactionConflictException`; a TransactWriteItems that
//! includes an item of another ongoing TransactWriteItems is cancelled with a
//! `TransactionConflict` reason; a TransactGetItems that includes an item of an ongoing
//! TransactWriteItems, BatchWriteItem, PutItem, UpdateItem or DeleteItem is cancelled the same
//! way. A GetItem (and every other read) meeting a transaction succeeds.
//!
//! Architecture Invariant: a claim is only ever tested, never waited for. A transaction claims
//! all its items at once, under the shard locks of its items taken in ascending order and held
//! only for the test-and-insert, or claims none of them; a plain write claims its one item. So
//! claims add no waiting edge to the stripe locks, whose ascending order alone keeps the engine
//! free of deadlock, and a transaction either sees every item free or reports each busy one.
//!
//! Architecture Invariant: a claim is taken before the owner's stripe locks and released after
//! its commit (by a guard's `Drop`, so also on every error path): while a claim exists, the
//! item's committed state may still change under its owner.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

/// Called with the operation's name while a write holds its claims and has not yet taken its
/// stripe locks (see [`crate::Engine::set_in_flight_hook`]).
pub type InFlightHook = Arc<dyn Fn(&'static str) + Send + Sync>;

const SHARDS: usize = 4096;

/// Who holds a claim.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// A TransactWriteItems, by a process-unique number.
    Transaction(u64),
    /// A PutItem, UpdateItem, DeleteItem or one write of a BatchWriteItem.
    Write,
}

struct Claim {
    table: u64,
    key: Vec<u8>,
    owner: Owner,
}

/// One item a transaction touches: its stripe (which is also its shard), table and key.
pub(crate) struct ItemRef<'a> {
    pub stripe: usize,
    pub table: u64,
    pub key: &'a [u8],
}

/// The claims of in-flight writes, sharded like the stripe locks.
pub(crate) struct InFlight {
    shards: Box<[Mutex<Vec<Claim>>]>,
    next_transaction: AtomicU64,
    hooked: AtomicBool,
    hook: RwLock<Option<InFlightHook>>,
}

impl Default for InFlight {
    fn default() -> InFlight {
        InFlight {
            shards: (0..SHARDS).map(|_| Mutex::new(Vec::new())).collect(),
            next_transaction: AtomicU64::new(1),
            hooked: AtomicBool::new(false),
            hook: RwLock::new(None),
        }
    }
}

impl InFlight {
    fn shard(&self, stripe: usize) -> &Mutex<Vec<Claim>> {
        &self.shards[stripe % SHARDS]
    }

    /// Claims one item for a plain write; `None` when a transaction holds it (the write then
    /// fails with `TransactionConflictException`).
    pub fn begin_write<'a>(&'a self, stripe: usize, table: u64, key: &'a [u8]) -> Option<WriteClaim<'a>> {
        let mut shard = self.shard(stripe).lock();
        if shard.iter().any(|c| c.table == table && c.key == key && c.owner != Owner::Write) {
            return None;
        }
        shard.push(Claim { table, key: key.to_vec(), owner: Owner::Write });
        drop(shard);
        self.pause("write");
        Some(WriteClaim { flight: self, stripe, table, key })
    }

    /// Claims every item for a transaction, or none: `Err` lists the positions (in `items`'
    /// order) of the items another transaction holds.
    pub fn begin_transaction(&self, items: &[ItemRef<'_>]) -> Result<TransactionClaim<'_>, Vec<usize>> {
        let mut shards: Vec<usize> = items.iter().map(|i| i.stripe % SHARDS).collect();
        shards.sort_unstable();
        shards.dedup();
        let mut guards: Vec<(usize, parking_lot::MutexGuard<'_, Vec<Claim>>)> =
            shards.iter().map(|&s| (s, self.shards[s].lock())).collect();
        let held = |guards: &[(usize, parking_lot::MutexGuard<'_, Vec<Claim>>)], item: &ItemRef<'_>| {
            let shard = item.stripe % SHARDS;
            guards.iter().find(|(s, _)| *s == shard).is_some_and(|(_, g)| {
                g.iter().any(|c| c.table == item.table && c.key == item.key && c.owner != Owner::Write)
            })
        };
        let busy: Vec<usize> =
            items.iter().enumerate().filter(|(_, item)| held(&guards, item)).map(|(n, _)| n).collect();
        if !busy.is_empty() {
            return Err(busy);
        }
        let id = self.next_transaction.fetch_add(1, Ordering::Relaxed);
        for item in items {
            let shard = item.stripe % SHARDS;
            if let Some((_, g)) = guards.iter_mut().find(|(s, _)| *s == shard) {
                g.push(Claim { table: item.table, key: item.key.to_vec(), owner: Owner::Transaction(id) });
            }
        }
        drop(guards);
        self.pause("TransactWriteItems");
        Ok(TransactionClaim { flight: self, id, shards })
    }

    /// The positions of the items that an in-flight write of any kind holds (a TransactGetItems
    /// meeting them is cancelled).
    pub fn busy_for_read(&self, items: &[ItemRef<'_>]) -> Vec<usize> {
        items
            .iter()
            .enumerate()
            .filter(|(_, item)| {
                self.shard(item.stripe).lock().iter().any(|c| c.table == item.table && c.key == item.key)
            })
            .map(|(n, _)| n)
            .collect()
    }

    /// Installs or removes the test hook.
    pub fn set_hook(&self, hook: Option<InFlightHook>) {
        let mut slot = self.hook.write();
        self.hooked.store(hook.is_some(), Ordering::SeqCst);
        *slot = hook;
    }

    fn pause(&self, operation: &'static str) {
        if self.hooked.load(Ordering::Relaxed) {
            let hook = self.hook.read().clone();
            if let Some(hook) = hook {
                hook(operation);
            }
        }
    }
}

/// A plain write's claim; dropping it releases the item. It borrows the writer's key (the
/// write outlives its claim), so only the shard's entry holds a copy.
pub(crate) struct WriteClaim<'a> {
    flight: &'a InFlight,
    stripe: usize,
    table: u64,
    key: &'a [u8],
}

impl Drop for WriteClaim<'_> {
    fn drop(&mut self) {
        let mut shard = self.flight.shard(self.stripe).lock();
        if let Some(n) =
            shard.iter().position(|c| c.owner == Owner::Write && c.table == self.table && c.key == *self.key)
        {
            shard.swap_remove(n);
        }
    }
}

/// A transaction's claims; dropping it releases every item.
pub(crate) struct TransactionClaim<'a> {
    flight: &'a InFlight,
    id: u64,
    shards: Vec<usize>,
}

impl Drop for TransactionClaim<'_> {
    fn drop(&mut self) {
        for &s in &self.shards {
            self.flight.shards[s].lock().retain(|c| c.owner != Owner::Transaction(self.id));
        }
    }
}
