//! Projection: copying the requested document paths of an item.
//!
//! The result has the shape DynamoDB returns: every requested path that exists, nested in
//! its maps, with requested list elements gathered, in index order, into a shorter list
//! (`l[3], l[1]` of a five-element list gives a two-element list). Paths that do not exist
//! are left out, and so are maps and lists none of whose requested members exist.

use std::collections::BTreeMap;

use monotable_types::{AttributeValue, Item};

use crate::resolved::{PathElement, Projection};

/// The requested paths as a tree. Invariant: a `Whole` node has no children — asking for a
/// value and for a part of it asks for the whole value.
enum Node {
    Whole,
    Parts(BTreeMap<PathElement, Node>),
}

impl Node {
    fn insert(&mut self, path: &[PathElement]) {
        let Node::Parts(children) = self else { return };
        let Some((head, rest)) = path.split_first() else {
            *self = Node::Whole;
            return;
        };
        children.entry(head.clone()).or_insert_with(|| Node::Parts(BTreeMap::new())).insert(rest);
    }

    fn project(&self, value: &AttributeValue) -> Option<AttributeValue> {
        let Node::Parts(children) = self else { return Some(value.clone()) };
        let out = match value {
            AttributeValue::M(map) => {
                let mut out = Item::new();
                for (key, child) in children {
                    if let PathElement::Attribute(k) = key {
                        if let Some(p) = map.get(k).and_then(|v| child.project(v)) {
                            out.insert(k.as_str().into(), p);
                        }
                    }
                }
                (!out.is_empty()).then_some(AttributeValue::M(out))
            }
            AttributeValue::L(list) => {
                // BTreeMap order puts indexes in ascending numeric order.
                let out: Vec<AttributeValue> = children
                    .iter()
                    .filter_map(|(key, child)| match key {
                        PathElement::Index(i) => list.get(*i).and_then(|v| child.project(v)),
                        PathElement::Attribute(_) => None,
                    })
                    .collect();
                (!out.is_empty()).then_some(AttributeValue::L(out))
            }
            _ => None,
        };
        out
    }
}

impl Projection {
    /// The projected item: only the listed paths, nested in the shape DynamoDB returns.
    pub fn apply(&self, item: &Item) -> Item {
        let mut top: BTreeMap<&str, Node> = BTreeMap::new();
        for path in &self.paths {
            if let Some((PathElement::Attribute(head), rest)) = path.split_first() {
                top.entry(head.as_str()).or_insert_with(|| Node::Parts(BTreeMap::new())).insert(rest);
            }
        }
        let mut out = Item::new();
        for (name, node) in top {
            if let Some(p) = item.get(name).and_then(|v| node.project(v)) {
                out.insert(name.into(), p);
            }
        }
        out
    }

    /// The distinct top-level attribute names the projection reads, in first-use order.
    pub fn top_level_attributes(&self) -> impl Iterator<Item = &str> {
        let mut seen = std::collections::BTreeSet::new();
        self.paths.iter().filter_map(move |p| match p.first() {
            Some(PathElement::Attribute(a)) if seen.insert(a.as_str()) => Some(a.as_str()),
            _ => None,
        })
    }
}
