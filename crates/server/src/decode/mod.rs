//! Request bodies to typed input shapes, with DynamoDB's error for each way that fails.
//!
//! * A body that is not JSON (syntax, invalid UTF-8, nesting deeper than [`MAX_DEPTH`]) is a
//!   `SerializationException` without a message.
//! * A body whose top level is not an object is a `SerializationException` (serde would
//!   otherwise read a JSON array positionally into a struct).
//! * A member of the wrong JSON type is a `SerializationException` whose message uses the
//!   wording of DynamoDB's request parser (`Start of list found where not expected`,
//!   `NUMBER_VALUE cannot be converted to String`, …).
//! * Errors raised by `monotable_types`' AttributeValue parser that DynamoDB reports as
//!   validation failures (see [`monotable_types::is_validation_message`]) are
//!   `ValidationException`s.
//! * A top-level `null` is a `SerializationException` without a message, like an empty body:
//!   DynamoDB refuses a `null` request for every operation (test suites
//!   recorded against DynamoDB), although it ignores `null` members inside one.

use serde::de::{DeserializeOwned, IgnoredAny};

use crate::ServerError;

mod fast;
mod number_layers;

pub(crate) use fast::plain_get;
pub(crate) use number_layers::reword as reword_number_error;

/// The deepest nesting of arrays and objects a request may have. DynamoDB allows 32 levels
/// of nested attribute values (two JSON levels each) below a few levels of request structure;
/// this is serde_json's own recursion limit, checked before any recursive parse runs.
pub const MAX_DEPTH: usize = 128;

/// Fails with a message-less `SerializationException` unless `body` is one UTF-8 JSON
/// document nested at most [`MAX_DEPTH`] deep; returns it as text.
pub(crate) fn check_json(body: &[u8]) -> Result<&str, ServerError> {
    let text = check_encoding(body)?;
    serde_json::from_str::<IgnoredAny>(text).map(|_| text).map_err(|_| ServerError::Serialization(None))
}

/// The cheap part of [`check_json`]: UTF-8 and nesting depth, without parsing. A body that
/// passes it and decodes into an input shape is valid JSON (the decode reads every byte); a
/// body that fails to decode must be given to [`check_json`] to tell a syntax error from a
/// member error. Returns the body as text, so that nothing after it checks UTF-8 again.
pub(crate) fn check_encoding(body: &[u8]) -> Result<&str, ServerError> {
    match std::str::from_utf8(body) {
        Ok(text) if !nesting_exceeds(body, MAX_DEPTH) => Ok(text),
        _ => Err(ServerError::Serialization(None)),
    }
}

/// The number of `[` and `{` bytes in `json`, counted 64 bytes at a time into a byte-wide sum
/// (at most 64, so it cannot overflow), a shape the compiler turns into vector compares.
fn openings(json: &[u8]) -> usize {
    let is_open = |b: u8| u8::from(b == b'[' || b == b'{');
    let mut blocks = json.chunks_exact(64);
    let mut total = 0;
    for block in &mut blocks {
        total += usize::from(block.iter().fold(0u8, |n, &b| n + is_open(b)));
    }
    total + blocks.remainder().iter().map(|&b| usize::from(is_open(b))).sum::<usize>()
}

