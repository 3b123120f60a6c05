//! DynamoDB's ten attribute types.

use std::collections::HashSet;
use std::fmt;

use crate::{Item, Number};

/// One DynamoDB attribute value.
///
/// Sets (`Ss`, `Ns`, `Bs`) keep the order they were given in, but equality treats them as
/// sets: `{"SS": ["a", "b"]} == {"SS": ["b", "a"]}`. Invariant (checked by the engine on the
/// way in, not by this type): a stored set is non-empty and has no duplicates. A stored set is
/// also in canonical order ([`AttributeValue::sort_sets`]): packing writes it so.
#[derive(Clone, Debug)]
pub enum AttributeValue {
    /// String (`S`).
    S(String),
    /// Number (`N`).
    N(Number),
    /// Binary (`B`), raw bytes (base64 only on the wire).
    B(Vec<u8>),
    /// Boolean (`BOOL`).
    Bool(bool),
    /// Null (`NULL`); DynamoDB only accepts `true` as its value.
    Null,
    /// Map (`M`).
    M(Item),
    /// List (`L`).
    L(Vec<AttributeValue>),
    /// String set (`SS`).
    Ss(Vec<String>),
    /// Number set (`NS`).
    Ns(Vec<Number>),
    /// Binary set (`BS`).
    Bs(Vec<Vec<u8>>),
}

/// The type tag of an [`AttributeValue`], spelled as DynamoDB spells it (`S`, `N`, `BOOL`…).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttributeType {
    S,
    N,
    B,
    Bool,
    Null,
    M,
    L,
    Ss,
    Ns,
    Bs,
}

impl AttributeType {
    /// DynamoDB's name of the type: `S`, `N`, `B`, `BOOL`, `NULL`, `M`, `L`, `SS`, `NS`, `BS`.
    pub fn as_str(self) -> &'static str {
        match self {
            AttributeType::S => "S",
            AttributeType::N => "N",
            AttributeType::B => "B",
            AttributeType::Bool => "BOOL",
            AttributeType::Null => "NULL",
            AttributeType::M => "M",
            AttributeType::L => "L",
            AttributeType::Ss => "SS",
            AttributeType::Ns => "NS",
            AttributeType::Bs => "BS",
        }
    }

    /// Parses DynamoDB's name of a type (case-sensitive, as DynamoDB is).
    pub fn parse(s: &str) -> Option<AttributeType> {
        Some(match s {
            "S" => AttributeType::S,
            "N" => AttributeType::N,
            "B" => AttributeType::B,
            "BOOL" => AttributeType::Bool,
            "NULL" => AttributeType::Null,
            "M" => AttributeType::M,
            "L" => AttributeType::L,
            "SS" => AttributeType::Ss,
            "NS" => AttributeType::Ns,
            "BS" => AttributeType::Bs,
            _ => return None,
        })
    }
}

impl fmt::Display for AttributeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Sorts a set's members unless they already are in order. The stable sort finds the sorted
/// run an `ADD` leaves in front of the members it appends and merges the rest into it.
fn sort_set<T: Ord>(set: &mut [T]) {
    if !set.is_sorted() {
        set.sort();
    }
}

/// Set equality in time linear in the sets' sizes: small sets are compared pairwise (no
/// allocation), larger ones through hash sets, so a 100,000-member set costs no more than
/// reading it twice.
fn same_set<T: Eq + std::hash::Hash>(a: &[T], b: &[T]) -> bool {
    const PAIRWISE: usize = 16;
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= PAIRWISE {
        return a.iter().all(|x| b.contains(x)) && b.iter().all(|x| a.contains(x));
    }
    let (left, right): (HashSet<&T>, HashSet<&T>) = (a.iter().collect(), b.iter().collect());
    left == right
}

impl PartialEq for AttributeValue {
    fn eq(&self, other: &AttributeValue) -> bool {
        use AttributeValue::*;
        match (self, other) {
            (S(a), S(b)) => a == b,
            (N(a), N(b)) => a == b,
            (B(a), B(b)) => a == b,
            (Bool(a), Bool(b)) => a == b,
            (Null, Null) => true,
            (M(a), M(b)) => a == b,
            (L(a), L(b)) => a == b,
            (Ss(a), Ss(b)) => same_set(a, b),
            (Ns(a), Ns(b)) => same_set(a, b),
            (Bs(a), Bs(b)) => same_set(a, b),
            _ => false,
        }
    }
}

impl Eq for AttributeValue {}

impl AttributeValue {
    /// The value's type tag.
    pub fn attribute_type(&self) -> AttributeType {
        match self {
            AttributeValue::S(_) => AttributeType::S,
            AttributeValue::N(_) => AttributeType::N,
            AttributeValue::B(_) => AttributeType::B,
            AttributeValue::Bool(_) => AttributeType::Bool,
            AttributeValue::Null => AttributeType::Null,
            AttributeValue::M(_) => AttributeType::M,
            AttributeValue::L(_) => AttributeType::L,
            AttributeValue::Ss(_) => AttributeType::Ss,
            AttributeValue::Ns(_) => AttributeType::Ns,
            AttributeValue::Bs(_) => AttributeType::Bs,
        }
    }

