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
    let Ok(provided) = hex::decode(auth.signature) else {
        return false;
    };
    let scope = format!("{}/{}/{}/{}", auth.scope_date, auth.region, auth.service, auth.terminator);
    let canonical = canonical_request(parts, body, auth.signed_headers);
    let string_to_sign =
        format!("{ALGORITHM}\n{}\n{scope}\n{}", auth.date, hex::encode(Sha256::digest(canonical)));

    let mut key = hmac(format!("AWS4{secret}").as_bytes(), auth.scope_date.as_bytes());
    for part in [auth.region, auth.service, auth.terminator] {
        key = hmac(&key, part.as_bytes());
    }
    let Ok(mut mac) = HmacSha256::new_from_slice(&key) else {
        return false;
    };
    mac.update(string_to_sign.as_bytes());
    mac.verify_slice(&provided).is_ok()
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail here.
    match HmacSha256::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(data);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

/// The canonical request: method, canonical URI, canonical query, the signed headers with
/// their values (trimmed, inner whitespace runs collapsed, repeated headers joined with `,`),
/// the signed header list, and the payload hash.
pub(crate) fn canonical_request(parts: &http::request::Parts, body: &[u8], signed_headers: &str) -> String {
    let path = parts.uri.path();
    let path = if path.is_empty() { "/" } else { path };
    let query = canonical_query(parts.uri.query().unwrap_or(""));
    let mut out = format!("{}\n{}\n{query}\n", parts.method, encode(path, false));
    for name in signed_headers.split(';') {
        let mut values: Vec<String> = parts
            .headers
            .get_all(name)
            .iter()
            .map(|v| collapse_whitespace(&String::from_utf8_lossy(v.as_bytes())))
            .collect();
        // A request handed over in process (or over HTTP/2) may carry its host only in the
        // URI; the client signed that value.
        if values.is_empty() && name == "host" {
            values.extend(parts.uri.authority().map(|a| a.as_str().to_string()));
        }
        out.push_str(&format!("{name}:{}\n", values.join(",")));
    }
    let payload_hash = match parts.headers.get("x-amz-content-sha256").map(|v| v.as_bytes()) {
        Some(b"UNSIGNED-PAYLOAD") => "UNSIGNED-PAYLOAD".to_string(),
        _ => hex::encode(Sha256::digest(body)),
    };
    out.push_str(&format!("\n{signed_headers}\n{payload_hash}"));
    out
}

fn collapse_whitespace(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
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
