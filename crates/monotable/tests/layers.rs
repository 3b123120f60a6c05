//! The library's layers (ARCHITECTURE.md, "crates/monotable"), imports pointing down only:
//!
//! 1. foundation: errors, naming conventions, the static schema, key escaping and rendering,
//!    template overlap, the library's own record types, who the caller is;
//! 2. model: entities, update operations, expressions, requests, queries, cursors and
//!    multi-attribute keys, built from the foundation;
//! 3. table: the built and checked `Table` and the sending of requests through its client;
//! 4. operations: what is done with a table, the repository first; every other operation
//!    module names the repository at most, never another operation module;
//! 5. the crate root (`lib.rs`), which re-exports and names anything.
//!
//! A module may name its own layer and the ones below. On top of the layers, the modules'
//! import graph has no circle at all, so within a layer too there is a "below"; the files of a
//! directory module (`changes/`) are nodes of that graph too.
//!
//! The check reads the source text: every path that starts with `crate`, `super` or `self`
//! (braced `use` groups expanded, `super` resolved from inline modules such as `mod tests`) is
//! resolved to a top-level module of `src`; `crate::Name` of a root re-export counts as the
//! module it re-exports. Paths in comments and strings are ignored.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Foundation,
    Model,
    Table,
    Operations,
    Root,
}

/// Every top-level module of `src` and its layer; a module missing here fails the check.
const LAYERS: &[(&str, Layer)] = &[
    ("auth", Layer::Foundation),
    ("conventions", Layer::Foundation),
    ("error", Layer::Foundation),
    ("internal", Layer::Foundation),
    ("jwt", Layer::Foundation),
    ("key", Layer::Foundation),
    ("overlap", Layer::Foundation),
    ("schema", Layer::Foundation),
    ("cursor", Layer::Model),
    ("entity", Layer::Model),
    ("expr", Layer::Model),
    ("multi_key", Layer::Model),
    ("query", Layer::Model),
    ("request", Layer::Model),
    ("update_op", Layer::Model),
    ("send", Layer::Table),
    ("table", Layer::Table),
    ("batch", Layer::Operations),
    ("changes", Layer::Operations),
    ("design", Layer::Operations),
    ("idempotency", Layer::Operations),
    ("infra", Layer::Operations),
    ("listing", Layer::Operations),
    ("maintenance", Layer::Operations),
    ("repo", Layer::Operations),
    ("transaction", Layer::Operations),
    ("unique", Layer::Operations),
];

/// The operation module the others build on.
const REPOSITORY: &str = "repo";

/// The module path of a file given relative to `src` (`lib.rs`: the root, empty).
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
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

/// Every `crate`/`super`/`self` path of a file as written, resolved to a path from the crate
/// root, with its line. Inline modules (`mod tests { .. }`) open below the file's module.
fn resolved_paths(file: &str, source: &str) -> Vec<(String, Vec<String>, usize)> {
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
        let mut module = module_of(file);
        module.extend(inline.iter().map(|(name, _)| name.clone()));
        for path in paths_at(&tokens, &mut at) {
            let mut rest = &path[..];
            let mut base = match rest[0].as_str() {
                "crate" => Vec::new(),
                _ => module.clone(),
            };
            if rest[0] != "super" {
                rest = &rest[1..];
            }
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend_from_slice(rest);
            out.push((path.join("::"), base, line));
        }
    }
    out
}

/// The top-level module a path from the crate root names (`None`: the root itself), reading
/// `crate::Name` of a root re-export as the re-exported module.
fn target<'a>(path: &'a [String], reexports: &'a BTreeMap<String, String>) -> Option<&'a str> {
    let first = path.first()?;
    if LAYERS.iter().any(|(m, _)| m == first) {
        return Some(first);
    }
    reexports.get(first).map(String::as_str)
}

/// The names `lib.rs` re-exports from its modules (`pub use entity::{Entity, Field}`).
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let tokens = tokens(&code_only(lib));
    let mut out = BTreeMap::new();
    for at in 0..tokens.len() {
        if tokens[at].0 == "use" && at > 0 && tokens[at - 1].0 == "pub" {
            let mut from = at + 1;
            for path in paths_at(&tokens, &mut from) {
                if let (Some(module), Some(name)) = (path.first(), path.last()) {
                    if path.len() > 1 && LAYERS.iter().any(|(m, _)| m == module) {
                        out.insert(name.clone(), module.clone());
                    }
                }
            }
        }
    }
    out
}

fn layer(module: &str) -> Option<Layer> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// Why `from` may not name `to`, if it may not.
fn refusal(from: &str, from_layer: Layer, to: Option<&str>) -> Option<String> {
    let Some(to) = to else {
        return (from_layer != Layer::Root)
            .then(|| "names the crate root, which is above every layer".into());
    };
    let to_layer = layer(to)?;
    if to == from || from_layer == Layer::Root {
        None
    } else if to_layer > from_layer {
        Some(format!("the {from_layer:?} layer names `{to}` of the {to_layer:?} layer above it"))
    } else if from_layer == Layer::Operations && to_layer == Layer::Operations && to != REPOSITORY {
        Some(format!("one operation module names another (`{to}`); only `{REPOSITORY}` is shared"))
    } else {
        None
    }
}

/// A circle in the module graph, as `a -> b -> a`, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
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

