//! Conventions: MT006 (one naming preset per table, S2) and MT007 (stamps on every write, S4).

use super::finding;
use crate::lint::Finding;
use crate::model::{Design, IndexKind};

fn upper_initial(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

fn all_upper(s: &str) -> bool {
    !s.chars().any(|c| c.is_ascii_lowercase())
}

fn all_lower(s: &str) -> bool {
    !s.chars().any(|c| c.is_ascii_uppercase())
}

pub(super) fn check(d: &Design, out: &mut Vec<Finding>) {
    let c = &d.conventions;
    let upper = upper_initial(&c.pk);
    let preset = if upper {
        "upper preset (PK, SK, EntityType, GSI1PK, CreatedAt)"
    } else {
        "lower preset (pk, sk, entityType, gsi1pk, createdOn)"
    };
    let hint = format!("`{}` chooses the {preset}: use it throughout", c.pk);
    let mut mixed = |what: String| out.push(finding("MT006", "conventions", what, &hint));
    if upper_initial(&c.sk) != upper || upper_initial(&c.entity_type) != upper {
        mixed(format!("`{}`, `{}` and `{}` mix the upper and lower presets", c.pk, c.sk, c.entity_type));
    }
    let stamps =
        [&c.created, &c.updated].map(|s| s.as_deref().map(|s| s.chars().rev().take(2).collect::<String>()));
    if let [Some(a), Some(b)] = &stamps {
        if a != b {
            mixed(
                "the created and updated timestamps use different suffixes (one convention per table)".into(),
            );
        }
    }
    for i in &d.indexes {
        let mut names = vec![i.name.as_str()];
        // A multi-attribute key is made of the entities' own attributes, named as fields are.
        if !i.is_multi_key() {
            names.extend(i.sk.names().iter().map(String::as_str));
        }
        if i.kind == IndexKind::Gsi && !i.is_multi_key() {
            names.extend(i.pk.iter().flat_map(|k| k.names()).map(String::as_str));
        }
        let consistent = names.iter().all(|n| if upper { all_upper(n) } else { all_lower(n) });
        if !consistent {
            mixed(format!(
                "index `{}` does not follow the table's {} preset",
                i.name,
                if upper { "upper" } else { "lower" }
            ));
        }
    }
    let missing: Vec<&str> =
        [("created", &c.created), ("updated", &c.updated), ("created_by", &c.created_by)]
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(n, _)| *n)
            .collect();
    let stamp_hint =
        "name the created, updated and created-by attributes in `conventions` and keep `stamps` on";
    if !missing.is_empty() {
        out.push(finding(
            "MT007",
            "conventions",
            format!("no {} stamp attribute", missing.join(", ")),
            stamp_hint,
        ));
    }
    for e in d.entities.iter().filter(|e| !e.stamps) {
        out.push(finding(
            "MT007",
            &e.name,
            format!("`{}` is written without created/updated/created-by stamps", e.name),
            stamp_hint,
        ));
    }
}
