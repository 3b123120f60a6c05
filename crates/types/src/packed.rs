//! [`PackedItem`]: one stored item as one shared allocation of bytes.
//!
//! An [`Item`] spreads over many heap blocks (its pair vector, every string value, every
//! nested map and list). A packed item is a single shared allocation holding a reference
//! count, the length and the bytes, behind a one-word pointer: cloning it (a table keyspace
//! and an index keyspace holding the same item, a response passing a stored item through)
//! copies a pointer, and the item's bytes exist once.
//!
//! # Byte format (version 1)
//!
//! The format is also written to disk by the data-dir store (see `docs/PACKED.md`), so it is
//! versioned by its first byte. Integers are unsigned LEB128 varints (7 bits a byte, low
//! bits first, at most 10 bytes, no overlong forms), so an item has exactly one encoding.
//!
//! ```text
//! item    := form varint(size) varint(count) attr*count
//! form    := 0x01 (format version 1) | 0x02 (version 1, escape-free: see `CLEAN_FORM`)
//! attr    := varint(name length) name-bytes value
//! value   := tag payload
//!   0x01 S     varint(len) UTF-8 bytes
//!   0x02 N     varint(len) the number's canonical text (ASCII, as the wire writes it)
//!   0x03 B     varint(len) raw bytes
//!   0x04 BOOL false, 0x05 BOOL true, 0x06 NULL: no payload
//!   0x07 M     varint(body length) body := varint(count) attr*count
//!   0x08 L     varint(body length) body := varint(count) value*count
//!   0x09 SS    varint(body length) body := varint(count) (varint(len) UTF-8 bytes)*count
//!   0x0A NS    varint(body length) body := varint(count) (varint(len) canonical text)*count
//!   0x0B BS    varint(body length) body := varint(count) (varint(len) bytes)*count
//! ```
//!
//! `size` is the item's DynamoDB size ([`crate::item_size`]), so capacity and size checks need
//! no decode. Attributes (at the top and inside maps) are sorted by name bytewise with no
//! name twice, as [`Item`] keeps them. Composite values carry their body length so a reader
//! looking for one attribute skips the others in constant time.
//!
//! Invariant: every `PackedItem` holds bytes that [`PackedItem::from_bytes`] accepts —
//! either produced by [`PackedItem::encode`] or checked by `from_bytes` (every length within
//! bounds, UTF-8 where text is due, numbers in canonical form, names sorted and unique,
//! nesting within [`MAX_NESTING`], the size header equal to the size of the contents, no
//! trailing bytes, the escape-free form exactly when no string needs an escape). Readers of a
//! `PackedItem` still bound-check every access (they return an error rather than panic), but
//! given the invariant those errors do not occur.
//! Sets are not checked for duplicates or emptiness: that is the engine's validation, made
//! before an item is stored.

use std::cell::Cell;
use std::fmt;
use triomphe::ThinArc;