/// Every import of `files` (path relative to `src`, source) that breaks the layering, as
/// `file:line: path: reason`, then a circle of the module graph if there is one.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let lib = files.iter().find(|(f, _)| f == "lib.rs").map_or("", |(_, s)| s.as_str());
    let reexports = reexports(lib);
    // The child modules of directory modules (`changes::decode`), nodes of the graph too.
    let children: BTreeSet<String> =
        files.iter().map(|(f, _)| module_of(f)).filter(|m| m.len() > 1).map(|m| m[..2].join("::")).collect();
    let child = |path: &[String]| Some(path.get(..2)?.join("::")).filter(|c| children.contains(c));
    let mut out = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, source) in files {
        let from_child = child(&module_of(file));
        let from = module_of(file).first().cloned().unwrap_or_default();
        let from_layer = if from.is_empty() { Some(Layer::Root) } else { layer(&from) };
        let Some(from_layer) = from_layer else {
            out.push(format!("src/{file}: module `{from}` has no layer in tests/layers.rs"));
            continue;
        };
        for (written, path, line) in resolved_paths(file, source) {
            let to = target(&path, &reexports);
            if let Some(reason) = refusal(&from, from_layer, to) {
                out.push(format!("src/{file}:{line}: {written}: {reason}"));
            }
            if let Some(to) = to.filter(|to| *to != from && from_layer != Layer::Root) {
                edges.entry(from.clone()).or_default().insert(to.to_string());
            }
            if let (Some(a), Some(b)) = (&from_child, child(&path)) {
                if *a != b {
                    edges.entry(a.clone()).or_default().insert(b);
                }
            }
        }
    }
    out.extend(circle(&edges).map(|c| format!("import circle: {c}")));
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
fn library_imports_point_from_operations_to_the_table_to_the_model_to_the_foundation_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_tree(&root, &root, &mut files);
    // Every listed module exists, so the check cannot pass on a tree it does not describe.
    for (module, _) in LAYERS {
        assert!(
            files.iter().any(|(f, _)| module_of(f).first().map(String::as_str) == Some(*module)),
            "src/{module}.rs is listed in LAYERS but missing"
        );
    }
    let found = violations(&files);
    assert!(found.is_empty(), "imports that break the layers:\n{}", found.join("\n"));
}

fn synthetic(files: &[(&str, &str)]) -> Vec<String> {
    violations(&files.iter().map(|(f, s)| (f.to_string(), s.to_string())).collect::<Vec<_>>())
}

#[test]
fn the_checker_names_an_entity_file_that_imports_the_table() {
    let found = synthetic(&[("entity.rs", "use crate::error::Error;\n\nuse crate::table::Table;\n")]);
    assert_eq!(
        found,
        ["src/entity.rs:3: crate::table::Table: the Model layer names `table` of the Table layer above it"]
    );
}

#[test]
fn the_checker_reads_braced_groups_and_root_reexports() {
    let found = synthetic(&[
        ("lib.rs", "mod repo;\npub use repo::{Plan, Repository};\n"),
        ("schema.rs", "use crate::{\n    error::Error,\n    Repository,\n};\n"),
    ]);
    assert_eq!(
        found,
        ["src/schema.rs:1: crate::Repository: the Foundation layer names `repo` of the Operations layer above it"]
    );
}

#[test]
fn the_checker_names_super_paths_that_climb_out_of_a_module_and_operations_that_name_each_other() {
    let found = synthetic(&[
        ("changes/decode.rs", "use super::record::Image;\nfn f() { super::super::listing::run(); }\n"),
        ("key.rs", "mod tests {\n    use super::*;\n    use super::super::__private::Item;\n}\n"),
    ]);
    assert_eq!(
        found,
        [
            "src/changes/decode.rs:2: super::super::listing::run: one operation module names another (`listing`); only `repo` is shared",
            "src/key.rs:3: super::super::__private::Item: names the crate root, which is above every layer",
        ]
    );
}

#[test]
fn the_checker_names_a_circle_inside_one_layer() {
    let found =
        synthetic(&[("expr.rs", "use crate::entity::Field;\n"), ("entity.rs", "use crate::expr::Filter;\n")]);
    assert_eq!(found, ["import circle: entity -> expr -> entity"]);
}

#[test]
fn the_checker_accepts_downward_imports_comments_strings_and_visibilities() {
    let found = synthetic(&[
        ("lib.rs", "mod table;\npub use table::Table;\nfn f() -> crate::table::Inner { todo() }\n"),
        (
            "repo.rs",
            "// crate::lib and crate::listing are only a comment\nuse crate::{table::Table, repo::Plan};\nconst S: &str = \"crate::listing::x\";\nconst Q: char = '\"';\npub(crate) fn g(t: &crate::Table) {}\n",
        ),
        ("multi_key.rs", "use crate::query::Keys;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\npub(super) fn h() {}\n"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn the_checker_names_a_circle_between_the_files_of_a_directory_module() {
    let found = synthetic(&[
        ("changes/mod.rs", "mod decode;\nmod lambda;\n"),
        (
            "changes/decode.rs",
            "use super::lambda::EventRecord;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
        ("changes/lambda.rs", "use crate::changes::decode::RawRecord;\n"),
    ]);
    assert_eq!(found, ["import circle: changes::decode -> changes::lambda -> changes::decode"]);
}

#[test]
fn the_checker_names_a_module_without_a_layer() {
    let found = synthetic(&[("newthing.rs", "use crate::error::Error;\n")]);
    assert_eq!(found, ["src/newthing.rs: module `newthing` has no layer in tests/layers.rs"]);
}
