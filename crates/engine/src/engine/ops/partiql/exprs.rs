//! PartiQL conditions and operands written as DynamoDB expressions with placeholders, so a
//! statement runs through the very expression parser, checks and evaluator that the
//! expression requests use.

use std::collections::HashMap;

use monotable_partiql::ast::{CompareOp, Expr, IsWhat, Path, Step};
use monotable_types::AttributeValue;

use crate::Error;

/// The `ExpressionAttributeNames`/`Values` being built for one request. Every path element
/// and every constant gets its own placeholder, so no reserved word or quoting rule of the
/// expression language can meet a PartiQL name.
#[derive(Default)]
pub(super) struct Placeholders<'p> {
    pub names: HashMap<String, String>,
    pub values: HashMap<String, AttributeValue>,
    by_name: HashMap<String, String>,
    pub params: &'p [AttributeValue],
}

impl<'p> Placeholders<'p> {
    pub fn new(params: &'p [AttributeValue]) -> Placeholders<'p> {
        Placeholders { params, ..Placeholders::default() }
    }

    /// The placeholder of one attribute name (one per distinct name).
    pub fn name(&mut self, name: &str) -> String {
        if let Some(p) = self.by_name.get(name) {
            return p.clone();
        }
        let p = format!("#n{}", self.by_name.len());
        self.by_name.insert(name.to_owned(), p.clone());
        self.names.insert(p.clone(), name.to_owned());
        p
    }

    /// A fresh value placeholder.
    pub fn value(&mut self, v: AttributeValue) -> String {
        let p = format!(":v{}", self.values.len());
        self.values.insert(p.clone(), v);
        p
    }

    pub fn path(&mut self, path: &Path) -> String {
        let mut out = self.name(&path.root);
        for step in &path.steps {
            match step {
                Step::Field(f) => {
                    out.push('.');
                    out.push_str(&self.name(f));
                }
                Step::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    /// A constant's value (literals, parameters, constructors).
    pub fn constant(&self, e: &Expr) -> Result<AttributeValue, Error> {
        monotable_partiql::value(e, self.params)
            .map_err(partiql_error)?
            .ok_or_else(|| Error::validation("Unsupported operand: MISSING is not a value"))
    }

    /// An operand of a condition: a path, a constant or `size(operand)`.
    pub fn operand(&mut self, e: &Expr) -> Result<String, Error> {
        match e {
            Expr::Path(p) => Ok(self.path(p)),
            Expr::Call(f, args) if f == "size" && args.len() == 1 => {
                Ok(format!("size({})", self.operand(&args[0])?))
            }
            e if monotable_partiql::is_constant(e) => {
                let v = self.constant(e)?;
                Ok(self.value(v))
            }
            other => Err(unsupported(other)),
        }
    }

    /// A condition.
    pub fn condition(&mut self, e: &Expr) -> Result<String, Error> {
        Ok(match e {
            Expr::Compare(a, op, b) => format!("{} {} {}", self.operand(a)?, op_text(*op), self.operand(b)?),
            Expr::Between(a, lo, hi) => {
                format!("{} BETWEEN {} AND {}", self.operand(a)?, self.operand(lo)?, self.operand(hi)?)
            }
            Expr::In(a, items) => {
                let left = self.operand(a)?;
                let items: Result<Vec<String>, Error> = items.iter().map(|i| self.operand(i)).collect();
                format!("{left} IN ({})", items?.join(", "))
            }
            Expr::Is(a, not, what) => {
                let Expr::Path(p) = &**a else { return Err(unsupported(e)) };
                let path = self.path(p);
                match (what, not) {
                    (IsWhat::Missing, false) => format!("attribute_not_exists({path})"),
                    (IsWhat::Missing, true) => format!("attribute_exists({path})"),
                    (IsWhat::Null, not) => {
                        let t = self.value(AttributeValue::S("NULL".into()));
                        // Never wrapped in parentheses as a whole: callers wrap every
                        // operand of AND/OR, and DynamoDB refuses doubled parentheses.
                        let test = format!("attribute_type({path}, {t}) OR attribute_not_exists({path})");
                        if *not {
                            format!("NOT ({test})")
                        } else {
                            test
                        }
                    }
                }
            }
            Expr::Not(c) => format!("NOT ({})", self.condition(c)?),
            Expr::And(items) => self.joined(items, " AND ")?,
            Expr::Or(items) => self.joined(items, " OR ")?,
            Expr::Call(f, args) => match (f.as_str(), args.as_slice()) {
                ("attribute_exists" | "attribute_not_exists", [Expr::Path(p)]) => {
                    format!("{f}({})", self.path(p))
                }
                ("missing", [Expr::Path(p)]) => format!("attribute_not_exists({})", self.path(p)),
                ("begins_with" | "contains" | "attribute_type", [a, b]) => {
                    format!("{f}({}, {})", self.operand(a)?, self.operand(b)?)
                }
                _ => return Err(unsupported(e)),
            },
            other => return Err(unsupported(other)),
        })
    }

    fn joined(&mut self, items: &[Expr], op: &str) -> Result<String, Error> {
        let parts: Result<Vec<String>, Error> =
            items.iter().map(|c| Ok(format!("({})", self.condition(c)?))).collect();
        Ok(parts?.join(op))
    }

    /// The right-hand side of `SET path = e`, as an update-expression operand.
    pub fn set_value(&mut self, e: &Expr) -> Result<String, Error> {
        match e {
            Expr::Add(a, b) => Ok(format!("{} + {}", self.set_operand(a)?, self.set_operand(b)?)),
            Expr::Sub(a, b) => Ok(format!("{} - {}", self.set_operand(a)?, self.set_operand(b)?)),
            other => self.set_operand(other),
        }
    }

    fn set_operand(&mut self, e: &Expr) -> Result<String, Error> {
        match e {
            Expr::Path(p) => Ok(self.path(p)),
            Expr::Call(f, args) if f == "list_append" && args.len() == 2 => {
                Ok(format!("list_append({}, {})", self.set_operand(&args[0])?, self.set_operand(&args[1])?))
            }
            e if monotable_partiql::is_constant(e) => {
                let v = self.constant(e)?;
                Ok(self.value(v))
            }
            other => Err(unsupported(other)),
        }
    }
}

fn op_text(op: CompareOp) -> &'static str {
    op.as_str()
}

/// An expression DynamoDB's PartiQL does not accept in this position.
pub(super) fn unsupported(e: &Expr) -> Error {
    Error::validation(format!("Unsupported operation: {e}"))
}

/// A PartiQL crate error as DynamoDB's `ValidationException`.
pub(super) fn partiql_error(e: monotable_partiql::Error) -> Error {
    Error::validation(e.to_string())
}
