//! DynamoDB Streams: the per-table change log and how a committed change becomes a record.
//!
//! Every table that has ever had a stream owns one log keyspace (`"<table_id>/$stream"`; index
//! names cannot contain `$`), keyed by the record's sequence number as 8 big-endian bytes and
//! a part byte (see `record`), so key order is sequence order. Each stream of the table (a new one per enabling) covers a
//! contiguous range of sequence numbers: streams never overlap in time, because UpdateTable
//! switches them while it holds the table's gate exclusively.
//!
//! Architecture Invariant: a stream record is put into the same [`WriteBatch`] as the change it
//! describes (by [`Writer::record`], called from `Table::stage`), so a committed change always
//! has its record and a record never describes an uncommitted change.
//!
//! Architecture Invariant: readers see only sequence numbers below [`Sequencer::visible`]: the
//! lowest number handed out whose batch has not yet committed or failed. Numbers are taken in
//! stage order but batches may commit out of order; the bound keeps a reader from passing a
//! record that is about to appear behind it.

mod record;
mod time;

use std::collections::BTreeSet;
use std::sync::Arc;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::storage::{Keyspace, WriteBatch};
use crate::table::{Change, KeySchema};

pub(crate) use record::{created_ms, split_key, Assembler, PART_META};
pub(crate) use time::{iso_label, now_millis};

/// Records older than this are trimmed (DynamoDB Streams keeps 24 hours).
pub(crate) const RETENTION_MILLIS: u64 = 24 * 3600 * 1000;

/// Hands out sequence numbers and tracks those whose batches are still in flight.
pub(crate) struct Sequencer {
    state: Mutex<(u64, BTreeSet<u64>)>,
}

impl Sequencer {
    pub fn new(next: u64) -> Sequencer {
        Sequencer { state: Mutex::new((next.max(1), BTreeSet::new())) }
    }

    /// The next number to hand out (every record so far is below it).
    pub fn next(&self) -> u64 {
        self.state.lock().0
    }

    /// Every record below this number has committed (or will never exist).
    pub fn visible(&self) -> u64 {
        let s = self.state.lock();
        s.1.first().copied().unwrap_or(s.0)
    }

    fn take(self: &Arc<Sequencer>) -> Ticket {
        let mut s = self.state.lock();
        let seq = s.0;
        s.0 += 1;
        s.1.insert(seq);
        Ticket { seq, sequencer: Arc::clone(self) }
    }
}

/// A sequence number in flight. Dropping it (after the batch committed or failed) makes the
/// number visible to readers.
pub(crate) struct Ticket {
    seq: u64,
    sequencer: Arc<Sequencer>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.sequencer.state.lock().1.remove(&self.seq);
    }
}

/// A table's change log: its keyspace and sequence numbers.
pub(crate) struct Log {
    pub keyspace: Arc<dyn Keyspace>,
    pub sequencer: Arc<Sequencer>,
    /// Salts the event ids of this log's records (derived from the keyspace name, which holds
    /// the table's unique id, so ids stay the same across restarts).
    pub salt: u64,
}

impl Log {
    /// The log of `keyspace`, whose next record gets sequence number `next`.
    pub fn new(keyspace: Arc<dyn Keyspace>, next: u64) -> Log {
        let salt = crate::hash::fnv1a(crate::hash::FNV_OFFSET, keyspace.name().as_bytes());
        Log { keyspace, sequencer: Arc::new(Sequencer::new(next)), salt }
    }
}

/// The name of a table's log keyspace.
pub(crate) fn keyspace_name(table_id: &str) -> String {
    format!("{table_id}/$stream")
}

/// The storage key before every part of record `seq` (a range bound: `Included` takes in
/// the whole record, `Excluded` none of it).
pub(crate) fn seq_key(seq: u64) -> Vec<u8> {
    seq.to_be_bytes().to_vec()
}

/// The sequence number of a storage key.
pub(crate) fn key_seq(key: &[u8]) -> Option<u64> {
    split_key(key).map(|(seq, _)| seq)
}

/// DynamoDB's sequence numbers are numeric strings of 21 or more digits.
pub(crate) fn format_seq(seq: u64) -> String {
    format!("1{seq:020}")
}

/// The number a [`format_seq`] text stands for.
pub(crate) fn parse_seq(text: &str) -> Option<u64> {
    let digits = text.strip_prefix('1').filter(|d| d.len() == 20 && d.bytes().all(|b| b.is_ascii_digit()))?;
    digits.parse().ok()
}

/// One stream of a table, as kept in the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Info {
    /// The ISO-8601 label that ends the stream's ARN.
    pub label: String,
    pub view_type: String,
    /// Epoch milliseconds of the enabling.
    pub created_ms: u64,
    /// The first sequence number the stream may hold.
    pub start_seq: u64,
    /// When the stream was disabled: the epoch milliseconds and its last sequence number
    /// (`start_seq - 1` when it never had a record).
    pub disabled: Option<(u64, u64)>,
}

impl Info {
    /// The stream's only shard (monotable keeps one shard per stream).
    pub fn shard_id(&self) -> String {
        let hash = self.label.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ b as u32).wrapping_mul(0x0100_0193));
        format!("shardId-{:020}-{hash:08x}", self.created_ms)
    }

    /// True while the stream's records may still be read (enabled, or disabled under 24 h ago).
    pub fn readable(&self, now_ms: u64) -> bool {
        self.disabled.is_none_or(|(at, _)| now_ms.saturating_sub(at) < RETENTION_MILLIS)
    }
}

/// What `Table::stage` needs to write records of the enabled stream.
pub(crate) struct Writer {
    pub log: Arc<Log>,
    pub view_type: ViewType,
}

/// `StreamViewType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ViewType {
    KeysOnly,
    NewImage,
    OldImage,
    NewAndOldImages,
}

impl ViewType {
    pub fn parse(text: &str) -> Option<ViewType> {
        Some(match text {
            "KEYS_ONLY" => ViewType::KeysOnly,
            "NEW_IMAGE" => ViewType::NewImage,
            "OLD_IMAGE" => ViewType::OldImage,
            "NEW_AND_OLD_IMAGES" => ViewType::NewAndOldImages,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ViewType::KeysOnly => "KEYS_ONLY",
            ViewType::NewImage => "NEW_IMAGE",
            ViewType::OldImage => "OLD_IMAGE",
            ViewType::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }
}

thread_local! {
    /// Set while the TTL process deletes an item on this thread (see
    /// [`crate::Engine::delete_expired_item`]): its records carry the service's identity.
    pub(crate) static SERVICE_DELETE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Writer {
    /// Adds the record of `change` to `batch`, returning the ticket that keeps its sequence
    /// number in flight until the batch is done. A change that changes nothing (the same
    /// item written again, a delete of a missing item) has no record: "If you perform a
    /// PutItem or UpdateItem operation that does not change any data in an item, DynamoDB
    /// Streams does not write a stream record for that operation" (Developer Guide, Change
    /// data capture for DynamoDB Streams).
    pub fn record(&self, key: &KeySchema, change: &Change, batch: &mut WriteBatch) -> Option<Ticket> {
        let unchanged = match (&change.old, &change.new) {
            (None, None) => true,
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        if unchanged {
            return None;
        }
        let ticket = self.log.sequencer.take();
        let service = SERVICE_DELETE.with(|s| s.get()) && change.new.is_none();
        record::stage(&self.log.keyspace, ticket.seq, key, change, self.view_type, service, batch);
        Some(ticket)
    }
}
