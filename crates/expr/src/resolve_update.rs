//! Update and projection expressions: DynamoDB's checks, then resolution.
//!
//! Update errors are reported in DynamoDB's category order: reserved word, unknown function,
//! repeated clause, undefined name, undefined value, overlapping paths, conflicting paths,
//! `ADD`/`DELETE` operand types, then function operand rules; key-attribute updates last.
//! Projections: reserved word, undefined name, overlapping paths, conflicting paths.

use monotable_types::{AttributeType, AttributeValue};

use crate::ast::{self, Clause, FunctionCall, Operand as AstOperand};
use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::messages::{first, operand_count, operand_type, path_required, reserved_word, unknown_function};
use crate::params::Params;
use crate::reserved::is_reserved_word;
use crate::resolved::{
    Path, PathDisplay, PathElement, Projection, SetValue, UpdateAction, UpdateOperand, UpdatePlan,
};

const UPDATE_FUNCTIONS: &[(&str, usize)] = &[("if_not_exists", 2), ("list_append", 2)];

/// First error of each category, in the order they are reported.
#[derive(Default)]
struct Findings {
    reserved: Option<ExprError>,
    unknown_function: Option<ExprError>,
    section: Option<ExprError>,
    name: Option<ExprError>,
    value: Option<ExprError>,
    overlap: Option<ExprError>,
    conflict: Option<ExprError>,
    operand: Option<ExprError>,
    function: Option<ExprError>,
}

impl Findings {
    fn into_result(self) -> Result<(), ExprError> {
        let first = self
            .reserved
            .or(self.unknown_function)
            .or(self.section)
            .or(self.name)
            .or(self.value)
            .or(self.overlap)
            .or(self.conflict)
            .or(self.operand)
            .or(self.function);
        first.map_or(Ok(()), Err)
    }
}

/// DynamoDB's long type names in `ADD`/`DELETE` messages; sets have none (they are allowed).
fn long_type_name(t: AttributeType) -> Option<&'static str> {
    Some(match t {
        AttributeType::S => "STRING",
        AttributeType::N => "NUMBER",
        AttributeType::B => "BINARY",
        AttributeType::Null => "NULL",
        AttributeType::Bool => "BOOLEAN",
        AttributeType::L => "LIST",
        AttributeType::M => "MAP",
        AttributeType::Ss | AttributeType::Ns | AttributeType::Bs => return None,
    })
}

struct Checker<'p, 'a> {
    params: &'p Params<'a>,
    kind: ExpressionKind,
    found: Findings,
    /// Target paths seen so far (resolved where possible), for overlap checks.
    paths: Vec<Path>,
}

impl Checker<'_, '_> {
    fn err(&self, kind: ErrorKind, detail: impl std::fmt::Display) -> ExprError {
        ExprError::invalid(self.kind, kind, detail)
    }

    fn path(&mut self, p: &ast::Path) {
        for e in &p.elements {
            match e {
                ast::PathElement::Name(n) if is_reserved_word(n) => {
                    let e = reserved_word(self.kind, n);
                    first(&mut self.found.reserved, e);
                }
                ast::PathElement::Placeholder(n) if self.params.lookup_name(n).is_none() => {
                    first(&mut self.found.name, Params::undefined_name(self.kind, n));
                }
                _ => {}
            }
        }
    }

    /// A path that an action writes (or a projection reads): checked, then compared with the
    /// earlier ones. A path with an undefined name is not compared.
    fn target(&mut self, p: &ast::Path) {
        self.path(p);
        let Some(resolved) = self.params.peek_path(p) else { return };
        if self.found.overlap.is_none() {
            for earlier in &self.paths {
                if let Some(e) = self.compare_paths(earlier, &resolved) {
                    if e.kind() == ErrorKind::OverlappingPaths {
                        self.found.overlap = Some(e);
                        break;
                    }
                    first(&mut self.found.conflict, e);
                }
            }
        }
        self.paths.push(resolved);
    }

