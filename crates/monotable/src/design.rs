//! The table's model as a design document: [`Table::design`] returns what the
//! code declares, and [`assert_matches_file`] keeps a checked-in design file equal to it so
//! code and design cannot drift (S22).

use std::collections::BTreeMap;

pub use monotable_design::{AccessPattern, Design, FieldType, Operation, Scope, SortOp, TABLE};
use monotable_design::{
    Entity, EntityIndexKey, Field, Index, IndexKind, KeyAttrs, KeyCondition, Projection, SortCondition,
    Tenant, TenantKind,
};

use crate::schema::{EntitySchema, PatternSchema};
use crate::table::Table;

/// What the builder was told for the design document beyond the entity types.
#[derive(Debug, Clone, Default)]
pub(crate) struct DesignNotes {
    pub names: Option<(String, String, String)>,
    pub patterns: Vec<AccessPattern>,
    pub accept: Vec<monotable_design::Accept>,
}

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
/// only the file holds, are not compared. For tests.
///
/// With `MONOTABLE_DESIGN_UPDATE=1` in the environment it (re)writes the file as YAML from
/// the code instead (dropping samples and the field types code does not know).
#[track_caller]
pub fn assert_matches_file(table: &Table, path: impl AsRef<std::path::Path>) {
    let path = path.as_ref();
    if std::env::var_os("MONOTABLE_DESIGN_UPDATE").is_some_and(|v| v == "1") {
        let header = "# yaml-language-server: $schema=../../docs/design.schema.json\n";
        let text = format!("{header}{}", table.design().to_yaml());
        std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let file = Design::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let code = table.design();
    if file.code_view() != code.code_view() {
        panic!("{} differs from the code's model; the code's design is:\n{}", path.display(), code.to_yaml());
    }
    let mismatches = file.type_mismatches(&code);
    if !mismatches.is_empty() {
        panic!("{}: field types differ from the code's:\n{}", path.display(), mismatches.join("\n"));
    }
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
