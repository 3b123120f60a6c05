//! TypeScript source text for the Pulumi and CDK generators: JSON values as object literals,
//! with strings marked [`EXPR`] written as raw expressions, and template literals.

use std::fmt::Write;

use serde_json::Value;

/// Marks a JSON string as a raw TypeScript expression rather than a string literal.
pub(crate) const EXPR: &str = "\u{1}expr:";

/// A raw expression as a JSON value, for [`value`].
pub(crate) fn expr(e: impl std::fmt::Display) -> Value {
    Value::String(format!("{EXPR}{e}"))
}

/// A string literal (JSON's quoting is valid TypeScript).
pub(crate) fn string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A template literal of `text` in which `hole` (a marker no name contains) becomes
/// `${var}`; backslashes, backticks and `${` of the text are escaped.
pub(crate) fn template(text: &str, hole: &str, var: &str) -> String {
    let parts: Vec<String> =
        text.split(hole).map(|p| p.replace('\\', "\\\\").replace('`', "\\`").replace("${", "\\${")).collect();
    format!("`{}`", parts.join(&format!("${{{var}}}")))
}

/// An object key: bare when it is an identifier, quoted otherwise.
fn key(k: &str) -> String {
    let ident = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        k.to_string()
    } else {
        string(k)
    }
}

/// Writes `v` as a TypeScript expression, nested blocks indented two spaces per level below
/// `indent`.
pub(crate) fn value(v: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent + 1);
    match v {
        Value::String(s) => match s.strip_prefix(EXPR) {
            Some(e) => out.push_str(e),
            None => out.push_str(&string(s)),
        },
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push_str("[\n");
            for i in items {
                out.push_str(&pad);
                value(i, indent + 1, out);
                out.push_str(",\n");
            }
            out.push_str(&"  ".repeat(indent));
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            out.push_str("{\n");
            for (k, v) in map {
                let _ = write!(out, "{pad}{}: ", key(k));
                value(v, indent + 1, out);
                out.push_str(",\n");
            }
            out.push_str(&"  ".repeat(indent));
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `value` into a new string.
pub(crate) fn render(v: &Value, indent: usize) -> String {
    let mut out = String::new();
    value(v, indent, &mut out);
    out
}

/// A TypeScript identifier in PascalCase from a design name (`user-profiles` →
/// `UserProfiles`); one starting with a digit gets a leading `T`.
pub(crate) fn pascal(name: &str) -> String {
    let mut out = String::new();
    for word in name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        let mut cs = word.chars();
        if let Some(first) = cs.next() {
            out.push(first.to_ascii_uppercase());
            out.push_str(cs.as_str());
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    out
}

/// A file or stack name: ASCII letters, digits and `-`, everything else as `-`.
pub(crate) fn kebab(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_literal_escapes_backticks_backslashes_and_interpolations_of_the_text() {
        let t = template("a`b\\c${d}-\u{2}-e", "\u{2}", "stage");
        assert_eq!(t, "`a\\`b\\\\c\\${d}-${stage}-e`");
    }

    #[test]
    fn keys_are_bare_only_when_they_are_identifiers() {
        let v = serde_json::json!({"ok_1": 1, "ForAllValues:StringLike": 2, "9lives": 3});
        assert_eq!(render(&v, 0), "{\n  \"9lives\": 3,\n  \"ForAllValues:StringLike\": 2,\n  ok_1: 1,\n}");
    }

    #[test]
    fn names_become_identifiers_and_file_names() {
        assert_eq!(pascal("user-profiles"), "UserProfiles");
        assert_eq!(pascal("2fa"), "T2fa");
        assert_eq!(kebab("My_Model"), "my-model");
    }
}
