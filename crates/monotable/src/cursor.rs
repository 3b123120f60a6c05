//! Authenticated, opaque pagination cursors (S10).
//!
//! Wire form: `base64url(payload) "." base64url(HMAC-SHA256(key, payload))`, where the payload
//! is JSON holding the last evaluated key, the tenant, the target (entity type and index), a
//! fingerprint of the query and an expiry (milliseconds since the epoch).
//!
//! Invariant: a cursor is only ever decoded after its tag verified (in constant time), and a
//! verified cursor is used only if tenant, target and query fingerprint all equal the request
//! at hand and it has not expired. The last evaluated key it carries can therefore only be one
//! this library produced for this very query.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::entity::Item;
use crate::error::{CursorError, Error};
use crate::request::{item_from_json, ItemJson};

type HmacSha256 = Hmac<Sha256>;

/// The key that signs cursors, and how long they live.
#[derive(Clone)]
pub struct CursorKey {
    /// The HMAC state after the key (computed once; cloned per cursor).
    mac: HmacSha256,
    ttl: Duration,
}

impl std::fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CursorKey").field("key", &"<redacted>").field("ttl", &self.ttl).finish()
    }
}

/// What a cursor is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding<'a> {
    pub tenant: &'a str,
    pub target: &'a str,
    pub fingerprint: String,
}

/// A cursor's payload as it is read back.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct Payload {
    /// Last evaluated key, DynamoDB JSON.
    k: serde_json::Value,
    t: String,
    g: String,
    q: String,
    e: u64,
}

/// The same payload as it is written: borrowed, the key written straight to text.
#[derive(Serialize)]
struct PayloadOut<'a> {
    k: ItemJson<'a>,
    t: &'a str,
    g: &'a str,
    q: &'a str,
    e: u64,
}

impl CursorKey {
    /// A cursor key; at least 32 bytes of secret. Cursors live one hour by default.
    pub fn new(secret: impl AsRef<[u8]>) -> Result<Self, Error> {
        let key = secret.as_ref();
        if key.len() < 32 {
            return Err(Error::Config("the cursor key must be at least 32 bytes".into()));
        }
        // HMAC accepts keys of any length, so this cannot fail.
        let mac = <HmacSha256 as Mac>::new_from_slice(key)
            .map_err(|_| Error::Config("the cursor key is not a valid HMAC key".into()))?;
        Ok(CursorKey { mac, ttl: Duration::from_secs(3600) })
    }

    /// Changes how long issued cursors stay valid.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    fn mac(&self) -> HmacSha256 {
        self.mac.clone()
    }

    pub(crate) fn seal(&self, last_key: &Item, binding: &Binding) -> String {
        let payload = PayloadOut {
            k: ItemJson(last_key),
            t: binding.tenant,
            g: binding.target,
            q: &binding.fingerprint,
            e: now_ms().saturating_add(self.ttl.as_millis() as u64),
        };
        let mut body = Vec::with_capacity(256);
        // Writing to a `Vec` cannot fail, and every map key here is a string.
        let _ = serde_json::to_writer(&mut body, &payload);
        let mut mac = self.mac();
        mac.update(&body);
        let tag = mac.finalize().into_bytes();
        let mut out = String::with_capacity((body.len() + tag.len()) * 4 / 3 + 4);
        URL_SAFE_NO_PAD.encode_string(&body, &mut out);
        out.push('.');
        URL_SAFE_NO_PAD.encode_string(tag, &mut out);
        out
    }

    pub(crate) fn open(&self, cursor: &str, binding: &Binding) -> Result<Item, Error> {
        let bad = |e| Error::InvalidCursor(e);
        if cursor.len() > 8192 {
            return Err(bad(CursorError::Malformed));
        }
        let (body, tag) = cursor.split_once('.').ok_or(bad(CursorError::Malformed))?;
        let body = URL_SAFE_NO_PAD.decode(body).map_err(|_| bad(CursorError::Malformed))?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| bad(CursorError::Malformed))?;
        let mut mac = self.mac();
        mac.update(&body);
        mac.verify_slice(&tag).map_err(|_| bad(CursorError::BadSignature))?;
        let payload: Payload = serde_json::from_slice(&body).map_err(|_| bad(CursorError::Malformed))?;
        if now_ms() > payload.e {
            return Err(bad(CursorError::Expired));
        }
        if payload.t != binding.tenant {
            return Err(bad(CursorError::WrongTenant));
        }
        if payload.g != binding.target {
            return Err(bad(CursorError::WrongTarget));
        }
        if payload.q != binding.fingerprint {
            return Err(bad(CursorError::WrongQuery));
        }
        item_from_json(&payload.k).ok_or(bad(CursorError::Malformed))
    }
}

