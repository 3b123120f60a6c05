//! The engine module's layers (ARCHITECTURE.md, "crates/engine"): the dispatch
//! (`src/engine/mod.rs`, the `Engine` type) over the operation families (`src/engine/ops/<family>`)
//! over the core (`src/engine/core`). Imports point down only:
//!
//! - a core file names no family, no `ops` module and nothing of the dispatch (not even the
//!   public `crate::Engine`);
//! - a family file names the core, its own family and the public crate API (`crate::Engine`
//!   included: PartiQL and import/export run other operations through it), never another
//!   family and nothing else of the dispatch;
//! - only the dispatch names `ops` itself.
//!
//! The check reads the source text: every path that starts with `crate::engine`, `super` or
//! `self` (braced `use` groups expanded) is resolved to a module of `src/engine` and judged by
//! the layers of the file and of its target. Paths in comments are ignored; bare paths (`tables::x`)
//! name a child module or something a checked `use` brought in.

use std::path::Path;

/// Where a module sits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    /// `engine/mod.rs`: `Engine` and its methods.
    Dispatch,
    /// `engine/ops/mod.rs`: declares the families.
    OpsRoot,
    /// `engine/ops/<name>` and everything below it.
    Family(String),
    /// `engine/core` and everything below it.
    Core,
}

fn layer_of(module: &[String]) -> Layer {
    match module.first().map(String::as_str) {
        Some("core") => Layer::Core,
        Some("ops") => match module.get(1) {
            Some(family) if family != "*" => Layer::Family(family.clone()),
            _ => Layer::OpsRoot,
        },
        _ => Layer::Dispatch,
    }
}

/// The module path (below `engine`) of a file given relative to `src/engine`.
fn module_of(file: &str) -> Vec<String> {
    let trimmed = file.strip_suffix(".rs").unwrap_or(file);
    let mut parts: Vec<String> = trimmed.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Source text without comments (line comments, doc comments and block comments), lines kept.
fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Sep,
    Open,
    Close,
    Comma,
    Other,
}

/// Identifiers, `::`, braces and commas, each with its 1-based line.
fn tokens(code: &str) -> Vec<(Token, usize)> {
    let mut out = Vec::new();
    let mut line = 1;
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_alphanumeric() || bytes[i] == '_') {
                i += 1;
            }
            out.push((Token::Ident(bytes[start..i].iter().collect()), line));
        } else if c == ':' && bytes.get(i + 1) == Some(&':') {
            out.push((Token::Sep, line));
            i += 2;
        } else {
            out.push((
                match c {
                    '{' => Token::Open,
                    '}' => Token::Close,
                    ',' => Token::Comma,
                    '*' => Token::Ident("*".into()),
                    c if c.is_whitespace() => {
                        i += 1;
                        continue;
                    }
                    _ => Token::Other,
                },
                line,
            ));
            i += 1;
        }
    }
    out
}

/// Parses a path from `tokens[*at]`: segments joined by `::`, a braced group expanded into one
/// path per member. Advances `at` past it.
fn paths_at(tokens: &[(Token, usize)], at: &mut usize) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    loop {
        match tokens.get(*at) {
            Some((Token::Ident(name), _)) => {
                prefix.push(name.clone());
                *at += 1;
            }
            Some((Token::Open, _)) => {
                *at += 1;
                let mut all = Vec::new();
                loop {
                    match tokens.get(*at) {
                        Some((Token::Close, _)) | None => {
                            *at += 1;
                            break;
                        }
                        Some((Token::Comma, _)) => *at += 1,
                        _ => {
                            let before = *at;
                            for rest in paths_at(tokens, at) {
                                let mut full = prefix.clone();
                                full.extend(rest.into_iter().filter(|s| s != "self"));
                                all.push(full);
                            }
                            if *at == before {
                                *at += 1;
                            }
                        }
                    }
                }
                return all;
            }
            _ => return vec![prefix],
        }
        if matches!(tokens.get(*at), Some((Token::Sep, _))) {
            *at += 1;
        } else {
            return vec![prefix];
        }
    }
}

