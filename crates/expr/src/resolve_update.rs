//! Update and projection expressions: DynamoDB's checks, then resolution.
//!
//! The order of the checks is described on `Check::update` and `Check::projection`;
//! key-attribute updates are refused last.

use monotable_types::{AttributeType, AttributeValue};

use crate::ast::{self, Clause, Operand as AstOperand};
use crate::check::{Check, Place};
use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::messages::unknown_function;
use crate::overlap::check_overlaps;
use crate::params::Params;
use crate::resolved::{Path, PathElement, Projection, SetValue, UpdateAction, UpdateOperand, UpdatePlan};

/// DynamoDB's long type names in `ADD`/`DELETE` messages.
fn long_type_name(t: AttributeType) -> &'static str {
    match t {
        AttributeType::S => "STRING",
        AttributeType::N => "NUMBER",
        AttributeType::B => "BINARY",
        AttributeType::Null => "NULL",
        AttributeType::Bool => "BOOLEAN",
        AttributeType::L => "LIST",
        AttributeType::M => "MAP",
        AttributeType::Ss => "STRING_SET",
        AttributeType::Ns => "NUMBER_SET",
        AttributeType::Bs => "BINARY_SET",
    }
}

/// One action as the checks see it: its clause keyword, target path and operands.
struct Action<'u> {
    keyword: &'static str,
    path: &'u ast::Path,
    set: Option<&'u ast::SetValue>,
    value: Option<&'u str>,
}

fn actions(update: &ast::Update) -> Vec<Action<'_>> {
    let mut out = Vec::new();
    for clause in &update.clauses {
        match clause {
            Clause::Set(list) => out.extend(list.iter().map(|a| Action {
                keyword: "SET",
                path: &a.path,
                set: Some(&a.value),
                value: None,
            })),
            Clause::Remove(list) => {
                out.extend(list.iter().map(|p| Action { keyword: "REMOVE", path: p, set: None, value: None }))
            }
            Clause::Add(list) => out.extend(list.iter().map(|a| Action {
                keyword: "ADD",
                path: &a.path,
                set: None,
                value: Some(a.value.as_str()),
            })),
            Clause::Delete(list) => out.extend(list.iter().map(|a| Action {
                keyword: "DELETE",
                path: &a.path,
                set: None,
                value: Some(a.value.as_str()),
            })),
        }
    }
    out
}

fn set_operands(v: &ast::SetValue) -> Vec<&AstOperand> {
    match v {
        ast::SetValue::Operand(o) => vec![o],
        ast::SetValue::Plus(a, b) | ast::SetValue::Minus(a, b) => vec![a, b],
    }
}

impl Check<'_, '_> {
    /// The resolved paths, refused when two of them overlap or conflict. Paths with
    /// undefined names have been refused before.
    fn overlaps(&self, paths: &[&ast::Path]) -> Result<Vec<Path>, ExprError> {
        let resolved: Vec<Path> = paths.iter().filter_map(|p| self.params.peek_path(p)).collect();
        check_overlaps(&resolved, self.kind)?;
        Ok(resolved)
    }

    /// DynamoDB's order for updates: per clause keyword (in order of first appearance) pass 1
    /// and the repeated-clause check; undefined names of the target paths; overlapping
    /// paths; then, from the last action back to the first, undefined names anywhere, and
    /// pass 2 with the `ADD`/`DELETE` operand types.
    fn update(&self, update: &ast::Update) -> Result<Vec<Path>, ExprError> {
        let actions = actions(update);
        let mut keywords: Vec<&str> = Vec::new();
        for a in &actions {
            if !keywords.contains(&a.keyword) {
                keywords.push(a.keyword);
            }
        }
        for keyword in keywords {
            for a in actions.iter().filter(|a| a.keyword == keyword) {
                self.path1(a.path)?;
                for o in a.set.map(set_operands).unwrap_or_default() {
                    self.operand1(o, Place::Operand)?;
                }
            }
            let clauses = update.clauses.iter().filter(|c| clause_keyword(c) == keyword).count();
            if clauses > 1 {
                return Err(ExprError::invalid(
                    self.kind,
                    ErrorKind::DuplicateSection,
                    format_args!("The \"{keyword}\" section can only be used once in an update expression;"),
                ));
            }
        }
        actions.iter().try_for_each(|a| self.path_names(a.path))?;
        let targets: Vec<&ast::Path> = actions.iter().map(|a| a.path).collect();
        let resolved = self.overlaps(&targets)?;
        for a in actions.iter().rev() {
            self.path_names(a.path)?;
            for o in a.set.map(set_operands).unwrap_or_default() {
                self.operand_names(o)?;
            }
        }
        for a in actions.iter().rev() {
            self.path2(a.path)?;
            if let Some(v) = a.set {
                let operands = set_operands(v);
                operands.iter().try_for_each(|o| self.operand2(o))?;
                match v {
                    ast::SetValue::Plus(..) => self.types("+", operands, &[AttributeType::N])?,
                    ast::SetValue::Minus(..) => self.types("-", operands, &[AttributeType::N])?,
                    ast::SetValue::Operand(_) => {}
                }
            }
            if let Some(v) = a.value {
                let t = self.value2(v)?.map(AttributeValue::attribute_type);
                let allowed: &[AttributeType] = if a.keyword == "ADD" {
                    &[AttributeType::N, AttributeType::Ss, AttributeType::Ns, AttributeType::Bs]
                } else {
                    &[AttributeType::Ss, AttributeType::Ns, AttributeType::Bs]
                };
                if let Some(t) = t.filter(|t| !allowed.contains(t)) {
                    return Err(ExprError::invalid(
                        self.kind,
                        ErrorKind::OperandType,
                        format_args!(
                            "Incorrect operand type for operator or function; operator: {}, operand type: {}, typeSet: ALLOWED_FOR_{}_OPERAND",
                            a.keyword,
                            long_type_name(t),
                            a.keyword
                        ),
                    ));
                }
            }
        }
        Ok(resolved)
    }

    /// Projections: pass 1 on every path, then pass 2, then overlapping paths.
    fn projection(&self, projection: &ast::Projection) -> Result<(), ExprError> {
        projection.paths.iter().try_for_each(|p| self.path1(p))?;
        projection.paths.iter().try_for_each(|p| self.path2(p))?;
        let paths: Vec<&ast::Path> = projection.paths.iter().collect();
        self.overlaps(&paths).map(drop)
    }
}

fn clause_keyword(c: &Clause) -> &'static str {
    match c {
        Clause::Set(_) => "SET",
        Clause::Remove(_) => "REMOVE",
        Clause::Add(_) => "ADD",
        Clause::Delete(_) => "DELETE",
    }
}

impl Params<'_> {
    /// Resolves an `UpdateExpression`; `key_attributes` are the table's key attribute names,
    /// which an update may not touch.
    pub fn update(&mut self, text: &str, key_attributes: &[&str]) -> Result<UpdatePlan, ExprError> {
        let kind = ExpressionKind::Update;
        let ast = crate::cache::update(text)?;
        let paths = Check { params: self, kind }.update(&ast)?;
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
        let ast = crate::cache::projection(text)?;
        Check { params: self, kind }.projection(&ast)?;
        let paths = ast.paths.iter().map(|p| self.resolve_path(p, kind)).collect::<Result<_, _>>()?;
        Ok(Projection { paths })
    }
}
