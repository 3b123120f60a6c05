//! The per-tag checks TagResource, UntagResource and CreateTable's `Tags` share.
//!
//! Source: DynamoDB's answers recorded in ack-api-quirks' finding DDB-TABLE-457 (verified
//! 2026-10-09): `Tags=[{}]` and a value-only tag give "The Tag Key provided is invalid, Key:
//! null", a key-only tag gives "The Tag Value provided is invalid, Value: null", and
//! UntagResource with the key `''` gives "The Tag Key provided is invalid, Key: ".

use crate::api::Tag;
use crate::Error;

/// Checks each tag of a TagResource or CreateTable request, in request order.
pub(super) fn check_tags(tags: &[Tag]) -> Result<(), Error> {
    for tag in tags {
        check_key(tag.key.as_deref())?;
        if tag.value.is_none() {
            return Err(Error::validation("The Tag Value provided is invalid, Value: null"));
        }
    }
    Ok(())
}

/// Checks one tag key (also UntagResource's `TagKeys`): present and not empty.
pub(super) fn check_key(key: Option<&str>) -> Result<(), Error> {
    match key {
        None => Err(Error::validation("The Tag Key provided is invalid, Key: null")),
        Some("") => Err(Error::validation("The Tag Key provided is invalid, Key: ")),
        Some(_) => Ok(()),
    }
}
