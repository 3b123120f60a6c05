//! Condition, filter and key condition expressions: DynamoDB's checks, then resolution.
//!
//! The checks are `check`'s two passes; resolution runs only on an expression that passed
//! them, and marks the placeholders it uses.

use monotable_types::{AttributeType, AttributeValue};

use crate::ast::{self, FunctionCall, Operand as AstOperand};
use crate::cache::Cached;
use crate::check::Check;
use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::messages::misused_function;
use crate::params::Params;
use crate::resolved::{Condition, Operand};

/// Folds the operands of an n-ary `AND`/`OR` into a balanced binary tree, so that the
/// resolved tree's depth is logarithmic in the chain's length. `None` for an empty list,
/// which the parser never produces.
fn balanced(
    mut list: Vec<Condition>,
    join: fn(Box<Condition>, Box<Condition>) -> Condition,
) -> Option<Condition> {
    if list.len() <= 1 {
        return list.pop();
    }
    let right = list.split_off(list.len() / 2);
    Some(join(Box::new(balanced(list, join)?), Box::new(balanced(right, join)?)))
}

/// Runs DynamoDB's two checking passes on a parsed condition (the first only until it has
/// passed on the cached tree once).
pub(crate) fn check_condition(
    params: &Params<'_>,
    c: &Cached<ast::Condition>,
    kind: ExpressionKind,
) -> Result<(), ExprError> {
    let check = Check { params, kind };
    c.pass1(|c| check.condition1(c))?;
    check.condition2(c)
}

impl Params<'_> {
    /// Resolves a `ConditionExpression` or `FilterExpression` (any [`ExpressionKind`] is
    /// accepted; it names the parameter in messages).
    pub fn condition(&mut self, text: &str, kind: ExpressionKind) -> Result<Condition, ExprError> {
        let ast = crate::cache::condition(text, kind)?;
        check_condition(self, &ast, kind)?;
        self.resolve_condition(&ast, kind)
    }

    /// Resolves a checked condition, marking its placeholders used.
    pub(crate) fn resolve_condition(
        &mut self,
        c: &ast::Condition,
        kind: ExpressionKind,
    ) -> Result<Condition, ExprError> {
        Ok(match c {
            ast::Condition::Compare(a, op, b) => {
                Condition::Compare(self.resolve_operand(a, kind)?, *op, self.resolve_operand(b, kind)?)
            }
            ast::Condition::Between(a, l, h) => Condition::Between(
                self.resolve_operand(a, kind)?,
                self.resolve_operand(l, kind)?,
                self.resolve_operand(h, kind)?,
            ),
            ast::Condition::In(a, list) => {
                let a = self.resolve_operand(a, kind)?;
                let list = list.iter().map(|o| self.resolve_operand(o, kind)).collect::<Result<_, _>>()?;
                Condition::In(a, list)
            }
            ast::Condition::Function(call) => self.resolve_function_condition(call, kind)?,
            ast::Condition::Not(a) => Condition::Not(Box::new(self.resolve_condition(a, kind)?)),
            ast::Condition::And(list) => balanced(self.resolve_list(list, kind)?, Condition::And)
                .ok_or_else(|| {
                    ExprError::invalid(kind, ErrorKind::Empty, "The expression can not be empty;")
                })?,
            ast::Condition::Or(list) => {
                balanced(self.resolve_list(list, kind)?, Condition::Or).ok_or_else(|| {
                    ExprError::invalid(kind, ErrorKind::Empty, "The expression can not be empty;")
                })?
            }
        })
    }

    fn resolve_list(
        &mut self,
        list: &[ast::Condition],
        kind: ExpressionKind,
    ) -> Result<Vec<Condition>, ExprError> {
        list.iter().map(|c| self.resolve_condition(c, kind)).collect()
    }

    fn resolve_function_condition(
        &mut self,
        call: &FunctionCall,
        kind: ExpressionKind,
    ) -> Result<Condition, ExprError> {
        let misuse = || misused_function(kind, &call.name);
        Ok(match (call.name.as_str(), call.args.as_slice()) {
            ("attribute_exists", [AstOperand::Path(p)]) => {
                Condition::AttributeExists(self.resolve_path(p, kind)?)
            }
            ("attribute_not_exists", [AstOperand::Path(p)]) => {
                Condition::AttributeNotExists(self.resolve_path(p, kind)?)
            }
            ("attribute_type", [a @ (AstOperand::Path(_) | AstOperand::Value(_)), AstOperand::Value(v)]) => {
                let a = self.resolve_operand(a, kind)?;
                let ty = match self.resolve_value(v, kind)? {
                    AttributeValue::S(s) => AttributeType::parse(&s).ok_or_else(misuse)?,
                    _ => return Err(misuse()),
                };
                Condition::AttributeType(a, ty)
            }
            ("begins_with", [a, b]) => {
                Condition::BeginsWith(self.resolve_operand(a, kind)?, self.resolve_operand(b, kind)?)
            }
            ("contains", [a, b]) => {
                Condition::Contains(self.resolve_operand(a, kind)?, self.resolve_operand(b, kind)?)
            }
            _ => return Err(misuse()),
        })
    }

    pub(crate) fn resolve_operand(
        &mut self,
        o: &AstOperand,
        kind: ExpressionKind,
    ) -> Result<Operand, ExprError> {
        Ok(match o {
            AstOperand::Path(p) => Operand::Path(self.resolve_path(p, kind)?),
            AstOperand::Value(v) => Operand::Value(self.resolve_value(v, kind)?),
            AstOperand::Function(call) => match (call.name.as_str(), call.args.as_slice()) {
                ("size", [a]) => Operand::Size(Box::new(self.resolve_operand(a, kind)?)),
                _ => return Err(misused_function(kind, &call.name)),
            },
        })
    }
}
