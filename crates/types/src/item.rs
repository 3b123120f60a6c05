//! [`Item`]: attribute names to values, stored compactly.
//!
//! An item is a vector of `(name, value)` pairs sorted by name (bytewise, as `str` orders),
//! not a `BTreeMap`: a six-attribute item in a `BTreeMap` takes one eleven-slot node (about
//! 800 bytes) plus a heap string per name, where the vector takes six 56-byte pairs and names
//! of up to 24 bytes live inline in their [`Name`] (a `compact_str::CompactString`).
//!
//! Invariant: `attrs` is sorted by name and no name occurs twice. Lookups are binary searches.
//! An insert shifts the later pairs, so building a large item by inserting in random order
//! would be quadratic: every constructor that takes many pairs at once ([`FromIterator`],
//! [`Extend`], the serde `Deserialize`) collects first and sorts once (stable, keeping the
//! last of duplicate names, as repeated `BTreeMap::insert` calls would), and an insert past
//! the last name (the order decoders and projections produce) is an append.

use std::fmt;
use std::slice;

use compact_str::CompactString;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::AttributeValue;

/// An attribute name. Names of up to 24 bytes are stored inline, without a heap allocation.
pub type Name = CompactString;

/// An item: attribute names to values, iterated in name order. See the module docs.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Item {
    attrs: Vec<(Name, AttributeValue)>,
}

impl Item {
    /// An empty item.
    pub const fn new() -> Item {
        Item { attrs: Vec::new() }
    }

