//! Applying an update plan to an item.
//!
//! As in DynamoDB, every operand is read from the item as it was before the update (so
//! `SET a = b, b = a` swaps), and every list index refers to the list as it was: removed
//! elements are taken out together, and writes past the end are appended in index order.
//! DynamoDB reports runtime problems in a fixed order, which `UpdatePlan::apply` follows:
//!
//! 1. a path whose parent exists but is not a map (before a name) or a list (before an index);
//! 2. in action order, operands of the wrong type (and `ADD` results out of range);
//! 3. clause by clause from the last to the first: paths whose parent does not exist, then
//!    `SET` operands that refer to missing attributes;
//! 4. `SET` arithmetic results out of range.
//!
//! The update works on a copy: on error the caller's item is unchanged.

use std::collections::HashSet;

use monotable_types::{AttributeValue, Item, NumberError};

use crate::error::{ErrorKind, ExprError};
use crate::eval::lookup;
use crate::resolved::{ChangedAttributes, PathElement, SetValue, UpdateAction, UpdateOperand, UpdatePlan};

fn missing_attribute() -> ExprError {
    ExprError::new(
        ErrorKind::MissingAttribute,
        "The provided expression refers to an attribute that does not exist in the item",
    )
}

fn incorrect_type() -> ExprError {
    ExprError::new(
        ErrorKind::IncorrectOperandType,
        "An operand in the update expression has an incorrect data type",
    )
}

fn invalid_path() -> ExprError {
    ExprError::new(
        ErrorKind::InvalidDocumentPath,
        "The document path provided in the update expression is invalid for update",
    )
}

fn number_error(e: NumberError) -> ExprError {
    ExprError::new(ErrorKind::NumberOutOfRange, e.to_string())
}

/// A `SET` value that could not be computed for a reason DynamoDB reports late.
enum Deferred {
    Missing,
    Number(NumberError),
}

/// Evaluates an operand: `Err` is a type error (reported at once), `Ok(Err(_))` a deferred
/// problem.
type Eval = Result<Result<AttributeValue, Deferred>, ExprError>;

fn operand(o: &UpdateOperand, original: &Item) -> Eval {
    Ok(match o {
        UpdateOperand::Path(p) => lookup(original, p).cloned().ok_or(Deferred::Missing),
        UpdateOperand::Value(v) => Ok(v.clone()),
        UpdateOperand::IfNotExists(p, fallback) => match lookup(original, p) {
            Some(v) => Ok(v.clone()),
            None => return operand(fallback, original),
        },
        UpdateOperand::ListAppend(a, b) => {
            let a = match operand(a, original)? {
                Ok(AttributeValue::L(a)) => a,
                Ok(_) => return Err(incorrect_type()),
                Err(d) => return Ok(Err(d)),
            };
            match operand(b, original)? {
                Ok(AttributeValue::L(b)) => Ok(AttributeValue::L(a.into_iter().chain(b).collect())),
                Ok(_) => return Err(incorrect_type()),
                Err(d) => Err(d),
            }
        }
    })
}

fn set_value(v: &SetValue, original: &Item) -> Eval {
    let (a, b, minus) = match v {
        SetValue::Operand(o) => return operand(o, original),
        SetValue::Plus(a, b) => (a, b, false),
        SetValue::Minus(a, b) => (a, b, true),
    };
    let x = match operand(a, original)? {
        Ok(AttributeValue::N(x)) => x,
        Ok(_) => return Err(incorrect_type()),
        Err(d) => return Ok(Err(d)),
    };
    let y = match operand(b, original)? {
        Ok(AttributeValue::N(y)) => y,
        Ok(_) => return Err(incorrect_type()),
        Err(d) => return Ok(Err(d)),
    };
    let r = if minus { x.checked_sub(&y) } else { x.checked_add(&y) };
    Ok(r.map(AttributeValue::N).map_err(Deferred::Number))
}

/// Whether the container that `path`'s last step goes into exists (`Some`) and is of the
/// right kind (`Some(true)`). Top-level paths always have their container.
fn parent_state(item: &Item, path: &[PathElement]) -> Option<bool> {
    let Some((last, init)) = path.split_last() else { return Some(false) };
    if init.is_empty() {
        return Some(true);
    }
    let parent = lookup(item, init)?;
    Some(matches!(
        (parent, last),
        (AttributeValue::M(_), PathElement::Attribute(_)) | (AttributeValue::L(_), PathElement::Index(_))
    ))
}

