//! The escape-free form: whether every name and string of a packed item can be written into
//! JSON between quotes as it is.
//!
//! A packed item whose names (at every level) and strings (`S` values and `SS` elements,
//! at every level) hold no byte that JSON escapes (a control character, a quote or a
//! backslash) starts with [`CLEAN_FORM`] instead of [`PACKED_VERSION`](super::PACKED_VERSION),
//! and its JSON is then written without looking for escapes (`json.rs`). Nearly every stored
//! string is such a string (keys, identifiers, timestamps, most text), and looking for
//! escapes was about a third of the instructions of writing an item's JSON.
//!
//! Invariant: a `PackedItem`'s first byte is `CLEAN_FORM` exactly when its strings are all
//! escape-free. `encode` finds out as it writes the strings (`put_str`); `from_bytes` refuses
//! `CLEAN_FORM` on an item with a string to escape, and turns `PACKED_VERSION` into
//! `CLEAN_FORM` when there is none (bytes written before the form existed), so an item still
//! has exactly one encoding.

use super::{PackedError, Reader, TAG_L, TAG_M, TAG_S, TAG_SS};
use super::{TAG_B, TAG_BS, TAG_FALSE, TAG_N, TAG_NS, TAG_NULL, TAG_TRUE};
use crate::json_out::is_clean;

/// The first byte of a version-1 item whose names and strings need no JSON escape.
pub(super) const CLEAN_FORM: u8 = 2;

/// Whether the `count` attributes at `body` in `bytes` (well-formed packed bytes) have only
/// escape-free names and strings: `from_bytes` asks for items with non-ASCII text, which the
/// quick walk (that checks escapes on its way) leaves to the strict one. Bytes that fail to
/// read count as not escape-free.
pub(super) fn strings_clean(bytes: &[u8], body: usize, count: usize) -> bool {
    attrs(&Reader::new(bytes, body), count).unwrap_or(false)
}

fn attrs(r: &Reader<'_>, count: usize) -> Result<bool, PackedError> {
    for _ in 0..count {
        if !is_clean(r.bytes()?) || !value(r)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn value(r: &Reader<'_>) -> Result<bool, PackedError> {
    Ok(match r.byte()? {
        TAG_S => is_clean(r.bytes()?),
        TAG_N | TAG_B => r.bytes().map(|_| true)?,
        TAG_FALSE | TAG_TRUE | TAG_NULL => true,
        TAG_NS | TAG_BS => r.body().map(|_| true)?,
        TAG_M => {
            let body = r.body()?;
            let count = body.count()?;
            attrs(&body, count)?
        }
        TAG_L => {
            let body = r.body()?;
            for _ in 0..body.count()? {
                if !value(&body)? {
                    return Ok(false);
                }
            }
            true
        }
        TAG_SS => {
            let body = r.body()?;
            for _ in 0..body.count()? {
                if !is_clean(body.bytes()?) {
                    return Ok(false);
                }
            }
            true
        }
        _ => false,
    })
}
