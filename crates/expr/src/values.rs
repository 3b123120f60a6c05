//! Value helpers shared by validation and evaluation: ordering, sizes, short renderings.

use std::cmp::Ordering;

use base64::Engine as _;
use monotable_types::{AttributeValue, Number};

/// Orders two values of the same scalar type — strings by UTF-8 bytes, numbers numerically,
/// binary bytewise. `None` for any other pair (different types, or non-scalar types), which
/// makes ordering comparisons false.
pub fn compare_scalars(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    match (a, b) {
        (AttributeValue::S(x), AttributeValue::S(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (AttributeValue::N(x), AttributeValue::N(y)) => Some(x.cmp(y)),
        (AttributeValue::B(x), AttributeValue::B(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// What `size()` returns: the length of a string in UTF-16 code units (Java's
/// `String.length()`, as DynamoDB counts), of a binary in bytes, the element count of a set,
/// list or map; `None` for numbers, booleans and null.
pub fn value_size(v: &AttributeValue) -> Option<Number> {
    let n = match v {
        AttributeValue::S(s) => s.encode_utf16().count(),
        AttributeValue::B(b) => b.len(),
        AttributeValue::Ss(s) => s.len(),
        AttributeValue::Ns(s) => s.len(),
        AttributeValue::Bs(s) => s.len(),
        AttributeValue::L(l) => l.len(),
        AttributeValue::M(m) => m.len(),
        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null => return None,
    };
    Some(Number::from(n))
}

/// DynamoDB's short rendering of a value in messages: `{S:abc}`, `{N:1.5}`, and for binary
/// the Java `ByteBuffer` description DynamoDB prints (`{B:java.nio.HeapByteBuffer[pos=0
/// lim=3 cap=3]}`).
pub fn value_brief(v: &AttributeValue) -> String {
    let ty = v.attribute_type();
    let body = match v {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.to_string(),
        AttributeValue::B(b) => format!("java.nio.HeapByteBuffer[pos=0 lim={0} cap={0}]", b.len()),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::Null => "true".to_owned(),
        AttributeValue::Ss(s) => format!("[{}]", s.join(", ")),
        AttributeValue::Ns(s) => {
            format!("[{}]", s.iter().map(Number::to_string).collect::<Vec<_>>().join(", "))
        }
        AttributeValue::Bs(s) => format!(
            "[{}]",
            s.iter()
                .map(|b| base64::engine::general_purpose::STANDARD.encode(b))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        AttributeValue::L(l) => format!("[{}]", l.iter().map(value_brief).collect::<Vec<_>>().join(", ")),
        AttributeValue::M(m) => {
            format!(
                "{{{}}}",
                m.iter().map(|(k, v)| format!("{k}={}", value_brief(v))).collect::<Vec<_>>().join(", ")
            )
        }
    };
    format!("{{{ty}:{body}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_order_by_utf8_bytes_not_code_units() {
        // U+FF5E is EF BD 9E in UTF-8 and U+1F600 is F0 9F 98 80: bytewise the first is
        // smaller, although in UTF-16 code units (FF5E vs D83D) it would be larger.
        let a = AttributeValue::S("\u{ff5e}".into());
        let b = AttributeValue::S("\u{1f600}".into());
        assert_eq!(compare_scalars(&a, &b), Some(Ordering::Less));
    }

    #[test]
    fn different_types_do_not_order() {
        assert_eq!(compare_scalars(&"1".into(), &AttributeValue::N(Number::from(1))), None);
        assert_eq!(compare_scalars(&AttributeValue::Bool(true), &AttributeValue::Bool(true)), None);
    }
}

#[cfg(test)]
mod brief_tests {
    use super::*;

    #[test]
    fn briefs_match_dynamodb_messages() {
        assert_eq!(value_brief(&"a".into()), "{S:a}");
        assert_eq!(value_brief(&AttributeValue::N(Number::from(10))), "{N:10}");
        assert_eq!(
            value_brief(&AttributeValue::B(vec![1, 2, 3])),
            "{B:java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]}"
        );
    }
}
