//! The request headers the protocol reads, found in one pass over the header map.
//!
//! A request is checked against ten headers (the target, the body's length, type and coding,
//! `Expect`, `Accept-Encoding`, `Origin`, `Host`, the signature and its date). `HeaderMap::get` hashes
//! the name and probes the map for each (about 140 instructions apiece, a twentieth of a
//! GetItem's own work); a request carries six to ten headers, so one walk over them, matching
//! each name once, finds all ten for less, and sums the header section's size on the way (for
//! the transport's 16 KiB limit).

use http::{HeaderMap, HeaderName, HeaderValue};

/// The headers the protocol reads, each as `HeaderMap::get` would return it: the first value
/// of a repeated header, except `accept_encoding`, which holds the last (DynamoDB honours the
/// last `Accept-Encoding`); and the size of the whole header section.
///
/// Invariant: `RequestHeaders::read(map)` holds, for every header field, exactly what that
/// lookup on `map` returns, and in `section_bytes` the sum of its lines' sizes
/// (`tests::one_pass_finds_what_lookups_find` checks it on generated maps).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct RequestHeaders<'a> {
    /// `X-Amz-Target`.
    pub target: Option<&'a HeaderValue>,
    pub content_type: Option<&'a HeaderValue>,
    pub content_length: Option<&'a HeaderValue>,
    pub content_encoding: Option<&'a HeaderValue>,
    /// The last `Accept-Encoding`.
    pub accept_encoding: Option<&'a HeaderValue>,
    pub expect: Option<&'a HeaderValue>,
    pub origin: Option<&'a HeaderValue>,
    pub host: Option<&'a HeaderValue>,
    pub authorization: Option<&'a HeaderValue>,
    /// `X-Amz-Date`.
    pub amz_date: Option<&'a HeaderValue>,
    pub date: Option<&'a HeaderValue>,
    /// The header section's size, each field counted as the line `name: value\r\n`.
    pub section_bytes: usize,
}

impl<'a> RequestHeaders<'a> {
    /// Walks `headers` once. Header names are lower case in a `HeaderMap`, so each is matched
    /// as a plain string.
    pub(crate) fn read(headers: &'a HeaderMap) -> RequestHeaders<'a> {
        let mut found = RequestHeaders::default();
        for (name, value) in headers {
            found.section_bytes += line_bytes(name, value);
            let slot = match name.as_str() {
                "x-amz-target" => &mut found.target,
                "content-type" => &mut found.content_type,
                "content-length" => &mut found.content_length,
                "content-encoding" => &mut found.content_encoding,
                "accept-encoding" => {
                    found.accept_encoding = Some(value);
                    continue;
                }
                "expect" => &mut found.expect,
                "origin" => &mut found.origin,
                "host" => &mut found.host,
                "authorization" => &mut found.authorization,
                "x-amz-date" => &mut found.amz_date,
                "date" => &mut found.date,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        found
    }

    /// `X-Amz-Target` as text, if it is readable.
    pub(crate) fn target(&self) -> Option<&'a str> {
        text(self.target)
    }
}

/// The size of the line `name: value\r\n`.
fn line_bytes(name: &HeaderName, value: &HeaderValue) -> usize {
    name.as_str().len() + value.len() + 4
}

/// A header's value as text; `None` when it is absent or holds bytes outside visible ASCII
/// (what `HeaderValue::to_str` refuses).
pub(crate) fn text(value: Option<&HeaderValue>) -> Option<&str> {
    value.and_then(|v| v.to_str().ok())
}

#[cfg(test)]
mod tests {
    use http::header::{
        ACCEPT_ENCODING, AUTHORIZATION, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, DATE, EXPECT, HOST,
        ORIGIN,
    };
    use proptest::prelude::*;

    use super::*;

    /// The size of `headers` as a header section, line by line.
    fn section_bytes(headers: &HeaderMap) -> usize {
        headers.iter().map(|(name, value)| line_bytes(name, value)).sum()
    }

    /// What ten separate lookups on `map` find.
    fn by_lookup(map: &HeaderMap) -> RequestHeaders<'_> {
        RequestHeaders {
            target: map.get("x-amz-target"),
            content_type: map.get(CONTENT_TYPE),
            content_length: map.get(CONTENT_LENGTH),
            content_encoding: map.get(CONTENT_ENCODING),
            accept_encoding: map.get_all(ACCEPT_ENCODING).iter().next_back(),
            expect: map.get(EXPECT),
            origin: map.get(ORIGIN),
            host: map.get(HOST),
            authorization: map.get(AUTHORIZATION),
            amz_date: map.get("x-amz-date"),
            date: map.get(DATE),
            section_bytes: section_bytes(map),
        }
    }

    fn names() -> Vec<HeaderName> {
        let custom = ["x-amz-target", "x-amz-date", "x-amz-user-agent", "x-amz-content-sha256"];
        let standard = [
            CONTENT_TYPE,
            CONTENT_LENGTH,
            CONTENT_ENCODING,
            ACCEPT_ENCODING,
            EXPECT,
            ORIGIN,
            AUTHORIZATION,
            DATE,
            HOST,
        ];
        custom.into_iter().map(HeaderName::from_static).chain(standard).collect()
    }

    #[test]
    fn an_sdk_request_has_its_headers_found() {
        let mut map = HeaderMap::new();
        map.insert(HOST, HeaderValue::from_static("localhost:8000"));
        map.insert("x-amz-target", HeaderValue::from_static("DynamoDB_20120810.GetItem"));
        map.insert(CONTENT_TYPE, HeaderValue::from_static("application/x-amz-json-1.0"));
        map.append(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        map.append(ACCEPT_ENCODING, HeaderValue::from_static("identity"));
        map.append(ORIGIN, HeaderValue::from_static("http://a"));
        map.append(ORIGIN, HeaderValue::from_static("http://b"));
        let found = RequestHeaders::read(&map);
        assert_eq!(found.target(), Some("DynamoDB_20120810.GetItem"));
        assert_eq!(text(found.content_type), Some("application/x-amz-json-1.0"));
        assert_eq!(text(found.accept_encoding), Some("identity"), "the last Accept-Encoding");
        assert_eq!(text(found.origin), Some("http://a"), "the first of any other header");
        assert_eq!(text(found.host), Some("localhost:8000"));
        assert_eq!(found.authorization, None);
        // "host: localhost:8000\r\n" is 22 bytes, and so on.
        assert_eq!(found.section_bytes, 22 + 41 + 42 + 23 + 27 + 18 + 18);
        assert_eq!(found, by_lookup(&map));
    }

    proptest! {
        #[test]
        fn one_pass_finds_what_lookups_find(
            entries in proptest::collection::vec((0usize..13, 0u8..4, any::<bool>()), 0..16)
        ) {
            let names = names();
            let mut map = HeaderMap::new();
            for (i, (name, value, insert)) in entries.iter().enumerate() {
                let name = names[name % names.len()].clone();
                // Values that `to_str` reads and one it refuses.
                let value = match value {
                    0 => HeaderValue::from_static("a"),
                    1 => HeaderValue::from_str(&format!("v{i}")).unwrap(),
                    2 => HeaderValue::from_static(""),
                    _ => HeaderValue::from_bytes(b"\xff").unwrap(),
                };
                if *insert {
                    map.insert(name, value);
                } else {
                    map.append(name, value);
                }
            }
            prop_assert_eq!(RequestHeaders::read(&map), by_lookup(&map));
        }
    }
}
