//! The stored form of a stream record and its conversion to the Streams API's `Record`.
//!
//! A record is kept as up to three entries of the log keyspace (so any `Storage` keeps it as
//! it keeps items), keyed by the sequence number as 8 big-endian bytes and one part byte:
//! [`PART_META`] holds the metadata, [`PART_OLD`] and [`PART_NEW`] the old and new images
//! when the view type includes them. The images are the packed items of the change (the same
//! handles the base keyspace gets), not copies: writing a record costs no deep clone of the
//! item, and in memory the image shares the stored item's bytes. Key order is sequence order, and within one record the metadata comes
//! first.
//!
//! Metadata attributes: `e` event name, `t` epoch milliseconds, `z` size in bytes, `k` keys,
//! `u` true for a TTL delete. The view type is the stream's (it never changes while a stream
//! lives). Records written before the split (an 8-byte key, images in `o`/`n`, the event id
//! in `i`, the view type in `v`) are still read.
//!
//! The event id is not stored: it is a keyed hash of the sequence number, so every read of a
//! record shows the same id and records of different tables do not share ids.

use std::sync::Arc;

use monotable_types::{item_size, AttributeValue, Item, Number, PackedItem};

use super::{format_seq, ViewType};
use crate::api::{Identity, Record, StreamRecord};
use crate::storage::{Keyspace, WriteBatch};
use crate::table::{Change, KeySchema};

/// The region records are decoded with; GetRecords renames them for an engine elsewhere.
const REGION: &str = crate::DEFAULT_REGION;

/// The part byte of a record's metadata entry.
pub(crate) const PART_META: u8 = 0;
/// The part byte of a record's old image.
const PART_OLD: u8 = 1;
/// The part byte of a record's new image.
const PART_NEW: u8 = 2;

/// The storage key of one part of the record `seq`.
fn part_key(seq: u64, part: u8) -> Vec<u8> {
    let mut key = Vec::with_capacity(9);
    key.extend_from_slice(&seq.to_be_bytes());
    key.push(part);
    key
}

/// The sequence number and part of a storage key; a legacy 8-byte key is a whole record.
pub(crate) fn split_key(key: &[u8]) -> Option<(u64, u8)> {
    let (seq, part) = match key.len() {
        8 => (key, PART_META),
        9 => (&key[..8], key[8]),
        _ => return None,
    };
    Some((u64::from_be_bytes(seq.try_into().ok()?), part))
}

/// Puts the entries of the record `seq` describing `change` into `batch`.
pub(super) fn stage(
    log: &Arc<dyn Keyspace>,
    seq: u64,
    key: &KeySchema,
    change: &Change,
    view: ViewType,
    service: bool,
    batch: &mut WriteBatch,
) {
    let any = change.new.as_ref().or(change.old.as_ref());
    let keys = any.map(|i| key.extract_shared(i)).unwrap_or_default();
    let event = match (&change.old, &change.new) {
        (None, _) => "INSERT",
        (Some(_), Some(_)) => "MODIFY",
        (Some(_), None) => "REMOVE",
    };
    let old = matches!(view, ViewType::OldImage | ViewType::NewAndOldImages)
        .then_some(change.old.as_ref())
        .flatten();
    let new = matches!(view, ViewType::NewImage | ViewType::NewAndOldImages)
        .then_some(change.new.as_ref())
        .flatten();
    let size = item_size(&keys) + old.map_or(0, |_| change.old_size) + new.map_or(0, |_| change.new_size);
    let mut meta = Item::new();
    meta.insert("e".into(), AttributeValue::S(event.into()));
    meta.insert("t".into(), AttributeValue::N(Number::from(super::now_millis())));
    meta.insert("z".into(), AttributeValue::N(Number::from(size as u64)));
    meta.insert("k".into(), AttributeValue::M(keys));
    if service {
        meta.insert("u".into(), AttributeValue::Bool(true));
    }
    batch.put(log, part_key(seq, PART_META), PackedItem::encode(&meta));
    if let Some(o) = old {
        batch.put(log, part_key(seq, PART_OLD), o.packed().clone());
    }
    if let Some(n) = new {
        batch.put(log, part_key(seq, PART_NEW), n.packed().clone());
    }
}

fn text(item: &Item, name: &str) -> Option<String> {
    match item.get(name)? {
        AttributeValue::S(s) => Some(s.clone()),
        _ => None,
    }
}

fn map(item: &Item, name: &str) -> Option<Item> {
    match item.get(name)? {
        AttributeValue::M(m) => Some(m.clone()),
        _ => None,
    }
}

