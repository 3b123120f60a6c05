//! Key condition expressions: the general condition checks, then the shape DynamoDB allows —
//! `pk = :v`, optionally `AND` one sort-key condition (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`,
//! `begins_with`), each on a top-level key attribute. Messages of the shape checks are
//! DynamoDB's, which (unlike other expression errors) carry no `Invalid …Expression:` prefix.

use monotable_types::AttributeValue;

use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::params::Params;
use crate::resolve_condition::check_condition;
use crate::resolved::{
    Comparator, Condition, KeyCondition, Operand, PathElement, SortKeyCondition, SortKeyOp,
};

fn key_error(message: impl Into<String>) -> ExprError {
    ExprError::new(ErrorKind::KeyCondition, message)
}

/// One atomic key condition, normalised so that the attribute is on the left.
enum KeyOp {
    Cmp(Comparator, AttributeValue),
    Between(AttributeValue, AttributeValue),
    BeginsWith(AttributeValue),
}

/// Splits `c` into its `AND`ed parts, refusing the operators DynamoDB refuses.
fn collect<'c>(c: &'c Condition, out: &mut Vec<&'c Condition>) -> Result<(), ExprError> {
    let invalid = |op: &str| key_error(format!("Invalid operator used in KeyConditionExpression: {op}"));
    match c {
        Condition::And(a, b) => {
            collect(a, out)?;
            collect(b, out)
        }
        Condition::Or(..) => Err(invalid("OR")),
        Condition::Not(..) => Err(invalid("NOT")),
        Condition::In(..) => Err(invalid("IN")),
        Condition::Compare(_, Comparator::Ne, _) => Err(invalid("<>")),
        Condition::AttributeExists(_) => Err(invalid("attribute_exists")),
        Condition::AttributeNotExists(_) => Err(invalid("attribute_not_exists")),
        Condition::AttributeType(..) => Err(invalid("attribute_type")),
        Condition::Contains(..) => Err(invalid("contains")),
        Condition::Compare(..) | Condition::Between(..) | Condition::BeginsWith(..) => {
            out.push(c);
            Ok(())
        }
    }
}

fn flip(op: Comparator) -> Comparator {
    match op {
        Comparator::Lt => Comparator::Gt,
        Comparator::Le => Comparator::Ge,
        Comparator::Gt => Comparator::Lt,
        Comparator::Ge => Comparator::Le,
        other => other,
    }
}

/// The attribute and the normalised operation of one atomic key condition.
fn atomic(c: &Condition) -> Result<(String, KeyOp), ExprError> {
    let first_operand = |op: &str| {
        key_error(format!(
            "Invalid condition in KeyConditionExpression: {op} operator must have the key attribute as its first operand"
        ))
    };
    let operands: Vec<&Operand> = match c {
        Condition::Compare(a, _, b) => vec![a, b],
        Condition::Between(a, l, h) => {
            if !matches!(a, Operand::Path(_)) {
                return Err(first_operand("BETWEEN"));
            }
            vec![a, l, h]
        }
        Condition::BeginsWith(a, b) => {
            if !matches!(a, Operand::Path(_)) {
                return Err(first_operand("begins_with"));
            }
            vec![a, b]
        }
        _ => return Err(key_error("Query key condition not supported")),
    };
    let mut attribute: Option<(String, usize)> = None;
    let mut values = Vec::new();
    for (i, o) in operands.iter().enumerate() {
        match o {
            Operand::Path(p) => {
                if attribute.is_some() {
                    return Err(key_error(
                        "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition",
                    ));
                }
                match p.as_slice() {
                    [PathElement::Attribute(name)] => attribute = Some((name.clone(), i)),
                    _ => {
                        return Err(key_error(
                            "KeyConditionExpressions cannot have conditions on nested attributes",
                        ))
                    }
                }
            }
            Operand::Size(_) => {
                return Err(key_error("KeyConditionExpressions cannot contain nested operations"))
            }
            Operand::Value(v) => values.push(v.clone()),
        }
    }
    let Some((name, position)) = attribute else {
        return Err(key_error("Invalid condition in KeyConditionExpression: No key attribute specified"));
    };
    let mut values = values.into_iter();
    let mut next = || values.next().ok_or_else(|| key_error("Query key condition not supported"));
    let op = match c {
        Condition::Compare(_, op, _) => {
            let op = if position == 0 { *op } else { flip(*op) };
            KeyOp::Cmp(op, next()?)
        }
        Condition::Between(..) => KeyOp::Between(next()?, next()?),
        _ => KeyOp::BeginsWith(next()?),
    };
    Ok((name, op))
}