    /// Puts every set in the value, at any depth, in canonical order: strings and binaries by
    /// their bytes, numbers by value. DynamoDB leaves the order of a set's members unspecified
    /// ("Amazon DynamoDB: Supported data types and naming rules", Sets) and DynamoDB Local
    /// returns them in this order. A set already in order (the common case) costs one
    /// comparison per member and no allocation.
    pub fn sort_sets(&mut self) {
        match self {
            AttributeValue::Ss(s) => sort_set(s),
            AttributeValue::Ns(s) => sort_set(s),
            AttributeValue::Bs(s) => sort_set(s),
            AttributeValue::M(m) => m.sort_sets(),
            AttributeValue::L(l) => l.iter_mut().for_each(AttributeValue::sort_sets),
            _ => {}
        }
    }

    /// Builds a number value from text, with DynamoDB's checks.
    pub fn number(text: &str) -> Result<AttributeValue, crate::NumberError> {
        Number::parse(text).map(AttributeValue::N)
    }

    /// The string, if this is an `S`.
    pub fn as_s(&self) -> Option<&str> {
        match self {
            AttributeValue::S(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is an `N`.
    pub fn as_n(&self) -> Option<&Number> {
        match self {
            AttributeValue::N(n) => Some(n),
            _ => None,
        }
    }

    /// The bytes, if this is a `B`.
    pub fn as_b(&self) -> Option<&[u8]> {
        match self {
            AttributeValue::B(b) => Some(b),
            _ => None,
        }
    }

    /// The value's size by DynamoDB's item-size formula (without the attribute name):
    /// strings and binary by length in bytes; numbers by `(significant digits + 1) / 2 + 1`
    /// bytes (DynamoDB documents "approximately"; this is the formula the capacity calculators
    /// use); booleans and null 1 byte; lists and maps 3 bytes of overhead plus their elements
    /// (and, for maps, the element names), with 1 byte per element; sets the sum of their
    /// elements.
    pub fn size(&self) -> usize {
        match self {
            AttributeValue::S(s) => s.len(),
            AttributeValue::N(n) => number_size(n),
            AttributeValue::B(b) => b.len(),
            AttributeValue::Bool(_) | AttributeValue::Null => 1,
            AttributeValue::M(m) => 3 + m.iter().map(|(k, v)| k.len() + v.size() + 1).sum::<usize>(),
            AttributeValue::L(l) => 3 + l.iter().map(|v| v.size() + 1).sum::<usize>(),
            AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
            AttributeValue::Ns(v) => v.iter().map(number_size).sum(),
            AttributeValue::Bs(v) => v.iter().map(Vec::len).sum(),
        }
    }

    /// Nesting depth: scalars and sets are 0, a list or map adds one level to its deepest
    /// element. DynamoDB allows up to 32 levels.
    pub fn depth(&self) -> usize {
        match self {
            AttributeValue::M(m) => 1 + m.values().map(AttributeValue::depth).max().unwrap_or(0),
            AttributeValue::L(l) => 1 + l.iter().map(AttributeValue::depth).max().unwrap_or(0),
            _ => 0,
        }
    }
}

fn number_size(n: &Number) -> usize {
    if n.is_zero() {
        return 1;
    }
    let digits = n.digit_count();
    // A leading odd digit when the decimal point falls mid-pair costs one more byte.
    let odd_alignment = (n.exponent().rem_euclid(2) == 1) as usize;
    (digits + odd_alignment).div_ceil(2) + 1
}

/// The size of a whole item by DynamoDB's formula: the sum over attributes of the UTF-8
/// length of the name plus the size of the value.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + v.size()).sum()
}

impl From<&str> for AttributeValue {
    fn from(s: &str) -> AttributeValue {
        AttributeValue::S(s.to_owned())
    }
}

impl From<String> for AttributeValue {
    fn from(s: String) -> AttributeValue {
        AttributeValue::S(s)
    }
}

impl From<Number> for AttributeValue {
    fn from(n: Number) -> AttributeValue {
        AttributeValue::N(n)
    }
}

impl From<bool> for AttributeValue {
    fn from(b: bool) -> AttributeValue {
        AttributeValue::Bool(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_compare_equal_regardless_of_order() {
        let a = AttributeValue::Ss(vec!["a".into(), "b".into()]);
        let b = AttributeValue::Ss(vec!["b".into(), "a".into()]);
        assert_eq!(a, b);
        assert_ne!(a, AttributeValue::Ss(vec!["a".into()]));
    }

    #[test]
    fn lists_compare_in_order() {
        let a = AttributeValue::L(vec!["a".into(), "b".into()]);
        let b = AttributeValue::L(vec!["b".into(), "a".into()]);
        assert_ne!(a, b);
    }

    #[test]
    fn string_size_is_utf8_bytes() {
        assert_eq!(AttributeValue::from("héllo").size(), 6);
    }

    #[test]
    fn item_size_counts_names_and_values() {
        let mut item = Item::new();
        item.insert("pk".into(), "abc".into());
        item.insert("ok".into(), true.into());
        assert_eq!(item_size(&item), 2 + 3 + 2 + 1);
    }

    #[test]
    fn depth_counts_nested_documents() {
        let inner = AttributeValue::L(vec![AttributeValue::M(Item::new())]);
        assert_eq!(inner.depth(), 2);
        assert_eq!(AttributeValue::from("x").depth(), 0);
    }
}