use base64::display::Base64Display;
use base64::engine::general_purpose::STANDARD;
use serde::ser::{Error as _, Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::json_out::is_clean;
use crate::{AttributeValue, Item, Name, Number};

/// The format version, written as the first byte of an item that has a name or string to
/// escape in JSON; an item with none starts with the escape-free form's byte (`CLEAN_FORM`).
pub const PACKED_VERSION: u8 = 1;

/// The first byte of a version-1 item in the escape-free form: no name (at any level) and no
/// string (`S` values and `SS` elements, at any level) holds a byte that JSON escapes (a
/// control character, a quote or a backslash). Its JSON is written without looking for
/// escapes (`json.rs`). Nearly every stored string is such a string (keys, identifiers,
/// timestamps, most text), and looking for escapes was about a third of the instructions of
/// writing an item's JSON.
///
/// Invariant: a `PackedItem`'s first byte is `CLEAN_FORM` exactly when its strings are all
/// escape-free. `encode` finds out as it writes the strings (`put_str`), and `from_bytes` as
/// its walk checks them (the quick walk or the strict one, whichever gives the verdict); it
/// refuses `CLEAN_FORM` on an item with a string to escape and turns `PACKED_VERSION` into
/// `CLEAN_FORM` when there is none (bytes written before the form existed), so an item still
/// has exactly one encoding.
const CLEAN_FORM: u8 = 2;

/// DynamoDB's nesting limit: a value nested under 32 levels of maps and lists is refused
/// (an attribute's own value is level 0 here, so levels 0 to 31 are accepted).
pub const MAX_NESTING: usize = 32;

const TAG_S: u8 = 0x01;
const TAG_N: u8 = 0x02;
const TAG_B: u8 = 0x03;
const TAG_FALSE: u8 = 0x04;
const TAG_TRUE: u8 = 0x05;
const TAG_NULL: u8 = 0x06;
const TAG_M: u8 = 0x07;
const TAG_L: u8 = 0x08;
const TAG_SS: u8 = 0x09;
const TAG_NS: u8 = 0x0A;
const TAG_BS: u8 = 0x0B;

/// Why bytes are not a packed item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PackedError {
    /// The first byte is not a format version this build reads.
    #[error("packed item format version {0} is not supported")]
    Version(u8),
    /// The first byte says no name or string needs a JSON escape, and one does.
    #[error("packed item is marked escape-free but holds a string JSON must escape")]
    NotClean,
    /// A length, count or value runs past the end of its bytes.
    #[error("packed item is truncated at byte {0}")]
    Truncated(usize),
    /// A varint is longer than 10 bytes or does not fit the address space.
    #[error("packed item has a malformed length at byte {0}")]
    Varint(usize),
    /// A value's tag byte is unknown.
    #[error("packed item has an unknown type tag {tag:#04x} at byte {at}")]
    Tag { tag: u8, at: usize },
    /// A name or string is not UTF-8.
    #[error("packed item has text that is not UTF-8 at byte {0}")]
    Utf8(usize),
    /// A number is not in canonical form (or not a number).
    #[error("packed item has a number that is not canonical at byte {0}")]
    Number(usize),
    /// Names are not sorted or a name occurs twice.
    #[error("packed item has attribute names out of order at byte {0}")]
    Order(usize),
    /// Maps and lists nest deeper than [`MAX_NESTING`].
    #[error("packed item nests deeper than {MAX_NESTING} levels")]
    TooDeep,
    /// A composite's body length disagrees with its contents, or bytes follow the item.
    #[error("packed item has a length that disagrees with its contents at byte {0}")]
    Length(usize),
    /// The size header is not the size of the contents.
    #[error("packed item's size header says {header} but the contents measure {actual}")]
    Size { header: usize, actual: usize },
}

/// How many of an item's cache lines `warm` touches: a typical item (a few
/// hundred bytes) whole, and no more than 512 bytes of a large one, which is read at a rate
/// where the hardware prefetcher keeps up.
const WARM_LINES: usize = 8;

/// One item in the packed byte form. Cloning shares the bytes. See the module docs.
///
/// One pointer (8 bytes): stores keep one of these per entry per keyspace, so the length
/// lives in the allocation beside the bytes (a `std` `Arc<[u8]>` would carry it in a second
/// word beside every copy of the pointer), and the header's size and count are read from
/// the bytes when asked for, not cached beside them.
#[derive(Clone, PartialEq, Eq)]
pub struct PackedItem {
    bytes: Bytes,
}

/// The shared allocation: a reference count, the length, then the bytes.
type Bytes = ThinArc<(), u8>;

impl PackedItem {
    /// Packs an item.
    pub fn encode(item: &Item) -> PackedItem {
        // The size goes in the header, ahead of the attributes: measured first (a cheap walk),
        // so the bytes are written once into one buffer sized for them.
        let size = crate::item_size(item);
        let mut out = Vec::with_capacity(size + 16 + 4 * item.len());
        out.push(PACKED_VERSION);
        put_varint(&mut out, size);
        put_varint(&mut out, item.len());
        let mut clean = true;
        let written = write_attrs(item, &mut out, &mut clean);
        debug_assert_eq!(written, size);
        if clean {
            if let Some(first) = out.first_mut() {
                *first = CLEAN_FORM;
            }
        }
        PackedItem { bytes: ThinArc::from_header_and_slice((), &out) }
    }

