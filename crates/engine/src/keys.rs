//! Order-preserving, prefix-free byte encoding of key attribute values.
//!
//! Invariant: for two values `a`, `b` of the same key type, `encode(a) < encode(b)` (bytewise)
//! exactly when DynamoDB orders `a` before `b` — strings by UTF-8 bytes, numbers numerically,
//! binary bytewise — and no encoding is a proper prefix of another. Because every component
//! is self-delimiting, a storage key is the plain concatenation of its components (partition
//! key, then sort key, then for index entries the base table's key), and all entries of one
//! partition share the partition key's encoding as a byte prefix.
//!
//! * `S` and `B`: the bytes with `0x00` escaped as `0x00 0xFF`, then the terminator `0x00 0x01`.
//! * `N`: a sign byte (`0x01` negative, `0x02` zero, `0x03` positive); for non-zero numbers an
//!   exponent byte and one byte per significant digit, then a terminator. Negative numbers
//!   invert the exponent and digit bytes and use a terminator larger than any digit byte, so
//!   larger magnitudes sort first.

use std::ops::Bound;

use monotable_types::{AttributeValue, Number};

/// Appends the encoding of a key value (`S`, `N` or `B`) to `out`. Other types are never key
/// values (the engine checks types before encoding); they encode as nothing.
pub fn encode_value(value: &AttributeValue, out: &mut Vec<u8>) {
    match value {
        AttributeValue::S(s) => encode_bytes(s.as_bytes(), out),
        AttributeValue::B(b) => encode_bytes(b, out),
        AttributeValue::N(n) => encode_number(n, out),
        _ => {}
    }
}

/// [`encode_value`] for an attribute of a stored item read in place (see
/// [`crate::api::SharedItem::attr`]): the same bytes, without decoding the item.
pub fn encode_attr(value: &crate::api::AttrRef<'_>, out: &mut Vec<u8>) {
    use monotable_types::ValueRef;
    match value {
        crate::api::AttrRef::Decoded(v) => encode_value(v, out),
        crate::api::AttrRef::Packed(ValueRef::S(s)) => encode_bytes(s.as_bytes(), out),
        crate::api::AttrRef::Packed(ValueRef::B(b)) => encode_bytes(b, out),
        crate::api::AttrRef::Packed(ValueRef::N(text)) => {
            // Stored numbers are canonical text, which always parses.
            if let Ok(n) = Number::parse(text) {
                encode_number(&n, out);
            }
        }
        crate::api::AttrRef::Packed(_) => {}
    }
}

/// Appends escaped bytes *without* the terminator: the prefix shared by the encodings of every
/// string (or binary) that begins with `bytes`. Used for `begins_with` key conditions.
pub fn encode_bytes_prefix(bytes: &[u8], out: &mut Vec<u8>) {
    // Copy the runs between zero bytes whole; most keys have no zero byte at all.
    let mut rest = bytes;
    while let Some(zero) = rest.iter().position(|&b| b == 0) {
        out.extend_from_slice(&rest[..zero]);
        out.extend_from_slice(&[0x00, 0xFF]);
        rest = &rest[zero + 1..];
    }
    out.extend_from_slice(rest);
}

/// Appends a string's or binary's encoding: its bytes with every zero escaped, then the
/// terminator.
pub(crate) fn encode_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len() + 2);
    encode_bytes_prefix(bytes, out);
    out.extend_from_slice(&[0x00, 0x01]);
}

/// Offset that maps DynamoDB's adjusted exponents (-130..=125) into 0..=255.
const EXPONENT_OFFSET: i32 = 130;

/// Appends a number's encoding, which sorts as the numbers do.
pub(crate) fn encode_number(n: &Number, out: &mut Vec<u8>) {
    if n.is_zero() {
        out.push(0x02);
        return;
    }
    let exp = (n.adjusted_exponent() + EXPONENT_OFFSET).clamp(0, 255) as u8;
    let digits = n.digits();
    if n.is_negative() {
        out.push(0x01);
        out.push(255 - exp);
        // Digit d becomes 10 - d (1..=10); the terminator 0xFF sorts after every digit, so a
        // longer mantissa (larger magnitude) sorts first.
        out.extend(digits.iter().map(|d| 10 - d));
        out.push(0xFF);
    } else {
        out.push(0x03);
        out.push(exp);
        // Digit d becomes d + 1 (1..=10); the terminator 0x00 sorts before every digit.
        out.extend(digits.iter().map(|d| d + 1));
        out.push(0x00);
    }
}

/// The smallest byte string greater than every string that starts with `prefix`, or `None`
/// when there is none (the prefix is all `0xFF`).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut out = prefix.to_vec();
    while let Some(last) = out.pop() {
        if last < 0xFF {
            out.push(last + 1);
            return Some(out);
        }
    }
    None
}

/// The exclusive upper bound covering every key that starts with `prefix`.
pub fn prefix_end(prefix: &[u8]) -> Bound<Vec<u8>> {
    match prefix_successor(prefix) {
        Some(s) => Bound::Excluded(s),
        None => Bound::Unbounded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn enc(v: &AttributeValue) -> Vec<u8> {
        let mut out = Vec::new();
        encode_value(v, &mut out);
        out
    }

    fn num(s: &str) -> AttributeValue {
        AttributeValue::number(s).unwrap()
    }

    #[test]
    fn numbers_encode_in_numeric_order() {
        let ordered = [
            "-9.9E125", "-1E125", "-9E124", "-1E124", "-100", "-10", "-9.5", "-1.5", "-1", "-0.001",
            "-1E-130", "0", "1E-130", "0.5", "1", "1.5", "2", "10", "11", "1E124", "9E124", "1E125",
            "9.9E125",
        ];
        for pair in ordered.windows(2) {
            assert!(enc(&num(pair[0])) < enc(&num(pair[1])), "{} < {}", pair[0], pair[1]);
        }
    }

    #[test]
    fn strings_encode_in_utf8_byte_order_and_prefix_free() {
        let a = enc(&"a".into());
        let ab = enc(&"ab".into());
        let a0 = enc(&AttributeValue::S("a\0".into()));
        assert!(a < a0 && a0 < ab);
        assert!(!ab.starts_with(&a));
    }

    proptest! {
        #[test]
        fn binary_order_is_preserved(a in proptest::collection::vec(any::<u8>(), 0..8), b in proptest::collection::vec(any::<u8>(), 0..8)) {
            let ea = enc(&AttributeValue::B(a.clone()));
            let eb = enc(&AttributeValue::B(b.clone()));
            prop_assert_eq!(a.cmp(&b), ea.cmp(&eb));
            if a != b { prop_assert!(!ea.starts_with(&eb) && !eb.starts_with(&ea)); }
        }

        #[test]
        fn number_order_is_preserved(a in -1_000_000i64..1_000_000, ea in -130i32..120, b in -1_000_000i64..1_000_000, eb in -130i32..120) {
            let x = num(&format!("{a}E{ea}"));
            let y = num(&format!("{b}E{eb}"));
            let (AttributeValue::N(nx), AttributeValue::N(ny)) = (&x, &y) else { unreachable!() };
            prop_assert_eq!(nx.cmp(ny), enc(&x).cmp(&enc(&y)));
        }
    }
}
