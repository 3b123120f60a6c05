//! The semantic pass: resolving one request's expressions against its placeholders.
//!
//! [`Params`] owns the bookkeeping shared by all expressions of a request: placeholder
//! lookup and the sets of used names and values. The per-grammar checks live in
//! `resolve_condition`, `resolve_update` and `key_condition`; each first runs DynamoDB's
//! validation on the AST (reporting the error DynamoDB would report first), and only then
//! resolves it, marking the placeholders it used.

use std::collections::HashMap;

use monotable_types::AttributeValue;

use crate::ast;
use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::resolved::{Path, PathElement};
use crate::used::Used;

/// One request's `ExpressionAttributeNames` and `ExpressionAttributeValues`, and which of
/// them the request's expressions used. Resolve each expression of the request through the
/// same `Params`, then call [`Params::finish`] to get DynamoDB's unused-placeholder errors.
pub struct Params<'a> {
    names: Option<&'a HashMap<String, String>>,
    values: Option<&'a HashMap<String, AttributeValue>>,
    /// The keys of `names` and `values` that an expression used, each once. Borrowed from the
    /// maps (no copies).
    used_names: Used<'a>,
    used_values: Used<'a>,
}

/// Looks `key` up in a request's placeholder map. A request has a handful of placeholders,
/// and comparing a few short strings costs far less than hashing one with the standard
/// library's SipHash, so small maps are searched linearly; both ways find the same entry.
fn find<'a, V>(map: &'a HashMap<String, V>, key: &str) -> Option<(&'a String, &'a V)> {
    const LINEAR_UP_TO: usize = 8;
    if map.len() <= LINEAR_UP_TO {
        map.iter().find(|(k, _)| k.as_str() == key)
    } else {
        map.get_key_value(key)
    }
}

impl<'a> Params<'a> {
    /// Placeholders of one request.
    pub fn new(
        names: Option<&'a HashMap<String, String>>,
        values: Option<&'a HashMap<String, AttributeValue>>,
    ) -> Self {
        Params { names, values, used_names: Used::default(), used_values: Used::default() }
    }