    /// Checks untrusted bytes (from disk) completely and wraps them.
    pub fn from_bytes(bytes: impl AsRef<[u8]>) -> Result<PackedItem, PackedError> {
        let bytes = bytes.as_ref();
        let (declared, len, body) = header(bytes)?;
        // First the quick walk (`quick.rs`), which looks at the strings' bytes only for a high
        // bit and for JSON escapes, in one pass: when no high bit is set, every string is
        // ASCII and so UTF-8. Otherwise (non-ASCII text)
        // or on any error, the strict walk checks each string as it goes and its verdict is
        // the one returned, so errors are reported exactly as one strict walk reports them.
        let (actual, clean) = match quick::check(bytes, body, len) {
            Some(checked) => checked,
            None => {
                let r = Reader::new(bytes, body);
                let (mut clean, mut ordered) = (true, true);
                let size = check_attrs(&r, len, 0, &mut clean, &mut ordered)?;
                if r.pos() != bytes.len() {
                    return Err(PackedError::Length(r.pos()));
                }
                if !ordered {
                    if size != declared {
                        return Err(PackedError::Size { header: declared, actual: size });
                    }
                    // Bytes written before sets were kept in canonical order: checked whole
                    // above, so they decode; packed again, their sets come out in order and the
                    // item has the one encoding every item has.
                    let unordered = PackedItem { bytes: ThinArc::from_header_and_slice((), bytes) };
                    return Ok(PackedItem::encode(&unordered.decode()?));
                }
                (size, clean)
            }
        };
        if actual != declared {
            return Err(PackedError::Size { header: declared, actual });
        }
        // The escape-free form (`CLEAN_FORM`): checked when claimed, and given to older bytes
        // that qualify, so that an item has one encoding whenever it was written.
        let normalise = match bytes.first() {
            Some(&CLEAN_FORM) if !clean => return Err(PackedError::NotClean),
            Some(&PACKED_VERSION) => clean,
            _ => false,
        };
        let bytes = if normalise {
            // Rare (bytes written before the form existed): copied byte by byte, the first
            // replaced on the way.
            let form = bytes.iter().enumerate().map(|(i, &b)| if i == 0 { CLEAN_FORM } else { b });
            ThinArc::from_header_and_iter((), form)
        } else {
            ThinArc::from_header_and_slice((), bytes)
        };
        Ok(PackedItem { bytes })
    }

    /// True when no name or string of the item needs a JSON escape (the escape-free form).
    pub fn is_escape_free(&self) -> bool {
        self.as_bytes().first() == Some(&CLEAN_FORM)
    }

    /// The header: `(size, count, offset of the first attribute)`. The invariant makes it
    /// valid; were it not, an empty item's header is returned rather than a panic.
    fn head(&self) -> (usize, usize, usize) {
        header(self.as_bytes()).unwrap_or((0, 0, self.as_bytes().len()))
    }

    /// Unpacks the item.
    pub fn decode(&self) -> Result<Item, PackedError> {
        let bytes = self.as_bytes();
        let (_, len, body) = header(bytes)?;
        read_attrs(&Reader::new(bytes, body), len, 0)
    }

    /// Unpacks the item, which the type's invariant says cannot fail; should it fail anyway
    /// (a bug), the result is an empty item rather than a panic.
    pub fn to_item(&self) -> Item {
        let item = self.decode();
        debug_assert!(item.is_ok(), "a PackedItem failed to decode: {item:?}");
        item.unwrap_or_default()
    }

    /// The item's DynamoDB size ([`crate::item_size`]).
    pub fn size(&self) -> usize {
        self.head().0
    }

    /// The number of attributes.
    pub fn len(&self) -> usize {
        self.head().1
    }

    /// True when the item has no attributes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packed bytes (the format in the module docs).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes.slice
    }

    /// Reads one byte of each of the item's first eight cache lines (512 bytes), and its
    /// reference count, and discards them. A store calls this as soon as it has found the
    /// item's pointer and before it does other work that waits on memory (comparing the key
    /// behind another pointer): the processor then fetches both at once, where reading the
    /// item after the comparison would wait for one cache miss after the other. Nothing is
    /// changed; this costs a few loads, and the later reads of the item hit the cache.
    pub fn warm(&self) {
        let bytes = self.as_bytes();
        let mut folded = ThinArc::strong_count(&self.bytes) as u8;
        for line in bytes.chunks(64).take(WARM_LINES) {
            folded ^= line.first().copied().unwrap_or(0);
        }
        std::hint::black_box(folded);
    }

    /// A view of attribute `name`, found without decoding the other attributes.
    ///
    /// The engine reads key attributes this way on every write (the old item's index keys),
    /// so the scan is a tight loop over the bytes: one-byte lengths (names and values under
    /// 128 bytes) are read inline, and names are compared as bytes (checked as UTF-8 when the
    /// item was packed or read; bytewise order is their order).
    pub fn get(&self, name: &str) -> Option<ValueRef<'_>> {
        let bytes = self.as_bytes();
        let (_, len, mut pos) = self.head();
        for _ in 0..len {
            let (n, at) = varint_from(bytes, pos).ok()?;
            let end = at.checked_add(n)?;
            let key = bytes.get(at..end)?;
            pos = end;
            match key.cmp(name.as_bytes()) {
                std::cmp::Ordering::Less => pos = skip_at(bytes, pos)?,
                std::cmp::Ordering::Equal => return value_ref(&Reader::new(bytes, pos)).ok(),
                std::cmp::Ordering::Greater => return None,
            }
        }
        None
    }
}

