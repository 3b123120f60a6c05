//! Applying an update plan to an item.
//!
//! As in DynamoDB, every operand is read from the item as it was before the update (so
//! `SET a = b, b = a` swaps), then the actions are applied: `SET`s in order, `REMOVE`s with
//! list indexes of one list taken from the highest down (so `REMOVE l[1], l[2]` removes the
//! two original elements), then `ADD`s and `DELETE`s. The update works on a copy: on error
//! the caller's item is unchanged.

use monotable_types::{AttributeValue, Item, NumberError};

use crate::error::{ErrorKind, ExprError};
use crate::eval::lookup;
use crate::resolved::{
    ChangedAttributes, Path, PathElement, SetValue, UpdateAction, UpdateOperand, UpdatePlan,
};

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

fn operand(o: &UpdateOperand, original: &Item) -> Result<AttributeValue, ExprError> {
    match o {
        UpdateOperand::Path(p) => lookup(original, p).cloned().ok_or_else(missing_attribute),
        UpdateOperand::Value(v) => Ok(v.clone()),
        UpdateOperand::IfNotExists(p, fallback) => match lookup(original, p) {
            Some(v) => Ok(v.clone()),
            None => operand(fallback, original),
        },
        UpdateOperand::ListAppend(a, b) => match (operand(a, original)?, operand(b, original)?) {
            (AttributeValue::L(mut a), AttributeValue::L(b)) => {
                a.extend(b);
                Ok(AttributeValue::L(a))
            }
            _ => Err(incorrect_type()),
        },
    }
}

fn set_value(v: &SetValue, original: &Item) -> Result<AttributeValue, ExprError> {
    let (a, b, minus) = match v {
        SetValue::Operand(o) => return operand(o, original),
        SetValue::Plus(a, b) => (a, b, false),
        SetValue::Minus(a, b) => (a, b, true),
    };
    match (operand(a, original)?, operand(b, original)?) {
        (AttributeValue::N(x), AttributeValue::N(y)) => {
            let r = if minus { x.checked_sub(&y) } else { x.checked_add(&y) };
            r.map(AttributeValue::N).map_err(number_error)
        }
        _ => Err(incorrect_type()),
    }
}

fn step_mut<'a>(v: &'a mut AttributeValue, e: &PathElement) -> Option<&'a mut AttributeValue> {
    match (v, e) {
        (AttributeValue::M(m), PathElement::Attribute(k)) => m.get_mut(k),
        (AttributeValue::L(l), PathElement::Index(i)) => l.get_mut(*i),
        _ => None,
    }
}

/// The container holding the last element of `path` (which has at least two elements), or
/// DynamoDB's invalid-path error when an intermediate step does not exist.
fn parent_mut<'a, 'p>(
    item: &'a mut Item,
    path: &'p [PathElement],
) -> Result<(&'a mut AttributeValue, &'p PathElement), ExprError> {
    let Some((last, init)) = path.split_last() else { return Err(invalid_path()) };
    let Some((PathElement::Attribute(head), middle)) = init.split_first() else { return Err(invalid_path()) };
    let mut current = item.get_mut(head).ok_or_else(invalid_path)?;
    for e in middle {
        current = step_mut(current, e).ok_or_else(invalid_path)?;
    }
    Ok((current, last))
}

/// Writes `value` at `path`. A list index past the end appends.
fn put(item: &mut Item, path: &[PathElement], value: AttributeValue) -> Result<(), ExprError> {
    if let [PathElement::Attribute(name)] = path {
        item.insert(name.clone(), value);
        return Ok(());
    }
    let (parent, last) = parent_mut(item, path)?;
    match (parent, last) {
        (AttributeValue::M(m), PathElement::Attribute(k)) => {
            m.insert(k.clone(), value);
        }
        (AttributeValue::L(l), PathElement::Index(i)) => match l.get_mut(*i) {
            Some(slot) => *slot = value,
            None => l.push(value),
        },
        _ => return Err(invalid_path()),
    }
    Ok(())
}

/// Removes the value at `path`; a missing last step is not an error.
fn remove(item: &mut Item, path: &[PathElement]) -> Result<(), ExprError> {
    if let [PathElement::Attribute(name)] = path {
        item.remove(name);
        return Ok(());
    }
    let (parent, last) = parent_mut(item, path)?;
    match (parent, last) {
        (AttributeValue::M(m), PathElement::Attribute(k)) => {
            m.remove(k);
        }
        (AttributeValue::L(l), PathElement::Index(i)) => {
            if *i < l.len() {
                l.remove(*i);
            }
        }
        _ => return Err(invalid_path()),
    }
    Ok(())
}

