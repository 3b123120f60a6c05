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
        prefix(e, &e.name, &e.sk, out);
        for (index, k) in &e.indexes {
            let subject = format!("{}.{index}", e.name);
            if let Some(pk) = &k.pk {
                hot(e, &subject, pk, out);
            }
            // A multi-attribute sort key holds the fields' own values: no room for a prefix.
            let multi = d.index(index).is_some_and(|i| i.is_multi_key());
            if let Some(sk) = k.sk.as_ref().filter(|_| !multi) {
                prefix(e, &subject, sk, out);
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
                    &format!(
                        "give `{}` and `{}` each its own literal sort-key prefix, such as `{}…` and `{}…`",
                        a.name,
                        b.name,
                        type_prefix(a),
                        type_prefix(b)
                    ),
                ));
            } else {
                // Which type's prefix begins the other's sort keys.
                let reaching = [(a, ask, b, bsk), (b, bsk, a, ask)]
                    .into_iter()
                    .find(|(_, from, _, to)| prefix_reaches(&from.literal_prefix(), &to.parts));
                let Some((short, from, long, _)) = reaching else { continue };
                out.push(finding(
                    "MT003",
                    &subject,
                    format!(
                        "the sort-key prefixes of `{}` (`{}`) and `{}` (`{}`) overlap in a shared partition",
                        a.name, a.sk, b.name, b.sk
                    ),
                    &format!(
                        "`{}`'s prefix `{}` begins `{}`'s sort key `{}`: give each type a prefix ending in `#` \
                         that no other type's sort key begins with, so listing one type cannot return another",
                        short.name,
                        from.literal_prefix(),
                        long.name,
                        long.sk
                    ),
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
    let sharded = if pk.ends_with('#') { format!("{pk}{{shard}}") } else { format!("{pk}#{{shard}}") };
    out.push(finding(
        "MT004",
        subject,
        why,
        &format!(
            "add a high-cardinality variable; or shard writes (`{sharded}` with a fixed shard count, query all shards); \
             or use a sparse index that holds only the items the listing needs; or accept it with a reason under `accept`"
        ),
    ));
}

/// The type prefix a hint suggests for `e`: its name in capitals and `#` (`Post` → `POST#`).
fn type_prefix(e: &Entity) -> String {
    format!("{}#", e.name.to_uppercase())
}

fn prefix(e: &Entity, subject: &str, sk: &str, out: &mut Vec<Finding>) {
    let Ok(t) = Template::parse(sk) else { return };
    if t.literal_prefix().is_empty() {
        out.push(finding(
            "MT005",
            subject,
            format!("sort key `{sk}` of `{subject}` starts with a value, not a type prefix"),
            &format!(
                "start the sort key with a literal type prefix, such as `{}{sk}`, so begins_with lists one type",
                type_prefix(e)
            ),
        ));
    }
}
