//! The library's own item types (idempotency records, unique-constraint guards). They take
//! part in the start-up collision check like any registered entity.

use crate::schema::{EntitySchema, Segment, Template};

/// A library item type: keys only, no tenant, version, TTL, unique or indexed fields.
const fn library_type(type_name: &'static str, pk: Template, sk: Template) -> EntitySchema {
    EntitySchema {
        type_name,
        pk,
        sk,
        indexes: &[],
        tenant: None,
        tenant_is_owner: false,
        version_attr: None,
        ttl_attr: None,
        unique: &[],
        fields: &[],
        patterns: &[],
    }
}

/// Idempotency records: `_IDEMPOTENCY#{scope}#{key}` / `_IDEMPOTENCY`.
pub(crate) static IDEMPOTENCY: EntitySchema = library_type(
    "_Idempotency",
    Template {
        source: "_IDEMPOTENCY#{scope}#{key}",
        segments: &[
            Segment::Lit("_IDEMPOTENCY#"),
            Segment::Field("scope"),
            Segment::Lit("#"),
            Segment::Field("key"),
        ],
    },
    Template { source: "_IDEMPOTENCY", segments: &[Segment::Lit("_IDEMPOTENCY")] },
);

/// Unique guards: `_UNIQUE#{type}#{field}#{value}` / `_UNIQUE`.
pub(crate) static UNIQUE: EntitySchema = library_type(
    "_Unique",
    Template {
        source: "_UNIQUE#{type}#{field}#{value}",
        segments: &[
            Segment::Lit("_UNIQUE#"),
            Segment::Field("type"),
            Segment::Lit("#"),
            Segment::Field("field"),
            Segment::Lit("#"),
            Segment::Field("value"),
        ],
    },
    Template { source: "_UNIQUE", segments: &[Segment::Lit("_UNIQUE")] },
);

pub(crate) fn schemas() -> [&'static EntitySchema; 2] {
    [&IDEMPOTENCY, &UNIQUE]
}
