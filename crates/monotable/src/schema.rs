//! The static description of an entity that `#[derive(Entity)]` generates.
//!
//! These types are plain data with `'static` lifetimes so the derive can emit them as a
//! `static`; the runtime (key rendering, collision checks, request building) reads only this.

/// One piece of a key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// Literal text, copied verbatim.
    Lit(&'static str),
    /// A placeholder, replaced by the escaped value of the named Rust field.
    Field(&'static str),
}

/// A parsed key template such as `ORG#{org_id}`.
///
/// Invariant (checked by the derive): every placeholder is followed by the end of the template
/// or by the delimiter `#`.
#[derive(Debug, Clone, Copy)]
pub struct Template {
    /// The template as written, for messages.
    pub source: &'static str,
    /// Its literals and placeholders in order.
    pub segments: &'static [Segment],
}

impl Template {
    /// The literal text before the first placeholder: the type prefix that `begins_with` uses.
    pub fn literal_prefix(&self) -> String {
        let mut out = String::new();
        for seg in self.segments {
            match seg {
                Segment::Lit(l) => out.push_str(l),
                Segment::Field(_) => break,
            }
        }
        out
    }

    /// The placeholders in order.
    pub fn fields(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.segments.iter().filter_map(|s| match s {
            Segment::Field(f) => Some(*f),
            Segment::Lit(_) => None,
        })
    }
}

/// A GSI key declaration of one entity (`gsi1(pk = "...", sk = "...")`, or with field lists
/// `gsi1(pk = [org_id, status], sk = [created])`).
#[derive(Debug, Clone, Copy)]
pub struct IndexSchema {
    /// The logical index name, `gsi1` … `gsi20`.
    pub name: &'static str,
    /// The index partition key template. For a multi-attribute key, the fields in key order
    /// (`{org_id}#{status}`): the design document's form; nothing renders it.
    pub pk: Template,
    /// The index sort key template, if the index has one (as `pk` for a multi-attribute key).
    pub sk: Option<Template>,
    /// For a multi-attribute key: the fields that are the index's key attributes.
    pub multi: Option<MultiKey>,
}

/// The fields of a multi-attribute GSI key (DynamoDB, November 2025), each in key order. The
/// index keys on the items' own attributes: no key string is written.
///
/// Invariant (checked by the derive): 1 to 4 fields in each part, no field twice, each a
/// field of the entity whose Rust type is stored as `ty`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiKey {
    /// The partition-key fields.
    pub pk: &'static [KeyField],
    /// The sort-key fields.
    pub sk: &'static [KeyField],
}

impl MultiKey {
    /// Every key field, partition first.
    pub fn fields(&self) -> impl Iterator<Item = &'static KeyField> {
        self.pk.iter().chain(self.sk.iter())
    }
}

/// One field of a multi-attribute key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyField {
    /// The Rust field name.
    pub name: &'static str,
    /// The stored attribute name: the index's key attribute.
    pub attr: &'static str,
    /// The key attribute's type.
    pub ty: ScalarType,
}

/// The DynamoDB type of a key attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScalarType {
    /// String.
    S,
    /// Number.
    N,
}

impl ScalarType {
    /// The `AttributeType` text: `S` or `N`.
    pub fn as_str(self) -> &'static str {
        match self {
            ScalarType::S => "S",
            ScalarType::N => "N",
        }
    }
}

/// A Rust field name and the attribute name serde writes it under.
#[derive(Debug, Clone, Copy)]
pub struct FieldSchema {
    /// The Rust field name (used in templates).
    pub name: &'static str,
    /// The stored attribute name (after serde renames).
    pub attr: &'static str,
    /// The design-document type, where the Rust type decides it.
    pub ty: Option<monotable_design::FieldType>,
}

/// An access pattern declared on an entity with `#[entity(pattern(...))]`.
#[derive(Debug, Clone, Copy)]
pub struct PatternSchema {
    /// The pattern's name.
    pub name: &'static str,
    /// The DynamoDB operation.
    pub operation: monotable_design::Operation,
    /// The logical index (`gsi1` …), or `None` for the table.
    pub index: Option<&'static str>,
    /// The partition-key template.
    pub pk: &'static str,
    /// The sort-key condition: operator and template.
    pub sk: Option<(monotable_design::SortOp, &'static str)>,
    /// Whether the pattern is admin-only (S14).
    pub admin: bool,
    /// Attributes filtered on after the key condition.
    pub filter: &'static [&'static str],
}

/// Everything the runtime knows about one entity type.
#[derive(Debug)]
pub struct EntitySchema {
    /// The value of the entity-type attribute (S3).
    pub type_name: &'static str,
    /// Table partition key template.
    pub pk: Template,
    /// Table sort key template.
    pub sk: Template,
    /// GSI key templates.
    pub indexes: &'static [IndexSchema],
    /// The Rust name of the tenant field, which must appear in `pk` (S12).
    pub tenant: Option<&'static str>,
    /// Whether the tenant field names the owning user (`owner = ...`) rather than an
    /// organisation (`tenant = ...`).
    pub tenant_is_owner: bool,
    /// The attribute holding the optimistic-concurrency version (S16).
    pub version_attr: Option<&'static str>,
    /// The attribute holding an expiry (epoch seconds), copied to the table's TTL attribute.
    pub ttl_attr: Option<&'static str>,
    /// Fields guarded by unique-constraint items (S17).
    pub unique: &'static [FieldSchema],
    /// All fields.
    pub fields: &'static [FieldSchema],
    /// Access patterns declared on the entity.
    pub patterns: &'static [PatternSchema],
}

impl EntitySchema {
    /// The index declaration for a logical index name.
    pub fn index(&self, name: &str) -> Option<&IndexSchema> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The attribute name of a Rust field.
    pub fn attr_of(&self, field: &str) -> Option<&'static str> {
        self.fields.iter().find(|f| f.name == field).map(|f| f.attr)
    }

    /// Whether a Rust field appears in the table key templates.
    pub fn is_table_key_field(&self, field: &str) -> bool {
        self.pk.fields().chain(self.sk.fields()).any(|f| f == field)
    }
}