    /// The number of attributes.
    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    /// True when the item has no attributes.
    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.attrs.binary_search_by(|(k, _)| k.as_str().cmp(name))
    }

    /// The index of attribute `name`. Items are small: up to 16 attributes a linear scan that
    /// compares lengths before bytes touches less than a binary search, whose every probe is an
    /// ordered string comparison (a `memcmp` call); larger items use the binary search.
    fn find(&self, name: &str) -> Option<usize> {
        if self.attrs.len() <= 16 {
            self.attrs.iter().position(|(k, _)| k.as_str() == name)
        } else {
            self.position(name).ok()
        }
    }

    /// The value of attribute `name`.
    pub fn get<K: AsRef<str> + ?Sized>(&self, name: &K) -> Option<&AttributeValue> {
        let i = self.find(name.as_ref())?;
        self.attrs.get(i).map(|(_, v)| v)
    }

    /// The stored name and value of attribute `name`.
    pub fn get_key_value<K: AsRef<str> + ?Sized>(&self, name: &K) -> Option<(&Name, &AttributeValue)> {
        let i = self.find(name.as_ref())?;
        self.attrs.get(i).map(|(k, v)| (k, v))
    }

    /// The value of attribute `name`, mutably.
    pub fn get_mut<K: AsRef<str> + ?Sized>(&mut self, name: &K) -> Option<&mut AttributeValue> {
        let i = self.find(name.as_ref())?;
        self.attrs.get_mut(i).map(|(_, v)| v)
    }

    /// True when the item has attribute `name`.
    pub fn contains_key<K: AsRef<str> + ?Sized>(&self, name: &K) -> bool {
        self.find(name.as_ref()).is_some()
    }

    /// Sets attribute `name`, returning its previous value.
    pub fn insert(&mut self, name: Name, value: AttributeValue) -> Option<AttributeValue> {
        // Appending in name order (decoders, projections, copies) needs no search.
        if self.attrs.last().is_none_or(|(last, _)| last.as_str() < name.as_str()) {
            self.attrs.push((name, value));
            return None;
        }
        match self.position(&name) {
            Ok(i) => self.attrs.get_mut(i).map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                self.attrs.insert(i, (name, value));
                None
            }
        }
    }

    /// Removes attribute `name`, returning its value.
    pub fn remove<K: AsRef<str> + ?Sized>(&mut self, name: &K) -> Option<AttributeValue> {
        self.remove_entry(name).map(|(_, v)| v)
    }

    /// Removes attribute `name`, returning its stored name and value.
    pub fn remove_entry<K: AsRef<str> + ?Sized>(&mut self, name: &K) -> Option<(Name, AttributeValue)> {
        let i = self.position(name.as_ref()).ok()?;
        Some(self.attrs.remove(i))
    }

    /// Keeps only the attributes for which `keep` returns true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Name, &mut AttributeValue) -> bool) {
        self.attrs.retain_mut(|(k, v)| keep(k, v));
    }

    /// Removes every attribute.
    pub fn clear(&mut self) {
        self.attrs.clear();
    }

    /// The attributes in name order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.attrs.iter())
    }

    /// The attributes in name order, values mutable.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.attrs.iter_mut())
    }

    /// The names in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Name> + ExactSizeIterator + '_ {
        self.attrs.iter().map(|(k, _)| k)
    }

    /// The values in name order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &AttributeValue> + ExactSizeIterator + '_ {
        self.attrs.iter().map(|(_, v)| v)
    }

    /// The values in name order, mutably.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut AttributeValue> + ExactSizeIterator + '_ {
        self.attrs.iter_mut().map(|(_, v)| v)
    }

    /// Puts every set in the item, at any depth, in canonical order
    /// ([`AttributeValue::sort_sets`]).
    pub fn sort_sets(&mut self) {
        self.values_mut().for_each(AttributeValue::sort_sets);
    }

    /// The names in order, consuming the item.
    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = Name> + ExactSizeIterator {
        self.attrs.into_iter().map(|(k, _)| k)
    }

    /// The values in name order, consuming the item.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = AttributeValue> + ExactSizeIterator {
        self.attrs.into_iter().map(|(_, v)| v)
    }

    /// The first attribute by name.
    pub fn first_key_value(&self) -> Option<(&Name, &AttributeValue)> {
        self.attrs.first().map(|(k, v)| (k, v))
    }

    /// Builds the item from pairs in any order: one stable sort, then the last pair of each
    /// name wins. `O(n log n)` whatever the input.
    fn from_pairs(mut attrs: Vec<(Name, AttributeValue)>) -> Item {
        let sorted = attrs.windows(2).all(|w| matches!(w, [(a, _), (b, _)] if a.as_str() < b.as_str()));
        if !sorted {
            attrs.sort_by(|(a, _), (b, _)| a.as_str().cmp(b.as_str()));
            // `dedup_by` keeps the first of a run; swapping the later value into it keeps the
            // last, as repeated inserts would.
            attrs.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    std::mem::swap(&mut later.1, &mut kept.1);
                }
                same
            });
        }
        // A reallocation only when it frees much: items are mostly short-lived (requests,
        // responses; the store keeps packed bytes), and a growing Vec's spare room is at most
        // its length.
        if attrs.capacity() > 2 * attrs.len() + 4 {
            attrs.shrink_to_fit();
        }
        Item { attrs }
    }
}

impl fmt::Debug for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Into<Name>> FromIterator<(K, AttributeValue)> for Item {
    fn from_iter<I: IntoIterator<Item = (K, AttributeValue)>>(iter: I) -> Item {
        Item::from_pairs(iter.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

impl<K: Into<Name>> Extend<(K, AttributeValue)> for Item {
    fn extend<I: IntoIterator<Item = (K, AttributeValue)>>(&mut self, iter: I) {
        let mut attrs = std::mem::take(&mut self.attrs);
        attrs.extend(iter.into_iter().map(|(k, v)| (k.into(), v)));
        *self = Item::from_pairs(attrs);
    }
}

impl<K: Into<Name>, const N: usize> From<[(K, AttributeValue); N]> for Item {
    fn from(pairs: [(K, AttributeValue); N]) -> Item {
        pairs.into_iter().collect()
    }
}

/// `item["name"]`, as `BTreeMap` offers it. Panics when the attribute is missing: for tests
/// and values known to be present, never for input (use [`Item::get`]).
impl<K: AsRef<str> + ?Sized> std::ops::Index<&K> for Item {
    type Output = AttributeValue;
    fn index(&self, name: &K) -> &AttributeValue {
        match self.get(name) {
            Some(v) => v,
            None => panic!("the item has no attribute {:?}", name.as_ref()),
        }
    }
}

/// Iterator over `(&name, &value)` in name order.
#[derive(Clone)]
pub struct Iter<'a>(slice::Iter<'a, (Name, AttributeValue)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Name, &'a AttributeValue);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Iterator over `(&name, &mut value)` in name order.
pub struct IterMut<'a>(slice::IterMut<'a, (Name, AttributeValue)>);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a Name, &'a mut AttributeValue);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IterMut<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (&*k, v))
    }
}

