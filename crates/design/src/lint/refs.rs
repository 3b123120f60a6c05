//! MT010: every name a document uses is declared and every template parses.

use super::finding;
use crate::lint::Finding;
use crate::model::{Design, Entity, IndexKind, TABLE};
use crate::template::Template;

const HINT: &str = "declare the entity, index or field, or fix the name";

pub(super) fn check(d: &Design, out: &mut Vec<Finding>) {
    for e in &d.entities {
        let mut templates: Vec<&str> = vec![&e.pk, &e.sk];
        for (name, k) in &e.indexes {
            templates.extend(k.pk.as_deref());
            templates.extend(k.sk.as_deref());
            match d.index(name) {
                None => out.push(finding(
                    "MT010",
                    &e.name,
                    format!("`{}` uses index `{name}` which is not declared", e.name),
                    HINT,
                )),
                Some(i) if i.kind == IndexKind::Gsi && k.pk.is_none() => out.push(finding(
                    "MT010",
                    &e.name,
                    format!("`{}` gives GSI `{name}` no partition-key template", e.name),
                    "a GSI needs its own partition-key template",
                )),
                Some(_) => {}
            }
        }
        for t in templates {
            match Template::parse(t) {
                Err(err) => out.push(finding(
                    "MT010",
                    &e.name,
                    err.to_string(),
                    "write literals and `{field}` placeholders separated by `#`",
                )),
                Ok(t) => {
                    for v in t.vars() {
                        if !e.fields.is_empty() && e.field(v).is_none() {
                            out.push(finding(
                                "MT010",
                                &e.name,
                                format!(
                                    "template `{}` names field `{v}` which `{}` does not have",
                                    t.source, e.name
                                ),
                                HINT,
                            ));
                        }
                    }
                }
            }
        }
        field_roles(e, out);
        if let Some(t) = &e.tenant {
            let in_pk = Template::parse(&e.pk).map(|p| p.vars().any(|v| v == t.field)).unwrap_or(false);
            if !in_pk {
                out.push(finding(
                    "MT010",
                    &e.name,
                    format!("tenant field `{}` of `{}` is not in its partition key", t.field, e.name),
                    "put the tenant in the partition-key template (S12)",
                ));
            }
        }
    }
    for p in &d.access_patterns {
        if p.index != TABLE && d.index(&p.index).is_none() {
            out.push(finding(
                "MT010",
                &p.name,
                format!("pattern `{}` uses index `{}` which is not declared", p.name, p.index),
                HINT,
            ));
        }
        for e in &p.entities {
            if d.entity(e).is_none() {
                out.push(finding(
                    "MT010",
                    &p.name,
                    format!("pattern `{}` names entity `{e}` which is not declared", p.name),
                    HINT,
                ));
            }
        }
    }
}

/// The fields an entity gives a role by name (`unique`, `ttl`, `version_field`) must be among
/// its `fields`. As
/// for templates, an entity that lists no fields is not checked: its fields are not declared.
fn field_roles(e: &Entity, out: &mut Vec<Finding>) {
    if e.fields.is_empty() {
        return;
    }
    let roles = e.unique.iter().map(|f| ("unique", f));
    let roles = roles.chain(e.ttl.iter().map(|f| ("ttl", f)));
    let roles = roles.chain(e.version_field.iter().map(|f| ("version", f)));
    for (role, name) in roles {
        if e.field(name).is_none() {
            out.push(finding(
                "MT010",
                &e.name,
                format!("{role} field `{name}` is not a field of `{}`", e.name),
                "declare the field under `fields`, or fix the name",
            ));
        }
    }
}
