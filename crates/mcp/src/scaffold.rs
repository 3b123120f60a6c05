//! `design_new`: a design from a list of entity types and access patterns, shaped as
//! `monotable design new` shapes its starting design (lower-case conventions, string fields,
//! timestamps), ready for `design_check`.

use monotable_design::{
    AccessPattern, Conventions, Design, Entity, Field, FieldType, Operation, SortOp, Template, Tenant,
    TenantKind, TABLE,
};

use crate::error::ToolError;
use crate::inputs::{New, NewEntity, NewOperation};

fn entity(e: &NewEntity) -> Result<Entity, ToolError> {
    let mut names: Vec<String> = e.fields.clone();
    let mut first_placeholder = None;
    for source in [&e.pk, &e.sk] {
        let template = Template::parse(source)
            .map_err(|err| ToolError::bad(format!("entity {}: key template {source:?}: {err}", e.name)))?;
        for name in template.vars() {
            first_placeholder.get_or_insert_with(|| name.to_string());
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    let fields = names
        .into_iter()
        .map(|name| Field { name, attr: None, ty: Some(FieldType::String), size: None })
        .collect();
    Ok(Entity {
        name: e.name.clone(),
        pk: e.pk.clone(),
        sk: e.sk.clone(),
        indexes: Default::default(),
        fields,
        unique: Vec::new(),
        ttl: None,
        version_field: None,
        tenant: e.tenant.clone().or(first_placeholder).map(|field| Tenant { field, kind: TenantKind::Org }),
        stamps: true,
        samples: Vec::new(),
        count: None,
    })
}

/// The scaffold's design.
pub(crate) fn design(input: &New) -> Result<Design, ToolError> {
    if input.entities.is_empty() {
        return Err(ToolError::bad("`entities` is empty: name at least one entity type with its pk and sk"));
    }
    let entities = input.entities.iter().map(entity).collect::<Result<Vec<_>, _>>()?;
    let mut patterns = Vec::new();
    for p in &input.access_patterns {
        let Some(e) = entities.iter().find(|e| e.name == p.entity) else {
            return Err(ToolError::bad(format!(
                "access pattern {}: no entity type {:?} among `entities`",
                p.name, p.entity
            )));
        };
        patterns.push(match p.operation {
            NewOperation::Get => AccessPattern::get(&p.name, &e.name, &e.pk, &e.sk),
            NewOperation::Query => {
                let prefix = match &p.sk_prefix {
                    Some(prefix) => prefix.clone(),
                    None => Template::parse(&e.sk).map(|t| t.literal_prefix()).unwrap_or_default(),
                };
                AccessPattern::query(&p.name, TABLE, &e.pk).of(&e.name).sort(SortOp::BeginsWith, &prefix)
            }
            NewOperation::Put => AccessPattern::write(&p.name, Operation::Put, &e.name, &e.pk, &e.sk),
            NewOperation::Update => AccessPattern::write(&p.name, Operation::Update, &e.name, &e.pk, &e.sk),
            NewOperation::Delete => AccessPattern::write(&p.name, Operation::Delete, &e.name, &e.pk, &e.sk),
        });
    }
    Ok(Design {
        version: 1,
        app: input.app.clone(),
        unit: input.unit.clone(),
        model: input.model.clone(),
        conventions: Conventions::lower(),
        table: Default::default(),
        indexes: Vec::new(),
        entities,
        access_patterns: patterns,
        accept: Vec::new(),
    })
}
