//! [`TableShape`]: what DynamoDB says about a table, as plain data, and the shape a design asks
//! for ([`TableShape::desired`]).

use std::collections::BTreeMap;

use crate::model::{Design, IndexKind, Projection};
use crate::settings::{Billing, StreamView};

/// A secondary index as DynamoDB describes it. A GSI's key may have several HASH and several
/// RANGE attributes (multi-attribute keys); a table's or an LSI's has one of each at most.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexShape {
    /// Index name.
    pub name: String,
    /// HASH attributes in KeySchema order.
    pub hash: Vec<String>,
    /// RANGE attributes in KeySchema order.
    pub range: Vec<String>,
    /// Projection; `Include` lists are kept sorted so that order does not count as drift.
    pub projection: Projection,
}

impl IndexShape {
    /// An index shape with its `Include` list sorted.
    pub fn new(name: &str, hash: Vec<String>, range: Vec<String>, projection: Projection) -> IndexShape {
        let projection = match projection {
            Projection::Include(mut a) => {
                a.sort();
                a.dedup();
                Projection::Include(a)
            }
            other => other,
        };
        IndexShape { name: name.to_string(), hash, range, projection }
    }

    /// The key as `A, B / C` (hash attributes, then range attributes).
    pub fn key_text(&self) -> String {
        key_text(&self.hash, &self.range)
    }

    /// The projection as DynamoDB spells it, with the included attributes.
    pub fn projection_text(&self) -> String {
        projection_text(&self.projection)
    }
}

pub(crate) fn key_text(hash: &[String], range: &[String]) -> String {
    if range.is_empty() {
        hash.join(", ")
    } else {
        format!("{} / {}", hash.join(", "), range.join(", "))
    }
}

pub(crate) fn projection_text(p: &Projection) -> String {
    match p {
        Projection::All => "ALL".into(),
        Projection::KeysOnly => "KEYS_ONLY".into(),
        Projection::Include(a) => format!("INCLUDE [{}]", a.join(", ")),
    }
}

/// A table as plain data: what `design apply` creates and what `design diff` compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableShape {
    /// Table name.
    pub name: String,
    /// The partition-key attribute.
    pub hash: String,
    /// The sort-key attribute, if any.
    pub range: Option<String>,
    /// Types (`S`, `N`, `B`) of the attributes the table and its indexes key on.
    pub attributes: BTreeMap<String, String>,
    /// Billing mode and, when provisioned, the capacity of the table and each GSI.
    pub billing: Billing,
    /// Global secondary indexes, sorted by name.
    pub gsis: Vec<IndexShape>,
    /// Local secondary indexes, sorted by name.
    pub lsis: Vec<IndexShape>,
    /// The TTL attribute when TTL is enabled (or being enabled).
    pub ttl: Option<String>,
    /// The stream view type when a stream is enabled.
    pub stream: Option<StreamView>,
    /// Tags, without the `aws:` tags AWS sets itself.
    pub tags: BTreeMap<String, String>,
    /// Deletion protection.
    pub deletion_protection: bool,
}

impl TableShape {
    /// The table `design` asks for, named `name`. Key attributes are strings (`S`), as key
    /// templates render, except a multi-attribute GSI key's attribute holding a number field.
    pub fn desired(design: &Design, name: &str) -> TableShape {
        let c = &design.conventions;
        let mut attributes = BTreeMap::new();
        for a in crate::iac::key_attributes(design) {
            let ty = crate::iac::key_attribute_type(design, &a).to_string();
            attributes.insert(a, ty);
        }
        let mut gsis = Vec::new();
        let mut lsis = Vec::new();
        for i in &design.indexes {
            match i.kind {
                IndexKind::Gsi => gsis.push(IndexShape::new(
                    &i.name,
                    i.pk.iter().flat_map(|k| k.0.clone()).collect(),
                    i.sk.0.clone(),
                    i.projection.clone(),
                )),
                IndexKind::Lsi => lsis.push(IndexShape::new(
                    &i.name,
                    vec![c.pk.clone()],
                    i.sk.0.clone(),
                    i.projection.clone(),
                )),
            }
        }
        let t = &design.table;
        let mut shape = TableShape {
            name: name.to_string(),
            hash: c.pk.clone(),
            range: Some(c.sk.clone()),
            attributes,
            billing: t.billing,
            gsis,
            lsis,
            ttl: c.ttl.clone(),
            stream: t.stream,
            tags: t.tags.clone(),
            deletion_protection: t.deletion_protection,
        };
        shape.normalise();
        shape
    }

    /// Sorts the indexes by name and drops `aws:` tags, which no design sets.
    pub fn normalise(&mut self) {
        self.gsis.sort_by(|a, b| a.name.cmp(&b.name));
        self.lsis.sort_by(|a, b| a.name.cmp(&b.name));
        self.tags.retain(|k, _| !k.starts_with("aws:"));
    }

    /// The GSI called `name`.
    pub fn gsi(&self, name: &str) -> Option<&IndexShape> {
        self.gsis.iter().find(|i| i.name == name)
    }
}
