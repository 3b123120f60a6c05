//! A table's resolved schema: key attributes, secondary indexes and their projections.

use std::sync::atomic::AtomicI64;
use std::sync::Arc;

use monotable_types::{AttributeType, Item, PackedItem};

use crate::api::SharedItem;
use crate::keys::{encode_attr, encode_value};
use crate::storage::Keyspace;

/// One key attribute: its name and scalar type (`S`, `N` or `B`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyAttr {
    pub name: String,
    pub ty: AttributeType,
}

/// A partition key and an optional sort key. A global secondary index may have a
/// multi-attribute key: up to four partition attributes (`pk`, then `pk_more`) and up to four
/// sort attributes (`sk`, then `sk_more`), in KeySchema order. `sk_more` is empty when `sk` is
/// `None`; base tables and local secondary indexes always have both lists empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeySchema {
    pub pk: KeyAttr,
    pub sk: Option<KeyAttr>,
    pub pk_more: Vec<KeyAttr>,
    pub sk_more: Vec<KeyAttr>,
}

impl KeySchema {
    /// True when `name` is one of the key attributes.
    pub fn is_key(&self, name: &str) -> bool {
        self.attrs().any(|a| a.name == name)
    }

    /// A single-attribute key schema.
    pub fn single(pk: KeyAttr, sk: Option<KeyAttr>) -> KeySchema {
        KeySchema { pk, sk, pk_more: Vec::new(), sk_more: Vec::new() }
    }

    /// The partition attributes, in KeySchema order.
    pub fn partition(&self) -> impl Iterator<Item = &KeyAttr> {
        std::iter::once(&self.pk).chain(&self.pk_more)
    }

    /// The sort attributes, in KeySchema order (none without a sort key).
    pub fn sort(&self) -> impl Iterator<Item = &KeyAttr> {
        self.sk.iter().chain(&self.sk_more)
    }

    /// The key attributes: the partition attributes, then the sort attributes. An entry's
    /// storage key encodes them in this order, so (every component encoding being
    /// prefix-free) byte order is the order of the attribute tuple.
    pub fn attrs(&self) -> impl Iterator<Item = &KeyAttr> {
        self.partition().chain(self.sort())
    }

    /// Appends the encoding of the item's key attributes, or returns `false` (leaving `out`
    /// in an unspecified state) when one is missing or has another type — which for an
    /// index means the item is not in the index (sparse indexes).
    pub fn encode_from(&self, item: &Item, out: &mut Vec<u8>) -> bool {
        for attr in self.attrs() {
            match item.get(&attr.name) {
                Some(v) if v.attribute_type() == attr.ty => encode_value(v, out),
                _ => return false,
            }
        }
        true
    }

    /// [`KeySchema::encode_from`] for a stored or staged item, reading only the key
    /// attributes (no decode of a packed item).
    pub fn encode_from_shared(&self, item: &SharedItem, out: &mut Vec<u8>) -> bool {
        for attr in self.attrs() {
            match item.attr(&attr.name) {
                Some(v) if v.attribute_type() == attr.ty => encode_attr(&v, out),
                _ => return false,
            }
        }
        true
    }

    /// [`KeySchema::extract`] for a stored or staged item, decoding only the key attributes.
    pub fn extract_shared(&self, item: &SharedItem) -> Item {
        let mut key = Item::new();
        for a in self.attrs() {
            if let Some(v) = item.attr(&a.name).and_then(|v| v.to_value()) {
                key.insert(a.name.as_str().into(), v);
            }
        }
        key
    }

    /// The key attributes of `item` as a key map.
    pub fn extract(&self, item: &Item) -> Item {
        // Inserted one by one: `collect` sorts through a scratch vector first, which costs
        // several times more for the one or two attributes of a key.
        let mut key = Item::new();
        for a in self.attrs() {
            if let Some(v) = item.get(&a.name) {
                key.insert(a.name.as_str().into(), v.clone());
            }
        }
        key
    }
}

/// Which attributes an index stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProjectionKind {
    All,
    KeysOnly,
    Include(Vec<String>),
}