impl ExactSizeIterator for IterMut<'_> {}

impl<'a> IntoIterator for &'a Item {
    type Item = (&'a Name, &'a AttributeValue);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Item {
    type Item = (&'a Name, &'a mut AttributeValue);
    type IntoIter = IterMut<'a>;
    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

impl IntoIterator for Item {
    type Item = (Name, AttributeValue);
    type IntoIter = std::vec::IntoIter<(Name, AttributeValue)>;
    fn into_iter(self) -> Self::IntoIter {
        self.attrs.into_iter()
    }
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k.as_str(), v)?;
        }
        map.end()
    }
}

/// A map key read straight into a [`Name`] (no intermediate `String` for short names).
struct NameKey(Name);

impl<'de> Deserialize<'de> for NameKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NameKey, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = NameKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an attribute name")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<NameKey, E> {
                Ok(NameKey(Name::from(s)))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<NameKey, E> {
                Ok(NameKey(Name::from(s)))
            }
        }
        deserializer.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Item, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Item;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
                // The hint comes from the input: capped so a lying length cannot reserve much.
                let mut attrs = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                while let Some((NameKey(k), v)) = map.next_entry::<NameKey, AttributeValue>()? {
                    attrs.push((k, v));
                }
                Ok(Item::from_pairs(attrs))
            }
        }
        deserializer.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> AttributeValue {
        AttributeValue::S(x.into())
    }

    #[test]
    fn collect_sorts_by_name_and_the_last_duplicate_wins() {
        let item: Item = [("b", s("1")), ("a", s("2")), ("b", s("3")), ("c", s("4")), ("a", s("5"))].into();
        let pairs: Vec<(&str, &AttributeValue)> = item.iter().map(|(k, v)| (k.as_str(), v)).collect();
        assert_eq!(pairs, vec![("a", &s("5")), ("b", &s("3")), ("c", &s("4"))]);
    }

    #[test]
    fn insert_replaces_and_keeps_name_order() {
        let mut item = Item::new();
        assert_eq!(item.insert("m".into(), s("1")), None);
        assert_eq!(item.insert("z".into(), s("2")), None);
        assert_eq!(item.insert("a".into(), s("3")), None);
        assert_eq!(item.insert("m".into(), s("4")), Some(s("1")));
        assert_eq!(item.keys().map(Name::as_str).collect::<Vec<_>>(), ["a", "m", "z"]);
        assert_eq!(item.get("m"), Some(&s("4")));
        assert_eq!(item.remove("a"), Some(s("3")));
        assert!(!item.contains_key("a"));
        assert_eq!(item.len(), 2);
    }

    #[test]
    fn names_order_bytewise_as_utf8() {
        let item: Item = [("é", s("1")), ("z", s("2")), ("Z", s("3"))].into();
        assert_eq!(item.keys().map(Name::as_str).collect::<Vec<_>>(), ["Z", "z", "é"]);
    }

    #[test]
    fn deserialising_keeps_the_last_duplicate_name() {
        let item: Item =
            serde_json::from_str(r#"{"b": {"S": "1"}, "a": {"S": "2"}, "b": {"S": "3"}}"#).unwrap();
        assert_eq!(serde_json::to_string(&item).unwrap(), r#"{"a":{"S":"2"},"b":{"S":"3"}}"#);
    }

    #[test]
    fn an_attribute_value_is_32_bytes_and_a_pair_56() {
        assert_eq!(std::mem::size_of::<AttributeValue>(), 32);
        assert_eq!(std::mem::size_of::<(Name, AttributeValue)>(), 56);
    }
}
