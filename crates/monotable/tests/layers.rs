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
//! The check reads the source text through `monotable-layers` (crates/layers): every path
//! that starts with `crate`, `super` or `self` (braced `use` groups expanded, `super` resolved
//! from inline modules such as `mod tests`) is resolved to a top-level module of `src`;
//! `crate::Name` of a root re-export counts as the module it re-exports. Paths in comments and
//! strings are ignored.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use monotable_layers::{circle, module_of, named_paths, read_tree, reexports};

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

/// The top-level module a path from the crate root names (`None`: the root itself), reading
/// `crate::Name` of a root re-export as the re-exported module.
fn target<'a>(path: &'a [String], reexports: &'a BTreeMap<String, String>) -> Option<&'a str> {
    let first = path.first()?;
    if LAYERS.iter().any(|(m, _)| m == first) {
        return Some(first);
    }
    reexports.get(first).map(String::as_str)
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

/// Every import of `files` (path relative to `src`, source) that breaks the layering, as
/// `file:line: path: reason`, then a circle of the module graph if there is one.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let lib = files.iter().find(|(f, _)| f == "lib.rs").map_or("", |(_, s)| s.as_str());
    let reexports = reexports(lib, &LAYERS.iter().map(|(m, _)| *m).collect());
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
        for monotable_layers::Named { written, path, line } in named_paths(&module_of(file), source) {
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

#[test]
fn library_imports_point_from_operations_to_the_table_to_the_model_to_the_foundation_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = read_tree(&root);
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
