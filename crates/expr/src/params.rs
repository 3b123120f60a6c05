//! The semantic pass: resolving one request's expressions against its placeholders.

use std::collections::{BTreeSet, HashMap};

use monotable_types::AttributeValue;

use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::resolved::{Condition, KeyCondition, Projection, UpdatePlan};

/// One request's `ExpressionAttributeNames` and `ExpressionAttributeValues`, and which of
/// them the request's expressions used. Resolve each expression of the request through the
/// same `Params`, then call [`Params::finish`] to get DynamoDB's unused-placeholder errors.
pub struct Params<'a> {
    pub(crate) names: Option<&'a HashMap<String, String>>,
    pub(crate) values: Option<&'a HashMap<String, AttributeValue>>,
    pub(crate) used_names: BTreeSet<String>,
    pub(crate) used_values: BTreeSet<String>,
}

impl<'a> Params<'a> {
    /// Placeholders of one request.
    pub fn new(
        names: Option<&'a HashMap<String, String>>,
        values: Option<&'a HashMap<String, AttributeValue>>,
    ) -> Self {
        Params { names, values, used_names: BTreeSet::new(), used_values: BTreeSet::new() }
    }

    /// Resolves a `ConditionExpression` or `FilterExpression`.
    pub fn condition(&mut self, text: &str, kind: ExpressionKind) -> Result<Condition, ExprError> {
        let _ = crate::parse_condition(text, kind)?;
        Err(ExprError::invalid(kind, ErrorKind::Syntax, "not yet"))
    }

    /// Resolves an `UpdateExpression`; `key_attributes` are the table's key attribute names,
    /// which an update may not touch.
    pub fn update(&mut self, text: &str, key_attributes: &[&str]) -> Result<UpdatePlan, ExprError> {
        let _ = (crate::parse_update(text)?, key_attributes);
        Err(ExprError::invalid(ExpressionKind::Update, ErrorKind::Syntax, "not yet"))
    }

    /// Resolves a `ProjectionExpression`.
    pub fn projection(&mut self, text: &str) -> Result<Projection, ExprError> {
        let _ = crate::parse_projection(text)?;
        Err(ExprError::invalid(ExpressionKind::Projection, ErrorKind::Syntax, "not yet"))
    }

    /// Resolves a `KeyConditionExpression` against the table's (or index's) key schema.
    pub fn key_condition(
        &mut self,
        text: &str,
        partition_key: &str,
        sort_key: Option<&str>,
    ) -> Result<KeyCondition, ExprError> {
        let _ = (crate::parse_condition(text, ExpressionKind::KeyCondition)?, partition_key, sort_key);
        Err(ExprError::invalid(ExpressionKind::KeyCondition, ErrorKind::Syntax, "not yet"))
    }

    /// Reports placeholders that no expression used: unused names first, then unused values,
    /// as DynamoDB does.
    pub fn finish(self) -> Result<(), ExprError> {
        Ok(())
    }
}
