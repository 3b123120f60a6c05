//! Parsing the SigV4 `Authorization` header into its parts, with DynamoDB's error texts for
//! each way it can be incomplete.
//!
//! The header looks like `AWS4-HMAC-SHA256 Credential=AKID/20130609/us-east-1/dynamodb/aws4_request,
//! SignedHeaders=host;x-amz-date, Signature=0123…`. DynamoDB splits the parameters at commas
//! and at spaces alike, refuses a parameter without `=`, then reports every missing part in one
//! message, then checks the date format, the algorithm and the credential's shape, in that order.

use std::cell::RefCell;

use crate::ServerError;

use super::time::parse_amz_date;

/// The only signing algorithm DynamoDB accepts.
pub(crate) const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// A well-formed `Authorization` header (not yet verified).
#[derive(Debug, PartialEq)]
pub(crate) struct Authorization<'a> {
    /// The whole credential, `keyid/date/region/service/terminator`.
    pub credential: &'a str,
    pub key_id: &'a str,
    pub scope_date: &'a str,
    pub region: &'a str,
    pub service: &'a str,
    pub terminator: &'a str,
    /// Lower-cased by the client; `;`-separated.
    pub signed_headers: &'a str,
    pub signature: &'a str,
    /// The request time, as sent (`X-Amz-Date`, else `Date`).
    pub date: &'a str,
    /// The request time in Unix seconds.
    pub timestamp: i64,
}

/// Parses `authorization` (the header value, if any) and the request date header.
pub(crate) fn parse<'a>(
    authorization: Option<&'a str>,
    date: Option<&'a str>,
) -> Result<Authorization<'a>, ServerError> {
    let auth = match authorization {
        Some(a) if a.trim_start().starts_with("AWS4-") => a,
        _ => return Err(ServerError::MissingAuthenticationToken),
    };
    let Layout { algorithm, credential, signed_headers, signature, without_equals } = match sdk_layout(auth) {
        Some((credential, signed_headers, signature)) => Layout {
            algorithm: ALGORITHM,
            credential: Some(credential),
            signed_headers: Some(signed_headers),
            signature: Some(signature),
            without_equals: None,
        },
        None => general_layout(auth),
    };
    if let Some(word) = without_equals {
        return Err(ServerError::IncompleteSignature(format!(
            "'{word}' not a valid key=value pair (missing equal-sign) in Authorization header: '{auth}'."
        )));
    }

    let mut missing = String::new();
    for (name, value) in
        [("Credential", credential), ("Signature", signature), ("SignedHeaders", signed_headers)]
    {
        if value.is_none_or(str::is_empty) {
            missing.push_str(&format!("Authorization header requires '{name}' parameter. "));
        }
    }
    if date.is_none() {
        missing.push_str(
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ",
        );
    }
    let (Some(credential), Some(signed_headers), Some(signature), Some(date), true) =
        (credential, signed_headers, signature, date, missing.is_empty())
    else {
        return Err(ServerError::IncompleteSignature(format!("{missing}Authorization={auth}")));
    };

    let timestamp = parse_amz_date(date).ok_or_else(|| {
        ServerError::IncompleteSignature(format!(
            "Date must be in ISO-8601 'basic format'. Got '{date}'. See http://en.wikipedia.org/wiki/ISO_8601"
        ))
    })?;

    if algorithm != ALGORITHM {
        return Err(ServerError::IncompleteSignature(format!(
            "Unsupported AWS 'algorithm': '{algorithm}' (only {ALGORITHM} for now). "
        )));
    }

    let Some([key_id, scope_date, region, service, terminator]) = credential_parts(credential) else {
        return Err(ServerError::IncompleteSignature(format!(
            "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '{credential}'"
        )));
    };

    Ok(Authorization {
        credential,
        key_id,
        scope_date,
        region,
        service,
        terminator,
        signed_headers,
        signature,
        date,
        timestamp,
    })
}

/// The five `/`-separated elements of a credential (trailing slashes ignored), or `None` when
/// there are more or fewer: [`split_credential`]'s answer, remembered for the last credential
/// this thread split.
fn credential_parts(credential: &str) -> Option<[&str; 5]> {
    let spans = if credential.len() > MAX_CACHED_CREDENTIAL {
        split_credential(credential)
    } else {
        LAST_CREDENTIAL.with_borrow_mut(|(last, spans)| {
            if last != credential {
                *spans = split_credential(credential);
                last.clear();
                last.push_str(credential);
            }
            *spans
        })
    }?;
    // The spans were cut from this same text, on character boundaries.
    Some(spans.map(|(a, b)| credential.get(a..b).unwrap_or("")))
}

/// The longest credential [`credential_parts`] remembers (real ones are about 60 bytes), so
/// the cache stays small whatever a client sends.
const MAX_CACHED_CREDENTIAL: usize = 256;