/// The varint at `at` and the position after it: at most ten bytes, no overlong form (a
/// final zero group), so one value has one encoding. The one decoder of the format's
/// varints, for every reader; one- and two-byte varints (every length below 16,384) are
/// decoded inline at the call, the rest by [`long_varint`].
#[inline(always)]
fn varint_from(bytes: &[u8], at: usize) -> Result<(usize, usize), PackedError> {
    match bytes.get(at) {
        Some(&b) if b < 0x80 => Ok((usize::from(b), at + 1)),
        // Two bytes (128 to 16,383: item sizes, strings past 127 bytes) are read here too. A
        // zero second byte is an overlong form; the long path refuses it.
        Some(&b) => match bytes.get(at + 1) {
            Some(&c) if c < 0x80 && c != 0 => Ok((usize::from(b & 0x7F) | usize::from(c) << 7, at + 2)),
            _ => long_varint(bytes, at),
        },
        None => long_varint(bytes, at),
    }
}

/// [`varint_from`] past its one- and two-byte cases (and its errors, and the end of the bytes).
#[inline(never)]
fn long_varint(bytes: &[u8], at: usize) -> Result<(usize, usize), PackedError> {
    let mut v: u64 = 0;
    for i in 0..10 {
        let pos = at + i;
        let b = *bytes.get(pos).ok_or(PackedError::Truncated(pos))?;
        let part = u64::from(b & 0x7F);
        if i == 9 && part > 1 {
            return Err(PackedError::Varint(at));
        }
        v |= part << (7 * i);
        if b & 0x80 == 0 {
            if b == 0 && i > 0 {
                return Err(PackedError::Varint(at));
            }
            let v = usize::try_from(v).map_err(|_| PackedError::Varint(at))?;
            return Ok((v, pos + 1));
        }
    }
    Err(PackedError::Varint(at))
}

/// The position after the value at `pos`.
fn skip_at(bytes: &[u8], pos: usize) -> Option<usize> {
    match *bytes.get(pos)? {
        TAG_FALSE | TAG_TRUE | TAG_NULL => Some(pos + 1),
        TAG_S | TAG_N | TAG_B | TAG_M | TAG_L | TAG_SS | TAG_NS | TAG_BS => {
            let (n, at) = varint_from(bytes, pos + 1).ok()?;
            let end = at.checked_add(n)?;
            (end <= bytes.len()).then_some(end)
        }
        _ => None,
    }
}

impl fmt::Debug for PackedItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.decode() {
            Ok(item) => f.debug_tuple("PackedItem").field(&item).finish(),
            Err(e) => f.debug_tuple("PackedItem").field(&e).finish(),
        }
    }
}

impl From<&Item> for PackedItem {
    fn from(item: &Item) -> PackedItem {
        PackedItem::encode(item)
    }
}

