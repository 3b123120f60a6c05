//! Multi-attribute GSI keys: an entity's index declared as lists of its typed
//! fields, `gsi1(pk = [org_id, status], sk = [created])`.
//!
//! DynamoDB (November 2025) lets a GSI's partition key and sort key each be "composed of up to
//! four attributes"; the index keys on the items' own attributes, and a query "must specify
//! all partition key attributes" with equality, and sort-key attributes "left-to-right",
//! equality on a prefix and at most one range condition (or `begins_with`) on the next one
//! (DynamoDB developer guide, "Multi-attribute keys pattern",
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html>).
//!
//! Invariants:
//! - no key string is written for such an index: the fields are stored as their own typed
//!   attributes (S or N), which *are* the index key;
//! - an item with a key field absent (`None`) does not carry that attribute at all, so it is
//!   left out of the index (sparse), and an empty string is refused rather than written
//!   (DynamoDB refuses an empty string in an index key attribute);
//! - a query's key condition is checked against those rules before any request is built.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::entity::Item;
use crate::error::{Error, ValidationErrors};
use crate::expr::Placeholders;
use crate::query::{Keys, Sort, SortOp};
use crate::schema::{EntitySchema, KeyField, MultiKey, ScalarType};

fn invalid(field: &str, message: impl Into<String>) -> Error {
    Error::Validation(ValidationErrors::field(field, message))
}

/// The attribute value of a key field from its raw text; an empty string is refused.
fn key_value(f: &KeyField, raw: String) -> Result<AttributeValue, Error> {
    if raw.is_empty() {
        return Err(invalid(f.name, "a key value cannot be empty"));
    }
    Ok(match f.ty {
        ScalarType::S => AttributeValue::S(raw),
        ScalarType::N => AttributeValue::N(raw),
    })
}

/// Makes a stored item fit the multi-attribute key `m` of index `index`: a key field serde
/// wrote as NULL (`None`) is dropped, so the item is not indexed; an empty string or a value
/// of another type than the key attribute's is a validation error.
pub(crate) fn store(m: &MultiKey, index: &str, map: &mut Item) -> Result<(), Error> {
    for f in m.fields() {
        match (map.get(f.attr), f.ty) {
            (None, _) | (Some(AttributeValue::N(_)), ScalarType::N) => {}
            (Some(AttributeValue::Null(_)), _) => {
                map.remove(f.attr);
            }
            (Some(AttributeValue::S(s)), ScalarType::S) => {
                if s.is_empty() {
                    return Err(invalid(f.name, format!("a key value of {index} cannot be empty")));
                }
            }
            (Some(_), ty) => {
                return Err(invalid(
                    f.name,
                    format!("is a key attribute of {index} and must be stored as {}", ty.as_str()),
                ))
            }
        }
    }
    Ok(())
}

/// The multi-attribute key attributes `map` lacks: an upsert removes them, so an item that
/// became sparse leaves the index.
pub(crate) fn absent(s: &EntitySchema, map: &Item) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in s.indexes.iter().filter_map(|i| i.multi.as_ref()).flat_map(MultiKey::fields) {
        if !map.contains_key(f.attr) && !out.contains(&f.attr) {
            out.push(f.attr);
        }
    }
    out
}

/// The multi-attribute key field of `s` whose Rust name is `field`, with its index name.
fn key_field(s: &EntitySchema, field: &str) -> Option<(&'static str, &'static KeyField)> {
    s.indexes.iter().find_map(|i| i.multi.as_ref()?.fields().find(|f| f.name == field).map(|f| (i.name, f)))
}

/// What an update's `SET` of a multi-attribute key field becomes: `Ok(true)` when the value is
/// NULL (`None`), which must be a `REMOVE` so the item leaves the index; an empty string or a
/// value of another type is a validation error.
pub(crate) fn set_removes(s: &EntitySchema, field: &str, v: &AttributeValue) -> Result<bool, Error> {
    let Some((index, f)) = key_field(s, field) else { return Ok(false) };
    match (v, f.ty) {
        (AttributeValue::Null(_), _) => Ok(true),
        (AttributeValue::S(s), ScalarType::S) if s.is_empty() => {
            Err(invalid(f.name, format!("a key value of {index} cannot be empty")))
        }
        (AttributeValue::S(_), ScalarType::S) | (AttributeValue::N(_), ScalarType::N) => Ok(false),
        (_, ty) => Err(invalid(
            f.name,
            format!("is a key attribute of {index} and must be stored as {}", ty.as_str()),
        )),
    }
}

