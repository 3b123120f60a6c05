//! The value encoding: how an item (or a catalog entry) is stored as bytes.
//!
//! ```text
//! value = version:u8 | crc32:u32 little-endian | payload
//! ```
//!
//! * Version 2 (what this build writes for items): the payload is the packed item
//!   (`monotable_types::PackedItem`, format in docs/PACKED.md). Reading one costs the CRC
//!   and `PackedItem::from_bytes`'s single validating pass; the bytes become the in-memory
//!   handle as they are.
//! * Version 1 (written by earlier builds for items, and still for catalog entries): for
//!   items the payload is the item in DynamoDB's JSON wire form (`{"a":{"S":"x"}}`), read
//!   by parsing and packing it; for catalog entries it is the engine's opaque bytes.
//!
//! The CRC-32 (IEEE) covers the payload, so a damaged value is reported as corruption
//! instead of being decoded into a wrong item, independently of the checksums of the storage
//! engine underneath.

use monotable_engine::StorageError;
use monotable_types::{Item, PackedItem};

/// The value encoding version this build writes for items (packed payload).
pub const VALUE_VERSION: u8 = 2;
/// The version of JSON item payloads (earlier builds) and of catalog entries.
pub const VALUE_VERSION_JSON: u8 = 1;
const HEADER: usize = 5;

/// Frames `payload` with the version byte and checksum.
pub(crate) fn frame_as(version: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.push(version);
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Frames a catalog entry (version 1, opaque payload).
pub(crate) fn frame(payload: &[u8]) -> Vec<u8> {
    frame_as(VALUE_VERSION_JSON, payload)
}

/// Checks the framing of a stored value and returns its version and payload.
fn unframe_any<'a>(what: &dyn Fn() -> String, bytes: &'a [u8]) -> Result<(u8, &'a [u8]), StorageError> {
    let corrupt = |why: &str| StorageError::Io(format!("corrupt value of {}: {why}", what()));
    let (&version, rest) = bytes.split_first().ok_or_else(|| corrupt("empty value"))?;
    if version != VALUE_VERSION && version != VALUE_VERSION_JSON {
        return Err(corrupt(&format!("unknown value version {version}")));
    }
    let (crc, payload) =
        rest.split_at_checked(HEADER - 1).ok_or_else(|| corrupt("value shorter than its header"))?;
    let mut expected = [0u8; 4];
    expected.copy_from_slice(crc);
    if u32::from_le_bytes(expected) != crc32fast::hash(payload) {
        return Err(corrupt("checksum mismatch"));
    }
    Ok((version, payload))
}

/// Checks the framing of a catalog entry (version 1) and returns its payload.
pub(crate) fn unframe<'a>(what: &dyn Fn() -> String, bytes: &'a [u8]) -> Result<&'a [u8], StorageError> {
    match unframe_any(what, bytes)? {
        (VALUE_VERSION_JSON, payload) => Ok(payload),
        (version, _) => {
            Err(StorageError::Io(format!("corrupt value of {}: unknown value version {version}", what())))
        }
    }
}

/// Encodes an item: its packed bytes, framed as version 2.
pub(crate) fn encode_item(item: &PackedItem) -> Vec<u8> {
    frame_as(VALUE_VERSION, item.as_bytes())
}

/// Decodes an item stored under `key` of keyspace `keyspace` (version 2, or version 1 JSON).
pub(crate) fn decode_item(keyspace: &str, key: &[u8], bytes: &[u8]) -> Result<PackedItem, StorageError> {
    let what = || format!("key {} of keyspace {keyspace}", hex(key));
    let undecodable =
        |e: &dyn std::fmt::Display| StorageError::Io(format!("undecodable item at {}: {e}", what()));
    match unframe_any(&what, bytes)? {
        (VALUE_VERSION_JSON, payload) => {
            let item: Item = serde_json::from_slice(payload).map_err(|e| undecodable(&e))?;
            Ok(PackedItem::encode(&item))
        }
        (_, payload) => PackedItem::from_bytes(payload).map_err(|e| undecodable(&e)),
    }
}

/// Lower-case hex of a key, for messages.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use monotable_types::AttributeValue;

    #[test]
    fn item_round_trips_through_the_value_encoding() {
        let mut item = Item::new();
        item.insert("pk".into(), AttributeValue::S("a".into()));
        item.insert("n".into(), AttributeValue::Bool(true));
        let bytes = encode_item(&PackedItem::encode(&item));
        assert_eq!(bytes.first(), Some(&VALUE_VERSION));
        let back = decode_item("t", b"k", &bytes).expect("decodes");
        assert_eq!(back.decode().unwrap(), item);
    }

    #[test]
    fn flipped_payload_byte_is_reported_as_checksum_mismatch() {
        let mut item = Item::new();
        item.insert("pk".into(), AttributeValue::S("abc".into()));
        let mut bytes = encode_item(&PackedItem::encode(&item));
        let last = bytes.len() - 2;
        bytes[last] ^= 0x40;
        let err = decode_item("t", b"k", &bytes).expect_err("corrupt");
        assert!(err.to_string().contains("checksum mismatch"), "{err}");
    }

    #[test]
    fn truncated_and_unknown_version_values_are_refused() {
        assert!(decode_item("t", b"k", &[]).is_err());
        assert!(decode_item("t", b"k", &[1, 0]).is_err());
        assert!(decode_item("t", b"k", &[9, 0, 0, 0, 0]).is_err());
    }

    /// Items written before the packed item's escape-free form (first byte 0x01, docs/PACKED.md)
    /// read as the item this build writes: the same bytes, the form included.
    #[test]
    fn an_item_packed_before_the_escape_free_form_reads_as_todays() {
        let mut item = Item::new();
        item.insert("pk".into(), AttributeValue::S("ORG#1".into()));
        let today = PackedItem::encode(&item);
        assert!(today.is_escape_free());
        let mut old = today.as_bytes().to_vec();
        old[0] = monotable_types::PACKED_VERSION;
        let back = decode_item("t", b"k", &frame_as(VALUE_VERSION, &old)).expect("decodes");
        assert_eq!(back, today);
    }

    #[test]
    fn a_version_1_json_value_still_reads() {
        let json = br#"{"pk":{"S":"a"},"n":{"N":"1.50"},"l":{"L":[{"BOOL":true}]}}"#;
        let bytes = frame_as(VALUE_VERSION_JSON, json);
        let back = decode_item("t", b"k", &bytes).expect("decodes");
        let want: Item = serde_json::from_slice(json).unwrap();
        assert_eq!(back.decode().unwrap(), want);
    }

    #[test]
    fn a_version_2_value_with_a_valid_checksum_but_bad_packing_is_refused() {
        // The CRC matches, but the payload is not a packed item (a count with nothing behind).
        let bytes = frame_as(VALUE_VERSION, &[1, 0, 5]);
        let err = decode_item("t", b"k", &bytes).expect_err("refused");
        assert!(err.to_string().contains("undecodable item"), "{err}");
    }

    #[test]
    fn a_catalog_entry_must_be_version_1() {
        let what = || "catalog entry t".to_owned();
        assert_eq!(unframe(&what, &frame(b"x")).unwrap(), b"x");
        assert!(unframe(&what, &frame_as(VALUE_VERSION, b"x")).is_err());
    }
}
