//! [`SharedItem`]: an item in a response (or a change), held packed, decoded, or both.
//!
//! A read that returns a stored item without projecting it passes the stored
//! [`PackedItem`] through: the response is written straight from its bytes (no decode, no
//! copy), and the item is decoded only if someone dereferences it (engine code that reads
//! fields, tests, the library's typed API). An item built by the engine (a projection, an
//! update's result) starts decoded and is packed only if it is stored.
//!
//! Invariant: at least one of the two forms is set, and when both are they hold the same
//! item. Both cells only ever go from empty to set.

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use monotable_types::{item_size, Item, PackedItem, ValueRef};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An item in a response; dereferences to [`Item`]. See the module docs.
#[derive(Clone)]
pub struct SharedItem {
    packed: Form<PackedItem>,
    item: Form<Item>,
}

/// One of a `SharedItem`'s two forms: either given when the `SharedItem` is made, or set
/// later at most once. The first case, every item a read returns, costs no synchronisation:
/// building a `OnceLock` already set goes through `Once` (about a hundred instructions per
/// item of a Query page).
#[derive(Clone)]
enum Form<T> {
    Given(T),
    Later(OnceLock<T>),
}

impl<T> Form<T> {
    fn new() -> Form<T> {
        Form::Later(OnceLock::new())
    }

    fn with(value: T) -> Form<T> {
        Form::Given(value)
    }

    fn get(&self) -> Option<&T> {
        match self {
            Form::Given(value) => Some(value),
            Form::Later(cell) => cell.get(),
        }
    }

    fn into_inner(self) -> Option<T> {
        match self {
            Form::Given(value) => Some(value),
            Form::Later(cell) => cell.into_inner(),
        }
    }

    fn get_or_init(&self, init: impl FnOnce() -> T) -> &T {
        match self {
            Form::Given(value) => value,
            Form::Later(cell) => cell.get_or_init(init),
        }
    }
}

impl SharedItem {
    /// A stored item, decoded only when dereferenced.
    pub fn from_packed(packed: PackedItem) -> SharedItem {
        SharedItem { packed: Form::with(packed), item: Form::new() }
    }

    /// The packed form, encoding the item on first use.
    pub fn packed(&self) -> &PackedItem {
        self.packed.get_or_init(|| PackedItem::encode(self.decoded()))
    }

    /// True when the item is held packed (a response then serialises from the bytes).
    pub fn is_packed(&self) -> bool {
        self.packed.get().is_some()
    }

    fn decoded(&self) -> &Item {
        self.item.get_or_init(|| self.packed.get().map(PackedItem::to_item).unwrap_or_default())
    }

    /// The item's DynamoDB size, from the packed header when the item is packed.
    pub fn size(&self) -> usize {
        match (self.packed.get(), self.item.get()) {
            (Some(p), _) => p.size(),
            (None, Some(i)) => item_size(i),
            (None, None) => 0,
        }
    }

    /// Attribute `name` as a borrowed view, without decoding the whole item when it is held
    /// packed only.
    pub fn attr(&self, name: &str) -> Option<AttrRef<'_>> {
        match (self.item.get(), self.packed.get()) {
            (Some(i), _) => i.get(name).map(AttrRef::Decoded),
            (None, Some(p)) => p.get(name).map(AttrRef::Packed),
            (None, None) => None,
        }
    }

    /// Appends the item's JSON wire form to `out` without serde: from the packed bytes when
    /// there are any, otherwise from the decoded item (the same bytes as `Serialize`).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match (self.packed.get(), self.item.get()) {
            (Some(p), _) => p.write_json(out),
            (None, Some(i)) => monotable_types::write_item(i, out),
            (None, None) => out.extend_from_slice(b"{}"),
        }
    }

    /// About how many bytes [`SharedItem::write_json`] appends, for sizing its buffer.
    pub fn json_len_hint(&self) -> usize {
        match (self.packed.get(), self.item.get()) {
            (Some(p), _) => p.json_len_hint(),
            // A rough figure: a decoded item is written when the engine built it (a
            // projection or an update's result), not on the hot read paths.
            (None, Some(i)) => 2 + i.len() * 32,
            (None, None) => 2,
        }
    }

    /// The item, decoded (it is dereferenced anyway; this spells the conversion out).
    pub fn into_item(self) -> Item {
        match self.item.into_inner() {
            Some(item) => item,
            None => self.packed.get().map(PackedItem::to_item).unwrap_or_default(),
        }
    }
}

