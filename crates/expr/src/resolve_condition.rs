//! Condition, filter and key condition expressions: DynamoDB's checks, then resolution.
//!
//! DynamoDB reports one error per expression, chosen by category in this order: unknown
//! function, misused function, reserved word, then the first atomic condition (comparison,
//! `BETWEEN`, `IN` or function) that has an error, within which undefined placeholders come
//! before operand counts, operand counts before identical operands, and those before operand
//! types. The checker below collects the first error of each category while walking the tree
//! in source order, and the caller picks by that order.

use std::cmp::Ordering;

use monotable_types::{AttributeType, AttributeValue};

use crate::ast::{self, FunctionCall, Operand as AstOperand};
use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::messages::{
    first, misused_function, operand_count, operand_type, path_required, reserved_word, unknown_function,
};
use crate::params::Params;
use crate::reserved::is_reserved_word;
use crate::resolved::{Condition, Operand, PathDisplay};
use crate::values::{compare_scalars, value_brief};

/// Condition functions and their operand counts.
const FUNCTIONS: &[(&str, usize)] = &[
    ("attribute_exists", 1),
    ("attribute_not_exists", 1),
    ("attribute_type", 2),
    ("begins_with", 2),
    ("contains", 2),
    ("size", 1),
];

/// The most operands `IN` accepts on its right-hand side.
pub const MAX_IN_OPERANDS: usize = 100;

const ALL_TYPES_BRACED: &str = "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}";

/// First error of each expression-wide category.
#[derive(Default)]
struct Findings {
    unknown_function: Option<ExprError>,
    misused: Option<ExprError>,
    reserved: Option<ExprError>,
    condition: Option<ExprError>,
}

/// First error of each category within one atomic condition.
#[derive(Default)]
struct Local {
    placeholder: Option<ExprError>,
    operand_count: Option<ExprError>,
    distinct: Option<ExprError>,
    function: Option<ExprError>,
}

struct Checker<'p, 'a> {
    params: &'p Params<'a>,
    kind: ExpressionKind,
    found: Findings,
}

impl Checker<'_, '_> {
    fn err(&self, kind: ErrorKind, detail: impl std::fmt::Display) -> ExprError {
        ExprError::invalid(self.kind, kind, detail)
    }

    fn condition(&mut self, c: &ast::Condition) {
        match c {
            ast::Condition::And(list) | ast::Condition::Or(list) => {
                for c in list {
                    self.condition(c);
                }
                for c in list {
                    self.misused_size(c);
                }
            }
            ast::Condition::Not(a) => {
                self.condition(a);
                self.misused_size(a);
            }
            ast::Condition::Compare(a, op, b) => {
                let mut local = Local::default();
                self.operand(a, &mut local);
                self.operand(b, &mut local);
                self.misused_operands(&[a, b]);
                self.distinct(op.as_str(), a, b, &mut local);
                self.finish_atomic(local);
            }
            ast::Condition::Between(a, low, high) => {
                let mut local = Local::default();
                for o in [a, low, high] {
                    self.operand(o, &mut local);
                }
                self.misused_operands(&[a, low, high]);
                self.between_bounds(low, high, &mut local);
                self.finish_atomic(local);
            }
            ast::Condition::In(a, list) => {
                let mut local = Local::default();
                self.operand(a, &mut local);
                for o in list {
                    self.operand(o, &mut local);
                }
                let all: Vec<&AstOperand> = std::iter::once(a).chain(list).collect();
                self.misused_operands(&all);
                if list.len() > MAX_IN_OPERANDS {
                    let e = self.err(
                        ErrorKind::TooManyOperands,
                        format_args!(
                            "The IN operator is provided with too many operands; number of operands: {}",
                            list.len()
                        ),
                    );
                    first(&mut local.operand_count, e);
                }
                self.finish_atomic(local);
            }
            ast::Condition::Function(call) => {
                let mut local = Local::default();
                self.function(call, &mut local);
                self.finish_atomic(local);
            }
        }
    }

