//! Opaque, authenticated page cursors (never offsets).
//!
//! A cursor is `base64url(JSON of LastEvaluatedKey) . base64url(HMAC-SHA256)`, and the MAC
//! also covers the table and index the page came from. The page cannot forge a start key or
//! reuse a cursor on another table or index: a cursor is accepted only if its MAC verifies
//! under the console's key for the same table and index.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::ApiError;
use crate::value::{item_from_json, item_to_json, SdkItem};

/// The console's cursor key (random per console process).
#[derive(Clone)]
pub struct CursorKey([u8; 32]);

impl CursorKey {
    /// A fresh random key.
    pub fn random() -> CursorKey {
        let mut key = [0u8; 32];
        key[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        key[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        CursorKey(key)
    }

    fn mac(&self, scope: &str, key: &[u8]) -> Hmac<Sha256> {
        // A 32-byte key is always a valid HMAC key.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0).expect("HMAC accepts any key length");
        mac.update(&(scope.len() as u64).to_be_bytes());
        mac.update(scope.as_bytes());
        mac.update(key);
        mac
    }

    /// The cursor for `last_key` of a page read from `table` (and `index`).
    pub fn seal(&self, table: &str, index: Option<&str>, last_key: &SdkItem) -> String {
        let key = item_to_json(last_key).to_string();
        let scope = format!("{table}\u{0}{}", index.unwrap_or(""));
        let tag = self.mac(&scope, key.as_bytes()).finalize().into_bytes();
        format!("{}.{}", URL_SAFE_NO_PAD.encode(key), URL_SAFE_NO_PAD.encode(tag))
    }

    /// The start key a cursor carries, if it was sealed for `table` and `index`.
    pub fn open(&self, table: &str, index: Option<&str>, cursor: &str) -> Result<SdkItem, ApiError> {
        let invalid = || ApiError::bad("The cursor is not valid for this table and index.");
        let (key, tag) = cursor.split_once('.').ok_or_else(invalid)?;
        let key = URL_SAFE_NO_PAD.decode(key).map_err(|_| invalid())?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| invalid())?;
        let scope = format!("{table}\u{0}{}", index.unwrap_or(""));
        self.mac(&scope, &key).verify_slice(&tag).map_err(|_| invalid())?;
        let json: serde_json::Value = serde_json::from_slice(&key).map_err(|_| invalid())?;
        item_from_json(&json)
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;

    use super::*;

    #[test]
    fn cursors_open_only_for_the_table_and_index_they_were_sealed_for() {
        let key = CursorKey::random();
        let last: SdkItem = [("pk".to_string(), AttributeValue::S("a".into()))].into();
        let cursor = key.seal("t", None, &last);
        assert_eq!(key.open("t", None, &cursor).unwrap(), last);
        assert!(key.open("u", None, &cursor).is_err());
        assert!(key.open("t", Some("gsi1"), &cursor).is_err());
        assert!(CursorKey::random().open("t", None, &cursor).is_err());
        let forged = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(r#"{"pk":{"S":"b"}}"#),
            cursor.split_once('.').unwrap().1
        );
        assert!(key.open("t", None, &forged).is_err());
    }
}
