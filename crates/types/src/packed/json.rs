//! Writing a packed item's JSON wire form straight from its bytes, without serde: the same
//! bytes as `PackedItem`'s (and `Item`'s) `Serialize` through serde_json, for the server's read
//! responses (see `json_out` for why). Names and string values are escaped by
//! `write_str_bytes`, without checking their UTF-8 again (the packed item's invariant); a
//! number's stored canonical text and base64 need no escaping. An item in the escape-free form
//! (`CLEAN_FORM`) has its names and strings copied between quotes without that check: the
//! writer is instantiated twice, `CLEAN` telling which.

use super::{PackedError, PackedItem, Reader, TAG_B, TAG_BS, TAG_FALSE, TAG_L, TAG_M, TAG_N, TAG_NS};
use super::{TAG_NULL, TAG_S, TAG_SS, TAG_TRUE};
use crate::json_out::{write_base64, write_quoted, write_str_bytes};

impl PackedItem {
    /// Appends the item as a JSON object to `out`.
    ///
    /// A `PackedItem` holds bytes `from_bytes` accepts (its invariant), so the reads below do
    /// not fail; if one did, the output would end early instead of a panic.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let (_, count, body) = self.head();
        out.reserve(json_len_hint(self.as_bytes().len(), count));
        let r = Reader::new(self.as_bytes(), body);
        let _ = if self.is_escape_free() {
            attrs::<true>(&r, count, out)
        } else {
            attrs::<false>(&r, count, out)
        };
    }

    /// About how many bytes [`PackedItem::write_json`] appends: exact or a little over for
    /// top-level string and number attributes without escapes, under for the rest. For
    /// sizing the buffer the item is written to, so that it is allocated once.
    pub fn json_len_hint(&self) -> usize {
        json_len_hint(self.as_bytes().len(), self.len())
    }
}

/// A string attribute takes three bytes packed besides its name and value (the name's
/// length, the tag, the value's length) and twelve in JSON (`"":{"S":""}` and a comma).
const JSON_BYTES_PER_ATTRIBUTE: usize = 9;

fn json_len_hint(packed_len: usize, count: usize) -> usize {
    packed_len + count * JSON_BYTES_PER_ATTRIBUTE + 2
}

/// A name or string: copied between quotes when the item is escape-free (`CLEAN`), else
/// escaped where needed.
#[inline(always)]
fn string<const CLEAN: bool>(bytes: &[u8], out: &mut Vec<u8>) {
    if CLEAN {
        write_quoted(bytes, out);
    } else {
        write_str_bytes(bytes, out);
    }
}

fn attrs<const CLEAN: bool>(r: &Reader<'_>, count: usize, out: &mut Vec<u8>) -> Result<(), PackedError> {
    out.push(b'{');
    for i in 0..count {
        if i > 0 {
            out.push(b',');
        }
        string::<CLEAN>(r.bytes()?, out);
        out.push(b':');
        value::<CLEAN>(r, out)?;
    }
    out.push(b'}');
    Ok(())
}

fn value<const CLEAN: bool>(r: &Reader<'_>, out: &mut Vec<u8>) -> Result<(), PackedError> {
    let at = r.pos();
    match r.byte()? {
        TAG_S => {
            out.extend_from_slice(br#"{"S":"#);
            string::<CLEAN>(r.bytes()?, out);
        }
        TAG_N => {
            out.extend_from_slice(br#"{"N":""#);
            out.extend_from_slice(r.bytes()?);
            out.push(b'"');
        }
        TAG_B => {
            out.extend_from_slice(br#"{"B":"#);
            write_base64(r.bytes()?, out);
        }
        TAG_FALSE => out.extend_from_slice(br#"{"BOOL":false"#),
        TAG_TRUE => out.extend_from_slice(br#"{"BOOL":true"#),
        TAG_NULL => out.extend_from_slice(br#"{"NULL":true"#),
        TAG_M => {
            out.extend_from_slice(br#"{"M":"#);
            let body = r.body()?;
            let count = body.count()?;
            attrs::<CLEAN>(&body, count, out)?;
        }
        tag @ (TAG_L | TAG_SS | TAG_NS | TAG_BS) => {
            out.extend_from_slice(match tag {
                TAG_L => br#"{"L":["#.as_slice(),
                TAG_SS => br#"{"SS":["#.as_slice(),
                TAG_NS => br#"{"NS":["#.as_slice(),
                _ => br#"{"BS":["#.as_slice(),
            });
            let body = r.body()?;
            for i in 0..body.count()? {
                if i > 0 {
                    out.push(b',');
                }
                match tag {
                    TAG_L => value::<CLEAN>(&body, out)?,
                    TAG_SS => string::<CLEAN>(body.bytes()?, out),
                    TAG_NS => {
                        out.push(b'"');
                        out.extend_from_slice(body.bytes()?);
                        out.push(b'"');
                    }
                    _ => write_base64(body.bytes()?, out),
                }
            }
            out.push(b']');
        }
        tag => return Err(PackedError::Tag { tag, at }),
    }
    out.push(b'}');
    Ok(())
}
