//! Multi-attribute GSI keys (DynamoDB, November 2025): MT008 for their limits, MT010 for
//! entities whose templates cannot fill them, MT011 for a single-attribute GSI key that only
//! concatenates fields and would be better as one.
//!
//! A GSI's partition key and sort key may each be up to four attributes; base tables and LSIs
//! keep one of each ("Multi-attribute keys", DynamoDB developer guide,
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html>).
//! Such an index keys on the items' own attributes, so an entity's template on it is the list
//! of its fields in key order, `{org_id}#{status}`, one placeholder per attribute and no
//! literal, each field stored under the index's attribute name.

use super::finding;
use crate::lint::Finding;
use crate::model::{Design, IndexKind, KeyAttrs};
use crate::template::{Part, Template};

/// The most attributes of one part (partition or sort) of a multi-attribute GSI key.
const MAX_KEY_ATTRIBUTES: usize = 4;

pub(super) fn check(d: &Design, out: &mut Vec<Finding>) {
    concatenations(d, out);
    for i in &d.indexes {
        let parts = [("partition", i.pk.as_ref()), ("sort", Some(&i.sk))];
        for (part, k) in parts {
            let Some(k) = k else { continue };
            if k.names().is_empty() || k.names().len() > MAX_KEY_ATTRIBUTES {
                out.push(finding(
                    "MT008",
                    &i.name,
                    format!(
                        "the {part} key of `{}` has {} attributes; 1 to 4 are allowed",
                        i.name,
                        k.names().len()
                    ),
                    "a multi-attribute GSI key has up to four partition and four sort attributes",
                ));
            }
        }
        if i.kind == IndexKind::Lsi && (i.sk.is_multi() || i.pk.is_some()) {
            out.push(finding(
                "MT008",
                &i.name,
                format!(
                    "LSI `{}` has a multi-attribute or own partition key; an LSI has one sort attribute",
                    i.name
                ),
                "use a GSI for a multi-attribute key",
            ));
        }
    }
    for e in &d.entities {
        for (name, k) in &e.indexes {
            let Some(i) = d.index(name).filter(|i| i.kind == IndexKind::Gsi) else { continue };
            if !i.is_multi_key() {
                continue;
            }
            let parts = [(i.pk.as_ref(), k.pk.as_deref()), (Some(&i.sk), k.sk.as_deref())];
            for (attrs, template) in parts {
                let (Some(attrs), Some(template)) = (attrs, template) else { continue };
                if let Some(why) = mismatch(e, attrs, template) {
                    // The fields stored under the attributes (a field named as the attribute
                    // when none is).
                    let fields: Vec<String> = attrs
                        .names()
                        .iter()
                        .map(|a| {
                            format!("{{{}}}", e.fields.iter().find(|f| f.attr() == a).map_or(a, |f| &f.name))
                        })
                        .collect();
                    out.push(finding(
                        "MT010",
                        &format!("{}.{name}", e.name),
                        format!(
                            "`{template}` cannot fill the multi-attribute key ({attrs}) of `{name}`: {why}"
                        ),
                        &format!(
                            "list the fields stored under the index's attributes, in key order: `{}`",
                            fields.join("#")
                        ),
                    ));
                }
            }
        }
    }
}

/// MT011: a template on a single-attribute GSI that joins two or more fields, on an index no
/// other entity type shares (so no type prefix has to tell them apart). A multi-attribute key
/// stores the fields as themselves: no key string to build at write time, typed values, and
/// left-to-right sort conditions on each field.
fn concatenations(d: &Design, out: &mut Vec<Finding>) {
    for e in &d.entities {
        for (name, k) in &e.indexes {
            let single_gsi = d.index(name).is_some_and(|i| i.kind == IndexKind::Gsi && !i.is_multi_key());
            if !single_gsi {
                continue;
            }
            let shared = d.entities.iter().any(|o| o.name != e.name && o.indexes.contains_key(name));
            if shared {
                continue;
            }
            for (part, template) in [("partition", k.pk.as_deref()), ("sort", k.sk.as_deref())] {
                let Some(t) = template.and_then(|t| Template::parse(t).ok()) else { continue };
                let fields: Vec<&str> = t.vars().collect();
                if fields.len() >= 2 {
                    out.push(finding(
                        "MT011",
                        &format!("{}.{name}", e.name),
                        format!(
                            "the {part} key `{}` of `{}` on `{name}` only joins the fields {}",
                            t.source,
                            e.name,
                            fields.join(", ")
                        ),
                        "make it a multi-attribute key (a list of the fields' attributes) so DynamoDB keys on the values themselves; or accept it with a reason",
                    ));
                }
            }
        }
    }
}

/// Why `template` does not list, in order, the fields stored under `attrs`.
fn mismatch(e: &crate::model::Entity, attrs: &KeyAttrs, template: &str) -> Option<String> {
    let t = Template::parse(template).ok()?;
    let vars: Vec<&str> =
        t.parts.iter().filter_map(|p| if let Part::Var(v) = p { Some(*v) } else { None }).collect();
    let literal = t.parts.iter().any(|p| matches!(p, Part::Lit(l) if *l != "#"));
    if literal {
        return Some("it has literal text; the index keys on the fields' own values".into());
    }
    if vars.len() != attrs.names().len() {
        return Some(format!("{} fields for {} attributes", vars.len(), attrs.names().len()));
    }
    for (v, a) in vars.iter().zip(attrs.names()) {
        let stored = e.field(v).map_or(*v, |f| f.attr());
        if stored != a {
            return Some(format!("field `{v}` is stored as `{stored}`, not `{a}`"));
        }
    }
    None
}