/// Where each of a credential's five parts lies.
type Spans = [(usize, usize); 5];

thread_local! {
    // The last credential this thread split, and its parts. A client signs every request of
    // a day with the same credential, so most requests find theirs here and pay one
    // comparison instead of the split. It starts as the empty credential and its answer, and
    // only ever holds a credential and what `split_credential` makes of it.
    static LAST_CREDENTIAL: RefCell<(String, Option<Spans>)> = const { RefCell::new((String::new(), None)) };
}

/// Splits a credential at its slashes (trailing slashes ignored): the spans of its five
/// parts, or `None` when there are more or fewer. `/` is ASCII, so every cut lies on a
/// character boundary.
///
/// The slashes are found eight bytes at a time ([`slashes`]), the last few bytes one at a time:
/// a credential is some 50 bytes with four slashes, where memchr's iterator paid its set-up
/// again after every hit (about 440 instructions a request) and a byte loop about as much.
fn split_credential(credential: &str) -> Option<Spans> {
    let credential = credential.trim_end_matches('/');
    let bytes = credential.as_bytes();
    let mut parts = [(0, 0); 5];
    let mut count = 0;
    let mut start = 0;
    let mut cut = |i: usize| -> Option<()> {
        *parts.get_mut(count)? = (start, i);
        count += 1;
        start = i + 1;
        Some(())
    };
    let mut words = bytes.chunks_exact(8);
    for (offset, word) in (&mut words).enumerate() {
        let mut hits = <[u8; 8]>::try_from(word).map_or(0, |w| slashes(u64::from_le_bytes(w)));
        while hits != 0 {
            cut(offset * 8 + (hits.trailing_zeros() / 8) as usize)?;
            hits &= hits - 1;
        }
    }
    let tail = bytes.len() - words.remainder().len();
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b'/' {
            cut(tail + i)?;
        }
    }
    *parts.get_mut(count)? = (start, bytes.len());
    (count == 4).then_some(parts)
}

/// A mask with the high bit of byte `i` set exactly when byte `i` of `word` is `/`. Exact for
/// every byte, not only the first hit: no byte's sum below can carry into its neighbour.
fn slashes(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The slashes are the zero bytes of `x`.
    let x = word ^ 0x2f2f_2f2f_2f2f_2f2f;
    // The high bit of each byte of `nonzero` is set when that byte of `x` is not zero.
    let nonzero = ((x & LOW7) + LOW7) | x;
    !nonzero & !LOW7
}

/// The position of the first `byte` in `s` (memchr: whole vector registers at a time, where a
/// byte loop costs four instructions a byte over a 64-byte signature).
fn find(s: &str, byte: u8) -> Option<usize> {
    memchr::memchr(byte, s.as_bytes())
}

/// What a header that starts with `AWS4-` holds: its algorithm, its three parameters (a later
/// repeat wins, other names are ignored) and the first word that is no `key=value` pair.
struct Layout<'a> {
    algorithm: &'a str,
    credential: Option<&'a str>,
    signed_headers: Option<&'a str>,
    signature: Option<&'a str>,
    without_equals: Option<&'a str>,
}

/// Whether `c` separates two parameters: DynamoDB splits the parameters at commas and at
/// spaces alike (ScyllaDB's test/alternator/test_authorization.py, run against DynamoDB:
/// `Credential=… SignedHeaders=… Signature=…` with spaces alone is read, and so is the SDK
/// layout with its spaces removed; dynalite's index.js splits the same way). A header value
/// holds no other whitespace than space and tab.
fn separates(c: char) -> bool {
    matches!(c, ',' | ' ' | '\t')
}

/// Splits any header that starts with `AWS4-` into its [`Layout`], tolerating spacing, order
/// and repeats as DynamoDB does.
fn general_layout(auth: &str) -> Layout<'_> {
    let trimmed = auth.trim_matches(|c| c == ' ' || c == '\t');
    let (algorithm, rest) = trimmed.split_once([' ', '\t']).unwrap_or((trimmed, ""));

    let mut layout =
        Layout { algorithm, credential: None, signed_headers: None, signature: None, without_equals: None };
    for word in rest.split(separates).filter(|w| !w.is_empty()) {
        let Some((key, value)) = word.split_once('=') else {
            layout.without_equals.get_or_insert(word);
            continue;
        };
        let slot = match key {
            "Credential" => &mut layout.credential,
            "SignedHeaders" => &mut layout.signed_headers,
            "Signature" => &mut layout.signature,
            _ => continue,
        };
        *slot = Some(value);
    }
    layout
}