    fn finish_atomic(&mut self, local: Local) {
        if self.found.condition.is_none() {
            self.found.condition =
                local.placeholder.or(local.operand_count).or(local.distinct).or(local.function);
        }
    }

    fn misused(&mut self, name: &str) {
        let e = misused_function(self.kind, name);
        first(&mut self.found.misused, e);
    }

    /// `size()` standing where a condition is needed.
    fn misused_size(&mut self, c: &ast::Condition) {
        if let ast::Condition::Function(call) = c {
            if call.name == "size" {
                self.misused("size");
            }
        }
    }

    /// Functions other than `size()` standing where a value is needed.
    fn misused_operands(&mut self, operands: &[&AstOperand]) {
        for o in operands {
            if let AstOperand::Function(call) = o {
                if call.name != "size" {
                    self.misused(&call.name);
                }
            }
        }
    }

    fn operand(&mut self, o: &AstOperand, local: &mut Local) {
        match o {
            AstOperand::Path(p) => self.path(p, local),
            AstOperand::Value(v) => {
                if self.params.lookup_value(v).is_none() {
                    first(&mut local.placeholder, Params::undefined_value(self.kind, v));
                }
            }
            AstOperand::Function(call) => self.function(call, local),
        }
    }

    fn path(&mut self, p: &ast::Path, local: &mut Local) {
        for e in &p.elements {
            match e {
                ast::PathElement::Name(n) if is_reserved_word(n) => {
                    let e = reserved_word(self.kind, n);
                    first(&mut self.found.reserved, e);
                }
                ast::PathElement::Placeholder(n) if self.params.lookup_name(n).is_none() => {
                    first(&mut local.placeholder, Params::undefined_name(self.kind, n));
                }
                _ => {}
            }
        }
    }

    /// The type an operand is known to have before evaluation, if any.
    fn static_type(&self, o: &AstOperand) -> Option<AttributeType> {
        match o {
            AstOperand::Value(v) => self.params.lookup_value(v).map(AttributeValue::attribute_type),
            AstOperand::Function(call) if call.name == "size" => Some(AttributeType::N),
            AstOperand::Function(_) => Some(AttributeType::Bool),
            AstOperand::Path(_) => None,
        }
    }

    fn distinct(&mut self, operator: &str, a: &AstOperand, b: &AstOperand, local: &mut Local) {
        let (AstOperand::Path(pa), AstOperand::Path(pb)) = (a, b) else { return };
        let (Some(ra), Some(rb)) = (self.params.peek_path(pa), self.params.peek_path(pb)) else { return };
        if ra == rb {
            let e = self.err(
                ErrorKind::SameOperands,
                format_args!(
                    "The first operand must be distinct from the remaining operands for this operator or function; operator: {operator}, first operand: {}",
                    PathDisplay(&ra)
                ),
            );
            first(&mut local.distinct, e);
        }
    }

    fn between_bounds(&mut self, low: &AstOperand, high: &AstOperand, local: &mut Local) {
        let (AstOperand::Value(l), AstOperand::Value(h)) = (low, high) else { return };
        let (Some(lv), Some(hv)) = (self.params.lookup_value(l), self.params.lookup_value(h)) else { return };
        let detail = if lv.attribute_type() != hv.attribute_type() {
            "The BETWEEN operator requires same data type for lower and upper bounds"
        } else if compare_scalars(lv, hv) == Some(Ordering::Greater) {
            "The BETWEEN operator requires upper bound to be greater than or equal to lower bound"
        } else {
            return;
        };
        let e = self.err(
            ErrorKind::BetweenBounds,
            format_args!(
                "{detail}; lower bound operand: AttributeValue: {}, upper bound operand: AttributeValue: {}",
                value_brief(lv),
                value_brief(hv)
            ),
        );
        first(&mut local.function, e);
    }

    fn operand_type_error(&self, function: &str, ty: &str) -> ExprError {
        operand_type(self.kind, function, ty)
    }