    fn compare_paths(&self, one: &[PathElement], two: &[PathElement]) -> Option<ExprError> {
        for (a, b) in one.iter().zip(two) {
            match (a, b) {
                (PathElement::Attribute(x), PathElement::Attribute(y)) if x != y => return None,
                (PathElement::Index(x), PathElement::Index(y)) if x != y => return None,
                (PathElement::Attribute(_), PathElement::Index(_))
                | (PathElement::Index(_), PathElement::Attribute(_)) => {
                    return Some(self.err(
                        ErrorKind::ConflictingPaths,
                        format_args!(
                            "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                            PathDisplay(one),
                            PathDisplay(two)
                        ),
                    ));
                }
                _ => {}
            }
        }
        Some(self.err(
            ErrorKind::OverlappingPaths,
            format_args!(
                "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                PathDisplay(one),
                PathDisplay(two)
            ),
        ))
    }

    fn value(&mut self, v: &str) -> Option<&AttributeValue> {
        let found = self.params.lookup_value(v);
        if found.is_none() {
            first(&mut self.found.value, Params::undefined_value(self.kind, v));
        }
        found
    }

    /// The type of an operand that is a `:value` itself (not a function result).
    fn immediate_type(&self, o: &AstOperand) -> Option<AttributeType> {
        match o {
            AstOperand::Value(v) => self.params.lookup_value(v).map(AttributeValue::attribute_type),
            _ => None,
        }
    }

    fn operand(&mut self, o: &AstOperand) {
        match o {
            AstOperand::Path(p) => self.path(p),
            AstOperand::Value(v) => {
                self.value(v);
            }
            AstOperand::Function(call) => self.function(call),
        }
    }

    fn function_error(&mut self, e: ExprError) {
        first(&mut self.found.function, e);
    }

    fn operand_types(&mut self, name: &str, args: &[&AstOperand], allowed: AttributeType) {
        let bad = args.iter().find_map(|a| self.immediate_type(a).filter(|t| *t != allowed));
        if let Some(t) = bad {
            let e = operand_type(self.kind, name, t.as_str());
            self.function_error(e);
        }
    }

    fn function(&mut self, call: &FunctionCall) {
        for a in &call.args {
            self.operand(a);
        }
        let name = call.name.as_str();
        let Some(&(_, count)) = UPDATE_FUNCTIONS.iter().find(|(n, _)| *n == name) else {
            let e = unknown_function(self.kind, name);
            first(&mut self.found.unknown_function, e);
            return;
        };
        if call.args.len() != count {
            let e = operand_count(self.kind, name, call.args.len());
            self.function_error(e);
            return;
        }
        let args: Vec<&AstOperand> = call.args.iter().collect();
        if name == "if_not_exists" {
            if !matches!(call.args.first(), Some(AstOperand::Path(_))) {
                let e = path_required(self.kind, name);
                self.function_error(e);
            }
        } else {
            self.operand_types(name, &args, AttributeType::L);
        }
    }

    fn value_action(&mut self, action: &ast::ValueAction, operator: &str) {
        self.target(&action.path);
        let Some(t) = self.value(&action.value).map(AttributeValue::attribute_type) else { return };
        let allowed = t == AttributeType::N && operator == "ADD";
        if let (Some(long), false) = (long_type_name(t), allowed) {
            let e = self.err(
                ErrorKind::OperandType,
                format_args!("Incorrect operand type for operator or function; operator: {operator}, operand type: {long}"),
            );
            first(&mut self.found.operand, e);
        }
    }

    fn update(&mut self, update: &ast::Update) {
        let mut seen: Vec<&str> = Vec::new();
        for clause in &update.clauses {
            let name = match clause {
                Clause::Set(actions) => {
                    for a in actions {
                        self.target(&a.path);
                        match &a.value {
                            ast::SetValue::Operand(o) => self.operand(o),
                            ast::SetValue::Plus(x, y) | ast::SetValue::Minus(x, y) => {
                                self.operand(x);
                                self.operand(y);
                                let op = if matches!(a.value, ast::SetValue::Plus(..)) { "+" } else { "-" };
                                self.operand_types(op, &[x, y], AttributeType::N);
                            }
                        }
                    }
                    "SET"
                }
                Clause::Remove(paths) => {
                    for p in paths {
                        self.target(p);
                    }
                    "REMOVE"
                }
                Clause::Add(actions) => {
                    for a in actions {
                        self.value_action(a, "ADD");
                    }
                    "ADD"
                }
                Clause::Delete(actions) => {
                    for a in actions {
                        self.value_action(a, "DELETE");
                    }
                    "DELETE"
                }
            };
            if seen.contains(&name) {
                let e = self.err(
                    ErrorKind::DuplicateSection,
                    format_args!("The \"{name}\" section can only be used once in an update expression;"),
                );
                first(&mut self.found.section, e);
            }
            seen.push(name);
        }
    }
}