/// The key condition of a query on the multi-attribute index `index`: equality on every
/// partition field (the tenant's from `scoped`), then the sort condition, whose fields must be
/// a left-to-right prefix of the sort key: equality on all but the last, and the condition's
/// operator on the last.
pub(crate) fn key_condition<T>(
    m: &MultiKey,
    index: &str,
    partition: &Keys<T>,
    sort: Option<&Sort<T>>,
    scoped: impl Fn(&str) -> Option<String>,
    ph: &mut Placeholders,
) -> Result<String, Error> {
    let mut parts = Vec::with_capacity(m.pk.len() + m.sk.len());
    for f in m.pk {
        let raw = match partition.get(f.name) {
            Some(Some(v)) => v.clone(),
            Some(None) => return Err(invalid(f.name, "absent value in a key")),
            None => scoped(f.name).ok_or_else(|| {
                let all: Vec<&str> = m.pk.iter().map(|f| f.name).collect();
                invalid(f.name, format!("a query on {index} needs every partition field: {}", all.join(", ")))
            })?,
        };
        parts.push(format!("{} = {}", ph.name(f.attr), ph.value(key_value(f, raw)?)));
    }
    let Some(sort) = sort else { return Ok(parts.join(" AND ")) };
    let lo = sort_prefix(m, index, &sort.keys, &scoped)?;
    let Some(((last, last_raw), init)) = lo.split_last() else {
        return Err(invalid(
            "sort",
            format!("a sort condition on {index} names at least its first sort field"),
        ));
    };
    for (f, raw) in init {
        parts.push(format!("{} = {}", ph.name(f.attr), ph.value(key_value(f, raw.clone())?)));
    }
    let name = ph.name(last.attr);
    let v = key_value(last, last_raw.clone())?;
    let condition = if let Some(hi) = &sort.hi {
        let hi = sort_prefix(m, index, hi, &scoped)?;
        let same_prefix = hi.len() == lo.len()
            && hi.iter().zip(&lo).take(lo.len() - 1).all(|((a, va), (b, vb))| a.name == b.name && va == vb);
        if !same_prefix {
            return Err(invalid(
                "sort",
                "between needs the same fields on both sides, equal on all but the last",
            ));
        }
        let hi_v = key_value(last, hi[hi.len() - 1].1.clone())?;
        format!("{name} BETWEEN {} AND {}", ph.value(v), ph.value(hi_v))
    } else {
        match sort.op {
            SortOp::Eq => format!("{name} = {}", ph.value(v)),
            SortOp::BeginsWith if last.ty != ScalarType::S => {
                return Err(invalid(last.name, "begins_with needs a string (S) key field"))
            }
            SortOp::BeginsWith => format!("begins_with({name}, {})", ph.value(v)),
            SortOp::Lt => format!("{name} < {}", ph.value(v)),
            SortOp::Le => format!("{name} <= {}", ph.value(v)),
            SortOp::Gt => format!("{name} > {}", ph.value(v)),
            SortOp::Ge => format!("{name} >= {}", ph.value(v)),
        }
    };
    parts.push(condition);
    Ok(parts.join(" AND "))
}

/// The sort fields `keys` gives, in key order; they must be a left-to-right prefix of the
/// index's sort key and name no other field.
fn sort_prefix<T>(
    m: &MultiKey,
    index: &str,
    keys: &Keys<T>,
    scoped: &impl Fn(&str) -> Option<String>,
) -> Result<Vec<(&'static KeyField, String)>, Error> {
    let order: Vec<&str> = m.sk.iter().map(|f| f.name).collect();
    for (f, _) in &keys.values {
        if !order.contains(f) {
            return Err(invalid(f, format!("not a sort field of {index} ({})", order.join(", "))));
        }
    }
    let mut out = Vec::new();
    let mut stopped = None;
    for f in m.sk {
        let raw = match keys.get(f.name) {
            Some(Some(v)) => Some(v.clone()),
            Some(None) => return Err(invalid(f.name, "absent value in a key")),
            None => scoped(f.name),
        };
        match (raw, stopped) {
            (Some(_), Some(missing)) => {
                return Err(invalid(
                    f.name,
                    format!(
                        "sort fields of {index} are given left to right ({}); `{missing}` comes first",
                        order.join(", ")
                    ),
                ))
            }
            (Some(v), None) => out.push((f, v)),
            (None, _) => stopped = stopped.or(Some(f.name)),
        }
    }
    Ok(out)
}

