//! MT010: every name a document uses is declared and every template parses.

use super::finding;
use crate::lint::Finding;
use crate::model::{Design, Entity, IndexKind, TABLE};
use crate::template::{Template, TemplateError};

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
                Err(err) => malformed(&e.name, err, out),
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
        // A partition key that does not parse is reported above, and only there.
        if let (Some(t), Ok(pk)) = (&e.tenant, Template::parse(&e.pk)) {
            if !pk.vars().any(|v| v == t.field) {
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
        let key = p.key.iter().flat_map(|k| [Some(&k.pk), k.sk.as_ref().map(|c| &c.value)]);
        for t in key.flatten() {
            if let Err(err) = Template::parse(t) {
                malformed(&p.name, err, out);
            }
        }
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

/// One finding per malformed template, saying where it breaks; every other check skips a
/// template that does not parse, so nothing else is reported because of it.
fn malformed(subject: &str, err: TemplateError, out: &mut Vec<Finding>) {
    out.push(finding(
        "MT010",
        subject,
        err.to_string(),
        "write literals and `{field}` placeholders, each placeholder followed by `#` or the end",
    ));
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
