//! The tag checks TagResource, UntagResource and CreateTable's `Tags` share.
//!
//! Sources, all DynamoDB's answers recorded by ack-api-quirks (services/dynamodb, verified
//! 2026-10-08/09):
//! - DDB-TABLE-457: `Tags=[{}]` and a value-only tag give "The Tag Key provided is invalid,
//!   Key: null", a key-only tag gives "The Tag Value provided is invalid, Value: null", and
//!   UntagResource with the key `''` gives "The Tag Key provided is invalid, Key: ".
//! - DDB-TABLE-107: a key of 129 characters and a value of 257 are refused with the same two
//!   texts naming the key or value; duplicate keys in one request give "Duplicate Tag Keys
//!   provided as input: Duplicate Tag Key found `<key>`"; every refusal is all-or-nothing.
//! - DDB-TABLE-105: a key starting with `aws:` in any case is refused ("Tag Key cannot be
//!   prefixed with aws:, Key: `<key>`"), on UntagResource too; `myaws:foo` is accepted.
//! - DDB-TABLE-106 and DDB-TABLE-372: letters and digits of any script, white space
//!   (including no-break and ideographic spaces) and `+ - = . _ : / @` are accepted; any other
//!   character (`#`, `,`, `%`, emoji, brackets, quotes, ...) refuses the key or value.
//! - DDB-TABLE-108 and DDB-TABLE-110: more than 50 tags on the resource after the merge (or in
//!   one CreateTable) is a ValidationException, "Number of Tags exceed the current limit for
//!   the provided ResourceArn", never LimitExceededException; so are more than 50 keys in one
//!   UntagResource.
//!
//! The lengths count Unicode characters ("The maximum key length is 128 Unicode characters",
//! developer guide, "Tagging restrictions in DynamoDB").

use crate::api::Tag;
use crate::Error;

/// The most tags a table can carry, and the most keys one UntagResource may name.
pub(in crate::engine) const MAX_TAGS: usize = 50;
const MAX_KEY_CHARS: usize = 128;
const MAX_VALUE_CHARS: usize = 256;

/// The refusal of a tag set that would exceed [`MAX_TAGS`].
pub(in crate::engine) fn too_many() -> Error {
    Error::validation("Number of Tags exceed the current limit for the provided ResourceArn")
}

/// Checks each tag of a TagResource or CreateTable request in request order (a tag's key
/// before its value), then that no key appears twice.
pub(in crate::engine) fn check_tags(tags: &[Tag]) -> Result<(), Error> {
    for tag in tags {
        check_key(tag.key.as_deref())?;
        match tag.value.as_deref() {
            None => return Err(Error::validation("The Tag Value provided is invalid, Value: null")),
            Some(v) if v.chars().count() > MAX_VALUE_CHARS || !v.chars().all(allowed) => {
                return Err(Error::validation(format!("The Tag Value provided is invalid, Value: {v}")))
            }
            Some(_) => {}
        }
    }
    for (i, tag) in tags.iter().enumerate() {
        if tags[..i].iter().any(|t| t.key == tag.key) {
            return Err(Error::validation(format!(
                "Duplicate Tag Keys provided as input: Duplicate Tag Key found {}",
                tag.key.as_deref().unwrap_or_default()
            )));
        }
    }
    Ok(())
}

/// Checks one tag key (also UntagResource's `TagKeys`): present, 1 to 128 characters of the
/// allowed set, and not in the reserved `aws:` namespace. The character rule on
/// UntagResource is not recorded separately; DynamoDB's UntagResource answers the length and
/// prefix checks with the TagResource texts, so one key check serves both.
pub(in crate::engine) fn check_key(key: Option<&str>) -> Result<(), Error> {
    let key = key.ok_or_else(|| Error::validation("The Tag Key provided is invalid, Key: null"))?;
    if key.is_empty() || key.chars().count() > MAX_KEY_CHARS || !key.chars().all(allowed) {
        return Err(Error::validation(format!("The Tag Key provided is invalid, Key: {key}")));
    }
    if key.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("aws:")) {
        return Err(Error::validation(format!("Tag Key cannot be prefixed with aws:, Key: {key}")));
    }
    Ok(())
}

/// The characters a tag key or value may hold.
fn allowed(c: char) -> bool {
    c.is_alphanumeric() || c.is_whitespace() || matches!(c, '+' | '-' | '=' | '.' | '_' | ':' | '/' | '@')
}
