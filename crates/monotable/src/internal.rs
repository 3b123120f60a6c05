//! The library's own item types (idempotency records, unique-constraint guards). They take
//! part in the start-up collision check like any registered entity.

use crate::schema::{EntitySchema, Segment, Template};

/// Idempotency records: `_IDEMPOTENCY#{scope}#{key}` / `_IDEMPOTENCY`.
pub(crate) static IDEMPOTENCY: EntitySchema = EntitySchema {
    type_name: "_Idempotency",
    pk: Template {
        source: "_IDEMPOTENCY#{scope}#{key}",
        segments: &[
            Segment::Lit("_IDEMPOTENCY#"),
            Segment::Field("scope"),
            Segment::Lit("#"),
            Segment::Field("key"),
        ],
    },
    sk: Template { source: "_IDEMPOTENCY", segments: &[Segment::Lit("_IDEMPOTENCY")] },
    indexes: &[],
    tenant: None,
    tenant_is_owner: false,
    version_attr: None,
    ttl_attr: None,
    unique: &[],
    fields: &[],
};

/// Unique guards: `_UNIQUE#{type}#{field}#{value}` / `_UNIQUE`.
pub(crate) static UNIQUE: EntitySchema = EntitySchema {
    type_name: "_Unique",
    pk: Template {
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
    sk: Template { source: "_UNIQUE", segments: &[Segment::Lit("_UNIQUE")] },
    indexes: &[],
    tenant: None,
    tenant_is_owner: false,
    version_attr: None,
    ttl_attr: None,
    unique: &[],
    fields: &[],
};

pub(crate) fn schemas() -> [&'static EntitySchema; 2] {
    [&IDEMPOTENCY, &UNIQUE]
}