/// A borrowed view of one attribute of a [`PackedItem`]. Scalars are read in place;
/// composites are kept as their packed bytes and decoded on request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRef<'a> {
    /// A string.
    S(&'a str),
    /// A number, as its canonical text.
    N(&'a str),
    /// Binary.
    B(&'a [u8]),
    /// A boolean.
    Bool(bool),
    /// Null.
    Null,
    /// A map, list or set: its tag and packed value (tag included).
    Composite(&'a [u8]),
}

impl ValueRef<'_> {
    /// The value as an owned [`AttributeValue`].
    pub fn to_value(&self) -> Result<AttributeValue, PackedError> {
        Ok(match *self {
            ValueRef::S(s) => AttributeValue::S(s.to_owned()),
            ValueRef::N(n) => AttributeValue::N(Number::parse(n).map_err(|_| PackedError::Number(0))?),
            ValueRef::B(b) => AttributeValue::B(b.to_vec()),
            ValueRef::Bool(b) => AttributeValue::Bool(b),
            ValueRef::Null => AttributeValue::Null,
            ValueRef::Composite(bytes) => read_value(&Reader::new(bytes, 0), 0)?,
        })
    }

    /// The value's DynamoDB type.
    pub fn attribute_type(&self) -> crate::AttributeType {
        use crate::AttributeType as T;
        match *self {
            ValueRef::S(_) => T::S,
            ValueRef::N(_) => T::N,
            ValueRef::B(_) => T::B,
            ValueRef::Bool(_) => T::Bool,
            ValueRef::Null => T::Null,
            ValueRef::Composite(bytes) => match bytes.first() {
                Some(&TAG_M) => T::M,
                Some(&TAG_L) => T::L,
                Some(&TAG_SS) => T::Ss,
                Some(&TAG_NS) => T::Ns,
                _ => T::Bs,
            },
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Writing.

fn put_varint(out: &mut Vec<u8>, v: usize) {
    let mut v = v as u64;
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// A number's canonical text, written into a stack buffer (at most 170 characters: 38
/// digits and up to 130 zeros, a sign and a point).
struct TextBuf {
    buf: [u8; 192],
    len: usize,
}

impl fmt::Write for TextBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let slot = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

fn put_number(out: &mut Vec<u8>, n: &Number) {
    use fmt::Write as _;
    let mut t = TextBuf { buf: [0; 192], len: 0 };
    if write!(t, "{n}").is_ok() {
        put_bytes(out, t.buf.get(..t.len).unwrap_or_default());
    } else {
        // Not reachable for a canonical Number; kept total rather than panicking.
        put_bytes(out, n.to_string().as_bytes());
    }
}

/// Writes a name or string and clears `clean` when it needs a JSON escape ([`CLEAN_FORM`]):
/// the escape-free form is found while the item is written, without a second walk.
fn put_str(out: &mut Vec<u8>, s: &str, clean: &mut bool) {
    *clean = *clean && is_clean(s.as_bytes());
    put_bytes(out, s.as_bytes());
}

/// Writes `varint(count)` is the caller's job; this writes the attributes and returns their
/// DynamoDB size.
fn write_attrs(item: &Item, out: &mut Vec<u8>, clean: &mut bool) -> usize {
    let mut size = 0;
    for (k, v) in item {
        put_str(out, k, clean);
        size += k.len() + write_value(v, out, clean);
    }
    size
}

/// Writes a composite's body behind a placeholder-free length: the body is built in `out`
/// after the tag, then its length is inserted in front of it.
fn with_body(out: &mut Vec<u8>, tag: u8, count: usize, body: impl FnOnce(&mut Vec<u8>) -> usize) -> usize {
    out.push(tag);
    let start = out.len();
    put_varint(out, count);
    let size = body(out);
    let len = out.len() - start;
    let mut prefix = Vec::with_capacity(10);
    put_varint(&mut prefix, len);
    out.splice(start..start, prefix);
    size
}

/// Calls `write` on a set's members in canonical order (`AttributeValue::sort_sets`), so a
/// stored set is in that order whatever order the request gave; returns the member count. A
/// set already in order is written as it is, without allocating.
fn in_order<T: Ord>(set: &[T], write: impl FnMut(&T)) -> usize {
    if set.is_sorted() {
        set.iter().for_each(write);
    } else {
        let mut members: Vec<&T> = set.iter().collect();
        members.sort_unstable();
        members.into_iter().for_each(write);
    }
    set.len()
}

/// Writes one value and returns its DynamoDB size.
fn write_value(v: &AttributeValue, out: &mut Vec<u8>, clean: &mut bool) -> usize {
    match v {
        AttributeValue::S(s) => {
            out.push(TAG_S);
            put_str(out, s, clean);
        }
        AttributeValue::N(n) => {
            out.push(TAG_N);
            put_number(out, n);
        }
        AttributeValue::B(b) => {
            out.push(TAG_B);
            put_bytes(out, b);
        }
        AttributeValue::Bool(b) => out.push(if *b { TAG_TRUE } else { TAG_FALSE }),
        AttributeValue::Null => out.push(TAG_NULL),
        AttributeValue::M(m) => {
            return with_body(out, TAG_M, m.len(), |out| 3 + m.len() + write_attrs(m, out, clean))
        }
        AttributeValue::L(l) => {
            return with_body(out, TAG_L, l.len(), |out| {
                3 + l.iter().map(|x| 1 + write_value(x, out, clean)).sum::<usize>()
            })
        }
        AttributeValue::Ss(s) => {
            with_body(out, TAG_SS, s.len(), |out| in_order(s, |x| put_str(out, x, clean)));
        }
        AttributeValue::Ns(s) => {
            with_body(out, TAG_NS, s.len(), |out| in_order(s, |x| put_number(out, x)));
        }
        AttributeValue::Bs(s) => {
            with_body(out, TAG_BS, s.len(), |out| in_order(s, |x| put_bytes(out, x)));
        }
    }
    v.size()
}

// ---------------------------------------------------------------------------------------------
// Reading. Every read is bounds-checked; positions in errors are byte offsets.

/// A cursor over packed bytes. The position is a `Cell` so a serde `Serialize` (which only
/// gets `&self`) can advance it.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: Cell<usize>,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], pos: usize) -> Reader<'a> {
        Reader { bytes, pos: Cell::new(pos) }
    }

    fn pos(&self) -> usize {
        self.pos.get()
    }

    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos())
    }

    fn byte(&self) -> Result<u8, PackedError> {
        let at = self.pos();
        let b = *self.bytes.get(at).ok_or(PackedError::Truncated(at))?;
        self.pos.set(at + 1);
        Ok(b)
    }

    fn varint(&self) -> Result<usize, PackedError> {
        let (v, next) = varint_from(self.bytes, self.pos())?;
        self.pos.set(next);
        Ok(v)
    }

    fn take(&self, n: usize) -> Result<&'a [u8], PackedError> {
        let at = self.pos();
        let end = at.checked_add(n).ok_or(PackedError::Truncated(at))?;
        let out = self.bytes.get(at..end).ok_or(PackedError::Truncated(at))?;
        self.pos.set(end);
        Ok(out)
    }

    /// A length-prefixed byte string.
    fn bytes(&self) -> Result<&'a [u8], PackedError> {
        let n = self.varint()?;
        self.take(n)
    }

    /// A length-prefixed UTF-8 string.
    fn str(&self) -> Result<&'a str, PackedError> {
        let at = self.pos();
        std::str::from_utf8(self.bytes()?).map_err(|_| PackedError::Utf8(at))
    }

    /// A composite's body: its length prefix, then a reader over exactly the body.
    fn body(&self) -> Result<Reader<'a>, PackedError> {
        let body = self.bytes()?;
        Ok(Reader::new(body, 0))
    }

    /// A count of elements that each take at least one byte: a count larger than the bytes
    /// left is a lie, refused before anything is reserved for it.
    fn count(&self) -> Result<usize, PackedError> {
        let at = self.pos();
        let n = self.varint()?;
        if n > self.remaining() {
            return Err(PackedError::Truncated(at));
        }
        Ok(n)
    }
}