/// One attribute of a [`SharedItem`], decoded or still packed.
#[derive(Debug, Clone, Copy)]
pub enum AttrRef<'a> {
    Decoded(&'a monotable_types::AttributeValue),
    Packed(ValueRef<'a>),
}

impl AttrRef<'_> {
    /// The attribute's DynamoDB type.
    pub fn attribute_type(&self) -> monotable_types::AttributeType {
        match self {
            AttrRef::Decoded(v) => v.attribute_type(),
            AttrRef::Packed(v) => v.attribute_type(),
        }
    }

    /// The attribute as an owned value (`None` only if packed bytes failed to decode, which
    /// the packed item's invariant rules out).
    pub fn to_value(&self) -> Option<monotable_types::AttributeValue> {
        match self {
            AttrRef::Decoded(v) => Some((*v).clone()),
            AttrRef::Packed(v) => v.to_value().ok(),
        }
    }
}

impl Deref for SharedItem {
    type Target = Item;
    fn deref(&self) -> &Item {
        self.decoded()
    }
}

impl AsRef<Item> for SharedItem {
    fn as_ref(&self) -> &Item {
        self.decoded()
    }
}

impl From<Item> for SharedItem {
    fn from(item: Item) -> SharedItem {
        SharedItem { packed: Form::new(), item: Form::with(item) }
    }
}

impl From<PackedItem> for SharedItem {
    fn from(packed: PackedItem) -> SharedItem {
        SharedItem::from_packed(packed)
    }
}

impl Default for SharedItem {
    fn default() -> SharedItem {
        SharedItem::from(Item::new())
    }
}

impl PartialEq for SharedItem {
    fn eq(&self, other: &SharedItem) -> bool {
        // Packing is canonical except for the order of set members (sets compare as sets), so
        // equal bytes are equal items and different sizes are different items; only the rest
        // needs a decode.
        match (self.packed.get(), other.packed.get()) {
            (Some(a), Some(b)) if a == b => true,
            (Some(a), Some(b)) if a.size() != b.size() => false,
            _ => self.decoded() == other.decoded(),
        }
    }
}

impl PartialEq<Item> for SharedItem {
    fn eq(&self, other: &Item) -> bool {
        self.decoded() == other
    }
}

impl fmt::Debug for SharedItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.decoded(), f)
    }
}

/// Written as an [`Item`] is: from the packed bytes when there are any (the stored item passed
/// through), otherwise from the decoded item.
impl Serialize for SharedItem {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self.packed.get(), self.item.get()) {
            (Some(p), _) => p.serialize(serializer),
            (None, Some(i)) => i.serialize(serializer),
            (None, None) => Item::new().serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for SharedItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SharedItem, D::Error> {
        Item::deserialize(deserializer).map(SharedItem::from)
    }
}

#[cfg(test)]
mod tests {
    use monotable_types::AttributeValue;

    use super::*;

    fn item() -> Item {
        [("a", AttributeValue::from("x")), ("n", AttributeValue::N(7.into()))].into()
    }

    #[test]
    fn a_packed_item_serialises_and_derefs_as_the_item() {
        let shared = SharedItem::from_packed(PackedItem::encode(&item()));
        assert_eq!(serde_json::to_string(&shared).unwrap(), serde_json::to_string(&item()).unwrap());
        assert!(matches!(shared.attr("a"), Some(AttrRef::Packed(ValueRef::S("x")))));
        assert_eq!(shared.size(), item_size(&item()));
        assert_eq!(*shared, item());
        assert_eq!(shared, SharedItem::from(item()));
    }

    #[test]
    fn a_decoded_item_packs_on_demand() {
        let shared = SharedItem::from(item());
        assert!(!shared.is_packed());
        assert_eq!(shared.packed().decode().unwrap(), item());
        assert!(shared.is_packed());
    }
}
