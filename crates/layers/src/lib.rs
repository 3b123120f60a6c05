//! The module paths a crate's source files name, read from the source text, for the tests that
//! keep a crate's modules in layers (`crates/engine/tests/layers.rs`,
//! `crates/monotable/tests/layers.rs`). Each test decides what may name what; this crate only
//! finds the names.
//!
//! A path is collected where it starts with `crate`, `super` or `self` followed by `::`, in `use`
//! lines and in code alike; braced groups are expanded into one path per member (a `self` member
//! names the group's prefix), `super` is resolved from the inline module it is written in
//! (`mod tests { .. }`), and paths in comments, strings and character literals are ignored.
//! Bare paths (`tables::x`) are not collected: they name a child module or something a
//! collected `use` brought in.
//!
//! Invariant: the reader never fails on odd source; an unclosed literal or brace ends the walk
//! of that file, it does not panic.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A path one file names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The path as written, `::`-joined (`super::core::write`).
    pub written: String,
    /// The path from the crate root (`engine::core::write`); a `super` that climbs above the
    /// root stops there.
    pub path: Vec<String>,
    /// The 1-based line it is written on.
    pub line: usize,
}

/// Every `.rs` file below `dir`, as (path relative to `dir` with `/` separators, source), sorted
/// by path.
///
/// # Panics
/// When `dir` or a file below it cannot be read: the callers are tests, and a tree they cannot
/// read is a failure.
pub fn read_tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    read_into(dir, dir, &mut out);
    out
}

fn read_into(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("readable directory").flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            read_into(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative =
                path.strip_prefix(root).expect("below the root").to_string_lossy().replace('\\', "/");
            out.push((relative, std::fs::read_to_string(&path).expect("readable source")));
        }
    }
}

/// The module path of a file given relative to a module's directory: `a/b.rs` and `a/b/mod.rs`
/// are `[a, b]`; `mod.rs` and `lib.rs` are the directory's own module (empty).
pub fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// Every path `source` names, resolved from the crate root; `module` is the module path of the
/// file (from the crate root).
pub fn named_paths(module: &[String], source: &str) -> Vec<Named> {
    let tokens = tokens(&code_only(source));
    let mut out = Vec::new();
    // Each open inline module: its name and the brace depth its body opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut at = 0;
    while at < tokens.len() {
        let (t, line) = (&tokens[at].0, tokens[at].1);
        let starts_path = matches!(t.as_str(), "crate" | "super" | "self")
            && tokens.get(at + 1).is_some_and(|(n, _)| n == "::")
            && !(at > 0 && tokens[at - 1].0 == "::");
        if !starts_path {
            match t.as_str() {
                "mod" if tokens.get(at + 2).is_some_and(|(b, _)| b == "{") => {
                    depth += 1;
                    inline.push((tokens[at + 1].0.clone(), depth));
                    at += 3;
                    continue;
                }
                "{" => depth += 1,
                "}" => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            at += 1;
            continue;
        }
        let mut here = module.to_vec();
        here.extend(inline.iter().map(|(name, _)| name.clone()));
        for written in paths_at(&tokens, &mut at) {
            let mut rest = &written[..];
            let mut base = if rest[0] == "crate" { Vec::new() } else { here.clone() };
            if rest[0] != "super" {
                rest = &rest[1..];
            }
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend_from_slice(rest);
            out.push(Named { written: written.join("::"), path: base, line });
        }
    }
    out
}

/// The names a crate root re-exports from its own modules (`pub use entity::{Entity, Field}`
/// gives `Entity → entity` and `Field → entity`), for the modules in `modules`.
pub fn reexports(root_source: &str, modules: &BTreeSet<&str>) -> BTreeMap<String, String> {
    let tokens = tokens(&code_only(root_source));
    let mut out = BTreeMap::new();
    for at in 1..tokens.len() {
        if tokens[at].0 == "use" && tokens[at - 1].0 == "pub" {
            let mut from = at + 1;
            for path in paths_at(&tokens, &mut from) {
                if let (Some(module), Some(name)) = (path.first(), path.last()) {
                    if path.len() > 1 && modules.contains(module.as_str()) {
                        out.insert(name.clone(), module.clone());
                    }
                }
            }
        }
    }
    out
}

/// A circle in a graph of modules, as `a -> b -> a`, if there is one.
pub fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<String> {
        if let Some(i) = stack.iter().position(|s| s == m) {
            return Some(stack[i..].iter().map(String::as_str).chain([m]).collect::<Vec<_>>().join(" -> "));
        }
        if !done.insert(m.to_string()) {
            return None;
        }
        stack.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(found) = visit(next, edges, stack, done) {
                return Some(found);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|m| visit(m, edges, &mut Vec::new(), &mut done))
}

/// Source text with comments, strings and character literals blanked, lines kept.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    // Skips to the end of a literal closed by `close`, keeping newlines.
    let skip = |i: &mut usize, out: &mut String, close: char| {
        while *i < chars.len() && chars[*i] != close {
            if chars[*i] == '\\' {
                *i += 1;
            }
            if chars.get(*i) == Some(&'\n') {
                out.push('\n');
            }
            *i += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        match (chars[i], chars.get(i + 1), chars.get(i + 2)) {
            ('/', Some('/'), _) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*'), _) => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    if chars[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
                i += 2;
            }
            ('"', ..) => {
                i += 1;
                skip(&mut i, &mut out, '"');
                out.push_str("\"\"");
            }
            // A character literal (`'"'`, `'\n'`), not a lifetime (`'a`).
            ('\'', Some('\\'), _) | ('\'', Some(_), Some('\'')) => {
                i += 1;
                skip(&mut i, &mut out, '\'');
                out.push_str("' '");
            }
            (c, ..) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Identifiers, `::`, `{`, `}` and `,`, and other punctuation as `.`, each with its line.
fn tokens(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                word.push(n);
                chars.next();
            }
            out.push((word, line));
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.push(("::".into(), line));
        } else if !c.is_whitespace() {
            out.push((if "{},*".contains(c) { c.to_string() } else { ".".into() }, line));
        }
    }
    out
}