    /// The attribute name a `#placeholder` stands for, without marking it used.
    pub(crate) fn lookup_name(&self, placeholder: &str) -> Option<&'a str> {
        self.names.and_then(|m| find(m, placeholder)).map(|(_, name)| name.as_str())
    }

    /// The value a `:placeholder` stands for, without marking it used.
    pub(crate) fn lookup_value(&self, placeholder: &str) -> Option<&'a AttributeValue> {
        self.values.and_then(|m| find(m, placeholder)).map(|(_, value)| value)
    }

    /// DynamoDB's error for an undefined `#name`.
    pub(crate) fn undefined_name(kind: ExpressionKind, placeholder: &str) -> ExprError {
        ExprError::invalid(
            kind,
            ErrorKind::UndefinedName,
            format_args!(
                "An expression attribute name used in the document path is not defined; attribute name: {placeholder}"
            ),
        )
    }

    /// DynamoDB's error for an undefined `:value`.
    pub(crate) fn undefined_value(kind: ExpressionKind, placeholder: &str) -> ExprError {
        ExprError::invalid(
            kind,
            ErrorKind::UndefinedValue,
            format_args!(
                "An expression attribute value used in expression is not defined; attribute value: {placeholder}"
            ),
        )
    }

    /// Resolves a path, marking its placeholders used.
    pub(crate) fn resolve_path(&mut self, path: &ast::Path, kind: ExpressionKind) -> Result<Path, ExprError> {
        let mut out = Vec::with_capacity(path.elements.len());
        for e in &path.elements {
            out.push(match e {
                ast::PathElement::Name(n) => PathElement::Attribute(n.clone()),
                ast::PathElement::Placeholder(p) => {
                    let (key, name) =
                        self.names.and_then(|m| find(m, p)).ok_or_else(|| Params::undefined_name(kind, p))?;
                    self.used_names.mark(key);
                    PathElement::Attribute(name.clone())
                }
                ast::PathElement::Index(i) => PathElement::Index(*i),
            });
        }
        Ok(out)
    }

    /// The path with placeholders substituted where defined (`None` if one is not), without
    /// marking anything used. For checks that compare paths before resolution.
    pub(crate) fn peek_path(&self, path: &ast::Path) -> Option<Path> {
        path.elements
            .iter()
            .map(|e| match e {
                ast::PathElement::Name(n) => Some(PathElement::Attribute(n.clone())),
                ast::PathElement::Placeholder(p) => {
                    self.lookup_name(p).map(|n| PathElement::Attribute(n.to_owned()))
                }
                ast::PathElement::Index(i) => Some(PathElement::Index(*i)),
            })
            .collect()
    }

    /// Resolves a `:value`, marking it used.
    pub(crate) fn resolve_value(
        &mut self,
        placeholder: &str,
        kind: ExpressionKind,
    ) -> Result<AttributeValue, ExprError> {
        let (key, v) = self
            .values
            .and_then(|m| find(m, placeholder))
            .ok_or_else(|| Params::undefined_value(kind, placeholder))?;
        self.used_values.mark(key);
        Ok(v.clone())
    }

    /// Reports placeholders that no expression used: unused names first, then unused values,
    /// as DynamoDB does, listing the keys in the order DynamoDB does (see `java_set_order`).
    pub fn finish(self) -> Result<(), ExprError> {
        // Every key was used exactly when as many distinct keys were used as the map holds.
        if self.names.is_none_or(|m| m.len() == self.used_names.len())
            && self.values.is_none_or(|m| m.len() == self.used_values.len())
        {
            return Ok(());
        }
        if let Some(names) = self.names {
            let unused: Vec<&str> =
                names.keys().map(String::as_str).filter(|k| !self.used_names.contains(k)).collect();
            if !unused.is_empty() {
                let unused = java_set_order(unused, names.len());
                return Err(ExprError::new(
                    ErrorKind::UnusedNames,
                    format!(
                        "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                        unused.join(", ")
                    ),
                ));
            }
        }
        if let Some(values) = self.values {
            let unused: Vec<&str> =
                values.keys().map(String::as_str).filter(|k| !self.used_values.contains(k)).collect();
            if !unused.is_empty() {
                let unused = java_set_order(unused, values.len());
                return Err(ExprError::new(
                    ErrorKind::UnusedValues,
                    format!(
                        "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                        unused.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn placeholder_key_ok(key: &str, sigil: char) -> bool {
    key.strip_prefix(sigil)
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// DynamoDB's checks on the keys of `ExpressionAttributeNames` and `ExpressionAttributeValues`
/// (which it makes before reading any expression): keys are `#` or `:` followed by letters,
/// digits and `_`, and a name may not stand for the empty string. Keys are checked in sorted
/// order. Emptiness of the maps themselves is the caller's check.
pub fn check_placeholder_keys(
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
) -> Result<(), ExprError> {
    if let Some(names) = names {
        let mut keys: Vec<(&String, &String)> = names.iter().collect();
        keys.sort();
        for (k, v) in keys {
            if !placeholder_key_ok(k, '#') {
                return Err(ExprError::new(
                    ErrorKind::InvalidPlaceholderKey,
                    format!("ExpressionAttributeNames contains invalid key: Syntax error; key: \"{k}\""),
                ));
            }
            if v.is_empty() {
                return Err(ExprError::new(
                    ErrorKind::InvalidPlaceholderKey,
                    format!(
                        "ExpressionAttributeNames contains invalid value: Empty attribute name for key {k}"
                    ),
                ));
            }
        }
    }
    if let Some(values) = values {
        let mut keys: Vec<&String> = values.keys().collect();
        keys.sort();
        if let Some(k) = keys.into_iter().find(|k| !placeholder_key_ok(k, ':')) {
            return Err(ExprError::new(
                ErrorKind::InvalidPlaceholderKey,
                format!("ExpressionAttributeValues contains invalid key: Syntax error; key: \"{k}\""),
            ));
        }
    }
    Ok(())
}

/// Java's `String.hashCode`: over UTF-16 code units, wrapping.
fn java_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The iteration order of a Java `HashSet` copied from a map of `total` keys: DynamoDB lists
/// unused placeholders in that order. The set's table has the smallest power-of-two size of
/// at least `max(total / 0.75 + 1, 16)`; a key's bucket is its spread hash masked to the table
/// size; buckets are visited in index order. Keys sharing a bucket keep the request's order in
/// Java, which a `HashMap` has lost here; they are listed in byte order instead.
pub(crate) fn java_set_order(mut keys: Vec<&str>, total: usize) -> Vec<&str> {
    let want = ((total as f32 / 0.75) as usize + 1).max(16);
    let mask = want.next_power_of_two() - 1;
    let bucket = |k: &str| {
        let h = java_hash(k) as u32;
        ((h ^ (h >> 16)) as usize) & mask
    };
    // Each key's bucket is hashed once, not once per comparison.
    keys.sort_by_cached_key(|k| (bucket(k), *k));
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_keys_must_be_sigil_and_word_characters() {
        let names: HashMap<String, String> = [("#ok_1".to_owned(), "a".to_owned())].into();
        assert_eq!(check_placeholder_keys(Some(&names), None), Ok(()));
        let bad: HashMap<String, String> = [("n".to_owned(), "a".to_owned())].into();
        assert_eq!(
            check_placeholder_keys(Some(&bad), None).unwrap_err().message(),
            "ExpressionAttributeNames contains invalid key: Syntax error; key: \"n\""
        );
        let empty: HashMap<String, String> = [("#n".to_owned(), String::new())].into();
        assert_eq!(
            check_placeholder_keys(Some(&empty), None).unwrap_err().message(),
            "ExpressionAttributeNames contains invalid value: Empty attribute name for key #n"
        );
        let values: HashMap<String, AttributeValue> = [(":a-b".to_owned(), AttributeValue::Null)].into();
        assert_eq!(
            check_placeholder_keys(None, Some(&values)).unwrap_err().message(),
            "ExpressionAttributeValues contains invalid key: Syntax error; key: \":a-b\""
        );
    }

    #[test]
    fn java_hash_matches_java() {
        // Values of String.hashCode() in Java.
        assert_eq!(java_hash("abc"), 96354);
        assert_eq!(java_hash(""), 0);
        assert_eq!(java_hash("polygenelubricants"), i32::MIN);
    }

    #[test]
    fn unused_keys_are_listed_in_java_hash_set_order() {
        // In a 16-slot table "#a" (hash 1182) is in bucket 14 and "#b" (1183) in 15; ":z"
        // (1920) is in bucket 0, before ":a" (1895) in bucket 7.
        assert_eq!(java_set_order(vec!["#b", "#a"], 2), ["#a", "#b"]);
        assert_eq!(java_set_order(vec![":a", ":z"], 2), [":z", ":a"]);
    }
}
