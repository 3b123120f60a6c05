//! Condition evaluation and document-path lookup.
//!
//! Conditions never fail at evaluation time in DynamoDB: a missing attribute or an operand of
//! the wrong type makes the comparison or function false (except `<>`, which is true unless
//! both sides exist and are equal).

use std::borrow::Cow;
use std::cmp::Ordering;

use monotable_types::{AttributeValue, Item};

use crate::resolved::{Comparator, Condition, Operand, Path, PathElement};
use crate::values::{compare_scalars, value_size};

/// The value at a document path of an item, if the path exists.
pub fn lookup<'a>(item: &'a Item, path: &[PathElement]) -> Option<&'a AttributeValue> {
    let (PathElement::Attribute(head), rest) = path.split_first()? else { return None };
    let mut current = item.get(head)?;
    for e in rest {
        current = step(current, e)?;
    }
    Some(current)
}

/// One path step into a map or a list.
pub(crate) fn step<'a>(v: &'a AttributeValue, e: &PathElement) -> Option<&'a AttributeValue> {
    match (v, e) {
        (AttributeValue::M(m), PathElement::Attribute(k)) => m.get(k),
        (AttributeValue::L(l), PathElement::Index(i)) => l.get(*i),
        _ => None,
    }
}

fn operand<'a>(o: &'a Operand, item: &'a Item) -> Option<Cow<'a, AttributeValue>> {
    match o {
        Operand::Path(p) => lookup(item, p).map(Cow::Borrowed),
        Operand::Value(v) => Some(Cow::Borrowed(v)),
        Operand::Size(inner) => {
            let v = operand(inner, item)?;
            value_size(&v).map(|n| Cow::Owned(AttributeValue::N(n)))
        }
    }
}

fn compare(a: Option<&AttributeValue>, op: Comparator, b: Option<&AttributeValue>) -> bool {
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        _ => return op == Comparator::Ne,
    };
    match op {
        Comparator::Eq => a == b,
        Comparator::Ne => a != b,
        _ => {
            let Some(ord) = compare_scalars(a, b) else { return false };
            match op {
                Comparator::Lt => ord == Ordering::Less,
                Comparator::Le => ord != Ordering::Greater,
                Comparator::Gt => ord == Ordering::Greater,
                _ => ord != Ordering::Less,
            }
        }
    }
}

/// `begins_with`: string prefix of a string, or byte prefix of a binary.
pub(crate) fn begins_with(a: &AttributeValue, prefix: &AttributeValue) -> bool {
    match (a, prefix) {
        (AttributeValue::S(s), AttributeValue::S(p)) => s.starts_with(p.as_str()),
        (AttributeValue::B(b), AttributeValue::B(p)) => b.starts_with(p),
        _ => false,
    }
}

/// `contains`: substring of a string, subsequence of a binary, member of a set of the
/// operand's type, or element of a list.
fn contains(a: &AttributeValue, member: &AttributeValue) -> bool {
    match (a, member) {
        (AttributeValue::S(s), AttributeValue::S(m)) => s.contains(m.as_str()),
        (AttributeValue::B(b), AttributeValue::B(m)) => {
            m.is_empty() || b.windows(m.len()).any(|w| w == m.as_slice())
        }
        (AttributeValue::Ss(set), AttributeValue::S(m)) => set.contains(m),
        (AttributeValue::Ns(set), AttributeValue::N(m)) => set.contains(m),
        (AttributeValue::Bs(set), AttributeValue::B(m)) => set.contains(m),
        (AttributeValue::L(list), m) => list.contains(m),
        _ => false,
    }
}

fn operand_paths<'a>(o: &'a Operand, out: &mut Vec<&'a Path>) {
    match o {
        Operand::Path(p) => out.push(p),
        Operand::Value(_) => {}
        Operand::Size(inner) => operand_paths(inner, out),
    }
}

impl Condition {
    /// Every document path the condition reads, in written order (for checks such as
    /// DynamoDB's refusal of key attributes in a Query's filter).
    pub fn paths(&self) -> Vec<&Path> {
        let mut out = Vec::new();
        self.collect_paths(&mut out);
        out
    }

    fn collect_paths<'a>(&'a self, out: &mut Vec<&'a Path>) {
        match self {
            Condition::Compare(a, _, b) | Condition::BeginsWith(a, b) | Condition::Contains(a, b) => {
                operand_paths(a, out);
                operand_paths(b, out);
            }
            Condition::Between(a, l, h) => {
                for o in [a, l, h] {
                    operand_paths(o, out);
                }
            }
            Condition::In(a, list) => {
                for o in std::iter::once(a).chain(list) {
                    operand_paths(o, out);
                }
            }
            Condition::AttributeExists(p) | Condition::AttributeNotExists(p) => out.push(p),
            Condition::AttributeType(a, _) => operand_paths(a, out),
            Condition::Not(c) => c.collect_paths(out),
            Condition::And(a, b) | Condition::Or(a, b) => {
                a.collect_paths(out);
                b.collect_paths(out);
            }
        }
    }

    /// Evaluates the condition against an item. Missing attributes and type mismatches make
    /// a comparison false rather than an error, as in DynamoDB.
    pub fn eval(&self, item: &Item) -> bool {
        match self {
            Condition::Compare(a, op, b) => {
                let (a, b) = (operand(a, item), operand(b, item));
                compare(a.as_deref(), *op, b.as_deref())
            }
            Condition::Between(v, low, high) => {
                let (Some(v), Some(low), Some(high)) =
                    (operand(v, item), operand(low, item), operand(high, item))
                else {
                    return false;
                };
                matches!(compare_scalars(&low, &v), Some(Ordering::Less | Ordering::Equal))
                    && matches!(compare_scalars(&v, &high), Some(Ordering::Less | Ordering::Equal))
            }
            Condition::In(v, list) => {
                let Some(v) = operand(v, item) else { return false };
                list.iter().any(|o| operand(o, item).is_some_and(|x| *x == *v))
            }
            Condition::AttributeExists(p) => lookup(item, p).is_some(),
            Condition::AttributeNotExists(p) => lookup(item, p).is_none(),
            Condition::AttributeType(a, t) => operand(a, item).is_some_and(|v| v.attribute_type() == *t),
            Condition::BeginsWith(a, b) => match (operand(a, item), operand(b, item)) {
                (Some(a), Some(b)) => begins_with(&a, &b),
                _ => false,
            },
            Condition::Contains(a, b) => match (operand(a, item), operand(b, item)) {
                (Some(a), Some(b)) => contains(&a, &b),
                _ => false,
            },
            Condition::Not(c) => !c.eval(item),
            Condition::And(a, b) => a.eval(item) && b.eval(item),
            Condition::Or(a, b) => a.eval(item) || b.eval(item),
        }
    }
}
