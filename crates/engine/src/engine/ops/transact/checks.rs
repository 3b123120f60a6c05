//! What TransactWriteItems checks before it runs, and which problems it reports as a
//! `ValidationError` cancellation reason instead of a plain ValidationException.
//!
//! Source for the split: paritysuite/dynamodb-conformance,
//! tests/tier3/error-messages/transactWriteItems.test.ts and transactIndexKeys.test.ts
//! (captured against DynamoDB, eu-west-2 and three more regions, 2026): a key or index key
//! value of the wrong type cancels the transaction with a `ValidationError` reason (a Put's
//! item key: "One or more parameter values were invalid: Type mismatch for key pk expected: S
//! actual: N"; an Update, Delete or ConditionCheck `Key`: "The provided key element does not
//! match the schema"; an index key: "... Type mismatch for Index Key ..."), while an empty
//! string or binary key value is a plain ValidationException raised before the transaction
//! opens. TransactGetItems answers a `Key` of `{}` the same way
//! (tests/tier3/error-messages/transactGetItems.test.ts), so a `Key` naming the wrong
//! attributes is a reason too.
//!
//! Order: tests/tier3/validation-ordering/transactions.test.ts (us-east-1 and eu-west-2,
//! 2026-10-09) records that an expression that does not parse, an item nested too deep and a
//! value no expression uses are refused before any table is looked up and before duplicate
//! targets are found, on whichever action they sit, the first failing action in request
//! order winning. [`precheck`] makes those table-independent checks over every action first.

use monotable_expr::{ExpressionKind, Params};
use monotable_types::Item;

use crate::api::TransactWriteItem;
use crate::engine::core::params::{check_placeholders, expr_err};
use crate::engine::core::write::is_empty;
use crate::table::Schema;
use crate::validate;
use crate::Error;

/// The documented bound on the aggregate size of the items of one transaction
/// (API_TransactWriteItems: "The aggregate size of the items in the transaction cannot
/// exceed 4 MB").
pub(in crate::engine) const MAX_TOTAL_BYTES: usize = 4 * 1024 * 1024;

/// The refusal of a transaction over [`MAX_TOTAL_BYTES`]. The limit is documented; this text
/// is not confirmed against the service (no recording of DynamoDB's answer was found), so it
/// is monotable's own wording in DynamoDB's style.
pub(in crate::engine) fn too_large() -> Error {
    Error::validation("Transaction request cannot be larger than 4 MB")
}

/// The table-independent checks of one action, in the order `prepare` makes them: one
/// operation per action, required expressions, expression/legacy mixing, the placeholder
/// maps, the Put item's values (nesting depth, numbers, sets), the expressions' syntax and
/// placeholders, and unused placeholders.
pub(in crate::engine) fn precheck(item: &TransactWriteItem) -> Result<(), Error> {
    let one_of = || Error::validation("TransactItems can only contain one of Check, Put, Update or Delete");
    let count =
        [item.condition_check.is_some(), item.put.is_some(), item.delete.is_some(), item.update.is_some()]
            .iter()
            .filter(|x| **x)
            .count();
    if count != 1 {
        return Err(one_of());
    }
    let (names, values, condition) = if let Some(c) = &item.condition_check {
        if c.condition_expression.is_none() {
            return Err(Error::validation(
                "1 validation error detected: Value null at 'transactItems.1.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null",
            ));
        }
        (&c.expression_attribute_names, &c.expression_attribute_values, &c.condition_expression)
    } else if let Some(p) = &item.put {
        (&p.expression_attribute_names, &p.expression_attribute_values, &p.condition_expression)
    } else if let Some(d) = &item.delete {
        (&d.expression_attribute_names, &d.expression_attribute_values, &d.condition_expression)
    } else if let Some(u) = &item.update {
        (&u.expression_attribute_names, &u.expression_attribute_values, &u.condition_expression)
    } else {
        return Err(one_of());
    };
    let update_text = item.update.as_ref().and_then(|u| u.update_expression.as_deref());
    if item.update.is_some() && update_text.is_none() {
        return Err(Error::validation(
            "1 validation error detected: Value null at 'transactItems.1.member.update.updateExpression' failed to satisfy constraint: Member must not be null",
        ));
    }
    let mut exprs = vec![("ConditionExpression", condition.is_some())];
    if item.update.is_some() {
        exprs.insert(0, ("UpdateExpression", update_text.is_some()));
    }
    crate::engine::core::legacy::check_mixing(&[], &exprs, names.is_some(), values.is_some())?;
    check_placeholders(names.as_ref(), values.as_ref())?;
    if let Some(it) = item.put.as_ref().and_then(|p| p.item.as_ref()) {
        validate::check_item_names(it.keys())?;
        validate::check_values(it.values())?;
    }
    let mut params = Params::new(names.as_ref(), values.as_ref());
    if let Some(text) = update_text {
        // Key attributes are the table's business: an update of one is refused later.
        params.update(text, &[]).map_err(expr_err)?;
    }
    if let Some(text) = condition.as_deref() {
        params.condition(text, ExpressionKind::Condition).map_err(expr_err)?;
    }
    params.finish().map_err(expr_err)
}

/// A Put item's key: a key attribute of the wrong type is a cancellation reason (returned as
/// `Ok(Some(message))`); a missing key attribute, an empty or oversized key value is refused
/// outright (`Err`).
pub(in crate::engine) fn put_key_problem(schema: &Schema, item: &Item) -> Result<Option<String>, Error> {
    for attr in schema.key.attrs() {
        if let Some(v) = item.get(&attr.name) {
            if v.attribute_type() != attr.ty {
                return Ok(Some(format!(
                    "One or more parameter values were invalid: Type mismatch for key {} expected: {} actual: {}",
                    attr.name,
                    attr.ty,
                    v.attribute_type()
                )));
            }
        }
    }
    validate::check_item_key(&schema.key, item).map(|()| None)
}

/// An Update, Delete or ConditionCheck `Key`: the wrong attributes or types are a cancellation
/// reason; an empty or oversized value of the right type is refused outright.
pub(in crate::engine) fn key_problem(schema: &Schema, key: &Item) -> Result<Option<String>, Error> {
    let wanted = 1 + schema.key.sk.is_some() as usize;
    let matches = key.len() == wanted
        && schema.key.attrs().all(|a| key.get(&a.name).is_some_and(|v| v.attribute_type() == a.ty));
    if !matches {
        return Ok(Some("The provided key element does not match the schema".to_owned()));
    }
    validate::check_key(&schema.key, key).map(|()| None)
}

/// A Put item's index keys: an empty string or binary value is refused outright (checked over
/// every index first), and so is an oversized one; a value of the wrong type is a
/// cancellation reason.
pub(in crate::engine) fn index_key_problem(schema: &Schema, item: &Item) -> Result<Option<String>, Error> {
    let mut mismatch = None;
    for index in &schema.indexes {
        for attr in index.key.attrs() {
            match item.get(&attr.name) {
                Some(v) if v.attribute_type() != attr.ty => {
                    mismatch.get_or_insert_with(|| {
                        format!(
                            "One or more parameter values were invalid: Type mismatch for Index Key {} Expected: {} Actual: {} IndexName: {}",
                            attr.name,
                            attr.ty,
                            v.attribute_type(),
                            index.name
                        )
                    });
                }
                Some(v) if is_empty(v) => return validate::check_index_keys(schema, item).map(|()| None),
                _ => {}
            }
        }
    }
    match mismatch {
        Some(m) => Ok(Some(m)),
        // Every index key has the right type and is not empty: what remains is its size.
        None => validate::check_index_keys(schema, item).map(|()| None),
    }
}
