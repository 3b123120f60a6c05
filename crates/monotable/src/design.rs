//! The table's model as a design document: [`Table::design`] returns what the
//! code declares, and [`assert_matches_file`] keeps a checked-in design file equal to it so
//! code and design cannot drift (S22).

use std::collections::{BTreeMap, BTreeSet};

pub use monotable_design::{AccessPattern, Design, FieldType, Operation, Scope, SortOp, TABLE};
use monotable_design::{
    Entity, EntityIndexKey, Field, Index, IndexKind, KeyAttrs, KeyCondition, Projection, SortCondition,
    Tenant, TenantKind,
};

use serde_json::Value;

use crate::schema::{EntitySchema, PatternSchema};
use crate::table::Table;

impl Table {
    /// The design document of this table: conventions, declared GSIs (projecting all
    /// attributes), registered entity types and the access patterns given to the builder.
    /// Field types are given where the Rust type decides them (`String`, numbers, `bool`,
    /// sequences, maps, `DateTime`), and access patterns declared on entities follow the
    /// builder's.
    pub fn design(&self) -> Design {
        let inner = &self.inner;
        let conv = &inner.conv;
        let (app, unit, model) = inner.notes.names.clone().unwrap_or_default();
        let multi = self.multi_keys();
        let indexes = inner
            .gsis
            .iter()
            .map(|g| {
                // A multi-attribute key lists the fields' attributes.
                let (pk, sk) = match multi.get(g.as_str()) {
                    Some(m) => (
                        KeyAttrs(m.pk.iter().map(|f| f.attr.to_string()).collect()),
                        KeyAttrs(m.sk.iter().map(|f| f.attr.to_string()).collect()),
                    ),
                    None => (KeyAttrs::one(conv.index_pk(g)), KeyAttrs::one(conv.index_sk(g))),
                };
                Index {
                    name: conv.index_name(g),
                    kind: IndexKind::Gsi,
                    pk: Some(pk),
                    sk,
                    projection: Projection::All,
                }
            })
            .collect();
        Design {
            version: 1,
            app,
            unit,
            model,
            conventions: monotable_design::Conventions {
                pk: conv.pk.clone(),
                sk: conv.sk.clone(),
                entity_type: conv.entity_type.clone(),
                created: Some(conv.created.clone()),
                updated: Some(conv.updated.clone()),
                created_by: Some(conv.created_by.clone()),
                ttl: Some(conv.ttl.clone()),
            },
            table: Default::default(),
            indexes,
            entities: inner.entities.iter().map(|e| entity(self, e)).collect(),
            access_patterns: inner
                .notes
                .patterns
                .iter()
                .cloned()
                .chain(inner.entities.iter().flat_map(|e| e.patterns.iter().map(|p| pattern(self, e, p))))
                .collect(),
            accept: inner.notes.accept.clone(),
        }
    }
}

/// An access pattern declared on an entity, as the design document writes it.
fn pattern(table: &Table, e: &EntitySchema, p: &PatternSchema) -> AccessPattern {
    AccessPattern {
        name: p.name.into(),
        entities: vec![e.type_name.into()],
        index: p.index.map_or_else(|| TABLE.to_string(), |i| table.inner.conv.index_name(i)),
        operation: p.operation,
        key: Some(KeyCondition {
            pk: p.pk.into(),
            sk: p.sk.map(|(op, value)| SortCondition { op, value: value.into() }),
        }),
        scope: if p.admin { Scope::Admin } else { Scope::Tenant },
        collection: false,
        filter: p.filter.iter().map(|f| f.to_string()).collect(),
        order: None,
        order_by: None,
        reads: Vec::new(),
        max_items: None,
        limit: None,
    }
}

fn entity(table: &Table, e: &EntitySchema) -> Entity {
    let conv = &table.inner.conv;
    let field_of = |attr: &str| e.fields.iter().find(|f| f.attr == attr).map_or(attr, |f| f.name).to_string();
    let indexes: BTreeMap<String, EntityIndexKey> = e
        .indexes
        .iter()
        .map(|i| {
            let key =
                EntityIndexKey { pk: Some(i.pk.source.to_string()), sk: i.sk.map(|s| s.source.to_string()) };
            (conv.index_name(i.name), key)
        })
        .collect();
    Entity {
        name: e.type_name.into(),
        pk: e.pk.source.into(),
        sk: e.sk.source.into(),
        indexes,
        fields: e
            .fields
            .iter()
            .map(|f| Field {
                name: f.name.into(),
                attr: (f.attr != f.name).then(|| f.attr.into()),
                ty: f.ty,
                size: None,
            })
            .collect(),
        unique: e.unique.iter().map(|f| f.name.to_string()).collect(),
        ttl: e.ttl_attr.map(field_of),
        version_field: e.version_attr.map(field_of),
        tenant: e.tenant.map(|t| Tenant {
            field: t.into(),
            kind: if e.tenant_is_owner { TenantKind::Owner } else { TenantKind::Org },
        }),
        stamps: true,
        samples: Vec::new(),
        count: None,
    }
}

