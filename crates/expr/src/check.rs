//! DynamoDB's semantic checks on a parsed expression, shared by all grammars.
//!
//! DynamoDB checks an expression in two passes and reports the first problem it meets:
//!
//! 1. In written order: reserved words, function names, and whether each function may stand
//!    where it stands (a condition function where a condition is expected, `size` where a
//!    value is expected, update functions only in updates); in conditions also the number of
//!    operands of each function.
//! 2. In written order: undefined `#name`s and `:value`s, document paths nested more than 32
//!    levels, identical operands, operand types known before evaluation (constants and
//!    `size()` results), `BETWEEN` bounds and `IN` operand counts; in updates also the number
//!    of operands of each function.
//!
//! Updates and projections run these per path and value in the order `resolve_update`
//! describes. Each function returns the first error it finds.

use std::cmp::Ordering;

use monotable_types::{AttributeType, AttributeValue};

use crate::ast::{self, FunctionCall, Operand as AstOperand};
use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::messages::{
    misused_function, operand_count, operand_type, path_required, reserved_word, unknown_function,
};
use crate::params::Params;
use crate::reserved::is_reserved_word;
use crate::resolved::PathDisplay;
use crate::values::{compare_scalars, value_brief};

/// Functions that make a condition, with their operand counts.
const CONDITION_FUNCTIONS: &[(&str, usize)] = &[
    ("attribute_exists", 1),
    ("attribute_not_exists", 1),
    ("attribute_type", 2),
    ("begins_with", 2),
    ("contains", 2),
];
/// Functions that make a value in a condition.
const OPERAND_FUNCTIONS: &[(&str, usize)] = &[("size", 1)];
/// Functions of update expressions.
const UPDATE_FUNCTIONS: &[(&str, usize)] = &[("if_not_exists", 2), ("list_append", 2)];

/// The most operands `IN` accepts on its right-hand side.
pub const MAX_IN_OPERANDS: usize = 100;

/// The deepest document path DynamoDB accepts, in elements.
pub const MAX_PATH_DEPTH: usize = 32;

/// What `attribute_type` names when its type operand is not a constant.
const ALL_TYPES_BRACED: &str = "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}";

fn arity(name: &str) -> Option<usize> {
    CONDITION_FUNCTIONS
        .iter()
        .chain(OPERAND_FUNCTIONS)
        .chain(UPDATE_FUNCTIONS)
        .find(|(n, _)| *n == name)
        .map(|f| f.1)
}

fn is_in(list: &[(&str, usize)], name: &str) -> bool {
    list.iter().any(|(n, _)| *n == name)
}

/// Where an expression piece stands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Condition,
    Operand,
}

pub(crate) struct Check<'p, 'a> {
    pub(crate) params: &'p Params<'a>,
    pub(crate) kind: ExpressionKind,
}

impl Check<'_, '_> {
    fn err(&self, kind: ErrorKind, detail: impl std::fmt::Display) -> ExprError {
        ExprError::invalid(self.kind, kind, detail)
    }

    fn in_update(&self) -> bool {
        self.kind == ExpressionKind::Update
    }

    // ---- pass 1 ----

    pub(crate) fn path1(&self, p: &ast::Path) -> Result<(), ExprError> {
        for e in &p.elements {
            if let ast::PathElement::Name(n) = e {
                if is_reserved_word(n) {
                    return Err(reserved_word(self.kind, n));
                }
            }
        }
        Ok(())
    }

    pub(crate) fn operand1(&self, o: &AstOperand, place: Place) -> Result<(), ExprError> {
        match o {
            AstOperand::Path(p) => self.path1(p),
            AstOperand::Value(_) => Ok(()),
            AstOperand::Function(call) => self.call1(call, place),
        }
    }

    fn call1(&self, call: &FunctionCall, place: Place) -> Result<(), ExprError> {
        let name = call.name.as_str();
        let Some(count) = arity(name) else { return Err(unknown_function(self.kind, name)) };
        if self.in_update() {
            if !is_in(UPDATE_FUNCTIONS, name) {
                return Err(self.err(
                    ErrorKind::MisusedFunction,
                    format_args!("The function is not allowed in an update expression; function: {name}"),
                ));
            }
            // A list_append as the first operand of another is refused (recorded against
            // DynamoDB in ScyllaDB's test/alternator/test_update_expression.py); a
            // list_append of an if_not_exists is the usual idiom and stays allowed.
            if name == "list_append"
                && matches!(call.args.first(), Some(AstOperand::Function(inner)) if inner.name == "list_append")
            {
                return Err(misused_function(self.kind, name));
            }
        } else {
            if is_in(UPDATE_FUNCTIONS, name) {
                return Err(self.err(
                    ErrorKind::MisusedFunction,
                    format_args!("The function is not allowed in a condition expression; function: {name}"),
                ));
            }
            if (place == Place::Condition) != is_in(CONDITION_FUNCTIONS, name) {
                return Err(misused_function(self.kind, name));
            }
            if call.args.len() != count {
                return Err(operand_count(self.kind, name, call.args.len()));
            }
        }
        call.args.iter().try_for_each(|a| self.operand1(a, Place::Operand))
    }