/// `a` followed by the members of `b` it lacks. Membership goes through a hash set, so that
/// adding to a set of any size costs time linear in both sets.
fn union<T: Eq + std::hash::Hash + Clone>(mut a: Vec<T>, b: &[T]) -> Vec<T> {
    let mut present: HashSet<T> = a.iter().cloned().collect();
    for x in b {
        if present.insert(x.clone()) {
            a.push(x.clone());
        }
    }
    a
}

/// The members of `a` not in `b`, in `a`'s order, in time linear in both sets.
fn difference<T: Eq + std::hash::Hash + Clone>(a: &[T], b: &[T]) -> Vec<T> {
    let removed: HashSet<&T> = b.iter().collect();
    a.iter().filter(|x| !removed.contains(x)).cloned().collect()
}

/// The result of `ADD value` to `current` (absent when the attribute does not exist).
fn add(current: Option<&AttributeValue>, value: &AttributeValue) -> Result<AttributeValue, ExprError> {
    use AttributeValue::*;
    Ok(match (current, value) {
        (None, _) => value.clone(),
        (Some(N(x)), N(y)) => N(x.checked_add(y).map_err(number_error)?),
        (Some(Ss(x)), Ss(y)) => Ss(union(x.clone(), y)),
        (Some(Ns(x)), Ns(y)) => Ns(union(x.clone(), y)),
        (Some(Bs(x)), Bs(y)) => Bs(union(x.clone(), y)),
        _ => return Err(incorrect_type()),
    })
}

/// The result of `DELETE value` from an existing `current`: `None` when the set becomes
/// empty, which removes the attribute.
fn delete(current: &AttributeValue, value: &AttributeValue) -> Result<Option<AttributeValue>, ExprError> {
    use AttributeValue::*;
    let out = match (current, value) {
        (Ss(x), Ss(y)) => Ss(difference(x, y)),
        (Ns(x), Ns(y)) => Ns(difference(x, y)),
        (Bs(x), Bs(y)) => Bs(difference(x, y)),
        _ => return Err(incorrect_type()),
    };
    let empty = matches!(&out, Ss(v) if v.is_empty())
        || matches!(&out, Ns(v) if v.is_empty())
        || matches!(&out, Bs(v) if v.is_empty());
    Ok((!empty).then_some(out))
}

/// One write, computed from the original item.
struct Write<'p> {
    path: &'p [PathElement],
    /// `None` removes.
    value: Option<AttributeValue>,
}

fn step_mut<'a>(v: &'a mut AttributeValue, e: &PathElement) -> Option<&'a mut AttributeValue> {
    match (v, e) {
        (AttributeValue::M(m), PathElement::Attribute(k)) => m.get_mut(k),
        (AttributeValue::L(l), PathElement::Index(i)) => l.get_mut(*i),
        _ => None,
    }
}

fn lookup_mut<'a>(item: &'a mut Item, path: &[PathElement]) -> Option<&'a mut AttributeValue> {
    let (PathElement::Attribute(head), rest) = path.split_first()? else { return None };
    let mut current = item.get_mut(head)?;
    for e in rest {
        current = step_mut(current, e)?;
    }
    Some(current)
}

/// A write into a list: the original position and the value (`None` removes).
type ListOp = (usize, Option<AttributeValue>);

/// Applies the writes. Writes into maps (and top-level attributes) happen directly; writes
/// into lists are gathered per list and applied against the list's original positions,
/// deepest lists first so that outer positions still hold.
fn write_all(item: &mut Item, writes: Vec<Write<'_>>) -> Result<(), ExprError> {
    let mut list_ops: Vec<(&[PathElement], Vec<ListOp>)> = Vec::new();
    for w in writes {
        let Some((last, init)) = w.path.split_last() else { return Err(invalid_path()) };
        if init.is_empty() {
            let PathElement::Attribute(name) = last else { return Err(invalid_path()) };
            match w.value {
                Some(v) => item.insert(name.as_str().into(), v),
                None => item.remove(name),
            };
            continue;
        }
        match (lookup_mut(item, init), last) {
            (Some(AttributeValue::M(m)), PathElement::Attribute(k)) => {
                match w.value {
                    Some(v) => m.insert(k.as_str().into(), v),
                    None => m.remove(k),
                };
            }
            (Some(AttributeValue::L(_)), PathElement::Index(i)) => {
                match list_ops.iter_mut().find(|(p, _)| *p == init) {
                    Some((_, ops)) => ops.push((*i, w.value)),
                    None => list_ops.push((init, vec![(*i, w.value)])),
                }
            }
            _ => return Err(invalid_path()),
        }
    }
    list_ops.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    for (path, ops) in list_ops {
        let Some(AttributeValue::L(list)) = lookup_mut(item, path) else { return Err(invalid_path()) };
        let mut removed = vec![false; list.len()];
        let mut appended: Vec<(usize, AttributeValue)> = Vec::new();
        for (i, value) in ops {
            match (value, list.get_mut(i)) {
                (Some(v), Some(slot)) => *slot = v,
                (Some(v), None) => appended.push((i, v)),
                (None, Some(_)) => {
                    if let Some(r) = removed.get_mut(i) {
                        *r = true;
                    }
                }
                (None, None) => {}
            }
        }
        appended.sort_by_key(|(i, _)| *i);
        let old = std::mem::take(list);
        list.extend(old.into_iter().zip(removed).filter(|(_, r)| !r).map(|(v, _)| v));
        list.extend(appended.into_iter().map(|(_, v)| v));
    }
    Ok(())
}

