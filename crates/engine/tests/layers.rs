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
//! The check reads the source text through `monotable-layers` (crates/layers): every path that
//! starts with `crate`, `super` or `self` (braced `use` groups expanded) is resolved to a module
//! of `src/engine` and judged by the layers of the file and of its target. Paths in comments and
//! strings are ignored; bare paths (`tables::x`) name a child module or something a checked
//! `use` brought in.

use std::path::Path;

use monotable_layers::{module_of, named_paths, read_tree, Named};

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

/// What a path from the crate root names.
fn resolve(path: &[String]) -> Target {
    match path.first().map(String::as_str) {
        Some("engine") => Target::Engine(path[1..].to_vec()),
        Some("Engine") => Target::PublicEngine,
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
        let module = module_of(file);
        let from = layer_of(&module);
        let in_crate: Vec<String> = ["engine".to_string()].into_iter().chain(module).collect();
        for Named { written, path, line } in named_paths(&in_crate, source) {
            if let Some(reason) = refusal(&from, &resolve(&path)) {
                out.push(format!("src/engine/{file}:{line}: {written}: {reason}"));
            }
        }
    }
    out
}

#[test]
fn engine_imports_point_from_dispatch_to_families_to_core_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let files = read_tree(&root);
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
