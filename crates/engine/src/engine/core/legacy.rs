//! Legacy (pre-expression) parameters translated into `monotable_expr`'s resolved forms, so
//! one evaluator serves both: `AttributesToGet`, `Expected`, `QueryFilter`, `ScanFilter`,
//! `KeyConditions`, `AttributeUpdates` and `ConditionalOperator`.

use std::collections::HashMap;

use monotable_expr::{
    attribute_path, Comparator, Condition as Cond, KeyCondition, Operand, Projection, SetValue, UpdateAction,
    UpdateOperand, UpdatePlan,
};
use monotable_types::AttributeValue;

use crate::api::{AttributeValueUpdate, Condition, ExpectedAttributeValue};
use crate::table::KeySchema;
use crate::Error;

/// DynamoDB's checks of which parameters a request combines, in DynamoDB's order: legacy and
/// expression parameters cannot be mixed; `ExpressionAttributeNames` needs some expression;
/// `ExpressionAttributeValues` needs an expression other than a projection. Each slice lists
/// `(member name, present)` in DynamoDB's order.
pub(crate) fn check_mixing(
    legacy: &[(&str, bool)],
    expressions: &[(&str, bool)],
    names: bool,
    values: bool,
) -> Result<(), Error> {
    // The common case, a request without legacy parameters, only needs its placeholder maps
    // to have an expression to serve; the messages below are built only on failure.
    if legacy.iter().all(|(_, p)| !*p) {
        let no_expression = expressions.iter().all(|(_, p)| !*p);
        let no_value_expression = expressions.iter().all(|(n, p)| !*p || *n == "ProjectionExpression");
        let has_value_slot = expressions.iter().any(|(n, _)| *n != "ProjectionExpression");
        let names_without_expression = names && no_expression;
        let values_without_expression = values && has_value_slot && no_value_expression;
        if !names_without_expression && !values_without_expression {
            return Ok(());
        }
    }
    let l: Vec<&str> = legacy.iter().filter(|(_, p)| *p).map(|(n, _)| *n).collect();
    let e: Vec<&str> = expressions.iter().filter(|(_, p)| *p).map(|(n, _)| *n).collect();
    if !l.is_empty() && !e.is_empty() {
        return Err(Error::validation(format!(
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {{{}}} Expression parameters: {{{}}}",
            l.join(", "),
            e.join(", ")
        )));
    }
    if names && e.is_empty() {
        return Err(Error::validation(
            "ExpressionAttributeNames can only be specified when using expressions",
        ));
    }
    let value_expressions: Vec<&(&str, bool)> =
        expressions.iter().filter(|(n, _)| *n != "ProjectionExpression").collect();
    if values && !value_expressions.is_empty() && value_expressions.iter().all(|(_, p)| !*p) {
        let list: Vec<&str> = value_expressions.iter().map(|(n, _)| *n).collect();
        return Err(Error::validation(format!(
            "ExpressionAttributeValues can only be specified when using expressions: {} {} null",
            list.join(" and "),
            if list.len() > 1 { "are" } else { "is" }
        )));
    }
    Ok(())
}

/// `AttributesToGet` as a projection.
pub(crate) fn attributes_to_get(names: &[String]) -> Result<Projection, Error> {
    // A hash set keeps the duplicate check linear: `AttributesToGet` may hold any number of
    // names, and a pairwise check made 80,000 of them cost seconds.
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    for n in names {
        if !seen.insert(n.as_str()) {
            return Err(Error::invalid_param(format!("Duplicate value in attribute name: {n}")));
        }
    }
    Ok(Projection { paths: names.iter().map(|n| attribute_path(n.clone())).collect() })
}

fn arg_count(op: &str) -> Error {
    Error::invalid_param(format!("Invalid number of argument(s) for the {op} ComparisonOperator"))
}

