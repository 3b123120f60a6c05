//! `#[derive(Entity)]` and `#[derive(Collection)]` for `monotable`. The logic lives in
//! `monotable-derive-impl`; see the `monotable` crate documentation for the library itself and
//! docs/STANDARD.md in the repository for the rules (S1–S22) the options below serve.

use proc_macro::TokenStream;

/// Declares a single-table entity: key templates, tenant, version, TTL, unique fields, indexes
/// and access patterns. Every mistake in the declaration is a compile error that points at it.
///
/// The struct has named fields, no generic parameters, and derives `serde::Serialize` and
/// `serde::Deserialize` beside `Entity`. Attribute names follow serde: a container
/// `#[serde(rename_all = "...")]` (`camelCase`, `snake_case`, `PascalCase`, `lowercase`,
/// `UPPERCASE`, `SCREAMING_SNAKE_CASE`, `kebab-case`) and a field's `#[serde(rename = "...")]`
/// are applied to what is stored.
///
/// ```ignore
/// use monotable::Entity;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Entity)]
/// #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id, version = version,
///          gsi1(pk = "ORG#{org_id}#STATUS#{status}", sk = "RECORD#{id}"),
///          pattern(name = "records-by-status", query, index = gsi1))]
/// struct Record { org_id: String, id: String, status: String, version: i64 }
/// ```
///
/// # Options of `#[entity(...)]`
///
/// Options may be split over several `#[entity(...)]` attributes.
///
/// * `pk = "TEMPLATE"` (required) and `sk = "TEMPLATE"` (required): the table's partition and
///   sort keys. A template is literal text with `{field}` placeholders, each followed by the
///   delimiter `#` or by the end of the template (`"ORG#{org_id}"`, `"RECORD#{day}#{id}"`,
///   `"PROFILE"`). Every placeholder names a field whose type implements `monotable::KeyPart`
///   (`String`, the integers, `bool`, `char`, and `Option`/`Box`/references of those); values
///   are escaped, so a `#` inside one cannot forge another key. A table key field must be
///   present (`None` is refused at run time).
/// * `name = "Type"`: the value of the entity-type attribute stored on every item and used to
///   decode mixed results (default: the struct's name).
/// * `tenant = field`: the organisation an item belongs to. The field must appear in the `pk`
///   template. A repository of the type needs an organisation scope (`AuthContext::org`, or
///   `AdminScope::org`); the scope, not the caller's arguments, fills the field in keys, and a
///   write of an item whose field names another organisation is `Forbidden`.
/// * `owner = field`: like `tenant`, but the partition belongs to one user: the scope is
///   `AuthContext::personal()` (the caller's own id) or `AdminScope::owner`. An entity has a
///   `tenant` or an `owner`, not both.
/// * `version = field`: optimistic concurrency. The field is an `i64` or a `u64` (anything
///   else, `Option` included, is a compile error): `create` stores 1; `put` writes only if the
///   stored version equals the item's and stores one more; `Update::expect_version` does the
///   same for `update`; a mismatch is `Conflict(VersionMismatch)`. An `Update` cannot set it.
/// * `ttl = field`: the item's expiry in seconds since the Unix epoch (an integer, usually
///   `Option<u64>`), copied into the table's TTL attribute so DynamoDB deletes the item after
///   it.
/// * `unique(field, ...)`: each listed field's value is unique among the items of this type:
///   a guard item per value is written, moved and deleted in the same transaction as the item,
///   and a taken value is `Conflict(UniqueTaken)`.
/// * `validate`: run the struct's `garde` rules (the struct also derives `garde::Validate`,
///   so the application depends on `garde` 0.22, the library's version) before every write,
///   and the rules of the fields an `Update` sets before an update; failures are
///   `Error::Validation` with one message per field.
/// * `gsiN(pk = "TEMPLATE", sk = "TEMPLATE")`, `N` from 1 to 20: the item's keys on the
///   table's GSI `gsiN`, which the table declares with `TableBuilder::gsi(N)`. `sk` may be left
///   out for an index without a sort key. If a field of the templates is `None`, the item is
///   left out of the index (a sparse index).
/// * `gsiN(pk = [field, ...], sk = [field, ...])`: a multi-attribute key: up to four fields
///   each, every one a `String` or an integer, optionally in an `Option` (`None` leaves the
///   item out of the index). No key string is written: the fields are the key attributes.
///   Both parts are required, and an entity does not mix both forms on one index.
/// * `pattern(...)`: a named access pattern of this type, listed by `Table::design()` and
///   compared with the design file. Inside: `name = "..."` (required); exactly one operation,
///   `get`, `query`, `put`, `update`, `delete`, `transact_write`, `batch_get` or
///   `batch_write`; `index = gsiN` (default: the table); `pk = "TEMPLATE"` (default: the
///   entity's partition template on that index); at most one sort condition, `sk = "..."`
///   (equality), `begins_with`, `lt`, `le`, `gt` or `ge` `= "..."`; `admin` for a pattern only
///   admins run; `filter(field, ...)` for the fields it filters on. A single-item operation on
///   the table gets the entity's sort-key equality by default; `get` on an index is refused.
///
/// # What it generates
///
/// For `struct Record`:
///
/// * `impl monotable::Entity for Record`, holding the parsed templates and options;
/// * `pub struct RecordKey` (with the struct's visibility), deriving `Clone` and `Debug` and
///   implementing `monotable::EntityKey`: one public field, of the same type, for each field
///   the `pk` and `sk` templates use, except the `tenant` or `owner` field, which always
///   comes from the scope. It is what `get`, `find`, `update`, `delete` and the batch reads
///   take; `Entity::key` returns an item's;
/// * `pub struct RecordFields` and the constant `Record::FIELDS`: one typed handle
///   `monotable::Field<Record, T>` per field, for filters, updates, projections, sort-key
///   conditions and query keys (`Record::FIELDS.status`).
#[proc_macro_derive(Entity, attributes(entity))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    monotable_derive_impl::derive_entity(input.into()).into()
}

/// Declares an enum of entity types that share a partition, decoded by entity type.
///
/// Each variant wraps exactly one type that derives `Entity` (`enum OrgItem { Record(Record),
/// Document(Document) }`), and the enum is not generic.
/// A collection is what `Repository::collection` returns for one Query over a shared
/// partition, and what `monotable::changes` delivers for a table's stream: every item is
/// decoded into the variant its entity-type attribute names.
#[proc_macro_derive(Collection)]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    monotable_derive_impl::derive_collection(input.into()).into()
}