impl Params<'_> {
    /// Resolves a `KeyConditionExpression` against the table's (or index's) key schema.
    pub fn key_condition(
        &mut self,
        text: &str,
        partition_key: &str,
        sort_key: Option<&str>,
    ) -> Result<KeyCondition, ExprError> {
        self.key_condition_tuple(text, &[partition_key], sort_key.as_slice())
    }

    /// Resolves a `KeyConditionExpression` against a key whose partition key and sort key may
    /// each be made of several attributes (a multi-attribute GSI key), in key-schema order.
    /// Every partition attribute needs an equality; the sort attributes take conditions left
    /// to right, equalities on a leading run and any condition on the last one used.
    /// `partition` must not be empty.
    pub fn key_condition_tuple(
        &mut self,
        text: &str,
        partition: &[&str],
        sort_keys: &[&str],
    ) -> Result<KeyCondition, ExprError> {
        let kind = ExpressionKind::KeyCondition;
        let ast = crate::cache::condition(text, kind)?;
        check_condition(self, &ast, kind)?;
        let resolved = self.resolve_condition(&ast, kind)?;
        key_condition_of(&resolved, partition, sort_keys)
    }
}

/// The key condition a resolved condition states on a key whose partition key and sort key may
/// each be made of several attributes, in key-schema order, with the shape checks (and
/// messages) of a `KeyConditionExpression`; the engine also builds legacy `KeyConditions`
/// through it. `partition` must not be empty.
pub fn key_condition_of(
    resolved: &Condition,
    partition: &[&str],
    sort_keys: &[&str],
) -> Result<KeyCondition, ExprError> {
    let mut parts = Vec::new();
    collect(resolved, &mut parts)?;
    let mut conditions: Vec<(String, KeyOp)> = Vec::new();
    for part in parts {
        let (name, op) = atomic(part)?;
        if conditions.iter().any(|(n, _)| *n == name) {
            return Err(key_error("KeyConditionExpressions must only contain one condition per key"));
        }
        conditions.push((name, op));
    }
    let not_supported = || key_error("Query key condition not supported");
    for name in partition {
        if !conditions.iter().any(|(n, _)| n == name) {
            return Err(key_error(format!("Query condition missed key schema element: {name}")));
        }
    }
    if conditions.iter().any(|(n, _)| !partition.contains(&n.as_str()) && !sort_keys.contains(&n.as_str())) {
        return Err(not_supported());
    }
    let mut take = |name: &str| {
        let at = conditions.iter().position(|(n, _)| n == name)?;
        Some(conditions.swap_remove(at).1)
    };
    let mut equalities = Vec::new();
    let mut partition_value = None;
    for name in partition {
        let Some(KeyOp::Cmp(Comparator::Eq, v)) = take(name) else { return Err(not_supported()) };
        if partition_value.is_none() {
            partition_value = Some(v);
        } else {
            equalities.push(((*name).to_owned(), v));
        }
    }
    let partition_value = partition_value.ok_or_else(not_supported)?;
    // The sort attributes used must be a leading run of the sort key; all but the last
    // must be equalities.
    let used: Vec<(&str, KeyOp)> =
        sort_keys.iter().map_while(|name| take(name).map(|op| (*name, op))).collect();
    if !conditions.is_empty() {
        return Err(key_error(
            "Query key condition not supported: conditions on the attributes of a multi-attribute sort key must be applied left to right without skipping an attribute",
        ));
    }
    let mut sort = None;
    let count = used.len();
    for (i, (attribute, op)) in used.into_iter().enumerate() {
        if i + 1 < count {
            let KeyOp::Cmp(Comparator::Eq, v) = op else {
                return Err(key_error(
                    "Query key condition not supported: only the last sort key attribute used in a KeyConditionExpression may have a condition other than equality",
                ));
            };
            equalities.push((attribute.to_owned(), v));
            continue;
        }
        let op = match op {
            KeyOp::Cmp(Comparator::Eq, v) => SortKeyOp::Eq(v),
            KeyOp::Cmp(Comparator::Lt, v) => SortKeyOp::Lt(v),
            KeyOp::Cmp(Comparator::Le, v) => SortKeyOp::Le(v),
            KeyOp::Cmp(Comparator::Gt, v) => SortKeyOp::Gt(v),
            KeyOp::Cmp(Comparator::Ge, v) => SortKeyOp::Ge(v),
            KeyOp::Cmp(Comparator::Ne, _) => return Err(not_supported()),
            KeyOp::Between(l, h) => SortKeyOp::Between(l, h),
            KeyOp::BeginsWith(v) => SortKeyOp::BeginsWith(v),
        };
        sort = Some(SortKeyCondition { attribute: attribute.to_owned(), op });
    }
    Ok(KeyCondition { partition_key: partition[0].to_owned(), partition_value, equalities, sort })
}