/// A secondary index.
pub(crate) struct Index {
    pub name: String,
    pub global: bool,
    pub key: KeySchema,
    pub projection: ProjectionKind,
    pub keyspace: Arc<dyn Keyspace>,
    pub item_count: AtomicI64,
    pub size_bytes: AtomicI64,
}

impl Index {
    /// The index entry's storage key for `item` (index key, then the table key), or `None`
    /// when the item lacks the index key attributes.
    pub fn entry_key(&self, table_key: &KeySchema, item: &SharedItem) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(64);
        if !self.key.encode_from_shared(item, &mut out) {
            return None;
        }
        table_key.encode_from_shared(item, &mut out).then_some(out)
    }

    /// [`Index::entry_key`] for an item stored at the table key `stored_at` (its encoded
    /// table key, which every item's own key attributes encode to): the index key is read from
    /// the item, the table key part copied instead of encoded again.
    pub fn entry_key_at(
        &self,
        table_key: &KeySchema,
        stored_at: &[u8],
        item: &SharedItem,
    ) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(64);
        if !self.key.encode_from_shared(item, &mut out) {
            return None;
        }
        out.extend_from_slice(stored_at);
        debug_assert_eq!(
            Some(&out),
            self.entry_key(table_key, item).as_ref(),
            "an item stored away from its key"
        );
        Some(out)
    }

    /// The size of the entry [`Index::project`] would build, without building it.
    pub fn projected_size(&self, table_key: &KeySchema, item: &SharedItem) -> usize {
        self.projected_size_known(table_key, item, item.size())
    }

    /// [`Index::projected_size`] for an item whose whole size is already known.
    pub fn projected_size_known(&self, table_key: &KeySchema, item: &SharedItem, item_size: usize) -> usize {
        match &self.projection {
            ProjectionKind::All => item_size,
            ProjectionKind::KeysOnly | ProjectionKind::Include(_) => {
                let extra: &[String] = match &self.projection {
                    ProjectionKind::Include(names) => names,
                    _ => &[],
                };
                item.iter()
                    .filter(|(k, _)| {
                        table_key.is_key(k)
                            || self.key.is_key(k)
                            || extra.iter().any(|e| e.as_str() == k.as_str())
                    })
                    .map(|(k, v)| k.len() + v.size())
                    .sum()
            }
        }
    }

    /// True when the index's entries hold the top-level attribute `name`.
    pub fn holds(&self, table_key: &KeySchema, name: &str) -> bool {
        match &self.projection {
            ProjectionKind::All => true,
            ProjectionKind::KeysOnly => table_key.is_key(name) || self.key.is_key(name),
            ProjectionKind::Include(extra) => {
                table_key.is_key(name) || self.key.is_key(name) || extra.iter().any(|e| e == name)
            }
        }
    }

    /// The attributes of `item` the index holds, packed. With projection ALL that is the
    /// base item's own handle (the same bytes, no copy).
    pub fn project(&self, table_key: &KeySchema, item: &SharedItem) -> PackedItem {
        match &self.projection {
            ProjectionKind::All => item.packed().clone(),
            ProjectionKind::KeysOnly | ProjectionKind::Include(_) => {
                let extra: &[String] = match &self.projection {
                    ProjectionKind::Include(names) => names,
                    _ => &[],
                };
                let out: Item = item
                    .iter()
                    .filter(|(k, _)| {
                        table_key.is_key(k)
                            || self.key.is_key(k)
                            || extra.iter().any(|e| e.as_str() == k.as_str())
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                PackedItem::encode(&out)
            }
        }
    }
}

/// A table's schema. Replaced whole (behind an `Arc`) when UpdateTable changes indexes.
pub(crate) struct Schema {
    pub key: KeySchema,
    pub indexes: Vec<Arc<Index>>,
    /// The enabled stream's writer; `None` (nothing to do on a write) without a stream.
    pub stream: Option<Arc<crate::stream::Writer>>,
}

impl Schema {
    /// The index named `name`.
    pub fn index(&self, name: &str) -> Option<&Arc<Index>> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// True when the table has local secondary indexes (item collection metrics apply).
    pub fn has_lsi(&self) -> bool {
        self.indexes.iter().any(|i| !i.global)
    }
}