/// Panics unless the design file at `path` (JSON or YAML) describes the same model as
/// `table`: conventions, indexes, entity types, access patterns and accepted findings, and
/// every field type the file states agrees with the code's where the Rust type decides it
/// (by stored DynamoDB type: `string`, `enum` and `timestamp` are all strings). Samples, which
/// only the file holds, are not compared. The message lists only what differs, one line per
/// path (`entities[Record].sk: file "…", code "…"`). For tests.
///
/// With `MONOTABLE_DESIGN_UPDATE=1` in the environment it (re)writes the file as YAML from
/// the code instead (dropping samples and the field types code does not know), under the
/// file's schema modeline, or one for `./design.schema.json` beside it.
#[track_caller]
pub fn assert_matches_file(table: &Table, path: impl AsRef<std::path::Path>) {
    let path = path.as_ref();
    if std::env::var_os("MONOTABLE_DESIGN_UPDATE").is_some_and(|v| v == "1") {
        let previous = std::fs::read_to_string(path).ok();
        let text = rewritten(previous.as_deref(), &table.design());
        std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let file = Design::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let code = table.design();
    if file.code_view() != code.code_view() {
        let as_value = |d: &Design| serde_json::to_value(d.code_view()).unwrap_or_default();
        let mut lines = Vec::new();
        differences("", &as_value(&file), &as_value(&code), &mut lines);
        panic!(
            "{} differs from the code's model (MONOTABLE_DESIGN_UPDATE=1 rewrites it from the code):\n{}",
            path.display(),
            lines.join("\n")
        );
    }
    let mismatches = file.type_mismatches(&code);
    if !mismatches.is_empty() {
        panic!("{}: field types differ from the code's:\n{}", path.display(), mismatches.join("\n"));
    }
}

/// The design file rewritten from `code`: under the file's own schema modeline when its first
/// line is one (its path is the file's business), else under the one `monotable design new`
/// writes, `./design.schema.json` beside the file.
fn rewritten(previous: Option<&str>, code: &Design) -> String {
    let modeline = previous
        .and_then(|text| text.lines().next())
        .filter(|line| line.starts_with("# yaml-language-server:"))
        .unwrap_or("# yaml-language-server: $schema=./design.schema.json");
    format!("{modeline}\n{}", code.to_yaml())
}

/// Appends one line per path at which `file` and `code` differ, `  path: file X, code Y`
/// (`absent` where one side has nothing), and nothing for what agrees. Lists whose items all
/// have a `name` (entities, fields, indexes, access patterns) are matched by name, so an
/// entity that differs in one key is one line, not a shifted list.
fn differences(path: &str, file: &Value, code: &Value, out: &mut Vec<String>) {
    let mut pair = |at: String, f: Option<&Value>, c: Option<&Value>| match (f, c) {
        (Some(f), Some(c)) => differences(&at, f, c, out),
        _ => out.push(difference(&at, f, c)),
    };
    match (file, code) {
        (Value::Object(f), Value::Object(c)) => {
            let keys: BTreeSet<&String> = f.keys().chain(c.keys()).collect();
            for k in keys {
                let at = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                pair(at, f.get(k), c.get(k));
            }
        }
        (Value::Array(f), Value::Array(c)) if named(f) && named(c) => {
            let by_name = |items: &'_ [Value], n: &str| items.iter().find(|i| i["name"] == n).cloned();
            // Each name once, in the file's order and then the code's.
            let mut seen = BTreeSet::new();
            let names = f.iter().chain(c).filter_map(|i| i["name"].as_str());
            for n in names.filter(|n| seen.insert(*n)) {
                pair(format!("{path}[{n}]"), by_name(f, n).as_ref(), by_name(c, n).as_ref());
            }
        }
        _ if file != code => out.push(difference(path, Some(file), Some(code))),
        _ => {}
    }
}

/// Whether every item of a list has a string `name`.
fn named(items: &[Value]) -> bool {
    items.iter().all(|i| i["name"].is_string())
}

fn difference(path: &str, file: Option<&Value>, code: Option<&Value>) -> String {
    let show = |v: Option<&Value>| v.map_or_else(|| "absent".to_string(), Value::to_string);
    format!("  {path}: file {}, code {}", show(file), show(code))
}

impl crate::table::TableBuilder {
    /// Names the table in its design document: application, deployable unit and model, the
    /// parts of the SSM parameter path `/<app>/<stage>/<unit>/<model>-table-name` (S19).
    pub fn design_names(mut self, app: &str, unit: &str, model: &str) -> Self {
        self.notes.names = Some((app.into(), unit.into(), model.into()));
        self
    }

    /// Declares a named access pattern (S7, S9, S14), so [`Table::design`] lists it.
    pub fn access_pattern(mut self, pattern: AccessPattern) -> Self {
        self.notes.patterns.push(pattern);
        self
    }

    /// Accepts a design-lint finding (`rule` such as `MT004`, about `subject`) for a reason.
    pub fn accept(mut self, rule: &str, subject: &str, reason: &str) -> Self {
        self.notes.accept.push(monotable_design::Accept {
            rule: rule.into(),
            subject: subject.into(),
            reason: reason.into(),
        });
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_design_file_keeps_its_schema_modeline_or_gets_the_one_beside_it() {
        let code = Design::from_yaml(
            "version: 1\napp: a\nunit: u\nmodel: m\nconventions: {pk: pk, sk: sk, entity_type: entityType}\nentities: []\n",
        )
        .unwrap();
        let kept =
            rewritten(Some("# yaml-language-server: $schema=../schema/design.json\nversion: 0\n"), &code);
        assert!(
            kept.starts_with("# yaml-language-server: $schema=../schema/design.json\nversion: 1\n"),
            "{kept}"
        );
        for previous in [None, Some("version: 1\n")] {
            let fresh = rewritten(previous, &code);
            assert!(
                fresh.starts_with("# yaml-language-server: $schema=./design.schema.json\nversion: 1\n"),
                "{fresh}"
            );
        }
    }
}