    pub(crate) fn condition1(&self, c: &ast::Condition) -> Result<(), ExprError> {
        match c {
            ast::Condition::And(list) | ast::Condition::Or(list) => {
                list.iter().try_for_each(|c| self.condition1(c))
            }
            ast::Condition::Not(c) => self.condition1(c),
            ast::Condition::Compare(a, _, b) => {
                self.operand1(a, Place::Operand)?;
                self.operand1(b, Place::Operand)
            }
            ast::Condition::Between(a, l, h) => {
                [a, l, h].into_iter().try_for_each(|o| self.operand1(o, Place::Operand))
            }
            ast::Condition::In(a, list) => {
                std::iter::once(a).chain(list).try_for_each(|o| self.operand1(o, Place::Operand))
            }
            ast::Condition::Function(call) => self.call1(call, Place::Condition),
        }
    }

    // ---- pass 2 ----

    /// Undefined `#name`s only (no depth check).
    pub(crate) fn path_names(&self, p: &ast::Path) -> Result<(), ExprError> {
        for e in &p.elements {
            if let ast::PathElement::Placeholder(n) = e {
                if self.params.lookup_name(n).is_none() {
                    return Err(Params::undefined_name(self.kind, n));
                }
            }
        }
        Ok(())
    }

    /// Undefined `#name`s in every path of an operand.
    pub(crate) fn operand_names(&self, o: &AstOperand) -> Result<(), ExprError> {
        match o {
            AstOperand::Path(p) => self.path_names(p),
            AstOperand::Value(_) => Ok(()),
            AstOperand::Function(call) => call.args.iter().try_for_each(|a| self.operand_names(a)),
        }
    }

