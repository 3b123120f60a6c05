//! Reads of a secondary index that name attributes the index does not project.
//!
//! Two refusals, both `ValidationException`s prefixed "One or more parameter values were
//! invalid: ":
//!
//! * **A filter on an index whose projection is not `ALL`** that reads a top-level attribute
//!   the index does not hold: "Secondary index X does not project one or more filter
//!   attributes: [a, b]" (neither "Global" nor "Local": both kinds). Query lists the names
//!   sorted; a PartiQL SELECT that runs as a Query lists them in the order of a Java `HashSet`
//!   (see [`java_hash_set_order`]). Sources: DynamoDB Local's `QueryFunction`
//!   (`validateQueryFilterAndFilterExprOnIndex`: the filter's top-level names minus the
//!   projection's `NonKeyAttributes` and the table key, sorted), user reports of the message
//!   from DynamoDB itself ("Secondary index bySkill does not project one or more filter
//!   attributes: [owner]"), and PartiQL suites recorded against DynamoDB
//!   (`b='1' AND (a='2' OR projattr='3')` → `[a, b]`; `(zz='1' OR aa='2' OR mm='3')` →
//!   `[zz, aa, mm]`, which is neither sorted nor in statement order but is a `HashSet`'s order).
//!   A Scan, or a PartiQL SELECT that runs as one, is not refused.
//! * **A projection on a global index whose projection is not `ALL`** naming an attribute the
//!   index does not hold: "Global secondary index X does not project [a]", names in `HashSet`
//!   order ("If you query or scan a global secondary index, you can only request attributes
//!   that are projected into the index", API_Query `Select`; the text from DynamoDB Local's
//!   `validateAttributesToGetAndProjExpr` and PartiQL suites). A local index fetches such
//!   attributes from the table instead (see `read::needs_base_item`). Not checked with
//!   `Select=COUNT`, as DynamoDB Local does not.

use monotable_expr::{Condition, Path, PathElement};

use crate::table::{Index, KeySchema, ProjectionKind};
use crate::Error;

const INVALID: &str = "One or more parameter values were invalid: ";

/// The order in which a `java.util.HashSet<String>` holding `names` (added in this order)
/// iterates: by bucket (the spread `String.hashCode()` masked by the table size: 16, doubled
/// whenever the set grows past three quarters of it), and within a bucket in insertion order,
/// which resizing preserves. It does not model a bucket of eight or more colliding names
/// (Java then converts the bucket or grows the table early); attribute lists never get there.
pub(crate) fn java_hash_set_order(names: &[&str]) -> Vec<String> {
    let mut unique: Vec<&str> = Vec::with_capacity(names.len());
    for n in names {
        if !unique.contains(n) {
            unique.push(n);
        }
    }
    let mut capacity: u32 = 16;
    while unique.len() as u64 * 4 > u64::from(capacity) * 3 {
        capacity = capacity.saturating_mul(2);
    }
    let bucket = |s: &str| {
        let h = s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c))) as u32;
        (h ^ (h >> 16)) & (capacity - 1)
    };
    let mut ordered: Vec<(u32, usize, &str)> =
        unique.iter().enumerate().map(|(i, n)| (bucket(n), i, *n)).collect();
    ordered.sort_unstable();
    ordered.into_iter().map(|(_, _, n)| n.to_string()).collect()
}

/// The top-level attribute names of `paths`, in first-appearance order, each once.
fn roots<'p>(paths: impl IntoIterator<Item = &'p Path>) -> Vec<&'p str> {
    let mut out: Vec<&str> = Vec::new();
    for p in paths {
        if let Some(PathElement::Attribute(name)) = p.first() {
            if !out.contains(&name.as_str()) {
                out.push(name);
            }
        }
    }
    out
}

/// How a refusal lists attribute names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NameOrder {
    /// Sorted bytewise (Query's filter check).
    Sorted,
    /// A Java `HashSet`'s order (projections, and PartiQL's filter check).
    JavaHashSet,
}

fn listed(mut names: Vec<&str>, order: NameOrder) -> String {
    let names = match order {
        NameOrder::Sorted => {
            names.sort_unstable();
            names.into_iter().map(str::to_string).collect()
        }
        NameOrder::JavaHashSet => java_hash_set_order(&names),
    };
    format!("[{}]", names.join(", "))
}

/// The names of `names` that `index` does not hold, in their order; empty for an ALL index.
fn unprojected<'n>(index: &Index, table_key: &KeySchema, names: Vec<&'n str>) -> Vec<&'n str> {
    if index.projection == ProjectionKind::All {
        return Vec::new();
    }
    names.into_iter().filter(|n| !index.holds(table_key, n)).collect()
}

/// Refuses a filter (its top-level attribute names) that reads what `index` does not project.
pub(crate) fn check_filter_names(
    index: &Index,
    table_key: &KeySchema,
    names: Vec<&str>,
    order: NameOrder,
) -> Result<(), Error> {
    let missing = unprojected(index, table_key, names);
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::validation(format!(
        "{INVALID}Secondary index {} does not project one or more filter attributes: {}",
        index.name,
        listed(missing, order)
    )))
}