/// The version byte, size and count; returns `(size, count, offset of the first attribute)`.
fn header(bytes: &[u8]) -> Result<(usize, usize, usize), PackedError> {
    let r = Reader::new(bytes, 0);
    let version = r.byte()?;
    if version != PACKED_VERSION && version != CLEAN_FORM {
        return Err(PackedError::Version(version));
    }
    let size = r.varint()?;
    let count = r.count()?;
    Ok((size, count, r.pos()))
}

/// A length-prefixed number, its text checked to be canonical.
fn number(r: &Reader<'_>) -> Result<Number, PackedError> {
    let at = r.pos();
    number_of(r.bytes()?).ok_or(PackedError::Number(at))
}

/// The number `text` is, if it is one in canonical form (what `Number`'s `Display` writes). A
/// plain integer of at most 18 digits without a leading zero is canonical as it stands
/// (`Display` writes integers in full; `plain_integers_are_canonical` pins it) and is read
/// without parsing and re-formatting text.
fn number_of(text: &[u8]) -> Option<Number> {
    match plain_integer(text) {
        Some(v) => Some(Number::from(v)),
        None => canonical_number(text),
    }
}

/// The number `text` is, if it is one in canonical form: parsed, written back and compared.
fn canonical_number(text: &[u8]) -> Option<Number> {
    let text = std::str::from_utf8(text).ok()?;
    let n = Number::parse(text).ok()?;
    use fmt::Write as _;
    let mut t = TextBuf { buf: [0; 192], len: 0 };
    (write!(t, "{n}").is_ok() && t.buf.get(..t.len) == Some(text.as_bytes())).then_some(n)
}

/// Checks `count` attributes (names sorted and unique) and returns their DynamoDB size.
fn check_attrs(
    r: &Reader<'_>,
    count: usize,
    depth: usize,
    clean: &mut bool,
    ordered: &mut bool,
) -> Result<usize, PackedError> {
    let mut size = 0;
    let mut last: Option<&[u8]> = None;
    for _ in 0..count {
        let at = r.pos();
        let name = checked_str(r, clean)?;
        // Byte order is `str` order.
        if last.is_some_and(|l| l >= name) {
            return Err(PackedError::Order(at));
        }
        last = Some(name);
        size += name.len() + check_value(r, depth, clean, ordered)?;
    }
    Ok(size)
}

/// Checks a set's `count` members with `member` (which returns a member and its DynamoDB size)
/// and returns their size; clears `ordered` when they are not in the canonical order packing
/// writes (`in_order`, `AttributeValue::sort_sets`). Bytes written before that order existed
/// hold sets in request order: they are read, and packed again in order (`from_bytes`).
fn check_members<'a, T: Ord>(
    body: &Reader<'a>,
    count: usize,
    ordered: &mut bool,
    mut member: impl FnMut(&Reader<'a>) -> Result<(T, usize), PackedError>,
) -> Result<usize, PackedError> {
    let mut size = 0;
    let mut last: Option<T> = None;
    for _ in 0..count {
        let (m, s) = member(body)?;
        if last.as_ref().is_some_and(|l| *l > m) {
            *ordered = false;
        }
        last = Some(m);
        size += s;
    }
    Ok(size)
}

