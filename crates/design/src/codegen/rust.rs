//! The Rust generator: `#[derive(Entity)]` structs with their access patterns, a
//! `#[derive(Collection)]` enum per collection pattern and `table(..)`, for a team that
//! designs first.
//!
//! Invariant: the table `table(..)` builds has a design equal to the input's in every part
//! `monotable::design::assert_matches_file` compares; a design the library cannot declare
//! (an LSI, index names off the convention, table settings, unstamped types, binary fields)
//! is refused with a [`CodegenError::Unsupported`] instead of generating code that drifts.

use crate::model::{
    AccessPattern, Design, Entity, Field, FieldType, IndexKind, Operation, Projection, SortOp,
};
use crate::model::{Conventions, TABLE};

use super::names::{is_plain_ident, pascal, rust_str};
use super::resolve;
use super::CodegenError;

fn unsupported(subject: &str, why: impl Into<String>) -> CodegenError {
    CodegenError::Unsupported { subject: subject.into(), why: why.into() }
}

/// Writes the module; returns its text and the skipped patterns (none: every pattern the
/// design holds is declared, on its entity or on the builder).
pub fn generate(design: &Design, command: &str) -> Result<(String, Vec<String>), CodegenError> {
    let upper = preset(&design.conventions)?;
    if !design.table.is_default() {
        return Err(unsupported("table", "the library declares no table settings (billing, stream, tags); remove the `table` section or keep that table in IaC only"));
    }
    let gsis = gsis(design, upper)?;
    let mut o = String::new();
    o.push_str(&format!("// {}\n", super::header(command)));
    o.push_str(&format!(
        "//\n// Table model `{}` of application `{}`, unit `{}`. Needs the crates `monotable`, `serde` (with\n// `derive`) and, for list and map fields, `serde_json`.\n\n",
        design.model, design.app, design.unit
    ));
    let mut body = String::new();
    let mut on_table: Vec<&AccessPattern> = Vec::new();
    let mut on_entity: Vec<(&str, String)> = Vec::new();
    for p in &design.access_patterns {
        let es = resolve::entities(design, p)?;
        match entity_pattern(design, p, &es)? {
            Some(attr) => on_entity.push((es[0].name.as_str(), attr)),
            None => on_table.push(p),
        }
    }
    for e in &design.entities {
        let patterns: Vec<&str> =
            on_entity.iter().filter(|(n, _)| *n == e.name).map(|(_, a)| a.as_str()).collect();
        entity(&mut body, design, e, &patterns)?;
    }
    for p in design.access_patterns.iter().filter(|p| p.collection) {
        let name = format!("{}Item", pascal(&p.name));
        body.push_str(&format!(
            "/// An item of `{}`, decoded by its entity type (S1, S3).\n#[derive(Debug, Clone, PartialEq, Collection)]\npub enum {name} {{\n",
            p.name
        ));
        for e in resolve::entities(design, p)? {
            let t = pascal(&e.name);
            body.push_str(&format!("    /// One `{}`.\n    {t}({t}),\n", e.name));
        }
        body.push_str("}\n\n");
    }
    table_fn(&mut body, design, upper, &gsis, &on_table);
    o.push_str(&imports(&body));
    o.push_str(&body);
    Ok((o, Vec::new()))
}

/// Whether the conventions are the upper preset (`false`: the lower one). The key, entity
/// type and TTL names must be a preset's; the stamps may be renamed (`with_stamps`).
fn preset(c: &Conventions) -> Result<bool, CodegenError> {
    let upper = c.pk == "PK";
    let p = if upper { Conventions::upper() } else { Conventions::lower() };
    if c.pk != p.pk || c.sk != p.sk || c.entity_type != p.entity_type || c.ttl != p.ttl {
        return Err(unsupported(
            "conventions",
            "the library's key, entity-type and TTL names are the upper (PK, SK, EntityType, TTL) or the lower (pk, sk, entityType, ttl) preset",
        ));
    }
    if c.created.is_none() || c.updated.is_none() || c.created_by.is_none() {
        return Err(unsupported(
            "conventions",
            "the library always writes the created, updated and created-by stamps (S4)",
        ));
    }
    Ok(upper)
}