/// A stable fingerprint of a query's shape (everything but start key and limit): the first
/// 16 bytes of the SHA-256 of `parts` in compact JSON, written straight into the hash.
pub(crate) fn fingerprint(parts: &impl Serialize) -> String {
    let mut hash = HashWriter(Sha256::new());
    // The writer never fails, and every map key in a request's parts is a string.
    let _ = serde_json::to_writer(&mut hash, parts);
    URL_SAFE_NO_PAD.encode(&hash.0.finalize()[..16])
}

/// Feeds written bytes into a hash.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn key() -> CursorKey {
        CursorKey::new([7u8; 32]).unwrap()
    }
    fn binding() -> Binding<'static> {
        Binding { tenant: "org-1", target: "Record/table", fingerprint: "fp".into() }
    }
    fn last() -> Item {
        Item::from([("pk".to_string(), AttributeValue::S("ORG#org-1".into()))])
    }

    #[test]
    fn s10_cursor_round_trips() {
        let c = key().seal(&last(), &binding());
        assert_eq!(key().open(&c, &binding()).unwrap(), last());
    }

    #[test]
    fn s10_tampered_cursor_is_refused() {
        let c = key().seal(&last(), &binding());
        let (body, tag) = c.split_once('.').unwrap();
        let mut raw = URL_SAFE_NO_PAD.decode(body).unwrap();
        let text = String::from_utf8(raw.clone()).unwrap().replace("org-1", "org-2");
        raw = text.into_bytes();
        let forged = format!("{}.{}", URL_SAFE_NO_PAD.encode(raw), tag);
        assert!(matches!(
            key().open(&forged, &binding()),
            Err(Error::InvalidCursor(CursorError::BadSignature))
        ));
        assert!(matches!(
            key().open("not a cursor", &binding()),
            Err(Error::InvalidCursor(CursorError::Malformed))
        ));
    }

    #[test]
    fn s10_cursor_signed_with_another_key_is_refused() {
        let other = CursorKey::new([8u8; 32]).unwrap().seal(&last(), &binding());
        assert!(matches!(
            key().open(&other, &binding()),
            Err(Error::InvalidCursor(CursorError::BadSignature))
        ));
    }

    #[test]
    fn s10_cross_tenant_target_and_query_cursors_are_refused() {
        let c = key().seal(&last(), &binding());
        let mut b = binding();
        b.tenant = "org-2";
        assert!(matches!(key().open(&c, &b), Err(Error::InvalidCursor(CursorError::WrongTenant))));
        let mut b = binding();
        b.target = "Record/gsi1";
        assert!(matches!(key().open(&c, &b), Err(Error::InvalidCursor(CursorError::WrongTarget))));
        let mut b = binding();
        b.fingerprint = "other".into();
        assert!(matches!(key().open(&c, &b), Err(Error::InvalidCursor(CursorError::WrongQuery))));
    }

    #[test]
    fn s10_expired_cursor_is_refused() {
        let k = key().with_ttl(Duration::from_millis(0));
        let c = k.seal(&last(), &binding());
        std::thread::sleep(Duration::from_millis(5));
        assert!(matches!(k.open(&c, &binding()), Err(Error::InvalidCursor(CursorError::Expired))));
    }

    #[test]
    fn s10_cursor_body_and_fingerprint_keep_their_wire_form() {
        // The payload and the fingerprint are written without building JSON values; the text
        // must stay what it was, so that cursors issued before keep opening.
        let c = key().seal(&last(), &binding());
        let body = URL_SAFE_NO_PAD.decode(c.split_once('.').unwrap().0).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let old = Payload {
            k: crate::request::item_json(&last()),
            t: "org-1".into(),
            g: "Record/table".into(),
            q: "fp".into(),
            e: v["e"].as_u64().unwrap(),
        };
        assert_eq!(body, serde_json::to_vec(&old).unwrap());
        let parts = (Some("gsi1"), "#n0 = :v0", None::<String>, vec![("#n0", "pk")], true);
        let old = serde_json::json!([Some("gsi1"), "#n0 = :v0", None::<String>, [["#n0", "pk"]], true]);
        let expected = URL_SAFE_NO_PAD.encode(&Sha256::digest(old.to_string().as_bytes())[..16]);
        assert_eq!(fingerprint(&parts), expected);
    }

    #[test]
    fn short_cursor_key_is_a_config_error() {
        assert!(matches!(CursorKey::new(b"short"), Err(Error::Config(_))));
    }
}
