//! Escaping of a key-template placeholder's value (S5), shared by the library, which renders
//! keys, and by everything that must render them the same way (`design validate`'s samples).
//!
//! Invariant: an escaped value never contains the delimiter `#`, nor any character at or below
//! it (`\0`..=`#`), nor a raw `%`: those characters are written as `%XX` (upper-case hex of each
//! UTF-8 byte). Hence a value cannot forge another entity's key by smuggling a delimiter
//! (`a#PROFILE` is stored as `a%23PROFILE`); escaping is injective (`%` itself is escaped), so
//! two different values never render alike; and every escaped character sorts after `#`, which
//! is what makes typed sort-key ranges exact.

use std::fmt::Write as _;

/// Escapes one raw value for use inside a key (see the module invariant).
pub fn escape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c <= '#' || c == '%' {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Reverses [`escape`]; `None` if the text is not a valid escape.
pub fn unescape(escaped: &str) -> Option<String> {
    let bytes = escaped.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = escaped.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
