//! Identifiers and literals of the generated languages, derived from the design's names.
//!
//! Invariant: every function here is total and deterministic; a name with no letter or digit
//! becomes `x`, so the generators never emit an empty identifier.

/// The words of a name: split at every character that is not a letter or digit and before an
/// upper-case letter that follows a lower-case one (`get-user_byEmail` → `get`, `user`, `by`,
/// `email`).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    if out.is_empty() {
        out.push("x".into());
    }
    out
}

fn capitalised(w: &str) -> String {
    let mut c = w.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// An identifier may not start with a digit.
fn not_leading_digit(s: String) -> String {
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{s}")
    } else {
        s
    }
}

/// `get-user-by-email` → `GetUserByEmail`.
pub fn pascal(name: &str) -> String {
    not_leading_digit(words(name).iter().map(|w| capitalised(w)).collect())
}

/// `get-user-by-email` → `getUserByEmail`.
pub fn camel(name: &str) -> String {
    let w = words(name);
    let rest: String = w[1..].iter().map(|w| capitalised(w)).collect();
    not_leading_digit(format!("{}{rest}", w[0]))
}

/// `OrgMember` → `org_member`.
pub fn snake(name: &str) -> String {
    not_leading_digit(words(name).join("_"))
}

/// Whether `name` can be written bare as an identifier in both TypeScript and Rust.
pub fn is_plain_ident(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A double-quoted string literal, valid in TypeScript (it is JSON) and equal in meaning to
/// the Rust one [`rust_str`] writes.
pub fn ts_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A Rust string literal.
pub fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

/// Literal text inside a TypeScript template literal.
pub fn ts_template_text(s: &str) -> String {
    s.replace('\\', "\\\\").replace('`', "\\`").replace('$', "\\$")
}

/// An object property name: bare when it is an identifier, quoted otherwise.
pub fn ts_prop(name: &str) -> String {
    if is_plain_ident(name) {
        name.to_string()
    } else {
        ts_str(name)
    }
}

/// Reading property `name` of the expression `obj`.
pub fn ts_get(obj: &str, name: &str) -> String {
    if is_plain_ident(name) {
        format!("{obj}.{name}")
    } else {
        format!("{obj}[{}]", ts_str(name))
    }
}

/// Words TypeScript reserves (strict mode), which a generated binding must not be named.
const TS_RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "await",
];

/// A TypeScript binding name for `name` (camelCase, with `_` appended to a reserved word).
pub fn ts_binding(name: &str) -> String {
    let c = camel(name);
    if TS_RESERVED.contains(&c.as_str()) {
        format!("{c}_")
    } else {
        c
    }
}

/// Global names of TypeScript and JavaScript that a generated type must not shadow.
const TS_GLOBALS: &[&str] = &[
    "Array",
    "ArrayBuffer",
    "Boolean",
    "Date",
    "Error",
    "Function",
    "JSON",
    "Map",
    "Math",
    "Number",
    "Object",
    "Omit",
    "Partial",
    "Pick",
    "Promise",
    "Readonly",
    "Record",
    "RegExp",
    "Required",
    "Set",
    "String",
    "Symbol",
    "Uint8Array",
    "WeakMap",
    "WeakSet",
];

/// The TypeScript name of an entity type's schema and type: PascalCase, with `Entity` appended
/// to a name the language already has (`Record` → `RecordEntity`).
pub fn ts_type(name: &str) -> String {
    let p = pascal(name);
    if TS_GLOBALS.contains(&p.as_str()) {
        format!("{p}Entity")
    } else {
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_convert_between_cases() {
        assert_eq!(camel("get-user-by-email"), "getUserByEmail");
        assert_eq!(camel("user_id"), "userId");
        assert_eq!(pascal("user-partition"), "UserPartition");
        assert_eq!(snake("OrgMember"), "org_member");
        assert_eq!(camel("GSI1"), "gsi1");
        assert_eq!(pascal("2fa"), "_2fa");
        assert_eq!(camel("--"), "x");
        assert_eq!(ts_binding("delete"), "delete_");
        assert_eq!(ts_type("Record"), "RecordEntity");
        assert_eq!(ts_type("Org"), "Org");
    }

    #[test]
    fn literals_escape_what_their_language_needs() {
        assert_eq!(ts_str("a\"b"), "\"a\\\"b\"");
        assert_eq!(ts_template_text("a`${b}\\"), "a\\`\\${b}\\\\");
        assert_eq!(ts_prop("user-id"), "\"user-id\"");
        assert_eq!(ts_get("k", "userId"), "k.userId");
        assert_eq!(rust_str("a\"b"), "\"a\\\"b\"");
    }
}
