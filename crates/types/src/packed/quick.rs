//! The common case of [`PackedItem::from_bytes`](super::PackedItem::from_bytes)'s check, as
//! tight as it can be written: an item whose strings are all ASCII and which has nothing
//! wrong with it. It answers only "valid, of this size" or "ask the strict walk"; it never
//! reports an error itself, so error kinds and positions are always the strict walk's.
//!
//! Invariant: `check` returns `Some(size)` only for bytes the strict walk accepts, with the
//! size the strict walk computes (`tests::the_quick_walk_agrees_with_the_strict_one`).

use crate::json_out::high_or_escape;

use super::{
    number_of, varint_from, AttributeValue, MAX_NESTING, TAG_B, TAG_BS, TAG_FALSE, TAG_L, TAG_M, TAG_N,
    TAG_NS, TAG_NULL, TAG_S, TAG_SS, TAG_TRUE,
};

/// Checks `count` attributes starting at `pos` in `bytes` (the body after the header) and
/// returns their DynamoDB size and whether every name and string is escape-free (`CLEAN_FORM`),
/// if they and nothing else fill the rest of `bytes` and every string is ASCII. The escape
/// check rides on the same walk, so an item read from disk is walked once.
pub(super) fn check(bytes: &[u8], pos: usize, count: usize) -> Option<(usize, bool)> {
    let mut q = Quick { bytes, pos, non_ascii: false, dirty: false };
    let size = q.attrs(count, 0)?;
    (q.pos == bytes.len() && !q.non_ascii).then_some((size, !q.dirty))
}

struct Quick<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Whether a name or string read so far holds a byte of 0x80 or above (is not ASCII).
    non_ascii: bool,
    /// Whether a name or string read so far needs a JSON escape.
    dirty: bool,
}

impl<'a> Quick<'a> {
    #[inline(always)]
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// A varint ([`varint_from`], the strict reader's decoder).
    #[inline(always)]
    fn varint(&mut self) -> Option<usize> {
        let (v, next) = varint_from(self.bytes, self.pos).ok()?;
        self.pos = next;
        Some(v)
    }

    #[inline(always)]
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.varint()?;
        let end = self.pos.checked_add(n)?;
        let out = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    #[inline(always)]
    fn str(&mut self) -> Option<&'a [u8]> {
        let s = self.bytes()?;
        let (high, escape) = high_or_escape(s);
        self.non_ascii |= high;
        self.dirty |= escape;
        Some(s)
    }

    fn number_size(&mut self) -> Option<usize> {
        Some(AttributeValue::N(number_of(self.bytes()?)?).size())
    }

    fn attrs(&mut self, count: usize, depth: usize) -> Option<usize> {
        let mut size = 0;
        let mut last: Option<&[u8]> = None;
        for _ in 0..count {
            let name = self.str()?;
            if last.is_some_and(|l| l >= name) {
                return None;
            }
            last = Some(name);
            size += name.len() + self.value(depth)?;
        }
        Some(size)
    }

    fn value(&mut self, depth: usize) -> Option<usize> {
        if depth >= MAX_NESTING {
            return None;
        }
        Some(match self.byte()? {
            TAG_S => self.str()?.len(),
            TAG_N => self.number_size()?,
            TAG_B => self.bytes()?.len(),
            TAG_FALSE | TAG_TRUE | TAG_NULL => 1,
            tag @ (TAG_M | TAG_L | TAG_SS | TAG_NS | TAG_BS) => {
                let body = self.bytes()?;
                let mut inner = Quick { bytes: body, pos: 0, non_ascii: false, dirty: false };
                let count = inner.varint()?;
                if count > body.len() - inner.pos {
                    return None;
                }
                let size = match tag {
                    TAG_M => 3 + count + inner.attrs(count, depth + 1)?,
                    TAG_L => {
                        let mut size = 3 + count;
                        for _ in 0..count {
                            size += inner.value(depth + 1)?;
                        }
                        size
                    }
                    TAG_SS => members(count, || inner.str().map(|s| (s, s.len())))?,
                    TAG_NS => members(count, || {
                        let n = number_of(inner.bytes()?)?;
                        let size = AttributeValue::N(n).size();
                        Some((n, size))
                    })?,
                    _ => members(count, || inner.bytes().map(|b| (b, b.len())))?,
                };
                if inner.pos != body.len() {
                    return None;
                }
                self.non_ascii |= inner.non_ascii;
                self.dirty |= inner.dirty;
                size
            }
            _ => return None,
        })
    }
}

/// The DynamoDB size of a set's `count` members read by `member`, if they are in canonical
/// order (the strict walk's `check_members` says why).
fn members<T: Ord>(count: usize, mut member: impl FnMut() -> Option<(T, usize)>) -> Option<usize> {
    let mut size = 0;
    let mut last: Option<T> = None;
    for _ in 0..count {
        let (m, s) = member()?;
        if last.as_ref().is_some_and(|l| *l > m) {
            return None;
        }
        last = Some(m);
        size += s;
    }
    Some(size)
}
