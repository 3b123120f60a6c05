//! What a pattern should return, computed from the samples alone: its key condition bound to
//! one sample's field values, evaluated on every sample's rendered keys, strings compared by
//! their UTF-8 bytes as DynamoDB orders them (the Query API reference, `ScanIndexForward`:
//! strings are stored in order of UTF-8 bytes, numbers numerically, binary as unsigned bytes;
//! <https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html>).

use monotable_design::{AccessPattern, Design, IndexKind, SortOp, TABLE};
use monotable_types::AttributeValue;

use crate::keys::{key_on, render, vars};
use crate::sample::Sample;

/// A key condition bound to values.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    /// The partition key, one value per key attribute.
    pub pk: Vec<AttributeValue>,
    pub sk: Option<SortBinding>,
}

#[derive(Debug, Clone)]
pub(crate) enum SortBinding {
    /// A condition on a single sort-key attribute holding a rendered string.
    Text(SortOp, String),
    /// Equality on the first attributes of a multi-attribute sort key.
    Parts(Vec<AttributeValue>),
}

/// Whether the index keys on several attributes (then a template lists fields, not text).
fn multi(design: &Design, index: &str) -> (bool, bool) {
    match design.index(index) {
        Some(i) if i.kind == IndexKind::Gsi => (i.pk.as_ref().is_some_and(|k| k.is_multi()), i.sk.is_multi()),
        _ => (false, false),
    }
}

/// The stored values of the fields a multi-attribute template lists.
fn parts(design: &Design, s: &Sample, template: &str) -> Option<Vec<AttributeValue>> {
    let e = &design.entities[s.entity?];
    vars(template).iter().map(|v| s.item.get(e.field(v).map_or(v.as_str(), |f| f.attr())).cloned()).collect()
}

/// The pattern's key condition on `index` bound to the values of `s`; `None` when `s` lacks
/// a placeholder's value. Errors say what cannot be bound at all.
pub(crate) fn bind(
    design: &Design,
    p: &AccessPattern,
    index: &str,
    s: &Sample,
) -> Result<Option<Binding>, String> {
    let Some(key) = &p.key else { return Ok(None) };
    let (multi_pk, multi_sk) = multi(design, index);
    let pk = if multi_pk {
        parts(design, s, &key.pk)
    } else {
        render(&key.pk, &s.values).map(|v| vec![AttributeValue::S(v)])
    };
    let Some(pk) = pk else { return Ok(None) };
    let sk = match &key.sk {
        None => None,
        Some(c) if multi_sk => {
            if !matches!(c.op, SortOp::Eq | SortOp::BeginsWith) {
                return Err(format!("a `{:?}` condition on the multi-attribute sort key of {index}", c.op));
            }
            match parts(design, s, &c.value) {
                Some(v) => Some(SortBinding::Parts(v)),
                None => return Ok(None),
            }
        }
        Some(c) => match render(&c.value, &s.values) {
            Some(v) => Some(SortBinding::Text(c.op, v)),
            None => return Ok(None),
        },
    };
    Ok(Some(Binding { pk, sk }))
}

/// The upper bound of a `between` whose value gives only the lower one: everything sorting
/// after the lower bound with it as a prefix (`docs/DESIGN.md`).
pub(crate) fn between_upper(lower: &str) -> String {
    format!("{lower}\u{10FFFF}")
}

/// Whether the sort key `sk` meets the condition.
fn sort_holds(sk: &[AttributeValue], cond: &SortBinding) -> bool {
    match cond {
        SortBinding::Parts(want) => sk.len() >= want.len() && sk.iter().zip(want).all(|(a, b)| a == b),
        SortBinding::Text(op, v) => {
            let Some(have) = sk.first().and_then(AttributeValue::as_s) else { return false };
            let (have, v) = (have.as_bytes(), v.as_bytes());
            match op {
                SortOp::Eq => have == v,
                SortOp::BeginsWith => have.starts_with(v),
                SortOp::Lt => have < v,
                SortOp::Le => have <= v,
                SortOp::Gt => have > v,
                SortOp::Ge => have >= v,
                SortOp::Between => {
                    let upper = between_upper(std::str::from_utf8(v).unwrap_or_default());
                    have >= v && have <= upper.as_bytes()
                }
            }
        }
    }
}

/// The samples the bound condition selects on `index`, in ascending sort-key order.
pub(crate) fn expected<'a>(
    design: &Design,
    index: &str,
    samples: &'a [Sample],
    b: &Binding,
) -> Vec<&'a Sample> {
    let mut out: Vec<(Vec<AttributeValue>, &Sample)> = samples
        .iter()
        .filter_map(|s| {
            let (pk, sk) = key_on(design, index, &s.item)?;
            (pk == b.pk && b.sk.as_ref().is_none_or(|c| sort_holds(&sk, c))).then_some((sk, s))
        })
        .collect();
    out.sort_by(|a, b| compare(&a.0, &b.0));
    out.into_iter().map(|(_, s)| s).collect()
}

fn compare(a: &[AttributeValue], b: &[AttributeValue]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (AttributeValue::S(x), AttributeValue::S(y)) => x.as_bytes().cmp(y.as_bytes()),
            (AttributeValue::N(x), AttributeValue::N(y)) => {
                x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal)
            }
            (AttributeValue::B(x), AttributeValue::B(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        };
        if o.is_ne() {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// The index whose keys the pattern's partition template belongs to: the declared one when
/// the first declared entity type has that template there, else the first of the entity
/// type's table and indexes that has it. A pattern on the wrong index is then told by the
/// samples it misses.
pub(crate) fn intended_index(design: &Design, p: &AccessPattern) -> String {
    let Some(key) = &p.key else { return p.index.clone() };
    let Some(e) = p.entities.first().and_then(|n| design.entity(n)) else { return p.index.clone() };
    let has = |index: &str| design.entity_keys(e, index).is_some_and(|(pk, _)| pk == key.pk);
    if has(&p.index) {
        return p.index.clone();
    }
    std::iter::once(TABLE.to_string())
        .chain(design.indexes.iter().map(|i| i.name.clone()))
        .find(|i| has(i))
        .unwrap_or_else(|| p.index.clone())
}