/// The multi-attribute key of every GSI that has one, from the entity types using it.
/// Refused: an index some types key by field lists and others by templates; two types whose
/// lists differ in attributes, order or types (the index has one KeySchema); one attribute
/// with two types across indexes (a table defines each attribute once).
pub(crate) fn index_keys(
    entities: &[&'static EntitySchema],
) -> Result<BTreeMap<&'static str, MultiKey>, Error> {
    let mut out: BTreeMap<&'static str, (MultiKey, &'static str)> = BTreeMap::new();
    let mut templated: BTreeMap<&'static str, &'static str> = BTreeMap::new();
    for e in entities {
        for i in e.indexes {
            match &i.multi {
                None => {
                    templated.insert(i.name, e.type_name);
                }
                Some(m) => {
                    if let Some((other, by)) = out.get(i.name) {
                        if !same_key(other, m) {
                            return Err(Error::Config(format!(
                                "`{}` and `{by}` key {} on different attributes; a multi-attribute index has one key schema",
                                e.type_name, i.name
                            )));
                        }
                    } else {
                        out.insert(i.name, (*m, e.type_name));
                    }
                }
            }
        }
    }
    let mut types: BTreeMap<&str, ScalarType> = BTreeMap::new();
    for (name, (m, by)) in &out {
        if let Some(t) = templated.get(name) {
            return Err(Error::Config(format!(
                "`{by}` keys {name} by a field list and `{t}` by a template; an index is one or the other"
            )));
        }
        for f in m.fields() {
            if *types.entry(f.attr).or_insert(f.ty) != f.ty {
                return Err(Error::Config(format!(
                    "attribute `{}` is a key of several indexes with different types",
                    f.attr
                )));
            }
        }
    }
    Ok(out.into_iter().map(|(k, (m, _))| (k, m)).collect())
}

fn same_key(a: &MultiKey, b: &MultiKey) -> bool {
    let shape = |k: &[KeyField]| k.iter().map(|f| (f.attr, f.ty)).collect::<Vec<_>>();
    shape(a.pk) == shape(b.pk) && shape(a.sk) == shape(b.sk)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::Field;

    struct R;
    const M: MultiKey = MultiKey {
        pk: &[KeyField { name: "org", attr: "org", ty: ScalarType::S }],
        sk: &[
            KeyField { name: "day", attr: "day", ty: ScalarType::S },
            KeyField { name: "n", attr: "n", ty: ScalarType::N },
        ],
    };
    fn org() -> Field<R, String> {
        Field::new("org", "org")
    }
    fn day() -> Field<R, String> {
        Field::new("day", "day")
    }
    fn n() -> Field<R, i64> {
        Field::new("n", "n")
    }
    fn cond(sort: Option<Sort<R>>) -> Result<String, Error> {
        let mut ph = Placeholders::default();
        key_condition(&M, "gsi1", &Keys::new().with(org(), "o"), sort.as_ref(), |_| None, &mut ph)
    }

    #[test]
    fn every_partition_field_is_an_equality_and_the_sort_prefix_too() {
        assert_eq!(cond(None).unwrap(), "#n0 = :v0");
        assert_eq!(
            cond(Some(Sort::eq(Keys::new().with(day(), "d").with(n(), 5)))).unwrap(),
            "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2"
        );
        assert_eq!(
            cond(Some(Sort::gt(Keys::new().with(day(), "d").with(n(), 5)))).unwrap(),
            "#n0 = :v0 AND #n1 = :v1 AND #n2 > :v2"
        );
        assert_eq!(
            cond(Some(Sort::begins_with(Keys::new().with(day(), "d")))).unwrap(),
            "#n0 = :v0 AND begins_with(#n1, :v1)"
        );
    }

    #[test]
    fn a_missing_partition_field_is_refused() {
        let mut ph = Placeholders::default();
        let r = key_condition::<R>(&M, "gsi1", &Keys::new(), None, |_| None, &mut ph);
        assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
    }

    #[test]
    fn sort_fields_out_of_order_are_refused() {
        assert!(matches!(cond(Some(Sort::eq(Keys::new().with(n(), 5)))), Err(Error::Validation(_))));
    }

    #[test]
    fn begins_with_on_a_number_is_refused() {
        let r = cond(Some(Sort::begins_with(Keys::new().with(day(), "d").with(n(), 5))));
        assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
    }

    #[test]
    fn between_needs_an_equal_prefix() {
        let lo = Keys::new().with(day(), "a").with(n(), 1);
        let hi = Keys::new().with(day(), "b").with(n(), 9);
        assert!(matches!(cond(Some(Sort::between(lo, hi))), Err(Error::Validation(_))));
        let lo = Keys::new().with(day(), "a").with(n(), 1);
        let hi = Keys::new().with(day(), "a").with(n(), 9);
        assert_eq!(
            cond(Some(Sort::between(lo, hi))).unwrap(),
            "#n0 = :v0 AND #n1 = :v1 AND #n2 BETWEEN :v2 AND :v3"
        );
    }

    #[test]
    fn a_null_key_field_is_dropped_and_an_empty_one_refused() {
        let mut item = Item::from([
            ("org".to_string(), AttributeValue::S("o".into())),
            ("day".to_string(), AttributeValue::Null(true)),
        ]);
        store(&M, "gsi1", &mut item).unwrap();
        assert!(!item.contains_key("day"));
        let mut item = Item::from([("org".to_string(), AttributeValue::S(String::new()))]);
        assert!(matches!(store(&M, "gsi1", &mut item), Err(Error::Validation(_))));
    }
}