fn union<T: PartialEq + Clone>(mut a: Vec<T>, b: &[T]) -> Vec<T> {
    for x in b {
        if !a.contains(x) {
            a.push(x.clone());
        }
    }
    a
}

fn difference<T: PartialEq>(a: Vec<T>, b: &[T]) -> Vec<T> {
    a.into_iter().filter(|x| !b.contains(x)).collect()
}

/// The result of `ADD value` to `current` (absent when the attribute does not exist).
fn add(current: Option<&AttributeValue>, value: &AttributeValue) -> Result<AttributeValue, ExprError> {
    use AttributeValue::*;
    Ok(match (current, value) {
        (None, N(_) | Ss(_) | Ns(_) | Bs(_)) => value.clone(),
        (Some(N(x)), N(y)) => N(x.checked_add(y).map_err(number_error)?),
        (Some(Ss(x)), Ss(y)) => Ss(union(x.clone(), y)),
        (Some(Ns(x)), Ns(y)) => Ns(union(x.clone(), y)),
        (Some(Bs(x)), Bs(y)) => Bs(union(x.clone(), y)),
        _ => return Err(incorrect_type()),
    })
}

/// The result of `DELETE value` from `current`: `None` when the attribute should disappear
/// (it did not exist, or the set became empty).
fn delete(
    current: Option<&AttributeValue>,
    value: &AttributeValue,
) -> Result<Option<AttributeValue>, ExprError> {
    use AttributeValue::*;
    let Some(current) = current else {
        return match value {
            Ss(_) | Ns(_) | Bs(_) => Ok(None),
            _ => Err(incorrect_type()),
        };
    };
    let out = match (current, value) {
        (Ss(x), Ss(y)) => Ss(difference(x.clone(), y)),
        (Ns(x), Ns(y)) => Ns(difference(x.clone(), y)),
        (Bs(x), Bs(y)) => Bs(difference(x.clone(), y)),
        _ => return Err(incorrect_type()),
    };
    let empty = matches!(&out, Ss(v) if v.is_empty())
        || matches!(&out, Ns(v) if v.is_empty())
        || matches!(&out, Bs(v) if v.is_empty());
    Ok((!empty).then_some(out))
}

impl UpdatePlan {
    /// Applies the update to `item` in place, returning what it targeted. On error the item
    /// is left unchanged.
    pub fn apply(&self, item: &mut Item) -> Result<ChangedAttributes, ExprError> {
        let original: &Item = item;
        // Read phase: every value computed from the original item.
        let mut sets: Vec<(&Path, AttributeValue)> = Vec::new();
        let mut removes: Vec<&Path> = Vec::new();
        let mut adds: Vec<(&Path, AttributeValue)> = Vec::new();
        let mut deletes: Vec<(&Path, Option<AttributeValue>)> = Vec::new();
        for action in &self.actions {
            match action {
                UpdateAction::Set(p, v) => sets.push((p, set_value(v, original)?)),
                UpdateAction::Remove(p) => removes.push(p),
                UpdateAction::Add(p, v) => adds.push((p, add(lookup(original, p), v)?)),
                UpdateAction::Delete(p, v) => deletes.push((p, delete(lookup(original, p), v)?)),
            }
        }
        // Highest list index first, so that earlier removals do not shift later ones.
        removes.sort_by(|a, b| b.cmp(a));
        // Write phase, on a copy.
        let mut next = item.clone();
        for (p, v) in sets.into_iter().chain(adds) {
            put(&mut next, p, v)?;
        }
        for p in removes {
            remove(&mut next, p)?;
        }
        for (p, v) in deletes {
            match v {
                Some(v) => put(&mut next, p, v)?,
                None => remove(&mut next, p)?,
            }
        }
        *item = next;
        let mut changed = ChangedAttributes::default();
        for action in &self.actions {
            let (UpdateAction::Set(p, _)
            | UpdateAction::Remove(p)
            | UpdateAction::Add(p, _)
            | UpdateAction::Delete(p, _)) = action;
            if let Some(PathElement::Attribute(head)) = p.first() {
                changed.names.insert(head.clone());
            }
            changed.paths.push(p.clone());
        }
        Ok(changed)
    }
}
