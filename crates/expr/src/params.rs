//! The semantic pass: resolving one request's expressions against its placeholders.
//!
//! [`Params`] owns the bookkeeping shared by all expressions of a request: placeholder
//! lookup and the sets of used names and values. The per-grammar checks live in
//! `resolve_condition`, `resolve_update` and `key_condition`; each first runs DynamoDB's
//! validation on the AST (reporting the error DynamoDB would report first), and only then
//! resolves it, marking the placeholders it used.

use std::collections::{BTreeSet, HashMap};

use monotable_types::AttributeValue;

use crate::ast;
use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::resolved::{Path, PathElement};

/// One request's `ExpressionAttributeNames` and `ExpressionAttributeValues`, and which of
/// them the request's expressions used. Resolve each expression of the request through the
/// same `Params`, then call [`Params::finish`] to get DynamoDB's unused-placeholder errors.
pub struct Params<'a> {
    names: Option<&'a HashMap<String, String>>,
    values: Option<&'a HashMap<String, AttributeValue>>,
    used_names: BTreeSet<String>,
    used_values: BTreeSet<String>,
}

impl<'a> Params<'a> {
    /// Placeholders of one request.
    pub fn new(
        names: Option<&'a HashMap<String, String>>,
        values: Option<&'a HashMap<String, AttributeValue>>,
    ) -> Self {
        Params { names, values, used_names: BTreeSet::new(), used_values: BTreeSet::new() }
    }

    /// The attribute name a `#placeholder` stands for, without marking it used.
    pub(crate) fn lookup_name(&self, placeholder: &str) -> Option<&'a str> {
        self.names.and_then(|m| m.get(placeholder)).map(String::as_str)
    }

    /// The value a `:placeholder` stands for, without marking it used.
    pub(crate) fn lookup_value(&self, placeholder: &str) -> Option<&'a AttributeValue> {
        self.values.and_then(|m| m.get(placeholder))
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
                    let name = self.lookup_name(p).ok_or_else(|| Params::undefined_name(kind, p))?;
                    self.used_names.insert(p.clone());
                    PathElement::Attribute(name.to_owned())
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
        let v = self.lookup_value(placeholder).ok_or_else(|| Params::undefined_value(kind, placeholder))?;
        self.used_values.insert(placeholder.to_owned());
        Ok(v.clone())
    }

    /// Reports placeholders that no expression used: unused names first, then unused values,
    /// as DynamoDB does. Keys are listed in sorted order.
    pub fn finish(self) -> Result<(), ExprError> {
        if let Some(names) = self.names {
            let mut unused: Vec<&str> =
                names.keys().filter(|k| !self.used_names.contains(*k)).map(String::as_str).collect();
            if !unused.is_empty() {
                unused.sort_unstable();
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
            let mut unused: Vec<&str> =
                values.keys().filter(|k| !self.used_values.contains(*k)).map(String::as_str).collect();
            if !unused.is_empty() {
                unused.sort_unstable();
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
