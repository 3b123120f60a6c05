//! Access patterns against indexes and entities: MT001 (index serving no pattern, S7), MT002
//! (pattern no key serves, S9), MT009 (filter on a key attribute), MT012 (tenant-scoped pattern
//! on an entity without a tenant, S12, S14).

use super::finding;
use crate::lint::Finding;
use crate::model::{AccessPattern, Design, Operation, Scope, SortOp, TABLE};
use crate::template::Template;

pub(super) fn check(d: &Design, out: &mut Vec<Finding>) {
    for i in &d.indexes {
        if !d.access_patterns.iter().any(|p| p.index == i.name) {
            out.push(finding(
                "MT001",
                &i.name,
                format!("index `{}` serves no access pattern", i.name),
                "remove the index, or name the access pattern it exists for (S7)",
            ));
        }
    }
    for p in &d.access_patterns {
        if let Some(why) = unserved(d, p) {
            out.push(finding(
                "MT002",
                &p.name,
                format!("no key serves `{}`: {why}; it would need a Scan", p.name),
                "add a GSI whose partition key is this pattern's equality, or store the items under one partition (S9)",
            ));
        }
        filter_on_key(d, p, out);
        tenant_scope(d, p, out);
    }
}

/// A tenant-scoped pattern runs in a scope that fills in the tenant field (S12): an entity
/// without one is reachable only by administrators (S14).
fn tenant_scope(d: &Design, p: &AccessPattern, out: &mut Vec<Finding>) {
    if p.scope != Scope::Tenant {
        return;
    }
    for e in p.entities.iter().filter_map(|name| d.entity(name)).filter(|e| e.tenant.is_none()) {
        out.push(finding(
            "MT012",
            &p.name,
            format!("`{}` is tenant-scoped, but `{}` has no tenant field", p.name, e.name),
            &format!("give `{}` a `tenant` (S12), or make `{}` `scope: admin` (S14)", e.name, p.name),
        ));
    }
}

/// Why no key serves `p`, or `None` if one does.
fn unserved(d: &Design, p: &AccessPattern) -> Option<String> {
    let Some(key) = &p.key else { return Some("it has no key condition".into()) };
    if p.entities.is_empty() {
        return Some("it names no entity type".into());
    }
    // A template that does not parse is MT010's alone: no judgement is made on it.
    let parses = |t: Option<&str>| t.is_none_or(|t| Template::parse(t).is_ok());
    if !parses(Some(&key.pk)) || !parses(key.sk.as_ref().map(|c| c.value.as_str())) {
        return None;
    }
    for name in &p.entities {
        let e = d.entity(name)?;
        let Some((pk, sk)) = d.entity_keys(e, &p.index) else {
            return Some(format!("`{name}` has no key on `{}`", p.index));
        };
        if !parses(Some(pk)) || !parses(sk) {
            return None;
        }
        if pk != key.pk {
            return Some(format!("`{name}` is keyed `{pk}` on `{}`, not `{}`", p.index, key.pk));
        }
        if let Some(cond) = &key.sk {
            let Some(sk) = sk else { return Some(format!("`{}` has no sort key for `{name}`", p.index)) };
            let prefix = cond.value.split('{').next().unwrap_or_default();
            let reach = Template::parse(sk)
                .map(|t| crate::overlap::prefix_reaches(prefix, &t.parts))
                .unwrap_or(false);
            if cond.op == SortOp::BeginsWith && !reach {
                return Some(format!("`{}` cannot begin `{name}`'s sort key `{sk}`", cond.value));
            }
        }
        if p.operation == Operation::Get
            && (p.index != TABLE || key.sk.as_ref().is_some_and(|c| c.op != SortOp::Eq))
        {
            return Some("GetItem needs the full primary key of the table".into());
        }
    }
    None
}

fn filter_on_key(d: &Design, p: &AccessPattern, out: &mut Vec<Finding>) {
    let Some((pk_attr, sk_attr)) = d.key_attrs(&p.index) else { return };
    for f in &p.filter {
        let mut is_key = pk_attr.contains(f) || sk_attr.contains(f);
        for name in &p.entities {
            let Some(e) = d.entity(name) else { continue };
            let Some((pk, sk)) = d.entity_keys(e, &p.index) else { continue };
            for t in [Some(pk), sk].into_iter().flatten() {
                if let Ok(t) = Template::parse(t) {
                    is_key |= t.vars().any(|v| v == f || e.field(v).is_some_and(|x| x.attr() == f));
                }
            }
        }
        if is_key {
            out.push(finding(
                "MT009",
                &p.name,
                format!("`{}` filters on `{f}`, which is part of the key of `{}`", p.name, p.index),
                "express it in the key condition (equality on the partition key, begins_with or a range on the sort key)",
            ));
        }
    }
}
