//! Key rendering as the library does it (`monotable_design::escape`), and an item's key on an index.

use std::collections::BTreeMap;

use monotable_design::{escape, Design, Part, Template};
use monotable_types::{AttributeValue, Item};

/// `template` with each placeholder replaced by the escaped value of that field; `None` when
/// a placeholder has no value or the template is malformed.
pub(crate) fn render(template: &str, values: &BTreeMap<String, String>) -> Option<String> {
    let t = Template::parse(template).ok()?;
    let mut out = String::new();
    for p in &t.parts {
        match p {
            Part::Lit(l) => out.push_str(l),
            Part::Var(v) => out.push_str(&escape(values.get(*v)?)),
        }
    }
    Some(out)
}

/// The placeholders of `template` (none when it is malformed).
pub(crate) fn vars(template: &str) -> Vec<String> {
    Template::parse(template).map(|t| t.vars().map(str::to_string).collect()).unwrap_or_default()
}

/// The key an item has on `index` (`table` or an index name): its partition-key and sort-key
/// attribute values, several for a multi-attribute GSI key. `None` when the item lacks one of
/// them, that is when it is not in the index (a sparse index).
pub(crate) fn key_on(
    design: &Design,
    index: &str,
    item: &Item,
) -> Option<(Vec<AttributeValue>, Vec<AttributeValue>)> {
    let (pk, sk) = design.key_attrs(index)?;
    let get = |names: &[String]| names.iter().map(|n| item.get(n).cloned()).collect::<Option<Vec<_>>>();
    Some((get(&pk)?, get(&sk)?))
}

/// The table key of an item as text, `(pk, sk)`; the table's keys are rendered strings.
pub(crate) fn table_key(design: &Design, item: &Item) -> (String, String) {
    let text = |a: &str| item.get(a).and_then(AttributeValue::as_s).unwrap_or_default().to_string();
    (text(&design.conventions.pk), text(&design.conventions.sk))
}