/// A path a file names, resolved against the `engine` module.
#[derive(Debug, PartialEq)]
enum Target {
    /// A module or item below `engine` (empty: `engine` itself, as in `pub(in crate::engine)`).
    Engine(Vec<String>),
    /// The public `crate::Engine`.
    PublicEngine,
    /// Anything outside the `engine` module.
    Outside,
}

fn resolve(module: &[String], path: &[String]) -> Target {
    match path.first().map(String::as_str) {
        Some("crate") => match path.get(1).map(String::as_str) {
            Some("engine") => Target::Engine(path[2..].to_vec()),
            Some("Engine") => Target::PublicEngine,
            _ => Target::Outside,
        },
        Some("self") => {
            let mut full = module.to_vec();
            full.extend_from_slice(&path[1..]);
            Target::Engine(full)
        }
        Some("super") => {
            let mut base = module.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                if base.pop().is_none() {
                    return Target::Outside;
                }
                rest = &rest[1..];
            }
            base.extend_from_slice(rest);
            Target::Engine(base)
        }
        _ => Target::Outside,
    }
}

/// Why `from` may not name `to`, if it may not.
fn refusal(from: &Layer, to: &Target) -> Option<&'static str> {
    let to = match to {
        Target::Outside => return None,
        // `pub(in crate::engine)` and `super` alone name a visibility, not an item.
        Target::Engine(path) if path.is_empty() => return None,
        Target::PublicEngine => {
            return (*from == Layer::Core).then_some("the core names the dispatch's `Engine`");
        }
        Target::Engine(path) => layer_of(path),
    };
    match (from, to) {
        (Layer::Dispatch, _) | (_, Layer::Core) => None,
        (Layer::Core, _) => Some("the core names a layer above it"),
        (_, Layer::Dispatch) => Some("names the dispatch's internals (use the core, or `crate::Engine`)"),
        (Layer::OpsRoot, Layer::Family(_)) => None,
        (Layer::Family(a), Layer::Family(b)) if *a == b => None,
        (Layer::Family(_), Layer::Family(_)) => Some("one operation family names another"),
        (_, Layer::OpsRoot) => Some("names `ops` itself, which only the dispatch declares"),
    }
}

/// Every import of `files` (path relative to `src/engine`, source) that points up or sideways,
/// as `file:line: path: reason`.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (file, source) in files {
        let file_module = module_of(file);
        let from = layer_of(&file_module);
        let tokens = tokens(&strip_comments(source));
        // Inline modules (`mod tests { .. }`) open below the file's module: each entry is the
        // module's name and the brace depth its body opened at.
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0;
        let mut at = 0;
        while at < tokens.len() {
            let starts_path = matches!(&tokens[at].0, Token::Ident(s) if s == "crate" || s == "super" || s == "self")
                && matches!(tokens.get(at + 1), Some((Token::Sep, _)))
                && !matches!(at.checked_sub(1).map(|i| &tokens[i].0), Some(Token::Sep));
            if !starts_path {
                match (&tokens[at].0, tokens.get(at + 1), tokens.get(at + 2)) {
                    (Token::Ident(m), Some((Token::Ident(name), _)), Some((Token::Open, _)))
                        if m == "mod" =>
                    {
                        depth += 1;
                        inline.push((name.clone(), depth));
                        at += 3;
                        continue;
                    }
                    (Token::Open, ..) => depth += 1,
                    (Token::Close, ..) => {
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
            let mut module = file_module.clone();
            module.extend(inline.iter().map(|(name, _)| name.clone()));
            let line = tokens[at].1;
            for path in paths_at(&tokens, &mut at) {
                let target = resolve(&module, &path);
                if let Some(reason) = refusal(&from, &target) {
                    out.push(format!("src/engine/{file}:{line}: {}: {reason}", path.join("::")));
                }
            }
        }
    }
    out
}

fn read_tree(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("readable directory").flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            read_tree(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative =
                path.strip_prefix(root).expect("below the root").to_string_lossy().replace('\\', "/");
            out.push((relative, std::fs::read_to_string(&path).expect("readable source")));
        }
    }
}

