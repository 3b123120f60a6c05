//! The names a SELECT's result attributes carry.
//!
//! A statement's select list is planned as a ProjectionExpression, which keeps a document
//! path's nesting (`m.nested` projects to `{"m": {"nested": v}}`). PartiQL instead names a
//! path in a SELECT list by its last step (the implicit alias: the PartiQL specification's
//! SELECT clause; partiql/partiql-scribe's test output
//! `src/test/resources/outputs/spark/basics/select.sql`, `select-05`, writes `SELECT T.d.e`
//! as `SELECT T.d.e AS e`), so `SELECT m.nested` answers `{"nested": v}`. The AWS page
//! "PartiQL select statements for DynamoDB" allows document paths in the select list but does
//! not show a result's names.
//! [`name_by_last_step`] reshapes each projected item accordingly, for ExecuteStatement,
//! BatchExecuteStatement and ExecuteTransaction alike.

use monotable_partiql::ast::{Path, Projection, Select, Statement, Step};
use monotable_types::{AttributeValue, Item};

use crate::api::SharedItem;

/// `item`, a projection of `statement`'s select list, with each path's value under its
/// PartiQL name:
/// - a top-level name keeps its attribute;
/// - a path whose steps are all names (`m.a.b`) becomes the top-level attribute named by its
///   last step (`b`); a path whose value is missing in the item gives no attribute, and of
///   two paths with the same last name the later in the select list wins;
/// - a path through a list index (`a[0]`, `m.list[1]`, `m.list[1].x`) keeps the projection's
///   nested form (its whole top-level attribute, as projected): no source records what
///   DynamoDB names it, and a projected list is renumbered, so the index no longer finds the
///   element in the projected item.
///
/// Anything but a SELECT of at least one nested path is returned untouched (a stored item
/// read whole then stays packed).
pub(super) fn name_by_last_step(statement: &Statement, item: SharedItem) -> SharedItem {
    let Statement::Select(Select { projection: Projection::Paths(paths), .. }) = statement else {
        return item;
    };
    if paths.iter().all(|p| p.steps.is_empty()) {
        return item;
    }
    let mut out = Item::new();
    for path in paths {
        let through_index = path.steps.iter().any(|s| matches!(s, Step::Index(_)));
        let named = match path.steps.last() {
            Some(Step::Field(last)) if !through_index => field_value(&item, path).map(|v| (last, v)),
            _ => item.get(&path.root).map(|v| (&path.root, v)),
        };
        if let Some((name, value)) = named {
            out.insert(name.as_str().into(), value.clone());
        }
    }
    SharedItem::from(out)
}

/// The value at `path` (names only) in `item`, if every step finds a map member.
fn field_value<'i>(item: &'i Item, path: &Path) -> Option<&'i AttributeValue> {
    let mut value = item.get(&path.root)?;
    for step in &path.steps {
        match (step, value) {
            (Step::Field(name), AttributeValue::M(map)) => value = map.get(name)?,
            _ => return None,
        }
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    fn select(text: &str) -> Statement {
        monotable_partiql::parse(text).expect("parses")
    }

    fn shaped(text: &str, item: Item) -> Item {
        name_by_last_step(&select(text), SharedItem::from(item)).into_item()
    }

    #[test]
    fn a_nested_path_is_named_by_its_last_step() {
        let projected = Item::from([
            ("a", s("top")),
            ("m", AttributeValue::M(Item::from([("n", AttributeValue::M(Item::from([("x", s("deep"))])))]))),
        ]);
        let out = shaped(r#"SELECT a, m.n.x FROM "T""#, projected);
        assert_eq!(out, Item::from([("a", s("top")), ("x", s("deep"))]));
    }

    #[test]
    fn a_missing_path_gives_no_attribute_and_the_later_of_two_names_wins() {
        let projected = Item::from([
            ("m", AttributeValue::M(Item::from([("v", s("from m"))]))),
            ("p", AttributeValue::M(Item::from([("v", s("from p"))]))),
        ]);
        let out = shaped(r#"SELECT m.v, p.v, q.gone FROM "T""#, projected);
        assert_eq!(out, Item::from([("v", s("from p"))]));
    }

    #[test]
    fn a_path_through_an_index_keeps_the_projected_nesting() {
        let list = AttributeValue::M(Item::from([("l", AttributeValue::L(vec![s("second")]))]));
        let out = shaped(r#"SELECT m.l[1] FROM "T""#, Item::from([("m", list.clone())]));
        assert_eq!(out, Item::from([("m", list)]));
    }
}
