//! Constant expressions to DynamoDB values: literals, parameters and the `{}`/`[]`/`<<>>`
//! constructors, as DynamoDB maps PartiQL's types onto its own.

use monotable_types::{AttributeValue, Item, Number};

use crate::ast::*;
use crate::Error;

/// True when `e` is a constant: it holds no document path and no function call.
pub fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Literal(_) | Expr::Param(_) => true,
        Expr::Neg(a) => matches!(**a, Expr::Literal(Literal::Number(_))),
        Expr::Tuple(fields) => fields.iter().all(|(_, v)| is_constant(v)),
        Expr::List(items) | Expr::Bag(items) => items.iter().all(is_constant),
        _ => false,
    }
}

/// The value of a constant expression, reading `?` parameters from `params`. `Ok(None)` for
/// `MISSING` (an absent value: a tuple drops such a field).
pub fn value(e: &Expr, params: &[AttributeValue]) -> Result<Option<AttributeValue>, Error> {
    Ok(Some(match e {
        Expr::Literal(Literal::Str(s)) => AttributeValue::S(s.clone()),
        Expr::Literal(Literal::Number(n)) => AttributeValue::N(number(n)?),
        Expr::Neg(a) => match &**a {
            Expr::Literal(Literal::Number(n)) => AttributeValue::N(number(&format!("-{n}"))?),
            _ => return Err(not_constant()),
        },
        Expr::Literal(Literal::Bool(b)) => AttributeValue::Bool(*b),
        Expr::Literal(Literal::Null) => AttributeValue::Null,
        Expr::Literal(Literal::Missing) => return Ok(None),
        Expr::Param(i) => params.get(*i).cloned().ok_or_else(parameter_count)?,
        Expr::Tuple(fields) => {
            // Collected, then sorted once: field order is the statement's, not name order.
            let mut pairs = Vec::with_capacity(fields.len());
            for (k, v) in fields {
                if let Some(v) = value(v, params)? {
                    pairs.push((k.as_str(), v));
                }
            }
            AttributeValue::M(pairs.into_iter().collect::<Item>())
        }
        Expr::List(items) => AttributeValue::L(
            items.iter().map(|v| value(v, params)).filter_map(Result::transpose).collect::<Result<_, _>>()?,
        ),
        Expr::Bag(items) => {
            let values: Vec<AttributeValue> = items
                .iter()
                .map(|v| value(v, params))
                .filter_map(Result::transpose)
                .collect::<Result<_, _>>()?;
            set(values)?
        }
        _ => return Err(not_constant()),
    }))
}

/// A bag of scalars of one type becomes a DynamoDB set (duplicates dropped).
fn set(values: Vec<AttributeValue>) -> Result<AttributeValue, Error> {
    match values.first() {
        None => Err(Error::Unsupported("An empty set is not allowed".into())),
        Some(AttributeValue::S(_)) => members(values, |v| match v {
            AttributeValue::S(s) => Some(s),
            _ => None,
        })
        .map(AttributeValue::Ss),
        Some(AttributeValue::N(_)) => members(values, |v| match v {
            AttributeValue::N(n) => Some(n),
            _ => None,
        })
        .map(AttributeValue::Ns),
        Some(AttributeValue::B(_)) => members(values, |v| match v {
            AttributeValue::B(b) => Some(b),
            _ => None,
        })
        .map(AttributeValue::Bs),
        Some(_) => Err(mixed_set()),
    }
}

/// The distinct members of a set whose values all pass `member`.
fn members<T: PartialEq>(
    values: Vec<AttributeValue>,
    member: fn(AttributeValue) -> Option<T>,
) -> Result<Vec<T>, Error> {
    let mut out = Vec::with_capacity(values.len());
    for v in values {
        let m = member(v).ok_or_else(mixed_set)?;
        if !out.contains(&m) {
            out.push(m);
        }
    }
    Ok(out)
}

fn mixed_set() -> Error {
    Error::Unsupported(
        "Unsupported type passed in set: set must contain values of the same type (string, number or binary)"
            .into(),
    )
}

fn number(text: &str) -> Result<Number, Error> {
    Number::parse(text).map_err(|e| Error::Unsupported(e.to_string()))
}

fn not_constant() -> Error {
    Error::Unsupported("Unsupported operand: expected a constant value".into())
}

/// DynamoDB's message when the `Parameters` list and the statement's `?`s differ in number.
pub fn parameter_count() -> Error {
    Error::Unsupported("Number of parameters in request and statement doesn't match.".into())
}