/// The clause an action belongs to, for grouping: consecutive actions of one kind.
fn same_clause(a: &UpdateAction, b: &UpdateAction) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

impl UpdatePlan {
    /// Applies the update to `item` in place, returning what it targeted. On error the item
    /// is left unchanged. Errors are DynamoDB's, in DynamoDB's order (see the module docs).
    pub fn apply(&self, item: &mut Item) -> Result<ChangedAttributes, ExprError> {
        let writes = self.writes(item)?;
        let mut next = item.clone();
        write_all(&mut next, writes)?;
        *item = next;
        Ok(self.changed())
    }

    /// [`UpdatePlan::apply`] on an item the caller gives up: no copy is made, and on error the
    /// item is dropped (the caller still holds whatever it was copied from).
    pub fn apply_owned(&self, mut item: Item) -> Result<(Item, ChangedAttributes), ExprError> {
        let writes = self.writes(&item)?;
        write_all(&mut item, writes)?;
        Ok((item, self.changed()))
    }

    /// Every check, in DynamoDB's order, and the writes the update makes to `original`.
    fn writes(&self, original: &Item) -> Result<Vec<Write<'_>>, ExprError> {
        // 1. Parents of the wrong kind.
        if self.actions.iter().any(|a| parent_state(original, a.path()) == Some(false)) {
            return Err(invalid_path());
        }
        // 2. Types, in action order; values computed from the original item.
        let mut computed: Vec<Option<Result<AttributeValue, Deferred>>> =
            Vec::with_capacity(self.actions.len());
        for action in &self.actions {
            let path = action.path();
            let current =
                || if parent_state(original, path).is_some() { lookup(original, path) } else { None };
            computed.push(match action {
                UpdateAction::Set(_, v) => Some(set_value(v, original)?),
                UpdateAction::Remove(_) => None,
                UpdateAction::Add(_, v) => Some(Ok(add(current(), v)?)),
                UpdateAction::Delete(_, v) => match current() {
                    Some(cur) => delete(cur, v)?.map(Ok),
                    None => None,
                },
            });
        }
        // 3. Clause by clause from the last: missing parents, then missing attributes.
        let mut end = self.actions.len();
        while end > 0 {
            let mut start = end - 1;
            while start > 0
                && self
                    .actions
                    .get(start - 1)
                    .zip(self.actions.get(start))
                    .is_some_and(|(a, b)| same_clause(a, b))
            {
                start -= 1;
            }
            let clause = self.actions.get(start..end).unwrap_or_default();
            if clause.iter().any(|a| parent_state(original, a.path()).is_none()) {
                return Err(invalid_path());
            }
            if computed
                .get(start..end)
                .unwrap_or_default()
                .iter()
                .any(|c| matches!(c, Some(Err(Deferred::Missing))))
            {
                return Err(missing_attribute());
            }
            end = start;
        }
        // 4. Arithmetic out of range.
        let mut writes = Vec::with_capacity(self.actions.len());
        for (action, value) in self.actions.iter().zip(computed) {
            let value = match value {
                Some(Ok(v)) => Some(v),
                Some(Err(Deferred::Number(e))) => return Err(number_error(e)),
                Some(Err(Deferred::Missing)) => return Err(missing_attribute()),
                None => None,
            };
            // A DELETE of a missing attribute writes nothing; one that empties the set removes it.
            if let (UpdateAction::Delete(..), None) = (action, &value) {
                if lookup(original, action.path()).is_none() {
                    continue;
                }
            }
            writes.push(Write { path: action.path(), value });
        }
        Ok(writes)
    }

    /// The attributes and paths the update targets.
    fn changed(&self) -> ChangedAttributes {
        let mut changed = ChangedAttributes::default();
        for action in &self.actions {
            let p = action.path();
            if let Some(PathElement::Attribute(head)) = p.first() {
                changed.names.insert(head.clone());
            }
            changed.paths.push(p.clone());
        }
        changed
    }
}