impl Params<'_> {
    /// Resolves an `UpdateExpression`; `key_attributes` are the table's key attribute names,
    /// which an update may not touch.
    pub fn update(&mut self, text: &str, key_attributes: &[&str]) -> Result<UpdatePlan, ExprError> {
        let kind = ExpressionKind::Update;
        let ast = crate::parse_update(text)?;
        let mut checker = Checker { params: self, kind, found: Findings::default(), paths: Vec::new() };
        checker.update(&ast);
        let paths = std::mem::take(&mut checker.paths);
        checker.found.into_result()?;
        for p in &paths {
            if let Some(PathElement::Attribute(head)) = p.first() {
                if key_attributes.contains(&head.as_str()) {
                    return Err(ExprError::new(
                        ErrorKind::KeyAttributeUpdate,
                        format!(
                            "One or more parameter values were invalid: Cannot update attribute {head}. This attribute is part of the key"
                        ),
                    ));
                }
            }
        }
        let mut actions = Vec::new();
        for clause in &ast.clauses {
            match clause {
                Clause::Set(list) => {
                    for a in list {
                        let path = self.resolve_path(&a.path, kind)?;
                        let value = match &a.value {
                            ast::SetValue::Operand(o) => SetValue::Operand(self.resolve_update_operand(o)?),
                            ast::SetValue::Plus(x, y) => SetValue::Plus(
                                self.resolve_update_operand(x)?,
                                self.resolve_update_operand(y)?,
                            ),
                            ast::SetValue::Minus(x, y) => SetValue::Minus(
                                self.resolve_update_operand(x)?,
                                self.resolve_update_operand(y)?,
                            ),
                        };
                        actions.push(UpdateAction::Set(path, value));
                    }
                }
                Clause::Remove(list) => {
                    for p in list {
                        actions.push(UpdateAction::Remove(self.resolve_path(p, kind)?));
                    }
                }
                Clause::Add(list) | Clause::Delete(list) => {
                    for a in list {
                        let path = self.resolve_path(&a.path, kind)?;
                        let value = self.resolve_value(&a.value, kind)?;
                        actions.push(if matches!(clause, Clause::Add(_)) {
                            UpdateAction::Add(path, value)
                        } else {
                            UpdateAction::Delete(path, value)
                        });
                    }
                }
            }
        }
        Ok(UpdatePlan { actions })
    }

    fn resolve_update_operand(&mut self, o: &AstOperand) -> Result<UpdateOperand, ExprError> {
        let kind = ExpressionKind::Update;
        Ok(match o {
            AstOperand::Path(p) => UpdateOperand::Path(self.resolve_path(p, kind)?),
            AstOperand::Value(v) => UpdateOperand::Value(self.resolve_value(v, kind)?),
            AstOperand::Function(call) => match (call.name.as_str(), call.args.as_slice()) {
                ("if_not_exists", [AstOperand::Path(p), fallback]) => UpdateOperand::IfNotExists(
                    self.resolve_path(p, kind)?,
                    Box::new(self.resolve_update_operand(fallback)?),
                ),
                ("list_append", [a, b]) => UpdateOperand::ListAppend(
                    Box::new(self.resolve_update_operand(a)?),
                    Box::new(self.resolve_update_operand(b)?),
                ),
                _ => return Err(unknown_function(kind, &call.name)),
            },
        })
    }

    /// Resolves a `ProjectionExpression`.
    pub fn projection(&mut self, text: &str) -> Result<Projection, ExprError> {
        let kind = ExpressionKind::Projection;
        let ast = crate::parse_projection(text)?;
        let mut checker = Checker { params: self, kind, found: Findings::default(), paths: Vec::new() };
        for p in &ast.paths {
            checker.target(p);
        }
        checker.found.into_result()?;
        let paths = ast.paths.iter().map(|p| self.resolve_path(p, kind)).collect::<Result<_, _>>()?;
        Ok(Projection { paths })
    }
}
