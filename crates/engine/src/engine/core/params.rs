//! The checks of a request's `ExpressionAttributeNames`/`ExpressionAttributeValues` maps and
//! the mapping of an expression error to DynamoDB's `ValidationException`, shared by every
//! operation that takes expressions.

use crate::api::*;
use crate::validate;
use crate::Error;

/// Maps an expression error to DynamoDB's `ValidationException`.
pub(in crate::engine) fn expr_err(e: monotable_expr::ExprError) -> Error {
    Error::validation(e.message())
}

/// DynamoDB's checks of the `ExpressionAttributeNames`/`Values` maps themselves: not
/// empty, placeholder syntax, valid values.
pub(in crate::engine) fn check_placeholders(
    names: Option<&ExpressionAttributeNames>,
    values: Option<&ExpressionAttributeValues>,
) -> Result<(), Error> {
    let syntax = |key: &str, sigil: char| {
        key.strip_prefix(sigil).is_some_and(|rest| {
            !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
    };
    // Fast path: well-formed, non-empty maps of scalar values pass every check below; only
    // when one may fail are the keys sorted to find the first failure in DynamoDB's order.
    let scalar = |v: &monotable_types::AttributeValue| {
        use monotable_types::AttributeValue as V;
        matches!(v, V::S(_) | V::N(_) | V::B(_) | V::Bool(_) | V::Null)
    };
    if names.is_none_or(|m| {
        !m.is_empty() && m.iter().all(|(k, v)| syntax(k, '#') && v.len() <= validate::MAX_NAME_BYTES)
    }) && values.is_none_or(|m| !m.is_empty() && m.iter().all(|(k, v)| syntax(k, ':') && scalar(v)))
    {
        return Ok(());
    }
    if let Some(names) = names {
        if names.is_empty() {
            return Err(Error::validation("ExpressionAttributeNames must not be empty"));
        }
        let mut keys: Vec<&String> = names.keys().collect();
        keys.sort();
        if let Some(bad) = keys.iter().find(|k| !syntax(k, '#')) {
            return Err(Error::validation(format!(
                "ExpressionAttributeNames contains invalid key: Syntax error; key: \"{bad}\""
            )));
        }
        names.values().try_for_each(|n| validate::check_name(n))?;
    }
    if let Some(values) = values {
        if values.is_empty() {
            return Err(Error::validation("ExpressionAttributeValues must not be empty"));
        }
        let mut keys: Vec<&String> = values.keys().collect();
        keys.sort();
        if let Some(bad) = keys.iter().find(|k| !syntax(k, ':')) {
            return Err(Error::validation(format!(
                "ExpressionAttributeValues contains invalid key: Syntax error; key: \"{bad}\""
            )));
        }
        for k in keys {
            validate::check_nested_names(&values[k])?;
            validate::check_values(std::iter::once(&values[k])).map_err(|e| {
                if let Some(enveloped) = validate::enveloped_nesting(&e, values[k].depth()) {
                    return enveloped;
                }
                Error::validation(format!(
                    "ExpressionAttributeValues contains invalid value: {} for key {k}",
                    e.message
                ))
            })?;
        }
    }
    Ok(())
}