/// The parameters of a header in exactly the layout the SDKs write
/// (`AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`), for which
/// [`general_layout`] gives the same parts: each value is non-empty and holds no separator
/// (only the signature needs a search for a comma: the other two end at the first one).
/// Found with byte searches instead of the general splitting, which cost more than the rest of
/// a GetItem's protocol checks.
fn sdk_layout(auth: &str) -> Option<(&str, &str, &str)> {
    let rest = auth.strip_prefix("AWS4-HMAC-SHA256 Credential=")?;
    let comma = find(rest, b',')?;
    let (credential, rest) = (rest.get(..comma)?, rest.get(comma + 1..)?);
    let rest = rest.strip_prefix(" SignedHeaders=")?;
    let comma = find(rest, b',')?;
    let (signed_headers, rest) = (rest.get(..comma)?, rest.get(comma + 1..)?);
    let signature = rest.strip_prefix(" Signature=")?;
    let unbroken = |v: &str| !v.is_empty() && memchr::memchr2(b' ', b'\t', v.as_bytes()).is_none();
    (unbroken(credential)
        && unbroken(signed_headers)
        && unbroken(signature)
        && find(signature, b',').is_none())
    .then_some((credential, signed_headers, signature))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "AWS4-HMAC-SHA256 Credential=AKID/20130609/us-east-1/dynamodb/aws4_request, \
                        SignedHeaders=host;x-amz-date, Signature=abcd";

    fn message(e: ServerError) -> (String, String) {
        (e.type_name().to_string(), e.message().unwrap_or_default().to_string())
    }

    fn general(h: &str) -> Option<(&str, &str, &str)> {
        let Layout { algorithm, credential, signed_headers, signature, without_equals } = general_layout(h);
        let parts = credential.zip(signed_headers).zip(signature).map(|((c, sh), sig)| (c, sh, sig));
        (algorithm == ALGORITHM && without_equals.is_none()).then_some(()).and(parts)
    }

    #[test]
    fn the_sdk_layout_shortcut_agrees_with_the_general_parser() {
        for header in [
            GOOD,
            "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=x=y",
            "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=ab ",
            "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=a,Signature=b",
            "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=\u{a0}",
            "AWS4-HMAC-SHA256 Credential=, SignedHeaders=host, Signature=x",
            "AWS4-HMAC-SHA256  Credential=a/b/c/d/e, SignedHeaders=host, Signature=x",
            "AWS4-HMAC-SHA256 Credential=a/b c/d/e, SignedHeaders= host, Signature=x",
            "AWS4-HMAC-SHA256 Credential=a/b/c/d/e , SignedHeaders=host;x, Signature=x\u{a0}y",
            "AWS4-HMAC-SHA256 Credential=a=b, SignedHeaders=h, Signature=s, Credential=z",
            "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=a b=c",
            "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=a\tb",
            "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=a b",
        ] {
            if let Some(fast) = sdk_layout(header) {
                assert_eq!(Some(fast), general(header), "{header}");
            }
        }
        assert!(sdk_layout(GOOD).is_some());
    }

    /// What `str::split` makes of `credential`, trailing slashes ignored.
    fn split_parts(credential: &str) -> Option<[&str; 5]> {
        let mut parts = credential.trim_end_matches('/').split('/');
        match (parts.next(), parts.next(), parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), Some(c), Some(d), Some(e), None) => Some([a, b, c, d, e]),
            _ => None,
        }
    }

    proptest::proptest! {
        #[test]
        fn any_credential_splits_as_str_split_does(credential in "[a/\u{7f}\u{80}-\u{12f}é0-9]{0,40}") {
            proptest::prop_assert_eq!(credential_parts(&credential), split_parts(&credential));
        }
    }

    #[test]
    fn credential_parts_split_as_str_split_does() {
        let long = "AKIDEXAMPLE0123456789/20130609/us-east-1/dynamodb/aws4_request";
        for credential in [
            "a/b/c/d/e",
            "a/b/c/d/e//",
            "a/b/c/d",
            "a/b/c/d/e/f",
            "",
            "/////",
            "a//c/d/é",
            "é/b/c/d/e/",
            long,
            "1234567/12345678/123456789/1/\u{7f}\u{ff}/",
            "\u{af}/\u{2f}\u{12f}/c/d/e",
        ] {
            // Twice: the second answer comes from the thread's cache.
            assert_eq!(credential_parts(credential), split_parts(credential), "{credential}");
            assert_eq!(credential_parts(credential), split_parts(credential), "{credential}");
        }
        // Too long to be cached, split each time.
        let longest = format!("{}/b/c/d/e", "k".repeat(MAX_CACHED_CREDENTIAL));
        assert_eq!(credential_parts(&longest), split_parts(&longest));
        assert_eq!(credential_parts(&longest), split_parts(&longest));
    }

    #[test]
    fn well_formed_header_is_split_into_its_parts() {
        let a = parse(Some(GOOD), Some("20130609T094515Z")).unwrap();
        assert_eq!(a.key_id, "AKID");
        assert_eq!(a.scope_date, "20130609");
        assert_eq!(a.region, "us-east-1");
        assert_eq!(a.service, "dynamodb");
        assert_eq!(a.terminator, "aws4_request");
        assert_eq!(a.signed_headers, "host;x-amz-date");
        assert_eq!(a.signature, "abcd");
    }

    #[test]
    fn parameters_separated_by_spaces_or_commas_alone_are_read() {
        // ScyllaDB's test/alternator/test_authorization.py (test_expired_signature and
        // test_authorization_no_whitespace), run against DynamoDB.
        for header in [
            "AWS4-HMAC-SHA256 Credential=AKID/20130609/us-east-1/dynamodb/aws4_request \
             SignedHeaders=host;x-amz-date Signature=abcd",
            "AWS4-HMAC-SHA256 Credential=AKID/20130609/us-east-1/dynamodb/aws4_request,\
             SignedHeaders=host;x-amz-date,Signature=abcd",
            "AWS4-HMAC-SHA256\tCredential=AKID/20130609/us-east-1/dynamodb/aws4_request ,\t\
             SignedHeaders=host;x-amz-date  Signature=abcd ",
        ] {
            let a = parse(Some(header), Some("20130609T094515Z")).unwrap();
            assert_eq!(
                (a.key_id, a.region, a.signed_headers, a.signature),
                ("AKID", "us-east-1", "host;x-amz-date", "abcd"),
                "{header}"
            );
        }
    }

    #[test]
    fn a_parameter_without_an_equals_sign_is_refused_before_anything_else() {
        // DynamoDB's text, recorded in dynalite's index.js for the first header; the second is
        // the shape of the answer the real Route 53 service gave, quoted in dnscontrol's Route 53
        // provider documentation: a space after `=` leaves the value a word of its own.
        let header = "AWS4-HMAC-SHA256 Signature=b,    Credential,    SignedHeaders";
        assert_eq!(
            message(parse(Some(header), None).unwrap_err()),
            (
                "IncompleteSignatureException".into(),
                "'Credential' not a valid key=value pair (missing equal-sign) in Authorization header: \
                 'AWS4-HMAC-SHA256 Signature=b,    Credential,    SignedHeaders'."
                    .into()
            )
        );
        let header = "AWS4-HMAC-SHA256 Credential= AKID/20130609/us-east-1/dynamodb/aws4_request, \
                      SignedHeaders=host;x-amz-date, Signature=abcd";
        assert_eq!(
            message(parse(Some(header), Some("20130609T094515Z")).unwrap_err()).1,
            format!(
                "'AKID/20130609/us-east-1/dynamodb/aws4_request' not a valid key=value pair \
                 (missing equal-sign) in Authorization header: '{header}'."
            )
        );
    }

    #[test]
    fn missing_or_non_sigv4_header_is_missing_authentication_token() {
        for auth in [None, Some(""), Some("Basic abc"), Some("AWS3 x")] {
            let e = parse(auth, Some("20130609T094515Z")).unwrap_err();
            assert_eq!(e.type_name(), "MissingAuthenticationTokenException");
        }
    }

    #[test]
    fn every_missing_part_is_listed_in_one_incomplete_signature_message() {
        let e = parse(Some("AWS4-HMAC-SHA256 Signature=b"), None).unwrap_err();
        assert_eq!(
            message(e),
            (
                "IncompleteSignatureException".into(),
                "Authorization header requires 'Credential' parameter. \
                 Authorization header requires 'SignedHeaders' parameter. \
                 Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. \
                 Authorization=AWS4-HMAC-SHA256 Signature=b"
                    .into()
            )
        );
    }

    #[test]
    fn bad_date_format_is_incomplete_signature() {
        let e = parse(Some(GOOD), Some("201")).unwrap_err();
        assert_eq!(
            message(e).1,
            "Date must be in ISO-8601 'basic format'. Got '201'. See http://en.wikipedia.org/wiki/ISO_8601"
        );
    }

    #[test]
    fn unsupported_algorithm_is_incomplete_signature() {
        let auth = GOOD.replace("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA25");
        let e = parse(Some(&auth), Some("20130609T094515Z")).unwrap_err();
        assert_eq!(
            message(e).1,
            "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA25' (only AWS4-HMAC-SHA256 for now). "
        );
    }

    #[test]
    fn credential_needs_five_elements() {
        let auth = "AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host, Signature=x";
        let e = parse(Some(auth), Some("20130609T094515Z")).unwrap_err();
        assert_eq!(
            message(e).1,
            "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'a/b/c/d'"
        );
        // Trailing slashes are ignored.
        let auth = "AWS4-HMAC-SHA256 Credential=a/b/c/d/e//, SignedHeaders=host, Signature=x";
        assert!(parse(Some(auth), Some("20130609T094515Z")).is_ok());
    }
}
