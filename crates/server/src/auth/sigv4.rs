//! Recomputing a SigV4 signature for a received request.
//!
//! Hand-written with `hmac` + `sha2` rather than `aws-sigv4`: verification must canonicalise
//! exactly the headers the client listed in `SignedHeaders`, in the client's spelling, while
//! `aws-sigv4` is a signer that chooses its own header set (it skips `user-agent`, for
//! example). The algorithm is small and fully specified by AWS's SigV4 documentation.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use super::header::{Authorization, ALGORITHM};

type HmacSha256 = Hmac<Sha256>;

/// Returns true when `auth.signature` is the SigV4 signature of this request under `secret`.
/// The comparison is constant-time.
pub(crate) fn signature_matches(
    parts: &http::request::Parts,
    body: &[u8],
    auth: &Authorization<'_>,
    secret: &str,
) -> bool {
    use std::fmt::Write as _;
    let mut provided = [0u8; 32];
    if hex::decode_to_slice(auth.signature, &mut provided).is_err() {
        return false;
    }
    let canonical = canonical_request(parts, body, auth.signed_headers);
    let mut string_to_sign = String::with_capacity(160);
    // Writing to a String cannot fail.
    let _ = write!(
        string_to_sign,
        "{ALGORITHM}\n{}\n{}/{}/{}/{}\n{}",
        auth.date,
        auth.scope_date,
        auth.region,
        auth.service,
        auth.terminator,
        hex::encode(Sha256::digest(canonical))
    );
    let Some(mut mac) = signing_mac(secret, auth) else {
        return false;
    };
    mac.update(string_to_sign.as_bytes());
    mac.verify_slice(&provided).is_ok()
}

/// How many derived signing keys each thread remembers (one per secret and scope in use).
const KEY_CACHE_SIZE: usize = 8;

/// A derived signing key, already keyed into an HMAC, for one secret and credential scope
/// (date, region, service, terminator).
struct CachedKey {
    secret: String,
    scope: [String; 4],
    mac: HmacSha256,
}

thread_local! {
    static KEY_CACHE: std::cell::RefCell<Vec<CachedKey>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An HMAC keyed with the signing key of `secret` for the request's credential scope. The key
/// takes four HMACs to derive and changes once a day, so each thread caches the last few.
fn signing_mac(secret: &str, auth: &Authorization<'_>) -> Option<HmacSha256> {
    let scope = [auth.scope_date, auth.region, auth.service, auth.terminator];
    let hit = KEY_CACHE.with(|cache| {
        let cache = cache.borrow();
        cache
            .iter()
            .find(|k| k.secret == secret && k.scope.iter().zip(scope).all(|(a, b)| a == b))
            .map(|k| k.mac.clone())
    });
    if hit.is_some() {
        return hit;
    }
    let mut key = hmac(format!("AWS4{secret}").as_bytes(), auth.scope_date.as_bytes())?;
    for part in [auth.region, auth.service, auth.terminator] {
        key = hmac(&key, part.as_bytes())?;
    }
    let mac = HmacSha256::new_from_slice(&key).ok()?;
    KEY_CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= KEY_CACHE_SIZE {
            cache.remove(0);
        }
        cache.push(CachedKey {
            secret: secret.to_owned(),
            scope: scope.map(str::to_owned),
            mac: mac.clone(),
        });
    });
    Some(mac)
}

/// HMAC-SHA256 (which accepts keys of any length, so this is never `None` in practice).
fn hmac(key: &[u8], data: &[u8]) -> Option<[u8; 32]> {
    let mut mac = HmacSha256::new_from_slice(key).ok()?;
    mac.update(data);
    Some(mac.finalize().into_bytes().into())
}

/// The canonical request: method, canonical URI, canonical query, the signed headers with
/// their values (trimmed, inner whitespace runs collapsed, repeated headers joined with `,`),
/// the signed header list, and the payload hash.
pub(crate) fn canonical_request(parts: &http::request::Parts, body: &[u8], signed_headers: &str) -> String {
    let path = parts.uri.path();
    let path = if path.is_empty() { "/" } else { path };
    let query = canonical_query(parts.uri.query().unwrap_or(""));
    let mut out = String::with_capacity(256 + signed_headers.len());
    out.push_str(parts.method.as_str());
    out.push('\n');
    out.push_str(&encode(path, false));
    out.push('\n');
    out.push_str(&query);
    out.push('\n');
    for name in signed_headers.split(';') {
        out.push_str(name);
        out.push(':');
        let mut values = parts.headers.get_all(name).iter().peekable();
        if values.peek().is_none() && name == "host" {
            // A request handed over in process (or over HTTP/2) may carry its host only in the
            // URI; the client signed that value.
            out.push_str(parts.uri.authority().map_or("", |a| a.as_str()));
        }
        for (i, value) in values.enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_collapsed(&mut out, &String::from_utf8_lossy(value.as_bytes()));
        }
        out.push('\n');
    }
    out.push('\n');
    out.push_str(signed_headers);
    out.push('\n');
    match parts.headers.get("x-amz-content-sha256").map(|v| v.as_bytes()) {
        Some(b"UNSIGNED-PAYLOAD") => out.push_str("UNSIGNED-PAYLOAD"),
        _ => out.push_str(&hex::encode(Sha256::digest(body))),
    }
    out
}

/// Appends `value` trimmed, with each inner run of whitespace collapsed to one space.
fn push_collapsed(out: &mut String, value: &str) {
    for (i, word) in value.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// Query parameters decoded, re-encoded strictly and sorted by name then value.
fn canonical_query(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (encode(&decode(k), true), encode(&decode(v), true))
        })
        .collect();
    pairs.sort();
    pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
}

/// SigV4 URI encoding: unreserved characters stay, everything else is `%XX` (upper case).
/// The path keeps its `/`; for services other than S3 the already-encoded path is encoded
/// again, which is what passing the raw path through here does.
fn encode(s: &str, encode_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b'/' if !encode_slash => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Percent-decoding that leaves malformed escapes as they are.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex_pair = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex_pair.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AWS's published "get-vanilla" SigV4 test vector (service `service`, secret
    /// `wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY`).
    #[test]
    fn aws_get_vanilla_test_vector_verifies() {
        let (parts, ()) = http::Request::builder()
            .method("GET")
            .uri("/")
            .header("host", "example.amazonaws.com")
            .header("x-amz-date", "20150830T123600Z")
            .body(())
            .unwrap()
            .into_parts();
        let header = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
                      SignedHeaders=host;x-amz-date, \
                      Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31";
        let auth = super::super::header::parse(Some(header), Some("20150830T123600Z")).unwrap();
        assert!(signature_matches(&parts, b"", &auth, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"));
        assert!(!signature_matches(&parts, b"", &auth, "wrong-secret"));
        assert!(!signature_matches(&parts, b"x", &auth, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"));
    }

    #[test]
    fn canonical_request_collapses_header_whitespace_and_sorts_query() {
        let (parts, ()) = http::Request::builder()
            .method("POST")
            .uri("/a%20b?b=2&a=1&a=0")
            .header("host", "h")
            .header("x-custom", "  one   two ")
            .body(())
            .unwrap()
            .into_parts();
        let canonical = canonical_request(&parts, b"", "host;x-custom");
        let expected = "POST\n/a%2520b\na=0&a=1&b=2\nhost:h\nx-custom:one two\n\nhost;x-custom\n\
                        e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(canonical, expected);
    }
}