/// The creation time (epoch milliseconds) in a record's metadata.
pub(crate) fn created_ms(meta: &Item) -> Option<u64> {
    match meta.get("t")? {
        AttributeValue::N(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

/// One step of splitmix64 (public domain): a bijective 64-bit mix.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The event id of record `seq` in the log salted `salt`: 32 hex digits, like DynamoDB's.
fn event_id(salt: u64, seq: u64) -> String {
    let hi = mix(salt ^ mix(seq));
    let lo = mix(hi ^ seq.rotate_left(32) ^ salt.rotate_left(17));
    format!("{hi:016x}{lo:016x}")
}

/// Reassembles records from the log's entries in key order (as a scan visits them).
pub(crate) struct Assembler {
    salt: u64,
    view: String,
    current: Option<(u64, Record)>,
    done: Vec<Record>,
}

impl Assembler {
    /// An assembler for a stream of view type `view` in the log whose event ids are salted
    /// with `salt`.
    pub fn new(salt: u64, view: &str) -> Assembler {
        Assembler { salt, view: view.to_owned(), current: None, done: Vec::new() }
    }

    /// Takes one entry. Entries that belong to no record (never written by this engine) are
    /// skipped.
    pub fn push(&mut self, key: &[u8], item: &Item) {
        let Some((seq, part)) = split_key(key) else { return };
        if part == PART_META {
            self.flush();
            self.current = decode_meta(self.salt, &self.view, seq, item).map(|r| (seq, r));
            return;
        }
        let Some((current, record)) = &mut self.current else { return };
        let Some(dynamodb) = record.dynamodb.as_mut().filter(|_| *current == seq) else { return };
        match part {
            PART_OLD => dynamodb.old_image = Some(item.clone()),
            PART_NEW => dynamodb.new_image = Some(item.clone()),
            _ => {}
        }
    }

    fn flush(&mut self) {
        if let Some((_, record)) = self.current.take() {
            self.done.push(record);
        }
    }

    /// Every record, in sequence order.
    pub fn finish(mut self) -> Vec<Record> {
        self.flush();
        self.done
    }
}

/// The API form of the record `seq` from its metadata entry (with the images inline for a
/// legacy record); `None` when the stored item is not a record.
fn decode_meta(salt: u64, view: &str, seq: u64, item: &Item) -> Option<Record> {
    let created_ms = created_ms(item)?;
    let service = matches!(item.get("u"), Some(AttributeValue::Bool(true)));
    let size = match item.get("z") {
        Some(AttributeValue::N(n)) => n.to_string().parse::<i64>().ok(),
        _ => None,
    };
    Some(Record {
        event_id: Some(text(item, "i").unwrap_or_else(|| event_id(salt, seq))),
        event_name: text(item, "e"),
        event_version: Some("1.1".into()),
        event_source: Some("aws:dynamodb".into()),
        aws_region: Some(REGION.into()),
        dynamodb: Some(StreamRecord {
            approximate_creation_date_time: Some((created_ms / 1000) as f64),
            keys: map(item, "k"),
            new_image: map(item, "n"),
            old_image: map(item, "o"),
            sequence_number: Some(format_seq(seq)),
            size_bytes: size,
            stream_view_type: Some(text(item, "v").unwrap_or_else(|| view.to_owned())),
        }),
        user_identity: service.then(|| Identity {
            principal_id: Some("dynamodb.amazonaws.com".into()),
            r#type: Some("Service".into()),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_keys_sort_by_sequence_then_part() {
        let mut keys =
            [part_key(2, PART_META), part_key(1, PART_NEW), part_key(1, PART_META), part_key(1, PART_OLD)];
        keys.sort();
        let split: Vec<_> = keys.iter().map(|k| split_key(k).unwrap()).collect();
        assert_eq!(split, vec![(1, PART_META), (1, PART_OLD), (1, PART_NEW), (2, PART_META)]);
    }

    #[test]
    fn legacy_eight_byte_keys_are_whole_records() {
        assert_eq!(split_key(&7u64.to_be_bytes()), Some((7, PART_META)));
        assert_eq!(split_key(b"short"), None);
    }

    #[test]
    fn event_ids_are_stable_hex_and_differ_by_sequence_and_log() {
        let a = event_id(1, 10);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(a, event_id(1, 10));
        assert_ne!(a, event_id(1, 11));
        assert_ne!(a, event_id(2, 10));
    }
}
