//! MT008: DynamoDB's limits. Source: "Quotas in Amazon DynamoDB"
//! (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html>):
//! 20 GSIs and 5 LSIs per table, partition key values up to 2048 bytes and sort key values up
//! to 1024 bytes, at most 100 projected non-key attributes over all of a table's secondary
//! indexes, index names 3-255 characters of `a-z A-Z 0-9 _ - .`.

use super::finding;
use crate::lint::Finding;
use crate::model::{Design, IndexKind, Projection};
use crate::template::Template;

pub(super) fn check(d: &Design, out: &mut Vec<Finding>) {
    let count = |k| d.indexes.iter().filter(|i| i.kind == k).count();
    let (gsis, lsis) = (count(IndexKind::Gsi), count(IndexKind::Lsi));
    let hint = "stay within the DynamoDB quotas (Quotas in Amazon DynamoDB)";
    if gsis > 20 {
        out.push(finding(
            "MT008",
            "indexes",
            format!("{gsis} GSIs; a table has at most 20"),
            "overload GSIs: several entity types can share one",
        ));
    }
    if lsis > 5 {
        out.push(finding("MT008", "indexes", format!("{lsis} LSIs; a table has at most 5"), hint));
    }
    let projected: usize =
        d.indexes.iter().map(|i| if let Projection::Include(a) = &i.projection { a.len() } else { 0 }).sum();
    if projected > 100 {
        out.push(finding(
            "MT008",
            "indexes",
            format!("{projected} projected non-key attributes; at most 100 over all indexes"),
            "project ALL or KEYS_ONLY on some indexes",
        ));
    }
    for i in &d.indexes {
        let ok_chars = i.name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
        if !(3..=255).contains(&i.name.len()) || !ok_chars {
            out.push(finding(
                "MT008",
                &i.name,
                format!("index name `{}` must be 3-255 characters of a-z A-Z 0-9 _ - .", i.name),
                hint,
            ));
        }
    }
    for e in &d.entities {
        let mut keys = vec![(e.pk.as_str(), 2048), (e.sk.as_str(), 1024)];
        for k in e.indexes.values() {
            keys.extend(k.pk.as_deref().map(|p| (p, 2048)));
            keys.extend(k.sk.as_deref().map(|s| (s, 1024)));
        }
        for (t, max) in keys {
            if let Ok(p) = Template::parse(t) {
                if p.literal_len() > max {
                    out.push(finding(
                        "MT008",
                        &e.name,
                        format!(
                            "key template `{}…` has {} literal bytes; a key holds at most {max}",
                            &t[..16.min(t.len())],
                            p.literal_len()
                        ),
                        "shorten the literal parts of the key",
                    ));
                }
            }
        }
    }
}