/// One `ComparisonOperator` condition on attribute `name`.
fn comparison(name: &str, op: &str, args: &[AttributeValue]) -> Result<Cond, Error> {
    let path = || Operand::Path(attribute_path(name));
    let one = || -> Result<Operand, Error> {
        match args {
            [v] => Ok(Operand::Value(v.clone())),
            _ => Err(arg_count(op)),
        }
    };
    let none = || if args.is_empty() { Ok(()) } else { Err(arg_count(op)) };
    let cmp = |c: Comparator| -> Result<Cond, Error> { Ok(Cond::Compare(path(), c, one()?)) };
    match op {
        "EQ" => cmp(Comparator::Eq),
        "NE" => cmp(Comparator::Ne),
        "LT" => cmp(Comparator::Lt),
        "LE" => cmp(Comparator::Le),
        "GT" => cmp(Comparator::Gt),
        "GE" => cmp(Comparator::Ge),
        "NOT_NULL" => none().map(|()| Cond::AttributeExists(attribute_path(name))),
        "NULL" => none().map(|()| Cond::AttributeNotExists(attribute_path(name))),
        "CONTAINS" => Ok(Cond::Contains(path(), one()?)),
        // NOT_CONTAINS is false on a missing attribute, as CONTAINS is: both fail there, unlike
        // NE (ScyllaDB Alternator's `test_update_expected_1_not_contains`,
        // test/alternator/test_expected.py, written against DynamoDB).
        "NOT_CONTAINS" => Ok(Cond::And(
            Box::new(Cond::AttributeExists(attribute_path(name))),
            Box::new(Cond::Not(Box::new(Cond::Contains(path(), one()?)))),
        )),
        "BEGINS_WITH" => Ok(Cond::BeginsWith(path(), one()?)),
        "IN" if !args.is_empty() => Ok(Cond::In(path(), args.iter().cloned().map(Operand::Value).collect())),
        "BETWEEN" => match args {
            [a, b] => Ok(Cond::Between(path(), Operand::Value(a.clone()), Operand::Value(b.clone()))),
            _ => Err(arg_count(op)),
        },
        "IN" => Err(arg_count(op)),
        other => Err(Error::validation(format!(
            "1 validation error detected: Value '{other}' at 'comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"
        ))),
    }
}

fn combine(mut parts: Vec<Cond>, operator: Option<&str>) -> Result<Option<Cond>, Error> {
    let or = match operator {
        None | Some("AND") => false,
        Some("OR") => true,
        Some(other) => {
            return Err(Error::validation(format!(
                "1 validation error detected: Value '{other}' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]"
            )))
        }
    };
    // A ConditionalOperator needs two conditions to join: one (recorded for a ScanFilter in
    // paritysuite/dynamodb-conformance, tests/tier3/validation-ordering/deepRequests.test.ts,
    // 2026-10-09) or none (`Expected: {}`, as DynamoDB Local's validator counts it) is refused.
    if operator.is_some() && parts.len() < 2 {
        return Err(Error::validation(
            "ConditionalOperator can only be used when Filter or Expected has two or more elements",
        ));
    }
    let Some(mut acc) = parts.pop() else { return Ok(None) };
    while let Some(next) = parts.pop() {
        acc = if or {
            Cond::Or(Box::new(next), Box::new(acc))
        } else {
            Cond::And(Box::new(next), Box::new(acc))
        };
    }
    Ok(Some(acc))
}