/// The logical GSI number of each index (`GSI1` → 1), in the design's order.
fn gsis(design: &Design, upper: bool) -> Result<Vec<u8>, CodegenError> {
    let mut out = Vec::new();
    for i in &design.indexes {
        if i.kind != IndexKind::Gsi {
            return Err(unsupported(&i.name, "the library declares GSIs only (no LSI)"));
        }
        if i.projection != Projection::All {
            return Err(unsupported(&i.name, "the library's GSIs project all attributes"));
        }
        let n = i
            .name
            .to_ascii_lowercase()
            .strip_prefix("gsi")
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|n| (1..=20).contains(n) && index_name(upper, *n) == i.name)
            .ok_or_else(|| {
                unsupported(&i.name, format!("the convention names GSIs {}", index_name(upper, 1)))
            })?;
        if !i.is_multi_key() {
            let (pk, sk) = (
                format!("{}{}", i.name, if upper { "PK" } else { "pk" }),
                format!("{}{}", i.name, if upper { "SK" } else { "sk" }),
            );
            if i.pk.as_ref().map(|k| k.names()) != Some(&[pk.clone()][..]) || i.sk.names() != [sk.clone()] {
                return Err(unsupported(
                    &i.name,
                    format!("the convention's key attributes are {pk} and {sk}"),
                ));
            }
        }
        out.push(n);
    }
    Ok(out)
}

fn index_name(upper: bool, n: u8) -> String {
    if upper {
        format!("GSI{n}")
    } else {
        format!("gsi{n}")
    }
}

/// The Rust type of a field. A field without a stated type is a `String`; a version (S16)
/// and an expiry are `i64`.
fn rust_type(e: &Entity, f: &Field) -> Result<&'static str, CodegenError> {
    if e.version_field.as_deref() == Some(&f.name) || e.ttl.as_deref() == Some(&f.name) {
        return Ok("i64");
    }
    Ok(match f.ty {
        None | Some(FieldType::String) | Some(FieldType::Enum) | Some(FieldType::Timestamp) => "String",
        Some(FieldType::Number) => "i64",
        Some(FieldType::Bool) => "bool",
        Some(FieldType::List) => "Vec<serde_json::Value>",
        Some(FieldType::Map) => "std::collections::BTreeMap<String, serde_json::Value>",
        Some(FieldType::Binary) => {
            return Err(unsupported(
                &format!("{}.{}", e.name, f.name),
                "serde writes Vec<u8> as a list, not a binary; give the field another type",
            ))
        }
    })
}

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "yield",
    "gen",
];

fn field_ident(e: &Entity, f: &Field) -> Result<(), CodegenError> {
    if !is_plain_ident(&f.name) || RUST_KEYWORDS.contains(&f.name.as_str()) {
        return Err(unsupported(
            &format!("{}.{}", e.name, f.name),
            "a field name must be a Rust identifier (set `attr` for the stored name)",
        ));
    }
    Ok(())
}

fn entity(o: &mut String, design: &Design, e: &Entity, patterns: &[&str]) -> Result<(), CodegenError> {
    if !e.stamps {
        return Err(unsupported(
            &e.name,
            "the library stamps every entity type (S4); remove `stamps: false`",
        ));
    }
    let ty = pascal(&e.name);
    let mut attrs = Vec::new();
    if ty != e.name {
        attrs.push(format!("name = {}", rust_str(&e.name)));
    }
    attrs.push(format!("pk = {}", rust_str(&e.pk)));
    attrs.push(format!("sk = {}", rust_str(&e.sk)));
    if let Some(t) = &e.tenant {
        let word = match t.kind {
            crate::model::TenantKind::Org => "tenant",
            crate::model::TenantKind::Owner => "owner",
        };
        attrs.push(format!("{word} = {}", t.field));
    }
    if let Some(v) = &e.version_field {
        attrs.push(format!("version = {v}"));
    }
    if let Some(t) = &e.ttl {
        attrs.push(format!("ttl = {t}"));
    }
    if !e.unique.is_empty() {
        attrs.push(format!("unique({})", e.unique.join(", ")));
    }
    for (name, k) in &e.indexes {
        let index = design.index(name).ok_or_else(|| CodegenError::Undefined {
            subject: e.name.clone(),
            what: format!("index `{name}`"),
        })?;
        let logical = name.to_ascii_lowercase();
        let pk =
            k.pk.as_deref()
                .ok_or_else(|| unsupported(&format!("{}.{name}", e.name), "a GSI key needs `pk`"))?;
        let sk = k.sk.as_deref();
        if index.is_multi_key() {
            let list = |t: &str| -> Result<String, CodegenError> {
                let t = resolve::template(t)?;
                Ok(t.vars().collect::<Vec<_>>().join(", "))
            };
            let sk = sk.ok_or_else(|| {
                unsupported(&format!("{}.{name}", e.name), "a multi-attribute key needs `sk`")
            })?;
            attrs.push(format!("{logical}(pk = [{}], sk = [{}])", list(pk)?, list(sk)?));
        } else {
            match sk {
                Some(sk) => attrs.push(format!("{logical}(pk = {}, sk = {})", rust_str(pk), rust_str(sk))),
                None => attrs.push(format!("{logical}(pk = {})", rust_str(pk))),
            }
        }
    }
    attrs.extend(patterns.iter().map(|p| p.to_string()));
    o.push_str(&format!("/// `{}`: key `{}` / `{}`.\n", e.name, e.pk, e.sk));
    o.push_str("#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]\n#[entity(\n");
    for a in &attrs {
        o.push_str(&format!("    {a},\n"));
    }
    o.push_str(")]\n");
    o.push_str(&format!("pub struct {ty} {{\n"));
    for f in &e.fields {
        field_ident(e, f)?;
        if f.attr() != f.name {
            o.push_str(&format!("    #[serde(rename = {})]\n", rust_str(f.attr())));
        }
        o.push_str(&format!("    pub {}: {},\n", f.name, rust_type(e, f)?));
    }
    o.push_str("}\n\n");
    Ok(())
}

