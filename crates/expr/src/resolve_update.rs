//! Update and projection expressions: DynamoDB's checks, then resolution.
//!
//! The order of the checks is described on `Check::update` and `Check::projection`;
//! key-attribute updates are refused last.

use monotable_types::{AttributeType, AttributeValue};

use crate::ast::{self, Clause, Operand as AstOperand};
use crate::cache::Cached;
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

/// The number of actions in a clause.
fn clause_len(clause: &Clause) -> usize {
    match clause {
        Clause::Set(list) => list.len(),
        Clause::Remove(list) => list.len(),
        Clause::Add(list) | Clause::Delete(list) => list.len(),
    }
}

/// The `i`th action of a clause.
fn clause_action(clause: &Clause, i: usize) -> Option<Action<'_>> {
    Some(match clause {
        Clause::Set(list) => {
            let a = list.get(i)?;
            Action { keyword: "SET", path: &a.path, set: Some(&a.value), value: None }
        }
        Clause::Remove(list) => Action { keyword: "REMOVE", path: list.get(i)?, set: None, value: None },
        Clause::Add(list) | Clause::Delete(list) => {
            let a = list.get(i)?;
            Action {
                keyword: clause_keyword(clause),
                path: &a.path,
                set: None,
                value: Some(a.value.as_str()),
            }
        }
    })
}

/// The actions of an update in written order (without collecting them: an update is checked
/// on every request).
fn actions(update: &ast::Update) -> impl DoubleEndedIterator<Item = Action<'_>> + Clone {
    update.clauses.iter().flat_map(|c| (0..clause_len(c)).filter_map(move |i| clause_action(c, i)))
}

/// The operands of a `SET` value, in written order.
fn set_operands(v: &ast::SetValue) -> impl Iterator<Item = &AstOperand> + Clone {
    let operands = match v {
        ast::SetValue::Operand(o) => [Some(o), None],
        ast::SetValue::Plus(a, b) | ast::SetValue::Minus(a, b) => [Some(a), Some(b)],
    };
    operands.into_iter().flatten()
}

impl Check<'_, '_> {
    /// Refuses paths that overlap or conflict. Paths with undefined names have been refused
    /// before.
    fn overlaps<'p>(&self, paths: impl Iterator<Item = &'p ast::Path>) -> Result<(), ExprError> {
        let resolved: Vec<Path> = paths.filter_map(|p| self.params.peek_path(p)).collect();
        check_overlaps(&resolved, self.kind)
    }

    /// Pass 1 and the repeated-clause check, per clause keyword in order of first
    /// appearance. Reads nothing but the tree.
    fn update_pass1(&self, update: &ast::Update) -> Result<(), ExprError> {
        let mut keywords: [&str; 4] = [""; 4];
        let mut seen = 0;
        for c in update.clauses.iter().filter(|c| clause_len(c) > 0) {
            let keyword = clause_keyword(c);
            if !keywords[..seen].contains(&keyword) && seen < keywords.len() {
                keywords[seen] = keyword;
                seen += 1;
            }
        }
        for &keyword in &keywords[..seen] {
            for a in actions(update).filter(|a| a.keyword == keyword) {
                self.path1(a.path)?;
                for o in a.set.into_iter().flat_map(set_operands) {
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
        Ok(())
    }

    /// DynamoDB's order for updates: pass 1 and the repeated-clause check
    /// ([`Check::update_pass1`], skipped once it has passed on the cached tree); undefined
    /// names of the target paths; overlapping paths; then, from the last action back to the
    /// first, undefined names anywhere, and pass 2 with the `ADD`/`DELETE` operand types.
    fn update(&self, update: &Cached<ast::Update>) -> Result<(), ExprError> {
        update.pass1(|u| self.update_pass1(u))?;
        let update: &ast::Update = update;
        actions(update).try_for_each(|a| self.path_names(a.path))?;
        // One path cannot overlap itself: resolve paths for the overlap check only when there
        // are two or more.
        if actions(update).nth(1).is_some() {
            self.overlaps(actions(update).map(|a| a.path))?;
        }
        for a in actions(update).rev() {
            self.path_names(a.path)?;
            for o in a.set.into_iter().flat_map(set_operands) {
                self.operand_names(o)?;
            }
        }
        for a in actions(update).rev() {
            self.path2(a.path)?;
            if let Some(v) = a.set {
                let operands = set_operands(v);
                operands.clone().try_for_each(|o| self.operand2(o))?;
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
        Ok(())
    }

    /// Projections: pass 1 on every path, then pass 2, then overlapping paths.
    fn projection(&self, projection: &Cached<ast::Projection>) -> Result<(), ExprError> {
        projection.pass1(|p| p.paths.iter().try_for_each(|p| self.path1(p)))?;
        projection.paths.iter().try_for_each(|p| self.path2(p))?;
        self.overlaps(projection.paths.iter())
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
        Check { params: self, kind }.update(&ast)?;
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
        // Key attributes are refused last, after every check above (resolution cannot fail
        // on an expression that passed them), in the order the actions are written.
        for action in &actions {
            if let Some(PathElement::Attribute(head)) = action.path().first() {
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
