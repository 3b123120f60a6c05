//! The stored form of a stream record (an item in the log keyspace, so any `Storage` keeps it
//! as it keeps items) and its conversion to the Streams API's `Record`.
//!
//! Stored attributes: `e` event name, `t` epoch milliseconds, `i` event id, `v` view type,
//! `z` size in bytes, `k` keys, `o` old image, `n` new image, `u` true for a TTL delete.

use std::sync::Arc;

use monotable_types::{item_size, AttributeValue, Item, Number};

use super::{format_seq, ViewType};
use crate::api::{Identity, Record, StreamRecord};
use crate::table::{Change, KeySchema};

/// The region the records name (the engine's ARNs use the same).
const REGION: &str = "us-east-1";

pub(super) fn encode(key: &KeySchema, change: &Change, view: ViewType, service: bool) -> Item {
    let any = change.new.as_ref().or(change.old.as_ref()).map(Arc::as_ref);
    let keys = any.map(|i| key.extract(i)).unwrap_or_default();
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
    let mut r = Item::new();
    r.insert("e".into(), AttributeValue::S(event.into()));
    r.insert("t".into(), AttributeValue::N(Number::from(super::now_millis())));
    r.insert("i".into(), AttributeValue::S(uuid::Uuid::new_v4().simple().to_string()));
    r.insert("v".into(), AttributeValue::S(view.name().into()));
    r.insert("z".into(), AttributeValue::N(Number::from(size as u64)));
    r.insert("k".into(), AttributeValue::M(keys));
    if let Some(o) = old {
        r.insert("o".into(), AttributeValue::M((**o).clone()));
    }
    if let Some(n) = new {
        r.insert("n".into(), AttributeValue::M((**n).clone()));
    }
    if service {
        r.insert("u".into(), AttributeValue::Bool(true));
    }
    r
}

/// A decoded record and its creation time.
pub(crate) struct StoredRecord {
    pub created_ms: u64,
    pub record: Record,
}

fn text(item: &Item, name: &str) -> Option<String> {
    match item.get(name)? {
        AttributeValue::S(s) => Some(s.clone()),
        _ => None,
    }
}

fn number(item: &Item, name: &str) -> Option<u64> {
    match item.get(name)? {
        AttributeValue::N(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

fn map(item: &Item, name: &str) -> Option<Item> {
    match item.get(name)? {
        AttributeValue::M(m) => Some(m.clone()),
        _ => None,
    }
}

/// The API form of the record stored under sequence number `seq`; `None` when the stored item
/// is not a record (never written by this engine).
pub(crate) fn decode(seq: u64, item: &Item) -> Option<StoredRecord> {
    let created_ms = number(item, "t")?;
    let service = matches!(item.get("u"), Some(AttributeValue::Bool(true)));
    let record = Record {
        event_id: text(item, "i"),
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
            size_bytes: number(item, "z").map(|z| z as i64),
            stream_view_type: text(item, "v"),
        }),
        user_identity: service.then(|| Identity {
            principal_id: Some("dynamodb.amazonaws.com".into()),
            r#type: Some("Service".into()),
        }),
    };
    Some(StoredRecord { created_ms, record })
}