/// Query's filter check (names sorted).
pub(crate) fn check_query_filter(
    index: Option<&Index>,
    table_key: &KeySchema,
    filter: Option<&Condition>,
) -> Result<(), Error> {
    match (index, filter) {
        (Some(index), Some(filter)) => {
            check_filter_names(index, table_key, roots(filter.paths()), NameOrder::Sorted)
        }
        _ => Ok(()),
    }
}

/// Refuses projected names (top-level) that a global `index` does not project.
pub(crate) fn check_projection_names(
    index: &Index,
    table_key: &KeySchema,
    names: Vec<&str>,
) -> Result<(), Error> {
    let missing = if index.global { unprojected(index, table_key, names) } else { Vec::new() };
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::validation(format!(
        "{INVALID}Global secondary index {} does not project {}",
        index.name,
        listed(missing, NameOrder::JavaHashSet)
    )))
}

/// Query's and Scan's projection check (ProjectionExpression or AttributesToGet).
pub(crate) fn check_read_projection(
    index: Option<&Index>,
    table_key: &KeySchema,
    projection: Option<&monotable_expr::Projection>,
) -> Result<(), Error> {
    match (index, projection) {
        (Some(index), Some(p)) => check_projection_names(index, table_key, roots(&p.paths)),
        _ => Ok(()),
    }
}

/// The top-level attribute names a PartiQL expression reads, in first-appearance order.
fn partiql_roots<'e>(e: &'e monotable_partiql::ast::Expr, out: &mut Vec<&'e str>) {
    use monotable_partiql::ast::Expr;
    match e {
        Expr::Path(p) => {
            if !out.contains(&p.root.as_str()) {
                out.push(&p.root);
            }
        }
        Expr::Literal(_) | Expr::Param(_) => {}
        Expr::Neg(a) | Expr::Not(a) | Expr::Is(a, _, _) => partiql_roots(a, out),
        Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Compare(a, _, b) => {
            partiql_roots(a, out);
            partiql_roots(b, out);
        }
        Expr::Between(a, b, c) => {
            for x in [a, b, c] {
                partiql_roots(x, out);
            }
        }
        Expr::In(a, items) => {
            partiql_roots(a, out);
            items.iter().for_each(|x| partiql_roots(x, out));
        }
        Expr::And(items) | Expr::Or(items) | Expr::Call(_, items) | Expr::List(items) | Expr::Bag(items) => {
            items.iter().for_each(|x| partiql_roots(x, out));
        }
        Expr::Tuple(members) => members.iter().for_each(|(_, x)| partiql_roots(x, out)),
    }
}

/// A PartiQL SELECT on `index`: its column list must be projected by a global index, and when
/// it runs as a Query (`keyed`: the index's partition key fixed by equality or `IN`), its
/// `WHERE` may only read projected attributes (names in a Java `HashSet`'s order).
pub(crate) fn check_partiql_select(
    index: &Index,
    table_key: &KeySchema,
    projection: &monotable_partiql::ast::Projection,
    condition: Option<&monotable_partiql::ast::Expr>,
    keyed: bool,
) -> Result<(), Error> {
    if let monotable_partiql::ast::Projection::Paths(paths) = projection {
        let mut names: Vec<&str> = Vec::new();
        for p in paths {
            if !names.contains(&p.root.as_str()) {
                names.push(&p.root);
            }
        }
        check_projection_names(index, table_key, names)?;
    }
    if let (true, Some(condition)) = (keyed, condition) {
        let mut names = Vec::new();
        partiql_roots(condition, &mut names);
        check_filter_names(index, table_key, names, NameOrder::JavaHashSet)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_set_order_matches_the_recorded_messages() {
        // `b='1' AND (a='2' OR projattr='3')` was refused with `[a, b]`, and
        // `(zz='1' OR aa='2' OR mm='3')` with `[zz, aa, mm]` (PartiQL suite recorded against
        // DynamoDB): "a" and "b" fall in buckets 1 and 2; "zz", "aa" and "mm" all in bucket 0,
        // kept in insertion order.
        assert_eq!(java_hash_set_order(&["b", "a"]), ["a", "b"]);
        assert_eq!(java_hash_set_order(&["zz", "aa", "mm"]), ["zz", "aa", "mm"]);
        assert_eq!(java_hash_set_order(&["nonproj"]), ["nonproj"]);
    }

    #[test]
    fn java_hash_set_order_drops_repeats_and_grows_the_table_past_twelve_names() {
        assert_eq!(java_hash_set_order(&["a", "a", "b"]), ["a", "b"]);
        // "a".."m" (13 names) no longer fit a 16-bucket table at load factor 0.75: with 32
        // buckets "a" (97) lands in bucket 1 and "m" (109) in bucket 13, "`" would be 0.
        let names: Vec<String> = (b'a'..=b'm').map(|c| char::from(c).to_string()).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let order = java_hash_set_order(&refs);
        assert_eq!(order.first().map(String::as_str), Some("a"));
        assert_eq!(order.last().map(String::as_str), Some("m"));
        assert_eq!(order.len(), 13);
    }

    #[test]
    fn java_hash_set_order_hashes_utf16_code_units() {
        // "é" is U+00E9 (233): bucket 233 & 15 = 9; "z" (122) is bucket 10.
        assert_eq!(java_hash_set_order(&["z", "é"]), ["é", "z"]);
    }
}
