//! The semantic pass: what parses but DynamoDB's PartiQL refuses before reading any table.
//! Schema-dependent rules (key equalities, index names) belong to the engine's planner.

use crate::ast::*;
use crate::Error;

/// The functions DynamoDB's PartiQL knows, with their operand counts. `where_ok` functions
/// may appear in conditions; the others only on the right of `SET`.
const FUNCTIONS: &[(&str, usize, bool)] = &[
    ("begins_with", 2, true),
    ("contains", 2, true),
    ("attribute_exists", 1, true),
    ("attribute_not_exists", 1, true),
    ("attribute_type", 2, true),
    ("size", 1, true),
    ("missing", 1, true),
    ("list_append", 2, false),
    ("set_add", 2, false),
    ("set_delete", 2, false),
];

/// Checks `statement` and returns how many `?` parameters it has.
pub fn check(statement: &Statement) -> Result<usize, Error> {
    let mut c = Checker { params: 0 };
    match statement {
        Statement::Select(s) => {
            if let Some(e) = &s.condition {
                c.expr(e, true)?;
            }
            if !s.order_by.is_empty() && s.condition.is_none() {
                // Source: DynamoDB returns this for ORDER BY without WHERE (dynoxide, DynamoDB
                // Local parity).
                return Err(Error::Unsupported(
                    "Must have WHERE clause in the statement when using ORDER BY clause.".into(),
                ));
            }
        }
        Statement::Insert(i) => {
            if !matches!(i.value, Expr::Tuple(_) | Expr::Param(_)) {
                return Err(Error::Unsupported(
                    "Unsupported operation: Inserting a value that is not a tuple".into(),
                ));
            }
            c.expr(&i.value, false)?;
        }
        Statement::Update(u) => {
            for action in &u.actions {
                if let UpdateAction::Set(_, v) = action {
                    c.expr(v, false)?;
                }
            }
            if let Some(e) = &u.condition {
                c.expr(e, true)?;
            }
        }
        Statement::Delete(d) => {
            if let Some(e) = &d.condition {
                c.expr(e, true)?;
            }
            if let Some(r) = d.returning {
                if r != Returning::AllOld {
                    return Err(Error::Unsupported(format!(
                        "Invalid returning clause: {r}. Only RETURNING ALL OLD * is allowed in DELETE statements."
                    )));
                }
            }
        }
    }
    Ok(c.params)
}

struct Checker {
    params: usize,
}

impl Checker {
    fn expr(&mut self, e: &Expr, in_where: bool) -> Result<(), Error> {
        match e {
            Expr::Path(_) | Expr::Literal(_) => Ok(()),
            Expr::Param(_) => {
                self.params += 1;
                Ok(())
            }
            Expr::Neg(a) | Expr::Not(a) | Expr::Is(a, _, _) => self.expr(a, in_where),
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Compare(a, _, b) => {
                self.expr(a, in_where)?;
                self.expr(b, in_where)
            }
            Expr::Between(a, b, c) => {
                self.expr(a, in_where)?;
                self.expr(b, in_where)?;
                self.expr(c, in_where)
            }
            Expr::In(a, items) => {
                self.expr(a, in_where)?;
                self.all(items, in_where)
            }
            Expr::And(items) | Expr::Or(items) | Expr::List(items) | Expr::Bag(items) => {
                self.all(items, in_where)
            }
            Expr::Tuple(fields) => fields.iter().try_for_each(|(_, v)| self.expr(v, in_where)),
            Expr::Call(name, args) => {
                let Some(&(_, arity, where_ok)) = FUNCTIONS.iter().find(|(n, _, _)| n == name) else {
                    return Err(Error::Unsupported(format!("Unsupported function: {name}")));
                };
                if in_where && !where_ok {
                    return Err(Error::Unsupported(format!("Unsupported function in condition: {name}")));
                }
                if args.len() != arity {
                    return Err(Error::Unsupported(format!(
                        "Incorrect number of arguments for function {name}: expected {arity}, got {}",
                        args.len()
                    )));
                }
                self.all(args, in_where)
            }
        }
    }

    fn all(&mut self, items: &[Expr], in_where: bool) -> Result<(), Error> {
        items.iter().try_for_each(|e| self.expr(e, in_where))
    }
}