fn is_word(t: &str) -> bool {
    t == "*" || t.starts_with(|c: char| c.is_alphanumeric() || c == '_')
}

/// The paths of the path starting at `tokens[*at]`, a braced group expanded into one path per
/// member (`self` members name the group's prefix). Advances `at` past it.
fn paths_at(tokens: &[(String, usize)], at: &mut usize) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    while let Some((t, _)) = tokens.get(*at) {
        if t == "{" {
            *at += 1;
            let mut all = Vec::new();
            while let Some((t, _)) = tokens.get(*at) {
                match t.as_str() {
                    "}" => break,
                    "," => *at += 1,
                    t if is_word(t) || t == "{" => {
                        for rest in paths_at(tokens, at) {
                            all.push(
                                prefix
                                    .iter()
                                    .cloned()
                                    .chain(rest.into_iter().filter(|s| s != "self"))
                                    .collect(),
                            );
                        }
                    }
                    _ => *at += 1,
                }
            }
            *at += 1;
            return all;
        }
        if !is_word(t) {
            break;
        }
        prefix.push(t.clone());
        *at += 1;
        if tokens.get(*at).is_some_and(|(t, _)| t == "::") {
            *at += 1;
        } else {
            break;
        }
    }
    vec![prefix]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(module: &[&str], source: &str) -> Vec<String> {
        let module: Vec<String> = module.iter().map(|s| s.to_string()).collect();
        named_paths(&module, source)
            .into_iter()
            .map(|n| format!("{}@{}", n.path.join("::"), n.line))
            .collect()
    }

    #[test]
    fn braced_groups_expand_and_self_members_name_the_prefix() {
        assert_eq!(
            paths(&["a"], "use crate::x::{self, y::{Z, W}, v};"),
            ["x@1", "x::y::Z@1", "x::y::W@1", "x::v@1"]
        );
    }

    #[test]
    fn super_resolves_from_the_inline_module_it_is_written_in() {
        let source =
            "use super::b;\nmod tests {\n    use super::c;\n    use super::super::d;\n}\nuse self::e;";
        assert_eq!(paths(&["x", "a"], source), ["x::b@1", "x::a::c@3", "x::d@4", "x::a::e@6"]);
    }

    #[test]
    fn comments_strings_and_character_literals_name_nothing() {
        let source =
            "// use crate::a;\n/* crate::b */ let s = \"crate::c\"; let q = '\"'; let l: &'static str = x;\n";
        assert!(paths(&[], source).is_empty());
    }

    #[test]
    fn a_path_in_the_middle_of_another_is_not_a_second_path() {
        assert_eq!(paths(&["m"], "let x = other::self::y; let z = crate::w::v;"), ["w::v@1"]);
    }

    #[test]
    fn unclosed_literals_and_braces_end_the_walk_without_a_panic() {
        assert_eq!(paths(&[], "use crate::a::{b, c"), ["a::b@1", "a::c@1"]);
        assert!(paths(&[], "let s = \"crate::x").is_empty());
        assert!(paths(&[], "mod").is_empty());
    }

    #[test]
    fn the_root_reexports_map_names_to_their_modules() {
        let modules: BTreeSet<&str> = ["entity", "key"].into();
        let found =
            reexports("pub use entity::{Entity, Field};\nuse key::Hidden;\npub use other::X;", &modules);
        assert_eq!(
            found.into_iter().collect::<Vec<_>>(),
            [("Entity".to_string(), "entity".to_string()), ("Field".to_string(), "entity".to_string())]
        );
    }

    #[test]
    fn a_circle_is_named_from_where_it_closes() {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        edges.entry("a".into()).or_default().insert("b".into());
        edges.entry("b".into()).or_default().insert("c".into());
        assert_eq!(circle(&edges), None);
        edges.entry("c".into()).or_default().insert("b".into());
        assert_eq!(circle(&edges).as_deref(), Some("b -> c -> b"));
    }

    #[test]
    fn files_map_to_modules() {
        assert_eq!(module_of("lib.rs"), Vec::<String>::new());
        assert_eq!(module_of("a/mod.rs"), ["a"]);
        assert_eq!(module_of("a/b.rs"), ["a", "b"]);
    }
}
