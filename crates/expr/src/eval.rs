//! Evaluation of resolved expressions.

use monotable_types::Item;

use crate::error::ExprError;
use crate::resolved::{ChangedAttributes, Condition, Projection, UpdatePlan};

impl Condition {
    /// Evaluates the condition against an item. Missing attributes and type mismatches make
    /// a comparison false rather than an error, as in DynamoDB.
    pub fn eval(&self, item: &Item) -> bool {
        let _ = item;
        false
    }
}

impl UpdatePlan {
    /// Applies the update to `item` in place, returning what changed. On error the item is
    /// left unchanged.
    pub fn apply(&self, item: &mut Item) -> Result<ChangedAttributes, ExprError> {
        let _ = item;
        Ok(ChangedAttributes::default())
    }
}

impl Projection {
    /// The projected item: only the listed paths, nested in the shape DynamoDB returns.
    pub fn apply(&self, item: &Item) -> Item {
        let _ = item;
        Item::new()
    }

    /// The distinct top-level attribute names the projection reads.
    pub fn top_level_attributes(&self) -> impl Iterator<Item = &str> {
        let mut seen = std::collections::BTreeSet::new();
        self.paths.iter().filter_map(move |p| match p.first() {
            Some(crate::resolved::PathElement::Attribute(a)) if seen.insert(a.as_str()) => Some(a.as_str()),
            _ => None,
        })
    }
}