#[test]
fn engine_imports_point_from_dispatch_to_families_to_core_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut files = Vec::new();
    read_tree(&root, &root, &mut files);
    // The layout the rule is about exists, so the check below cannot pass on an empty tree.
    for expected in ["mod.rs", "core/mod.rs", "core/write.rs", "ops/mod.rs", "ops/items/mod.rs"] {
        assert!(files.iter().any(|(f, _)| f == expected), "src/engine/{expected} is missing");
    }
    let families: std::collections::BTreeSet<Layer> = files
        .iter()
        .map(|(f, _)| layer_of(&module_of(f)))
        .filter(|l| matches!(l, Layer::Family(_)))
        .collect();
    assert!(families.len() >= 8, "expected the operation families under src/engine/ops, found {families:?}");
    let found = violations(&files);
    assert!(found.is_empty(), "imports that point up or sideways:\n{}", found.join("\n"));
}

fn synthetic(files: &[(&str, &str)]) -> Vec<String> {
    violations(&files.iter().map(|(f, s)| (f.to_string(), s.to_string())).collect::<Vec<_>>())
}

#[test]
fn the_checker_names_a_core_file_that_imports_a_family() {
    let found = synthetic(&[(
        "core/write.rs",
        "use super::Inner;\n\nuse crate::engine::ops::items::put_item;\nfn f() {}\n",
    )]);
    assert_eq!(
        found,
        ["src/engine/core/write.rs:3: crate::engine::ops::items::put_item: the core names a layer above it"]
    );
}

#[test]
fn the_checker_names_a_family_that_imports_another_through_a_braced_group() {
    let found = synthetic(&[(
        "ops/partiql/plan.rs",
        "use crate::engine::{\n    core::Inner,\n    ops::read::query,\n};\nuse super::exprs::Placeholders;\n",
    )]);
    assert_eq!(found, ["src/engine/ops/partiql/plan.rs:1: crate::engine::ops::read::query: one operation family names another"]);
}

#[test]
fn the_checker_names_super_paths_that_climb_into_a_sibling_family_or_the_dispatch() {
    let found = synthetic(&[
        ("ops/batch.rs", "fn f() { super::items::put_item(); }\nuse super::super::Inner;\n"),
        ("core/util.rs", "fn g(e: &crate::Engine) {}\n"),
    ]);
    assert_eq!(
        found,
        [
            "src/engine/ops/batch.rs:1: super::items::put_item: one operation family names another",
            "src/engine/ops/batch.rs:2: super::super::Inner: names the dispatch's internals (use the core, or `crate::Engine`)",
            "src/engine/core/util.rs:1: crate::Engine: the core names the dispatch's `Engine`",
        ]
    );
}

#[test]
fn the_checker_resolves_super_inside_an_inline_module_from_that_module() {
    let found = synthetic(&[(
        "core/util.rs",
        "mod tests {\n    use super::super::super::ops::read;\n}\nuse super::Inner;\n",
    )]);
    assert_eq!(
        found,
        ["src/engine/core/util.rs:2: super::super::super::ops::read: the core names a layer above it"]
    );
}

#[test]
fn the_checker_accepts_downward_imports_comments_and_visibilities() {
    let found = synthetic(&[
        ("mod.rs", "mod core;\nmod ops;\nuse self::ops::*;\nuse self::core::Inner;\n"),
        (
            "ops/transact/get.rs",
            "// super::super::items is only a comment\nuse super::write::cancelled;\nuse crate::engine::core::write::key_bytes;\npub(in crate::engine) fn g(e: &crate::Engine) {}\n",
        ),
        ("core/read_one.rs", "use super::capacity::{self, Report};\n#[cfg(test)]\nmod tests { use super::*; }\n"),
        ("ops/policy.rs", "fn f() { if true { g() } }\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\nuse super::super::core::Inner;\n"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}