/// A length-prefixed string, checked to be UTF-8; clears `clean` when it needs a JSON escape.
fn checked_str<'a>(r: &Reader<'a>, clean: &mut bool) -> Result<&'a [u8], PackedError> {
    let at = r.pos();
    let bytes = r.bytes()?;
    if std::str::from_utf8(bytes).is_err() {
        return Err(PackedError::Utf8(at));
    }
    *clean = *clean && is_clean(bytes);
    Ok(bytes)
}

/// A number's DynamoDB size, its text checked to be canonical.
fn checked_number_size(r: &Reader<'_>) -> Result<usize, PackedError> {
    Ok(AttributeValue::N(number(r)?).size())
}

/// The value of `-?[1-9][0-9]{0,17}` or `0`, if `text` is one.
fn plain_integer(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    match digits {
        [b'0'] if !negative => return Some(0),
        [] | [b'0', ..] => return None,
        _ if digits.len() > 18 => return None,
        _ => {}
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(d - b'0');
    }
    Some(if negative { -v } else { v })
}

/// Checks one value and returns its DynamoDB size.
/// Clears `ordered` when a set's members are not in canonical order (see [`check_members`]).
fn check_value(
    r: &Reader<'_>,
    depth: usize,
    clean: &mut bool,
    ordered: &mut bool,
) -> Result<usize, PackedError> {
    if depth >= MAX_NESTING {
        return Err(PackedError::TooDeep);
    }
    let at = r.pos();
    Ok(match r.byte()? {
        TAG_S => checked_str(r, clean)?.len(),
        TAG_N => checked_number_size(r)?,
        TAG_B => r.bytes()?.len(),
        TAG_FALSE | TAG_TRUE | TAG_NULL => 1,
        tag @ (TAG_M | TAG_L | TAG_SS | TAG_NS | TAG_BS) => {
            let body = r.body()?;
            let count = body.count()?;
            let size = match tag {
                TAG_M => 3 + count + check_attrs(&body, count, depth + 1, clean, ordered)?,
                TAG_L => {
                    let mut size = 3 + count;
                    for _ in 0..count {
                        size += check_value(&body, depth + 1, clean, ordered)?;
                    }
                    size
                }
                TAG_SS => {
                    check_members(&body, count, ordered, |b| checked_str(b, clean).map(|s| (s, s.len())))?
                }
                TAG_NS => check_members(&body, count, ordered, |b| {
                    let n = number(b)?;
                    let size = AttributeValue::N(n).size();
                    Ok((n, size))
                })?,
                _ => check_members(&body, count, ordered, |b| b.bytes().map(|x| (x, x.len())))?,
            };
            if body.remaining() != 0 {
                return Err(PackedError::Length(at));
            }
            size
        }
        tag => return Err(PackedError::Tag { tag, at }),
    })
}

fn read_attrs(r: &Reader<'_>, count: usize, depth: usize) -> Result<Item, PackedError> {
    let mut item = Item::new();
    for _ in 0..count {
        let name = Name::from(r.str()?);
        // Names arrive sorted, so each insert is an append.
        item.insert(name, read_value(r, depth)?);
    }
    Ok(item)
}

fn read_value(r: &Reader<'_>, depth: usize) -> Result<AttributeValue, PackedError> {
    if depth >= MAX_NESTING {
        return Err(PackedError::TooDeep);
    }
    let at = r.pos();
    Ok(match r.byte()? {
        TAG_S => AttributeValue::S(r.str()?.to_owned()),
        TAG_N => AttributeValue::N(number(r)?),
        TAG_B => AttributeValue::B(r.bytes()?.to_vec()),
        TAG_FALSE => AttributeValue::Bool(false),
        TAG_TRUE => AttributeValue::Bool(true),
        TAG_NULL => AttributeValue::Null,
        tag @ (TAG_M | TAG_L | TAG_SS | TAG_NS | TAG_BS) => {
            let body = r.body()?;
            let count = body.count()?;
            let value = match tag {
                TAG_M => AttributeValue::M(read_attrs(&body, count, depth + 1)?),
                TAG_L => AttributeValue::L(
                    (0..count).map(|_| read_value(&body, depth + 1)).collect::<Result<_, _>>()?,
                ),
                TAG_SS => AttributeValue::Ss(
                    (0..count).map(|_| body.str().map(str::to_owned)).collect::<Result<_, _>>()?,
                ),
                TAG_NS => AttributeValue::Ns((0..count).map(|_| number(&body)).collect::<Result<_, _>>()?),
                _ => AttributeValue::Bs(
                    (0..count).map(|_| body.bytes().map(<[u8]>::to_vec)).collect::<Result<_, _>>()?,
                ),
            };
            if body.remaining() != 0 {
                return Err(PackedError::Length(at));
            }
            value
        }
        tag => return Err(PackedError::Tag { tag, at }),
    })
}

