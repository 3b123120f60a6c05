//! A direct writer of DynamoDB's JSON wire form for items and values.
//!
//! It writes exactly the bytes the serde implementations in `wire.rs` produce through
//! serde_json (same escapes, same member order, compact), which a proptest checks. It exists
//! for the server's response paths: through serde, every attribute costs a key, a nested map, a
//! second key and a value, each a chain of trait calls; a page of 25 items of six attributes
//! spent more than half of a Query's instructions there. Here an attribute is a few copies.
//!
//! Invariant: `write_item(item)` == `serde_json::to_vec(item)`, for every item.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use crate::{AttributeValue, Item};

/// Appends `item` as a JSON object (`{"a":{"S":"x"}}`) to `out`.
pub fn write_item(item: &Item, out: &mut Vec<u8>) {
    out.push(b'{');
    for (i, (name, value)) in item.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(name, out);
        out.push(b':');
        write_value(value, out);
    }
    out.push(b'}');
}

/// Appends one attribute value (`{"S":"x"}`) to `out`.
pub fn write_value(value: &AttributeValue, out: &mut Vec<u8>) {
    match value {
        AttributeValue::S(s) => {
            out.extend_from_slice(br#"{"S":"#);
            write_str(s, out);
        }
        AttributeValue::N(n) => {
            out.extend_from_slice(br#"{"N":""#);
            // A number's canonical text never needs escaping.
            n.write_text(out);
            out.push(b'"');
        }
        AttributeValue::B(b) => {
            out.extend_from_slice(br#"{"B":"#);
            write_base64(b, out);
        }
        AttributeValue::Bool(true) => out.extend_from_slice(br#"{"BOOL":true"#),
        AttributeValue::Bool(false) => out.extend_from_slice(br#"{"BOOL":false"#),
        AttributeValue::Null => out.extend_from_slice(br#"{"NULL":true"#),
        AttributeValue::M(m) => {
            out.extend_from_slice(br#"{"M":"#);
            write_item(m, out);
        }
        AttributeValue::L(l) => write_array(br#"{"L":["#, l, out, write_value),
        AttributeValue::Ss(v) => write_array(br#"{"SS":["#, v, out, |s, out| write_str(s, out)),
        AttributeValue::Ns(v) => write_array(br#"{"NS":["#, v, out, |n, out| {
            out.push(b'"');
            n.write_text(out);
            out.push(b'"');
        }),
        AttributeValue::Bs(v) => write_array(br#"{"BS":["#, v, out, |b, out| write_base64(b, out)),
    }
    out.push(b'}');
}

/// Appends `open` (a type key and `[`), the elements written by `element` separated by commas,
/// and `]`.
fn write_array<T>(open: &[u8], elements: &[T], out: &mut Vec<u8>, element: impl Fn(&T, &mut Vec<u8>)) {
    out.extend_from_slice(open);
    for (i, e) in elements.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        element(e, out);
    }
    out.push(b']');
}

/// Appends `bytes` as a quoted standard base64 string (base64 needs no escaping).
pub(crate) fn write_base64(bytes: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    let start = out.len();
    out.resize(start + bytes.len().div_ceil(3) * 4, 0);
    let written = STANDARD.encode_slice(bytes, &mut out[start..]).unwrap_or(0);
    out.truncate(start + written);
    out.push(b'"');
}

/// True for the bytes JSON must escape: control characters, the quote and the backslash.
#[inline]
fn is_escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// True when no byte of the 32-byte `block` needs escaping: a branch-free fold, which the
/// compiler turns into vector compares.
#[inline]
fn block_is_clean(block: &[u8]) -> bool {
    block.iter().fold(0u8, |acc, &b| acc | u8::from(b < 0x20) | u8::from(b == b'"') | u8::from(b == b'\\'))
        == 0
}

/// The length of the longest prefix of `bytes` holding no byte JSON must escape (a control
/// character, a quote or a backslash): where a string being written needs its first escape,
/// and where a string being read, escape-free, ends at its closing quote. The first 32 bytes
/// are looked at eight at a time (most strings are short, and the lowest hit of the private
/// word test `escape_hits` is exact), then clean 32-byte blocks are skipped whole, then the block with
/// the hit is searched eight bytes at a time, and the last few bytes one at a time.
pub fn clean_len(bytes: &[u8]) -> usize {
    let first_hit = |at: usize| {
        let hits = escape_hits(word_at(bytes, at));
        (hits != 0).then(|| at + (hits.trailing_zeros() / 8) as usize)
    };
    let mut at = 0;
    while at + 8 <= bytes.len() && at < 32 {
        if let Some(hit) = first_hit(at) {
            return hit;
        }
        at += 8;
    }
    while bytes.get(at..at + 32).is_some_and(block_is_clean) {
        at += 32;
    }
    while at + 8 <= bytes.len() {
        if let Some(hit) = first_hit(at) {
            return hit;
        }
        at += 8;
    }
    let tail = bytes.get(at..).unwrap_or_default();
    at + tail.iter().position(|&b| is_escaped(b)).unwrap_or(tail.len())
}

/// True when no byte of `bytes` needs escaping (`clean_len(bytes) == bytes.len()`): the escape
/// half of [`high_or_escape`], whose one extra OR per word is all it costs to share the walk.
#[inline]
pub(crate) fn is_clean(bytes: &[u8]) -> bool {
    !high_or_escape(bytes).1
}

/// Whether `bytes` holds a byte of 0x80 or above (`.0`), and whether it holds a byte JSON
/// must escape, a control character, a quote or a backslash (`.1`), found in one pass (the
/// quick walk of a packed item wants both), with little work on the short strings (names,
/// keys) that most items are made of: whole 32-byte blocks as a branch-free fold, what is
/// left eight bytes at a time as one `u64` (the last word overlapping the one before it), and
/// a string of fewer than eight bytes as one word padded with a clean byte. Both answers are
/// exact: [`escape_hits`] never flags a byte of 0x80 or above.
#[inline]
pub(crate) fn high_or_escape(bytes: &[u8]) -> (bool, bool) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = bytes.len();
    if n < 8 {
        let w = short_word(bytes);
        return (w & HIGH != 0, escape_hits(w) != 0);
    }
    // Whole 32-byte blocks as a branch-free fold the compiler vectorises, then the rest eight
    // bytes at a time, the last word overlapping the one before it (`n >= 8`).
    let blocks = n / 32 * 32;
    let (mut or, mut escape) = (0u8, false);
    for block in bytes.get(..blocks).unwrap_or_default().chunks_exact(32) {
        let (o, e) = block.iter().fold((0u8, 0u8), |(o, e), &b| (o | b, e | u8::from(is_escaped(b))));
        or |= o;
        escape |= e != 0;
    }
    let (mut wide, mut hits) = (u64::from(or), 0u64);
    let mut at = blocks;
    while at + 8 < n {
        let w = word_at(bytes, at);
        wide |= w;
        hits |= escape_hits(w);
        at += 8;
    }
    if at < n {
        let w = word_at(bytes, n - 8);
        wide |= w;
        hits |= escape_hits(w);
    }
    (wide & HIGH != 0, escape || hits != 0)
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of each byte of `w` (read little-endian, so the lowest byte comes first in
/// memory) that the zero-byte tests flag as below 0x20, a quote or a backslash. Exact as a
/// verdict on the word: the classic zero-byte tests (`(x - 0x01…01) & !x & 0x80…80`, and its
/// below-`n` form for `n <= 0x80`) can misplace a hit only above a real one, so they never
/// flag a word without one, nor miss a word with one, and the lowest flag always marks the
/// first byte to escape. Bytes of 0x80 and above (UTF-8 sequences) are never hits.
#[inline]
fn escape_hits(w: u64) -> u64 {
    let below = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let b = w ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b;
    (below | quote | backslash) & (ONES * 0x80)
}

/// The eight bytes of `bytes` at `at`, or a word that needs escaping (so the exact path runs)
/// if they are not all there, which the callers' bounds rule out.
#[inline]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    bytes.get(at..at + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()).map_or(0, u64::from_le_bytes)
}

/// A word holding every byte of `bytes` (fewer than eight) and clean padding (`A`): lengths 4
/// to 7 as two overlapping four-byte loads, 1 to 3 as the first, middle and last bytes.
#[inline]
fn short_word(bytes: &[u8]) -> u64 {
    const PAD: u64 = ONES * (b'A' as u64);
    let n = bytes.len();
    let byte = |i: usize| u64::from(bytes.get(i).copied().unwrap_or(0));
    let four = |i: usize| {
        bytes
            .get(i..i + 4)
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map_or(0, |w| u64::from(u32::from_le_bytes(w)))
    };
    match n {
        0 => PAD,
        1..=3 => byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16 | PAD << 24,
        _ => four(0) | four(n - 4) << 32,
    }
}

/// Appends the escape of `b` (one of the bytes [`is_escaped`] accepts).
fn push_escape(b: u8, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 15)],
        ]),
    }
}

/// Appends `s` as a JSON string with serde_json's escapes: `\"`, `\\`, `\b`, `\f`, `\n`,
/// `\r`, `\t`, other control characters as `\u00XX` (lower-case hex); everything else,
/// including DEL and non-ASCII, as it is.
pub fn write_str(s: &str, out: &mut Vec<u8>) {
    write_str_bytes(s.as_bytes(), out);
}

/// [`write_str`] for bytes already known to be UTF-8 (a packed item's names and strings,
/// checked when the item was packed or read): the check is not made again. Bytes that were
/// not UTF-8 would be copied as they are, never a panic.
pub(crate) fn write_str_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    // Most strings need no escape: one capacity check and one copy.
    if is_clean(bytes) {
        write_quoted(bytes, out);
        return;
    }
    write_escaped(bytes, out);
}

/// Appends `bytes` between quotes as they are: for bytes known to need no escape (checked by
/// the caller, or a packed item in the escape-free form).
#[inline]
pub(crate) fn write_quoted(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    out.extend_from_slice(bytes);
    out.push(b'"');
}

/// [`write_str_bytes`] for a string with at least one byte to escape.
#[cold]
fn write_escaped(bytes: &[u8], out: &mut Vec<u8>) {
    let mut rest = bytes;
    out.reserve(rest.len() + 2);
    out.push(b'"');
    loop {
        let (done, tail) = rest.split_at(clean_len(rest));
        out.extend_from_slice(done);
        let Some((&b, tail)) = tail.split_first() else { break };
        push_escape(b, out);
        rest = tail;
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Number;

    fn same(item: &Item) {
        let mut ours = Vec::new();
        write_item(item, &mut ours);
        let reference = serde_json::to_vec(item).unwrap();
        assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&reference));
    }

    #[test]
    fn every_type_is_written_as_serde_json_writes_it() {
        let n = |s: &str| Number::parse(s).unwrap();
        let inner: Item = [("x", AttributeValue::Null), ("y", AttributeValue::Bool(false))].into();
        let item: Item = [
            ("s", AttributeValue::S("plain".into())),
            ("n", AttributeValue::N(n("-12.5e3"))),
            ("b", AttributeValue::B(vec![0, 1, 2, 255, 254])),
            ("t", AttributeValue::Bool(true)),
            ("m", AttributeValue::M(inner)),
            ("l", AttributeValue::L(vec![AttributeValue::S("a".into()), AttributeValue::N(n("1"))])),
            ("ss", AttributeValue::Ss(vec!["b".into(), "a".into()])),
            ("ns", AttributeValue::Ns(vec![n("1"), n("0.001")])),
            ("bs", AttributeValue::Bs(vec![vec![1], vec![], vec![1, 2, 3, 4]])),
            ("empty", AttributeValue::M(Item::new())),
        ]
        .into();
        same(&item);
        same(&Item::new());
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let nasty: String = (0u8..0x80).map(char::from).collect::<String>() + "é\u{2028}😀\"\\";
        let after_a_clean_block = "x".repeat(40) + "\"" + &"y".repeat(40) + "\n";
        for s in [
            nasty.as_str(),
            "",
            "\"",
            "12345678\"12345678",
            "1234567\u{1f}",
            "abcdefgh\\",
            after_a_clean_block.as_str(),
        ] {
            let item: Item = [(s, AttributeValue::S(s.into()))].into();
            same(&item);
        }
    }

    #[test]
    fn the_word_check_sees_every_position_of_every_length() {
        for n in 0..72 {
            let clean = vec![b'a'; n];
            assert!(is_clean(&clean), "{n}");
            for at in 0..n {
                let mut s = clean.clone();
                for bad in [0x00, 0x01, 0x1f, b'"', b'\\'] {
                    s[at] = bad;
                    assert!(!is_clean(&s), "length {n}, byte {bad:#x} at {at}");
                }
                for fine in [0x20, b'!', b'#', b'[', b']', 0x7f, 0x80, 0xa2, 0xdc, 0xff] {
                    s[at] = fine;
                    assert!(is_clean(&s), "length {n}, byte {fine:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn the_clean_length_finds_the_first_hit_at_every_position() {
        for n in 0..80 {
            let clean = vec![b'a'; n];
            assert_eq!(clean_len(&clean), n);
            for at in 0..n {
                for bad in [0x00, 0x01, 0x1f, b'"', b'\\'] {
                    let mut s = clean.clone();
                    s[at] = bad;
                    assert_eq!(clean_len(&s), at, "length {n}, byte {bad:#x} at {at}");
                    // A second hit after the first, and borrow-prone bytes around them, do not
                    // move it.
                    for later in at + 1..n.min(at + 10) {
                        let mut t = s.clone();
                        t[later] = b'"';
                        if let Some(next) = t.get_mut(at + 1).filter(|_| at + 1 != later) {
                            *next = 0x20;
                        }
                        assert_eq!(clean_len(&t), at, "length {n}, hits at {at} and {later}");
                    }
                }
            }
        }
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn value() -> impl Strategy<Value = AttributeValue> {
            let leaf = prop_oneof![
                any::<String>().prop_map(AttributeValue::S),
                (any::<i64>(), -20i32..20)
                    .prop_map(|(m, e)| { AttributeValue::N(Number::parse(&format!("{m}e{e}")).unwrap()) }),
                proptest::collection::vec(any::<u8>(), 0..20).prop_map(AttributeValue::B),
                any::<bool>().prop_map(AttributeValue::Bool),
                Just(AttributeValue::Null),
                proptest::collection::vec(any::<String>(), 1..4).prop_map(AttributeValue::Ss),
            ];
            leaf.prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
                    proptest::collection::vec((any::<String>(), inner), 0..4)
                        .prop_map(|pairs| AttributeValue::M(pairs.into_iter().collect())),
                ]
            })
        }

        /// Bytes drawn mostly from around the escape boundaries, so that hits land at every
        /// position of short strings and of words.
        fn tricky_bytes() -> impl Strategy<Value = Vec<u8>> {
            let byte = prop_oneof![
                4 => b'a'..=b'z',
                1 => 0x00u8..0x21,
                1 => Just(b'"'),
                1 => Just(b'\\'),
                1 => 0x7fu8..=0xff,
            ];
            proptest::collection::vec(byte, 0..80)
        }

        proptest! {
            #[test]
            fn the_word_check_agrees_with_the_byte_check(bytes in tricky_bytes()) {
                prop_assert_eq!(is_clean(&bytes), bytes.iter().all(|&b| !is_escaped(b)), "{:?}", bytes);
            }

            #[test]
            fn the_clean_length_is_the_first_byte_to_escape(bytes in tricky_bytes()) {
                let first = bytes.iter().position(|&b| is_escaped(b)).unwrap_or(bytes.len());
                prop_assert_eq!(clean_len(&bytes), first, "{:?}", bytes);
            }

            #[test]
            fn write_item_equals_serde_json(pairs in proptest::collection::vec((any::<String>(), value()), 0..6)) {
                let item: Item = pairs.into_iter().collect();
                let mut ours = Vec::new();
                write_item(&item, &mut ours);
                prop_assert_eq!(ours, serde_json::to_vec(&item).unwrap());
            }
        }
    }
}
