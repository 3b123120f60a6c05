//! Limits on key attribute names and on the values an index key may hold.
//!
//! Key attribute names (of the table and of its indexes, in `KeySchema` and
//! `AttributeDefinitions`) are 1 to 255 characters: API_KeySchemaElement and
//! API_AttributeDefinition, `AttributeName` "Length Constraints: Minimum length of 1. Maximum
//! length of 255."; ScyllaDB Alternator's `test_limit_attribute_length_key_bad` and
//! `test_limit_attribute_length_gsi_lsi_bad` (test/alternator/test_limits.py, run against
//! DynamoDB) confirm CreateTable refuses a 256-character key name with a ValidationException
//! naming 255. The refusal is the validation framework's member constraint.
//!
//! An item whose index key value could never be written (an empty string or binary, a
//! partition value over 2048 bytes, a sort value over 1024 bytes) can exist in the table
//! from before the index was created; a GSI backfill leaves it out of the index, as
//! DynamoDB does (developer guide, "Detecting and correcting index key violations in
//! DynamoDB", GSI.OnlineOps.ViolationDetection: an item whose index key value has the wrong
//! type, exceeds 2048 (partition) or 1024 (sort) bytes, or is an empty string or binary
//! "remain[s] in the table, but the index doesn't have a corresponding entry"; after the
//! backfill, writes that violate the new index key schema are rejected).

use monotable_types::{AttributeValue, Item};

use crate::table::Index;
use crate::validate::Constraints;

/// The most bytes of a partition key value, in the table or in an index.
pub(crate) const MAX_PARTITION_BYTES: usize = 2048;
/// The most bytes of a sort key value, in the table or in an index.
pub(crate) const MAX_SORT_BYTES: usize = 1024;

/// Checks a key attribute name's length constraint at `path`.
pub(in crate::engine) fn name_length(c: &mut Constraints, name: Option<&str>, path: &str) {
    match name {
        Some("") => c.fail("", path, "Member must have length greater than or equal to 1"),
        Some(n) if n.chars().count() > 255 => {
            c.fail(n, path, "Member must have length less than or equal to 255")
        }
        _ => {}
    }
}

/// True when `item`'s values for `index`'s key attributes could be written as an index key:
/// not empty, and within the partition and sort size limits. (Absent or mistyped attributes
/// are the caller's concern: such an item has no entry key at all.)
pub(in crate::engine) fn indexable(index: &Index, item: &Item) -> bool {
    let fits = |name: &str, max: usize| match item.get(name) {
        Some(AttributeValue::S(s)) => !s.is_empty() && s.len() <= max,
        Some(AttributeValue::B(b)) => !b.is_empty() && b.len() <= max,
        _ => true,
    };
    index.key.partition().all(|a| fits(&a.name, MAX_PARTITION_BYTES))
        && index.key.sort().all(|a| fits(&a.name, MAX_SORT_BYTES))
}