    pub(crate) fn path2(&self, p: &ast::Path) -> Result<(), ExprError> {
        self.path_names(p)?;
        if p.elements.len() > MAX_PATH_DEPTH {
            return Err(self.err(
                ErrorKind::PathTooDeep,
                format_args!(
                    "The document path has too many nesting levels; nesting levels: {}",
                    p.elements.len()
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn value2(&self, v: &str) -> Result<Option<&AttributeValue>, ExprError> {
        match self.params.lookup_value(v) {
            Some(found) => Ok(Some(found)),
            None => Err(Params::undefined_value(self.kind, v)),
        }
    }

    pub(crate) fn operand2(&self, o: &AstOperand) -> Result<(), ExprError> {
        match o {
            AstOperand::Path(p) => self.path2(p),
            AstOperand::Value(v) => self.value2(v).map(drop),
            AstOperand::Function(call) => self.call2(call),
        }
    }

    /// The type an operand is known to have before evaluation: a constant's type, `N` for
    /// `size()`; `None` for paths and other functions.
    pub(crate) fn static_type(&self, o: &AstOperand) -> Option<AttributeType> {
        match o {
            AstOperand::Value(v) => self.params.lookup_value(v).map(AttributeValue::attribute_type),
            AstOperand::Function(call) if call.name == "size" => Some(AttributeType::N),
            _ => None,
        }
    }

    /// Refuses a path operand repeated among the operands that follow it.
    fn distinct<'o>(
        &self,
        operator: &str,
        first: &AstOperand,
        rest: impl IntoIterator<Item = &'o AstOperand>,
    ) -> Result<(), ExprError> {
        let AstOperand::Path(p) = first else { return Ok(()) };
        let mut others = rest.into_iter().filter_map(|o| match o {
            AstOperand::Path(q) => Some(q),
            _ => None,
        });
        let Some(next) = others.next() else { return Ok(()) };
        let Some(resolved) = self.params.peek_path(p) else { return Ok(()) };
        for q in std::iter::once(next).chain(others) {
            if self.params.peek_path(q).as_ref() == Some(&resolved) {
                return Err(self.err(
                    ErrorKind::SameOperands,
                    format_args!(
                        "The first operand must be distinct from the remaining operands for this operator or function; operator: {operator}, first operand: {}",
                        PathDisplay(&resolved)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Refuses operands known to have a type outside `allowed`.
    pub(crate) fn types<'o>(
        &self,
        operator: &str,
        operands: impl IntoIterator<Item = &'o AstOperand>,
        allowed: &[AttributeType],
    ) -> Result<(), ExprError> {
        for o in operands {
            if let Some(t) = self.static_type(o) {
                if !allowed.contains(&t) {
                    return Err(operand_type(self.kind, operator, t.as_str()));
                }
            }
        }
        Ok(())
    }

    fn between_bounds(&self, low: &AstOperand, high: &AstOperand) -> Result<(), ExprError> {
        let (AstOperand::Value(l), AstOperand::Value(h)) = (low, high) else { return Ok(()) };
        let (Some(lv), Some(hv)) = (self.params.lookup_value(l), self.params.lookup_value(h)) else {
            return Ok(());
        };
        let detail = if lv.attribute_type() != hv.attribute_type() {
            "The BETWEEN operator requires same data type for lower and upper bounds"
        } else if compare_scalars(lv, hv) == Some(Ordering::Greater) {
            "The BETWEEN operator requires upper bound to be greater than or equal to lower bound"
        } else {
            return Ok(());
        };
        Err(self.err(
            ErrorKind::BetweenBounds,
            format_args!(
                "{detail}; lower bound operand: AttributeValue: {}, upper bound operand: AttributeValue: {}",
                value_brief(lv),
                value_brief(hv)
            ),
        ))
    }

    fn call2(&self, call: &FunctionCall) -> Result<(), ExprError> {
        let name = call.name.as_str();
        if self.in_update() && arity(name) != Some(call.args.len()) {
            return Err(operand_count(self.kind, name, call.args.len()));
        }
        call.args.iter().try_for_each(|a| self.operand2(a))?;
        let needs_path = matches!(name, "attribute_exists" | "attribute_not_exists" | "if_not_exists");
        let path_missing = match call.args.first() {
            Some(AstOperand::Path(_)) => false,
            // DynamoDB takes a value as `attribute_type`'s first operand too (recorded in
            // ScyllaDB's test/alternator/test_condition_expression.py,
            // test_update_condition_attribute_type), but not a function.
            Some(AstOperand::Value(_)) => name != "attribute_type",
            _ => true,
        };
        if (needs_path || name == "attribute_type") && path_missing {
            return Err(path_required(self.kind, name));
        }
        if name != "size" && name != "list_append" {
            if let Some((first, rest)) = call.args.split_first() {
                self.distinct(name, first, rest)?;
            }
        }
        use AttributeType::*;
        match (name, call.args.as_slice()) {
            ("size", args) => self.types(name, args, &[S, B, Ss, Ns, Bs, L, M]),
            ("begins_with", args) => self.types(name, args, &[S, B]),
            ("list_append", args) => self.types(name, args, &[L]),
            ("attribute_type", [_, t]) => self.attribute_type_name(t),
            _ => Ok(()),
        }
    }

    fn attribute_type_name(&self, t: &AstOperand) -> Result<(), ExprError> {
        let name = "attribute_type";
        let AstOperand::Value(v) = t else {
            let ty = self.static_type(t).map_or(ALL_TYPES_BRACED, AttributeType::as_str);
            return Err(operand_type(self.kind, name, ty));
        };
        match self.params.lookup_value(v) {
            Some(AttributeValue::S(s)) if AttributeType::parse(s).is_none() => Err(self.err(
                ErrorKind::InvalidTypeName,
                format_args!(
                    "Invalid attribute type name found; type: {s}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
                ),
            )),
            Some(AttributeValue::S(_)) | None => Ok(()),
            Some(other) => Err(operand_type(self.kind, name, other.attribute_type().as_str())),
        }
    }

    pub(crate) fn condition2(&self, c: &ast::Condition) -> Result<(), ExprError> {
        use AttributeType::{B, N, S};
        match c {
            ast::Condition::And(list) | ast::Condition::Or(list) => {
                list.iter().try_for_each(|c| self.condition2(c))
            }
            ast::Condition::Not(c) => self.condition2(c),
            ast::Condition::Compare(a, op, b) => {
                self.operand2(a)?;
                self.operand2(b)?;
                self.distinct(op.as_str(), a, [b])?;
                if !matches!(op, ast::Comparator::Eq | ast::Comparator::Ne) {
                    self.types(op.as_str(), [a, b], &[S, N, B])?;
                }
                Ok(())
            }
            ast::Condition::Between(a, low, high) => {
                [a, low, high].into_iter().try_for_each(|o| self.operand2(o))?;
                self.distinct("BETWEEN", a, [low, high])?;
                self.types("BETWEEN", [a, low, high], &[S, N, B])?;
                self.between_bounds(low, high)
            }
            ast::Condition::In(a, list) => {
                std::iter::once(a).chain(list).try_for_each(|o| self.operand2(o))?;
                if list.len() > MAX_IN_OPERANDS {
                    return Err(self.err(
                        ErrorKind::TooManyOperands,
                        format_args!(
                            "The IN operator is provided with too many operands; number of operands: {}",
                            list.len()
                        ),
                    ));
                }
                self.distinct("IN", a, list)
            }
            ast::Condition::Function(call) => self.call2(call),
        }
    }
}