/// Moves past one value without looking inside composites.
fn value_ref<'a>(r: &Reader<'a>) -> Result<ValueRef<'a>, PackedError> {
    let start = r.pos();
    let at = start;
    Ok(match r.byte()? {
        TAG_S => ValueRef::S(r.str()?),
        TAG_N => ValueRef::N(std::str::from_utf8(r.bytes()?).map_err(|_| PackedError::Number(at))?),
        TAG_B => ValueRef::B(r.bytes()?),
        TAG_FALSE => ValueRef::Bool(false),
        TAG_TRUE => ValueRef::Bool(true),
        TAG_NULL => ValueRef::Null,
        TAG_M | TAG_L | TAG_SS | TAG_NS | TAG_BS => {
            r.bytes()?;
            ValueRef::Composite(r.bytes.get(start..r.pos()).ok_or(PackedError::Truncated(start))?)
        }
        tag => return Err(PackedError::Tag { tag, at }),
    })
}

// ---------------------------------------------------------------------------------------------
// Serialising straight from the bytes, in the same JSON as `Item`'s `Serialize`.

impl Serialize for PackedItem {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (_, count, body) = self.head();
        let r = Reader::new(self.as_bytes(), body);
        AttrsSer { r: &r, count }.serialize(serializer)
    }
}

/// `count` attributes read from `r` as a JSON object.
struct AttrsSer<'r, 'a> {
    r: &'r Reader<'a>,
    count: usize,
}

impl Serialize for AttrsSer<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.count))?;
        for _ in 0..self.count {
            let name = self.r.str().map_err(S::Error::custom)?;
            map.serialize_entry(name, &ValueSer(self.r))?;
        }
        map.end()
    }
}

/// The next value read from the reader, as `AttributeValue`'s `Serialize` writes it.
struct ValueSer<'r, 'a>(&'r Reader<'a>);

impl Serialize for ValueSer<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let at = r.pos();
        let mut map = serializer.serialize_map(Some(1))?;
        let e = S::Error::custom;
        match r.byte().map_err(e)? {
            TAG_S => map.serialize_entry("S", r.str().map_err(e)?)?,
            TAG_N => map.serialize_entry("N", r.str().map_err(e)?)?,
            TAG_B => map.serialize_entry("B", &B64(r.bytes().map_err(e)?))?,
            TAG_FALSE => map.serialize_entry("BOOL", &false)?,
            TAG_TRUE => map.serialize_entry("BOOL", &true)?,
            TAG_NULL => map.serialize_entry("NULL", &true)?,
            tag @ (TAG_M | TAG_L | TAG_SS | TAG_NS | TAG_BS) => {
                let body = r.body().map_err(e)?;
                let count = body.count().map_err(e)?;
                let name = match tag {
                    TAG_M => "M",
                    TAG_L => "L",
                    TAG_SS => "SS",
                    TAG_NS => "NS",
                    _ => "BS",
                };
                match tag {
                    TAG_M => map.serialize_entry(name, &AttrsSer { r: &body, count })?,
                    _ => map.serialize_entry(name, &SeqSer { r: &body, count, tag })?,
                }
            }
            tag => return Err(S::Error::custom(PackedError::Tag { tag, at })),
        }
        map.end()
    }
}

/// The elements of a list or set as a JSON array.
struct SeqSer<'r, 'a> {
    r: &'r Reader<'a>,
    count: usize,
    tag: u8,
}

impl Serialize for SeqSer<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.count))?;
        let e = S::Error::custom;
        for _ in 0..self.count {
            match self.tag {
                TAG_L => seq.serialize_element(&ValueSer(self.r))?,
                TAG_SS | TAG_NS => seq.serialize_element(self.r.str().map_err(e)?)?,
                _ => seq.serialize_element(&B64(self.r.bytes().map_err(e)?))?,
            }
        }
        seq.end()
    }
}

/// Binary as base64 text, encoded piecewise into the output (no intermediate string).
struct B64<'a>(&'a [u8]);

impl Serialize for B64<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&Base64Display::new(self.0, &STANDARD))
    }
}

mod json;
mod quick;

#[cfg(test)]
mod tests;