/// True when brackets and braces outside string literals nest deeper than `max`. The scan
/// is iterative, so hostile input cannot exhaust the stack.
fn nesting_exceeds(json: &[u8], max: usize) -> bool {
    // Brackets inside string literals only make this count larger, so a body with no more
    // opening brackets than `max` cannot nest deeper than `max` (nor, then, one of at most
    // `max` bytes: a point read's body is shorter than that). Nearly every body stops here,
    // after one pass the compiler vectorises.
    if json.len() <= max || openings(json) <= max {
        return false;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = json.get(i) {
        match b {
            b'"' => {
                // Jump over the string literal: to the next quote not escaped by a backslash.
                // An unterminated string holds the rest of the body.
                i += 1;
                loop {
                    let Some(offset) =
                        json.get(i..).and_then(|rest| rest.iter().position(|&c| c == b'"' || c == b'\\'))
                    else {
                        return false;
                    };
                    i += offset;
                    if json[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

/// Decodes `body` (the text [`check_encoding`] accepted) into an input shape. When the
/// decode fails, [`check_json`] decides whether the body was JSON at all.
pub(crate) fn decode_input<I: DeserializeOwned + 'static>(body: &str) -> Result<I, ServerError> {
    let body: &str = match body.as_bytes().trim_ascii_start().first() {
        Some(b'{') => body,
        Some(b'[') => {
            return Err(ServerError::Serialization(Some("Start of list found where not expected".into())))
        }
        Some(b'n') => return Err(ServerError::Serialization(None)),
        _ => return Err(ServerError::Serialization(Some("Expected null".into()))),
    };
    // The common layouts of the hot operations decode without serde (see `fast`); whatever
    // the shortcut does not recognise, serde_json decodes, errors included.
    if let Some(input) = fast::decode::<I>(body) {
        return Ok(input);
    }
    // `from_str`, not `from_slice`: the text is known to be UTF-8, so serde_json need not
    // check each string again.
    serde_json::from_str(body).map_err(|e| match check_json(body.as_bytes()) {
        // Not JSON after all (the syntax error lies past the member the decode stopped at).
        Err(syntax) => syntax,
        Ok(_) => translate(e),
    })
}

fn translate(e: serde_json::Error) -> ServerError {
    if !e.is_data() {
        return ServerError::Serialization(None);
    }
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    if monotable_types::is_validation_message(message) {
        return ServerError::Validation(message.to_string());
    }
    ServerError::Serialization(Some(type_mismatch_message(message).unwrap_or_else(|| message.to_string())))
}

/// Rewrites serde's `invalid type: <found>, expected <wanted>` in the request parser's words.
fn type_mismatch_message(message: &str) -> Option<String> {
    let rest = message.strip_prefix("invalid type: ")?;
    let (found, wanted) = rest.split_once(", expected ")?;
    let wanted_kind = WantedKind::of(wanted);
    if found == "map" {
        return Some("Start of structure or map found where not expected.".into());
    }
    if found == "sequence" {
        return Some("Start of list found where not expected".into());
    }
    Some(match wanted_kind {
        WantedKind::List => "Expected list or null".into(),
        WantedKind::Map => "Expected map or null".into(),
        WantedKind::Structure => "Expected null".into(),
        WantedKind::Scalar(name) => {
            let token = if found.starts_with("integer") || found.starts_with("floating point") {
                "NUMBER_VALUE"
            } else if found.starts_with("string") {
                "STRING_VALUE"
            } else if found.starts_with("boolean") {
                "BOOLEAN_VALUE"
            } else {
                return None;
            };
            format!("{token} cannot be converted to {name}")
        }
    })
}

/// What serde's `expected …` text asked for, in DynamoDB's type vocabulary.
enum WantedKind {
    List,
    Map,
    Structure,
    Scalar(&'static str),
}

impl WantedKind {
    fn of(expected: &str) -> WantedKind {
        match expected {
            "a string" | "a borrowed string" => WantedKind::Scalar("String"),
            "a boolean" => WantedKind::Scalar("Boolean"),
            "i8" | "i16" | "i32" | "u8" | "u16" | "u32" => WantedKind::Scalar("Integer"),
            "i64" | "u64" | "i128" | "u128" | "usize" | "isize" => WantedKind::Scalar("Long"),
            "f32" | "f64" => WantedKind::Scalar("Double"),
            "a sequence" => WantedKind::List,
            "a map" => WantedKind::Map,
            _ => WantedKind::Structure,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn openings_are_counted_in_blocks_and_in_the_tail() {
        for len in [0, 1, 63, 64, 65, 128, 200] {
            let json: Vec<u8> = (0..len).map(|i| [b'{', b'x', b'[', b'"'][i % 4]).collect();
            let expected = json.iter().filter(|&&b| b == b'[' || b == b'{').count();
            assert_eq!(openings(&json), expected, "{len}");
        }
        assert_eq!(openings(&[b'['; 64]), 64);
    }

    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(rename_all = "PascalCase", default)]
    #[allow(dead_code)]
    struct Shape {
        table_name: Option<String>,
        limit: Option<i64>,
        consistent_read: Option<bool>,
        attributes_to_get: Option<Vec<String>>,
        key: Option<HashMap<String, monotable_types::AttributeValue>>,
    }

    fn err(body: &str) -> (String, Option<String>) {
        let e = check_json(body.as_bytes()).and_then(decode_input::<Shape>).unwrap_err();
        (e.type_name().to_string(), e.message().map(str::to_string))
    }

    fn serialization(message: &str) -> (String, Option<String>) {
        ("SerializationException".into(), Some(message.into()))
    }

    #[test]
    fn non_json_bodies_are_serialization_exceptions_without_message() {
        for body in ["", "{", "not json", "{\"a\":1}}", "{\"TableName\": \"a\",}"] {
            assert_eq!(err(body), ("SerializationException".into(), None), "{body}");
        }
        let e = check_json(b"{\"TableName\": \"\xff\"}").unwrap_err();
        assert_eq!((e.type_name(), e.message()), ("SerializationException", None));
        let e = check_json(b"\"\xc3\"").unwrap_err();
        assert_eq!((e.type_name(), e.message()), ("SerializationException", None));
    }

    #[test]
    fn nesting_beyond_the_parser_limit_is_a_serialization_exception() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(err(&deep), ("SerializationException".into(), None));
        let at_limit = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(check_json(at_limit.as_bytes()).is_ok());
        // Brackets inside strings, escaped quotes included, do not count.
        let quoted = format!("{{\"a\": \"\\\"{}\"}}", "[".repeat(1000));
        assert!(check_json(quoted.as_bytes()).is_ok(), "{quoted}");
        // A backslash escapes exactly one character, a doubled one included.
        assert!(!nesting_exceeds(br#"{"a": "\\\\", "b": "[[["}"#, 2));
        assert!(nesting_exceeds(br#"{"a": "\\\\"}[[["#, 2));
        assert!(!nesting_exceeds(br#"{"a": "[[[\\"#, 2));
    }

    #[test]
    fn wrong_member_types_use_the_request_parser_wording() {
        assert_eq!(err(r#"{"TableName": 1}"#), serialization("NUMBER_VALUE cannot be converted to String"));
        assert_eq!(
            err(r#"{"TableName": true}"#),
            serialization("BOOLEAN_VALUE cannot be converted to String")
        );
        assert_eq!(err(r#"{"Limit": "1"}"#), serialization("STRING_VALUE cannot be converted to Long"));
        assert_eq!(
            err(r#"{"ConsistentRead": "yes"}"#),
            serialization("STRING_VALUE cannot be converted to Boolean")
        );
        assert_eq!(
            err(r#"{"TableName": {}}"#),
            serialization("Start of structure or map found where not expected.")
        );
        assert_eq!(err(r#"{"TableName": []}"#), serialization("Start of list found where not expected"));
        assert_eq!(err(r#"{"AttributesToGet": "a"}"#), serialization("Expected list or null"));
        assert_eq!(err(r#"{"Key": 1}"#), serialization("Expected map or null"));
        assert_eq!(err(r#"[]"#), serialization("Start of list found where not expected"));
        assert_eq!(err(r#""x""#), serialization("Expected null"));
    }

    #[test]
    fn top_level_null_is_a_serialization_exception_without_a_message() {
        assert_eq!(err(" null "), ("SerializationException".to_string(), None));
    }

    #[test]
    fn attribute_value_shape_errors_are_validation_exceptions() {
        let (kind, message) = err(r#"{"Key": {"k": {}}}"#);
        assert_eq!(kind, "ValidationException");
        assert_eq!(
            message.as_deref(),
            Some("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
        );
        let (kind, _) = err(r#"{"Key": {"k": {"S": 1}}}"#);
        assert_eq!(kind, "SerializationException");
    }
}
