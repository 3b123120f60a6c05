//! An access pattern resolved against its design: the entities, the key attributes, the
//! parsed templates and where each template field's value comes from (S12, S14).

use crate::model::{AccessPattern, Design, Entity, Field, Scope, SortOp, TenantKind};
use crate::template::Template;

use super::CodegenError;

/// Whose authority a pattern runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Authority {
    /// The caller's own items: the tenant field is the caller's user id.
    Owner,
    /// An organisation the caller holds: the tenant field is that organisation's id.
    Org,
    /// An administrator, across tenants (S14): every key field is a parameter.
    Admin,
}

/// A pattern ready for a generator.
pub struct Resolved<'a> {
    pub pattern: &'a AccessPattern,
    pub entities: Vec<&'a Entity>,
    /// `None` for the base table.
    pub index: Option<&'a str>,
    pub pk_attr: String,
    pub sk_attr: String,
    pub pk: Template<'a>,
    pub sk: Option<(SortOp, Template<'a>)>,
    pub authority: Authority,
    /// The tenant field the scope fills in (absent for admin patterns).
    pub tenant: Option<&'a str>,
}

impl Resolved<'_> {
    /// The template fields in order of first use, partition key first.
    pub fn vars(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for v in self.pk.vars().chain(self.sk.iter().flat_map(|(_, t)| t.vars())) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// The template fields the caller passes (all but the scope's tenant field).
    pub fn params(&self) -> Vec<&str> {
        self.vars().into_iter().filter(|v| Some(*v) != self.tenant).collect()
    }

    /// The field a template placeholder names (every placeholder has one: checked by
    /// [`resolve`]).
    pub fn field(&self, name: &str) -> Option<&Field> {
        field_of(&self.entities, name)
    }
}

/// Why a pattern is left out, or why the design is refused.
pub enum Problem {
    /// Bad input: the whole generation fails.
    Bad(CodegenError),
    /// A shape the generator does not write; the pattern is skipped with this reason.
    Skip(String),
}

impl From<CodegenError> for Problem {
    fn from(e: CodegenError) -> Problem {
        Problem::Bad(e)
    }
}

pub fn field_of<'a>(entities: &[&'a Entity], name: &str) -> Option<&'a Field> {
    entities.iter().find_map(|e| e.field(name))
}

pub fn template<'a>(source: &'a str) -> Result<Template<'a>, CodegenError> {
    Template::parse(source)
        .map_err(|e| CodegenError::Template(e.to_string().trim_start_matches("key template: ").into()))
}

/// The entity types a pattern names, each defined in the design.
pub fn entities<'a>(design: &'a Design, p: &AccessPattern) -> Result<Vec<&'a Entity>, CodegenError> {
    p.entities
        .iter()
        .map(|n| {
            design.entity(n).ok_or_else(|| CodegenError::Undefined {
                subject: p.name.clone(),
                what: format!("entity `{n}`"),
            })
        })
        .collect()
}

/// Resolves `p`. Patterns without a key, on a multi-attribute index, or whose tenant the
/// scope cannot supply are skipped; undefined names are errors.
pub fn resolve<'a>(design: &'a Design, p: &'a AccessPattern) -> Result<Resolved<'a>, Problem> {
    let entities = entities(design, p)?;
    if entities.is_empty() {
        return Err(Problem::Skip("it names no entity type".into()));
    }
    let Some(key) = &p.key else {
        return Err(Problem::Skip("it has no key condition (it would need a Scan, S9)".into()));
    };
    let index = (p.index != crate::model::TABLE).then_some(p.index.as_str());
    let Some((pk_attrs, sk_attrs)) = design.key_attrs(&p.index) else {
        return Err(CodegenError::Undefined {
            subject: p.name.clone(),
            what: format!("index `{}`", p.index),
        }
        .into());
    };
    let ([pk_attr], [sk_attr]) = (pk_attrs.as_slice(), sk_attrs.as_slice()) else {
        return Err(Problem::Skip(format!("index `{}` has a multi-attribute key", p.index)));
    };
    let pk = template(&key.pk)?;
    let sk = match &key.sk {
        None => None,
        Some(c) => Some((c.op, template(&c.value)?)),
    };
    for v in pk.vars().chain(sk.iter().flat_map(|(_, t)| t.vars())) {
        if field_of(&entities, v).is_none() {
            return Err(
                CodegenError::Undefined { subject: p.name.clone(), what: format!("field `{v}`") }.into()
            );
        }
    }
    let tenants: Vec<_> = entities.iter().map(|e| e.tenant.as_ref()).collect();
    let (authority, tenant) = match (p.scope, tenants[0]) {
        (Scope::Admin, _) => (Authority::Admin, None),
        // An entity type without a tenant is reachable only by administrators (model.rs).
        (Scope::Tenant, None) => (Authority::Admin, None),
        (Scope::Tenant, Some(t)) => {
            if tenants.iter().any(|o| o != &Some(t)) {
                return Err(Problem::Skip("its entity types have different tenant fields".into()));
            }
            if !pk.vars().any(|v| v == t.field) {
                return Err(Problem::Skip(format!(
                    "it is tenant-scoped but its partition key `{}` does not contain the tenant field `{}`",
                    key.pk, t.field
                )));
            }
            let a = match t.kind {
                TenantKind::Owner => Authority::Owner,
                TenantKind::Org => Authority::Org,
            };
            (a, Some(t.field.as_str()))
        }
    };
    Ok(Resolved {
        pattern: p,
        entities,
        index,
        pk_attr: pk_attr.clone(),
        sk_attr: sk_attr.clone(),
        pk,
        sk,
        authority,
        tenant,
    })
}
