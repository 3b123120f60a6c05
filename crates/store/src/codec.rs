//! The value encoding: how an item (or a catalog entry) is stored as bytes.
//!
//! ```text
//! value = version:u8 (=1) | crc32:u32 little-endian | payload
//! ```
//!
//! For items the payload is the item in DynamoDB's JSON wire form (`{"a":{"S":"x"}}`); for
//! catalog entries it is the engine's opaque bytes. The CRC-32 (IEEE) covers the payload, so
//! a damaged value is reported as corruption instead of being decoded into a wrong item,
//! independently of the checksums of the storage engine underneath.

use std::sync::Arc;

use monotable_engine::StorageError;
use monotable_types::Item;

/// The only value encoding version this build writes and reads.
pub const VALUE_VERSION: u8 = 1;
const HEADER: usize = 5;

/// Frames `payload` with the version byte and checksum.
pub(crate) fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.push(VALUE_VERSION);
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Checks the framing of a stored value and returns its payload.
pub(crate) fn unframe<'a>(what: &dyn Fn() -> String, bytes: &'a [u8]) -> Result<&'a [u8], StorageError> {
    let corrupt = |why: &str| StorageError::Io(format!("corrupt value of {}: {why}", what()));
    let (&version, rest) = bytes.split_first().ok_or_else(|| corrupt("empty value"))?;
    if version != VALUE_VERSION {
        return Err(corrupt(&format!("unknown value version {version}")));
    }
    let (crc, payload) =
        rest.split_at_checked(HEADER - 1).ok_or_else(|| corrupt("value shorter than its header"))?;
    let mut expected = [0u8; 4];
    expected.copy_from_slice(crc);
    if u32::from_le_bytes(expected) != crc32fast::hash(payload) {
        return Err(corrupt("checksum mismatch"));
    }
    Ok(payload)
}

/// Encodes an item.
pub(crate) fn encode_item(item: &Item) -> Result<Vec<u8>, StorageError> {
    let json = serde_json::to_vec(item).map_err(|e| StorageError::Io(format!("cannot encode item: {e}")))?;
    Ok(frame(&json))
}

/// Decodes an item stored under `key` of keyspace `keyspace`.
pub(crate) fn decode_item(keyspace: &str, key: &[u8], bytes: &[u8]) -> Result<Arc<Item>, StorageError> {
    let what = || format!("key {} of keyspace {keyspace}", hex(key));
    let payload = unframe(&what, bytes)?;
    let item: Item = serde_json::from_slice(payload)
        .map_err(|e| StorageError::Io(format!("undecodable item at {}: {e}", what())))?;
    Ok(Arc::new(item))
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
        let bytes = encode_item(&item).expect("encodes");
        assert_eq!(bytes.first(), Some(&VALUE_VERSION));
        let back = decode_item("t", b"k", &bytes).expect("decodes");
        assert_eq!(*back, item);
    }

    #[test]
    fn flipped_payload_byte_is_reported_as_checksum_mismatch() {
        let mut item = Item::new();
        item.insert("pk".into(), AttributeValue::S("abc".into()));
        let mut bytes = encode_item(&item).expect("encodes");
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
}
