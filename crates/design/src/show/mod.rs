//! Pictures of a design: the access-pattern table as Markdown, and the aggregate view (sample
//! items laid out by partition and sort key, for the table and each index, one colour per
//! entity type) as SVG or a standalone HTML page.

mod markdown;
mod svg;

pub use markdown::markdown;
pub use svg::{html, svg};

use crate::model::Entity;
use crate::template::{Part, Template};

/// Renders `template` for one sample item: placeholders take the sample's value, or `‹field›`.
pub(crate) fn render(template: &str, sample: Option<&std::collections::BTreeMap<String, String>>) -> String {
    let Ok(t) = Template::parse(template) else { return template.to_string() };
    t.parts
        .iter()
        .map(|p| match p {
            Part::Lit(l) => l.to_string(),
            Part::Var(v) => sample.and_then(|s| s.get(*v)).cloned().unwrap_or_else(|| format!("‹{v}›")),
        })
        .collect()
}

/// The sample items of an entity: its `samples`, or one item with placeholders shown.
pub(crate) fn samples(e: &Entity) -> Vec<Option<&std::collections::BTreeMap<String, String>>> {
    if e.samples.is_empty() {
        vec![None]
    } else {
        e.samples.iter().map(Some).collect()
    }
}