/// Checks an operator's argument list: count, one type for all, types the operator accepts
/// and, for BETWEEN, an ordered range.
fn check_arguments(op: &str, args: &[AttributeValue]) -> Result<(), Error> {
    let count_ok = match op {
        "NULL" | "NOT_NULL" => args.is_empty(),
        "IN" => !args.is_empty(),
        "BETWEEN" => args.len() == 2,
        _ => args.len() == 1,
    };
    if !count_ok {
        return Err(arg_count(op));
    }
    if let Some(first) = args.first() {
        if args.iter().any(|a| a.attribute_type() != first.attribute_type()) {
            return Err(Error::invalid_param(
                "AttributeValues inside AttributeValueList must be of same type",
            ));
        }
    }
    let allowed: &[&str] = match op {
        "EQ" | "NE" => &["S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "M", "L"],
        "BEGINS_WITH" => &["S", "B"],
        _ => &["S", "N", "B"],
    };
    for a in args {
        let t = a.attribute_type();
        if !allowed.contains(&t.as_str()) {
            return Err(Error::invalid_param(format!(
                "ComparisonOperator {op} is not valid for {t} AttributeValue type"
            )));
        }
    }
    if let (Some("BETWEEN"), [lo, hi]) = (Some(op), args) {
        if monotable_expr::compare_scalars(lo, hi) == Some(std::cmp::Ordering::Greater) {
            return Err(Error::validation(
                "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
            ));
        }
    }
    Ok(())
}

/// `Expected` (with `ConditionalOperator`) as a condition, with DynamoDB's rules for
/// combining `Value`, `Exists`, `ComparisonOperator` and `AttributeValueList`.
pub(crate) fn expected(
    map: &HashMap<String, ExpectedAttributeValue>,
    operator: Option<&str>,
) -> Result<Option<Cond>, Error> {
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    let mut parts = Vec::new();
    for name in names {
        let e = &map[name];
        if e.attribute_value_list.is_some() && e.value.is_some() {
            return Err(Error::invalid_param(format!(
                "Value and AttributeValueList cannot be used together for Attribute: {name}"
            )));
        }
        let part = if let Some(op) = e.comparison_operator.as_deref() {
            if e.exists.is_some() {
                return Err(Error::invalid_param(format!(
                    "Exists and ComparisonOperator cannot be used together for Attribute: {name}"
                )));
            }
            if op != "NULL" && op != "NOT_NULL" && e.attribute_value_list.is_none() && e.value.is_none() {
                return Err(Error::invalid_param(format!(
                    "Value or AttributeValueList must be used with ComparisonOperator: {op} for Attribute: {name}"
                )));
            }
            let args: Vec<AttributeValue> = match (&e.attribute_value_list, &e.value) {
                (Some(list), _) => list.clone(),
                (None, Some(v)) => vec![v.clone()],
                (None, None) => Vec::new(),
            };
            check_arguments(op, &args)?;
            comparison(name, op, &args)?
        } else if e.attribute_value_list.is_some() {
            return Err(Error::invalid_param(format!(
                "AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"
            )));
        } else {
            let exists = e.exists.unwrap_or(true);
            match (exists, &e.value) {
                (true, None) => {
                    return Err(Error::invalid_param(format!(
                        "Value must be provided when Exists is {} for Attribute: {name}",
                        if e.exists.is_none() { "null" } else { "true" }
                    )))
                }
                (false, Some(_)) => {
                    return Err(Error::invalid_param(format!(
                        "Value cannot be used when Exists is false for Attribute: {name}"
                    )))
                }
                (true, Some(v)) => Cond::Compare(
                    Operand::Path(attribute_path(name.clone())),
                    Comparator::Eq,
                    Operand::Value(v.clone()),
                ),
                (false, None) => Cond::AttributeNotExists(attribute_path(name.clone())),
            }
        };
        parts.push(part);
    }
    combine(parts, operator)
}

/// Checks every condition of a `QueryFilter`, `ScanFilter` or `KeyConditions` map.
pub(crate) fn check_filter(map: Option<&HashMap<String, Condition>>) -> Result<(), Error> {
    let Some(map) = map else { return Ok(()) };
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    for name in names {
        let c = &map[name];
        crate::validate::check_values(c.attribute_value_list.iter().flatten())?;
        if let Some(op) = c.comparison_operator.as_deref() {
            check_arguments(op, c.attribute_value_list.as_deref().unwrap_or_default())?;
        }
    }
    Ok(())
}

/// `QueryFilter` / `ScanFilter` (with `ConditionalOperator`) as a condition.
pub(crate) fn filter(
    map: &HashMap<String, Condition>,
    operator: Option<&str>,
) -> Result<Option<Cond>, Error> {
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    let mut parts = Vec::new();
    for name in names {
        let c = &map[name];
        let op = c.comparison_operator.as_deref().ok_or_else(|| {
            Error::validation(
                "1 validation error detected: Value null at 'comparisonOperator' failed to satisfy constraint: Member must not be null",
            )
        })?;
        let args = c.attribute_value_list.as_deref().unwrap_or_default();
        check_arguments(op, args)?;
        parts.push(comparison(name, op, args)?);
    }
    combine(parts, operator)
}

/// `KeyConditions` as a key condition on the given key schema: one condition per key
/// attribute, shaped as a `KeyConditionExpression` must be (on a multi-attribute GSI key, an
/// equality on every partition attribute and conditions on a leading run of the sort
/// attributes). The argument counts are `check_filter`'s.
pub(crate) fn key_conditions(
    map: &HashMap<String, Condition>,
    key: &KeySchema,
) -> Result<KeyCondition, Error> {
    let partition: Vec<&str> = key.partition().map(|a| a.name.as_str()).collect();
    let sort: Vec<&str> = key.sort().map(|a| a.name.as_str()).collect();
    if let Some(missing) = partition.iter().find(|name| !map.contains_key(**name)) {
        return Err(Error::validation(format!("Query condition missed key schema element: {missing}")));
    }
    let not_supported = || Error::validation("Query key condition not supported");
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    let mut parts = Vec::with_capacity(names.len());
    for name in names {
        let c = &map[name];
        let args = c.attribute_value_list.as_deref().unwrap_or_default();
        let path = || Operand::Path(attribute_path(name.clone()));
        let value = |i: usize| args.get(i).cloned().map(Operand::Value).ok_or_else(not_supported);
        let compare = |op| Ok::<_, Error>(Cond::Compare(path(), op, value(0)?));
        parts.push(match c.comparison_operator.as_deref().unwrap_or_default() {
            "EQ" => compare(Comparator::Eq)?,
            "LT" => compare(Comparator::Lt)?,
            "LE" => compare(Comparator::Le)?,
            "GT" => compare(Comparator::Gt)?,
            "GE" => compare(Comparator::Ge)?,
            "BEGINS_WITH" => Cond::BeginsWith(path(), value(0)?),
            "BETWEEN" => Cond::Between(path(), value(0)?, value(1)?),
            _ => return Err(not_supported()),
        });
    }
    let all =
        parts.into_iter().reduce(|a, b| Cond::And(Box::new(a), Box::new(b))).ok_or_else(not_supported)?;
    monotable_expr::key_condition_of(&all, &partition, &sort).map_err(|e| Error::validation(e.message()))
}

/// `AttributeUpdates` as an update plan.
pub(crate) fn attribute_updates(
    map: &HashMap<String, AttributeValueUpdate>,
    key: &KeySchema,
) -> Result<UpdatePlan, Error> {
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    let mut actions = Vec::new();
    for name in names {
        if key.is_key(name) {
            return Err(Error::invalid_param(format!(
                "Cannot update attribute {name}. This attribute is part of the key"
            )));
        }
        let u = &map[name];
        let path = attribute_path(name.clone());
        let action = match (u.action.as_deref().unwrap_or("PUT"), &u.value) {
            ("PUT", Some(v)) => UpdateAction::Set(path, SetValue::Operand(UpdateOperand::Value(v.clone()))),
            ("PUT", None) | ("ADD", None) => {
                return Err(Error::invalid_param("Only DELETE action is allowed when no attribute value is specified"))
            }
            ("DELETE", None) => UpdateAction::Remove(path),
            ("DELETE", Some(v)) => {
                if !matches!(v, AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)) {
                    return Err(Error::invalid_param(format!(
                        "DELETE action with value is not supported for the type {}",
                        v.attribute_type()
                    )));
                }
                UpdateAction::Delete(path, v.clone())
            }
            ("ADD", Some(v)) => {
                if !matches!(
                    v,
                    AttributeValue::L(_) | AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) | AttributeValue::N(_)
                ) {
                    return Err(Error::invalid_param(format!(
                        "ADD action is not supported for the type {}",
                        v.attribute_type()
                    )));
                }
                match v {
                    // Legacy ADD on a list appends (creating the list when absent).
                    AttributeValue::L(_) => UpdateAction::Set(
                        path.clone(),
                        SetValue::Operand(UpdateOperand::ListAppend(
                            Box::new(UpdateOperand::IfNotExists(
                                path,
                                Box::new(UpdateOperand::Value(AttributeValue::L(Vec::new()))),
                            )),
                            Box::new(UpdateOperand::Value(v.clone())),
                        )),
                    ),
                    _ => UpdateAction::Add(path, v.clone()),
                }
            }
            (other, _) => {
                return Err(Error::validation(format!(
                    "1 validation error detected: Value '{other}' at 'attributeUpdates.{name}.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"
                )))
            }
        };
        actions.push(action);
    }
    Ok(UpdatePlan { actions })
}