fn sort_word(op: SortOp) -> Option<&'static str> {
    Some(match op {
        SortOp::Eq => "sk",
        SortOp::BeginsWith => "begins_with",
        SortOp::Lt => "lt",
        SortOp::Le => "le",
        SortOp::Gt => "gt",
        SortOp::Ge => "ge",
        SortOp::Between => return None,
    })
}

fn op_variant(op: Operation) -> &'static str {
    match op {
        Operation::Get => "Get",
        Operation::Query => "Query",
        Operation::Put => "Put",
        Operation::Update => "Update",
        Operation::Delete => "Delete",
        Operation::TransactWrite => "TransactWrite",
        Operation::BatchGet => "BatchGet",
        Operation::BatchWrite => "BatchWrite",
    }
}

fn sort_variant(op: SortOp) -> &'static str {
    match op {
        SortOp::Eq => "Eq",
        SortOp::BeginsWith => "BeginsWith",
        SortOp::Between => "Between",
        SortOp::Lt => "Lt",
        SortOp::Le => "Le",
        SortOp::Gt => "Gt",
        SortOp::Ge => "Ge",
    }
}

/// `pattern(..)` for `#[entity(..)]` when the derive can declare `p` exactly as the design
/// has it (one entity type, not a collection, with a key, a sort operator the derive knows);
/// `None` leaves it to the table builder. (The derive's defaults are in
/// crates/derive-impl/src/pattern.rs.)
fn entity_pattern(
    design: &Design,
    p: &AccessPattern,
    es: &[&Entity],
) -> Result<Option<String>, CodegenError> {
    let ([e], false, Some(key)) = (es, p.collection, &p.key) else { return Ok(None) };
    let mut parts =
        vec![format!("name = {}", rust_str(&p.name)), super::operation_word(p.operation).to_string()];
    let default_pk = if p.index == TABLE {
        e.pk.clone()
    } else {
        let Some(k) = e.indexes.get(&p.index) else { return Ok(None) };
        if p.operation != Operation::Query || design.index(&p.index).is_none_or(|i| i.is_multi_key()) {
            return Ok(None);
        }
        parts.push(format!("index = {}", p.index.to_ascii_lowercase()));
        match &k.pk {
            Some(pk) => pk.clone(),
            None => return Ok(None),
        }
    };
    if key.pk != default_pk {
        parts.push(format!("pk = {}", rust_str(&key.pk)));
    }
    let single = matches!(
        p.operation,
        Operation::Get | Operation::Put | Operation::Update | Operation::Delete | Operation::TransactWrite
    );
    match &key.sk {
        // The derive would add the entity's sort key as an equality.
        None if single && p.index == TABLE => return Ok(None),
        None => {}
        Some(c) => {
            let Some(word) = sort_word(c.op) else { return Ok(None) };
            parts.push(format!("{word} = {}", rust_str(&c.value)));
        }
    }
    if p.scope == crate::model::Scope::Admin {
        parts.push("admin".into());
    }
    if !p.filter.is_empty() {
        let mut names = Vec::new();
        for attr in &p.filter {
            match e.fields.iter().find(|f| f.attr() == attr) {
                Some(f) => names.push(f.name.clone()),
                None => return Ok(None),
            }
        }
        parts.push(format!("filter({})", names.join(", ")));
    }
    Ok(Some(format!("pattern({})", parts.join(", "))))
}