    fn function(&mut self, call: &FunctionCall, local: &mut Local) {
        for arg in &call.args {
            self.operand(arg, local);
        }
        let args: Vec<&AstOperand> = call.args.iter().collect();
        self.misused_operands(&args);
        let name = call.name.as_str();
        let Some(&(_, count)) = FUNCTIONS.iter().find(|(n, _)| *n == name) else {
            let e = unknown_function(self.kind, name);
            first(&mut self.found.unknown_function, e);
            return;
        };
        if call.args.len() != count {
            let e = operand_count(self.kind, name, call.args.len());
            first(&mut local.operand_count, e);
            return;
        }
        if let [a, b] = call.args.as_slice() {
            self.distinct(name, a, b, local);
        }
        if let Some(e) = self.function_types(call) {
            first(&mut local.function, e);
        }
    }

    /// Operand-type rules of each function (operand count already checked).
    fn function_types(&self, call: &FunctionCall) -> Option<ExprError> {
        let name = call.name.as_str();
        let requires_path = || path_required(self.kind, name);
        match (name, call.args.as_slice()) {
            ("attribute_exists" | "attribute_not_exists", [a]) => {
                (!matches!(a, AstOperand::Path(_))).then(requires_path)
            }
            ("begins_with", args) => args.iter().find_map(|a| match self.static_type(a) {
                Some(t) if t != AttributeType::S && t != AttributeType::B => {
                    Some(self.operand_type_error(name, t.as_str()))
                }
                _ => None,
            }),
            ("attribute_type", [a, t]) => {
                if !matches!(a, AstOperand::Path(_)) {
                    return Some(requires_path());
                }
                match t {
                    AstOperand::Value(v) => match self.params.lookup_value(v)? {
                        AttributeValue::S(s) if AttributeType::parse(s).is_some() => None,
                        AttributeValue::S(s) => Some(self.err(
                            ErrorKind::InvalidTypeName,
                            format_args!(
                                "Invalid attribute type name found; type: {s}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
                            ),
                        )),
                        other => Some(self.operand_type_error(name, other.attribute_type().as_str())),
                    },
                    AstOperand::Path(_) => Some(self.operand_type_error(name, ALL_TYPES_BRACED)),
                    AstOperand::Function(_) => {
                        let ty = self.static_type(t).map_or(ALL_TYPES_BRACED, AttributeType::as_str);
                        Some(self.operand_type_error(name, ty))
                    }
                }
            }
            ("size", [a]) => match self.static_type(a) {
                Some(t @ (AttributeType::N | AttributeType::Bool | AttributeType::Null)) => {
                    Some(self.operand_type_error(name, t.as_str()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn into_result(self) -> Result<(), ExprError> {
        let f = self.found;
        match f.unknown_function.or(f.misused).or(f.reserved).or(f.condition) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

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

/// Runs DynamoDB's checks on a parsed condition.
pub(crate) fn check_condition(
    params: &Params<'_>,
    c: &ast::Condition,
    kind: ExpressionKind,
) -> Result<(), ExprError> {
    let mut checker = Checker { params, kind, found: Findings::default() };
    checker.condition(c);
    checker.misused_size(c);
    checker.into_result()
}

impl Params<'_> {
    /// Resolves a `ConditionExpression` or `FilterExpression` (any [`ExpressionKind`] is
    /// accepted; it names the parameter in messages).
    pub fn condition(&mut self, text: &str, kind: ExpressionKind) -> Result<Condition, ExprError> {
        let ast = crate::parse_condition(text, kind)?;
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
            ("attribute_type", [AstOperand::Path(p), AstOperand::Value(v)]) => {
                let path = self.resolve_path(p, kind)?;
                let ty = match self.resolve_value(v, kind)? {
                    AttributeValue::S(s) => AttributeType::parse(&s).ok_or_else(misuse)?,
                    _ => return Err(misuse()),
                };
                Condition::AttributeType(path, ty)
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
