//! Multi-attribute GSI keys (DynamoDB, November 2025): a global secondary index's KeySchema
//! may hold up to four HASH elements followed by up to four RANGE elements. The partition key
//! is the tuple of the HASH attributes and the sort key the tuple of the RANGE attributes, each
//! in KeySchema order. Base tables and local secondary indexes keep one HASH and at most one
//! RANGE element (`tables::resolve_key`).
//!
//! Source: AWS API reference, `KeySchemaElement`/`GlobalSecondaryIndex` ("You can specify up
//! to 4 attributes with keyType = HASH and up to 4 attributes with keyType = RANGE", as the
//! provider docs word it), and the developer guide's "Multi-attribute key schema" section of
//! GSI.md. The messages of a refused key schema were recorded from the real service
//! (2026-10-08) in ack-api-quirks' DynamoDB findings, DDB-TABLE-123 and its ValidationException
//! catalogue.

use std::collections::{BTreeSet, HashMap};

use monotable_types::AttributeType;

use super::tables::resolve_key;
use crate::api::KeySchemaElement;
use crate::table::{KeyAttr, KeySchema};
use crate::validate::MAX_KEY_ATTRIBUTES;
use crate::Error;

/// Resolves a global secondary index's key schema, which may be multi-attribute. A one- or
/// two-element schema is resolved exactly as for a table (same checks, same messages).
pub(in crate::engine) fn resolve_gsi_key(
    elements: &[KeySchemaElement],
    defs: &HashMap<&str, AttributeType>,
    index: &str,
) -> Result<KeySchema, Error> {
    let second_is_hash = elements.get(1).is_some_and(|e| e.key_type.as_deref() == Some("HASH"));
    if elements.len() <= 2 && !second_is_hash {
        return resolve_key(elements, defs, Some(index));
    }
    // The first element must be HASH: the single-attribute check reports it.
    let first = resolve_key(&elements[..1], defs, Some(index))?;
    let hashes = elements.iter().take_while(|e| e.key_type.as_deref() == Some("HASH")).count();
    let ranges = &elements[hashes..];
    if ranges.iter().any(|e| e.key_type.as_deref() != Some("RANGE")) {
        return Err(Error::invalid_param(
            "All HASH key attributes must precede RANGE key attributes in the KeySchema",
        ));
    }
    for (count, kind) in [(hashes, "HASH"), (ranges.len(), "RANGE")] {
        if count > MAX_KEY_ATTRIBUTES {
            return Err(Error::invalid_param(format!(
                "The KeySchema exceeds the maximum allowed number of {kind} key attributes"
            )));
        }
    }
    let mut seen = BTreeSet::new();
    let mut attrs = Vec::with_capacity(elements.len());
    for e in elements {
        // Each element resolves on its own, so an undefined attribute gets the usual message.
        let one =
            [KeySchemaElement { attribute_name: e.attribute_name.clone(), key_type: Some("HASH".into()) }];
        let attr = resolve_key(&one, defs, Some(index))?.pk;
        if !seen.insert(attr.name.clone()) {
            return Err(Error::validation(
                "The KeySchema contains multiple key attributes with the same name",
            ));
        }
        attrs.push(attr);
    }
    let mut sort: Vec<KeyAttr> = attrs.split_off(hashes);
    let mut partition = attrs.into_iter();
    let pk = partition.next().unwrap_or(first.pk);
    let sk = (!sort.is_empty()).then(|| sort.remove(0));
    Ok(KeySchema { pk, sk, pk_more: partition.collect(), sk_more: sort })
}