/// The builder's `AccessPattern` expression for `p`.
fn builder_pattern(p: &AccessPattern) -> String {
    let index = if p.index == TABLE { "TABLE".to_string() } else { rust_str(&p.index) };
    let pk = p.key.as_ref().map_or("", |k| k.pk.as_str());
    let mut s = format!(
        "AccessPattern::new({}, Operation::{}, {index}, {})",
        rust_str(&p.name),
        op_variant(p.operation),
        rust_str(pk)
    );
    for e in &p.entities {
        s.push_str(&format!("\n                .of({})", rust_str(e)));
    }
    if let Some(c) = p.key.as_ref().and_then(|k| k.sk.as_ref()) {
        s.push_str(&format!(
            "\n                .sort(SortOp::{}, {})",
            sort_variant(c.op),
            rust_str(&c.value)
        ));
    }
    if p.scope == crate::model::Scope::Admin {
        s.push_str("\n                .admin()");
    }
    if p.collection {
        s.push_str("\n                .collection()");
    }
    for f in &p.filter {
        s.push_str(&format!("\n                .filter({})", rust_str(f)));
    }
    if p.key.is_none() {
        s = format!("{{\n                let mut p = {s};\n                p.key = None;\n                p\n            }}");
    }
    s
}

/// The `use` lines of what `body` names, so the module has no unused import.
fn imports(body: &str) -> String {
    let design: Vec<&str> = [
        ("AccessPattern", "AccessPattern::"),
        ("Operation", "Operation::"),
        ("SortOp", "SortOp::"),
        ("TABLE", ", TABLE,"),
    ]
    .into_iter()
    .filter(|(_, used)| body.contains(used))
    .map(|(name, _)| name)
    .collect();
    let mut out = String::new();
    if !design.is_empty() {
        out.push_str(&format!("use monotable::design::{{{}}};\n", design.join(", ")));
    }
    let collection = if body.contains("Collection)]") { "Collection, " } else { "" };
    out.push_str(&format!("use monotable::{{{collection}Conventions, CursorKey, Entity, Error, Table, TableName}};\nuse serde::{{Deserialize, Serialize}};\n\n"));
    out
}

fn table_fn(o: &mut String, design: &Design, upper: bool, gsis: &[u8], on_table: &[&AccessPattern]) {
    let c = &design.conventions;
    let preset = if upper { Conventions::upper() } else { Conventions::lower() };
    o.push_str("/// The table of this design: its conventions, GSIs, entity types and the access patterns\n/// not declared on an entity type. `monotable::design::assert_matches_file` holds for it.\npub async fn table(client: monotable::dynamodb::Client, name: TableName, cursor_key: CursorKey) -> Result<Table, Error> {\n");
    let conventions = if upper { "Conventions::upper()" } else { "Conventions::lower()" };
    if (&c.created, &c.updated, &c.created_by) == (&preset.created, &preset.updated, &preset.created_by) {
        o.push_str(&format!("    let conventions = {conventions};\n"));
    } else {
        o.push_str(&format!(
            "    let conventions = {conventions}.with_stamps({}, {}, {})?;\n",
            rust_str(c.created.as_deref().unwrap_or_default()),
            rust_str(c.updated.as_deref().unwrap_or_default()),
            rust_str(c.created_by.as_deref().unwrap_or_default())
        ));
    }
    o.push_str("    Table::builder(client)\n        .conventions(conventions)\n        .name(name)\n");
    for n in gsis {
        o.push_str(&format!("        .gsi({n})\n"));
    }
    for e in &design.entities {
        o.push_str(&format!("        .entity::<{}>()\n", pascal(&e.name)));
    }
    o.push_str(&format!(
        "        .design_names({}, {}, {})\n",
        rust_str(&design.app),
        rust_str(&design.unit),
        rust_str(&design.model)
    ));
    for p in on_table {
        o.push_str(&format!("        .access_pattern(\n            {},\n        )\n", builder_pattern(p)));
    }
    for a in &design.accept {
        o.push_str(&format!(
            "        .accept({}, {}, {})\n",
            rust_str(&a.rule),
            rust_str(&a.subject),
            rust_str(&a.reason)
        ));
    }
    o.push_str("        .cursor_key(cursor_key)\n        .build()\n        .await\n}\n");
}
