//! Key templates: MT003 (two entity types can produce the same key, or a sort-key prefix
//! reaches another type in a shared partition, S5), MT004 (hot partition), MT005 (sort key
//! without a type prefix).

use super::finding;
use crate::lint::Finding;
use crate::model::{Design, Entity, FieldType};
use crate::overlap::{prefix_reaches, templates_overlap};
use crate::template::Template;

/// Field names that usually take a handful of values.
const LOW_CARDINALITY: &[&str] = &[
    "status", "state", "type", "kind", "category", "role", "active", "enabled", "deleted", "flag", "priority",
];

pub(super) fn check(d: &Design, out: &mut Vec<Finding>) {
    overlaps(d, out);
    for e in &d.entities {
        hot(e, &e.name, &e.pk, out);
        prefix(&e.name, &e.sk, out);
        for (index, k) in &e.indexes {
            let subject = format!("{}.{index}", e.name);
            if let Some(pk) = &k.pk {
                hot(e, &subject, pk, out);
            }
            // A multi-attribute sort key holds the fields' own values: no room for a prefix.
            let multi = d.index(index).is_some_and(|i| i.is_multi_key());
            if let Some(sk) = k.sk.as_ref().filter(|_| !multi) {
                prefix(&subject, sk, out);
            }
        }
    }
}

fn overlaps(d: &Design, out: &mut Vec<Finding>) {
    let parsed: Vec<(&Entity, Template, Template)> = d
        .entities
        .iter()
        .filter_map(|e| Some((e, Template::parse(&e.pk).ok()?, Template::parse(&e.sk).ok()?)))
        .collect();
    for (i, (a, apk, ask)) in parsed.iter().enumerate() {
        for (b, bpk, bsk) in &parsed[i + 1..] {
            let subject = format!("{}+{}", a.name, b.name);
            if a.name == b.name {
                out.push(finding(
                    "MT003",
                    &subject,
                    format!("two entity types are named `{}`", a.name),
                    "rename one",
                ));
                continue;
            }
            if !templates_overlap(&apk.parts, &bpk.parts) {
                continue;
            }
            if templates_overlap(&ask.parts, &bsk.parts) {
                out.push(finding(
                    "MT003",
                    &subject,
                    format!(
                        "`{}` ({} / {}) and `{}` ({} / {}) can produce the same key",
                        a.name, a.pk, a.sk, b.name, b.pk, b.sk
                    ),
                    "give each entity type its own literal sort-key prefix",
                ));
            } else if prefix_reaches(&ask.literal_prefix(), &bsk.parts)
                || prefix_reaches(&bsk.literal_prefix(), &ask.parts)
            {
                out.push(finding(
                    "MT003",
                    &subject,
                    format!(
                        "the sort-key prefixes of `{}` (`{}`) and `{}` (`{}`) overlap in a shared partition",
                        a.name, a.sk, b.name, b.sk
                    ),
                    "end each type prefix with `#` (e.g. `POST#`), so listing one type cannot return another",
                ));
            }
        }
    }
}

fn hot(e: &Entity, subject: &str, pk: &str, out: &mut Vec<Finding>) {
    let Ok(t) = Template::parse(pk) else { return };
    let vars: Vec<&str> = t.vars().collect();
    let low = |v: &str| {
        LOW_CARDINALITY.contains(&v.to_ascii_lowercase().as_str())
            || e.field(v).and_then(|f| f.ty).is_some_and(|ty| matches!(ty, FieldType::Bool | FieldType::Enum))
    };
    let why = if vars.is_empty() {
        format!("partition key `{pk}` of `{subject}` is a constant: every item of the type lands in one partition")
    } else if vars.iter().all(|v| low(v)) {
        format!("partition key `{pk}` of `{subject}` takes only a few values ({})", vars.join(", "))
    } else {
        return;
    };
    out.push(finding(
        "MT004",
        subject,
        why,
        "add a high-cardinality variable; or shard writes (`USERS#{shard}` with a fixed shard count, query all shards); \
         or use a sparse index that holds only the items the listing needs; or accept it with a reason under `accept`",
    ));
}

fn prefix(subject: &str, sk: &str, out: &mut Vec<Finding>) {
    let Ok(t) = Template::parse(sk) else { return };
    if t.literal_prefix().is_empty() {
        out.push(finding(
            "MT005",
            subject,
            format!("sort key `{sk}` of `{subject}` starts with a value, not a type prefix"),
            "start the sort key with a literal type prefix such as `POST#`, so begins_with lists one type",
        ));
    }
}
