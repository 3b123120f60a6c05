//! The traits `#[derive(Entity)]` and `#[derive(Collection)]` implement, and typed field handles.

use std::borrow::Cow;
use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{de::DeserializeOwned, Serialize};

use crate::error::{Error, ValidationErrors};
use crate::schema::EntitySchema;
use crate::update_op::UpdateOp;

/// A stored item: attribute name to value.
pub type Item = HashMap<String, AttributeValue>;

/// A single-table entity type (S2–S6). Implement it with `#[derive(Entity)]`.
pub trait Entity: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The generated key struct: the table key fields without the tenant.
    type Key: EntityKey<Entity = Self>;
    /// The static description of this type.
    fn schema() -> &'static EntitySchema;
    /// The raw value of a field used by a key template (`None` if absent or not a key field).
    fn key_part(&self, field: &str) -> Option<Cow<'_, str>>;
    /// This item's key.
    fn key(&self) -> Self::Key;
    /// Field-level validation (S20); generated from `garde` rules with `#[entity(validate)]`.
    fn validate(&self) -> Result<(), ValidationErrors> {
        Ok(())
    }
    /// Validation of a partial update (S20): the rules of every field the update sets or
    /// removes, checked on the new values. Generated with `#[entity(validate)]`; see
    /// [`Repository::update`](crate::Repository::update) for what it covers.
    #[doc(hidden)]
    fn validate_partial(partial: &Partial<'_>) -> Result<(), ValidationErrors> {
        let _ = partial;
        Ok(())
    }
}

/// What a partial update sets or removes, as the derive's generated validation sees it.
#[doc(hidden)]
pub struct Partial<'a> {
    ops: &'a [UpdateOp],
}

impl<'a> Partial<'a> {
    pub(crate) fn new(ops: &'a [UpdateOp]) -> Self {
        Partial { ops }
    }

    fn last(&self, field: &str) -> Option<&'a UpdateOp> {
        self.ops.iter().rev().find(|op| op.field() == field)
    }

    /// Whether the update sets, removes or adds to the Rust field `field`.
    pub fn touches(&self, field: &str) -> bool {
        self.last(field).is_some()
    }

    /// Checks the rules of `group[0]` with the check struct `W`, which holds `group[0]` with its
    /// rules and the other fields of `group` (the ones those rules read) without rules. Every
    /// field of the group must be set or removed by the update: an `add` has no value to check
    /// before the write, and a rule that reads a field the update leaves alone would need the
    /// stored item.
    pub fn check<W>(&self, group: &[&str]) -> Result<(), ValidationErrors>
    where
        W: DeserializeOwned + garde::Validate,
        W::Context: Default,
    {
        let Some(&first) = group.first() else { return Ok(()) };
        let mut item = Item::new();
        for &f in group {
            match self.last(f) {
                Some(UpdateOp::Set(_, attr, v)) => {
                    item.insert((*attr).to_string(), v.clone());
                }
                Some(UpdateOp::Remove(..)) => {}
                Some(UpdateOp::Add(..)) => {
                    return Err(ValidationErrors::field(
                        f,
                        "an atomic add cannot be checked against this field's validation rules; set the new value instead",
                    ))
                }
                None => {
                    return Err(ValidationErrors::field(
                        first,
                        format!("the validation rules of `{first}` read `{f}`, so the update must set `{f}` too"),
                    ))
                }
            }
        }
        let w: W = serde_dynamo::from_item(item)
            .map_err(|e| ValidationErrors::field(first, format!("cannot decode: {e}")))?;
        ValidationErrors::from_garde(w.validate())
    }
}

/// The key of an entity: the values of its table key template fields, minus the tenant.
pub trait EntityKey: Clone + Send + Sync {
    /// The entity this key addresses.
    type Entity: Entity;
    /// The raw value of a key field.
    fn key_part(&self, field: &str) -> Option<Cow<'_, str>>;
}

/// Several entity types that share a partition, decoded by the entity-type attribute (S3, S6).
/// Implement it with `#[derive(Collection)]` on an enum of single-entity variants.
pub trait Collection: Sized + Send {
    /// The member types.
    fn members() -> Vec<&'static EntitySchema>;
    /// Decodes one item whose entity type is `entity_type`; `None` if it is not a member.
    fn decode(entity_type: &str, item: Item) -> Result<Option<Self>, Error>;
}

/// A typed handle to one field of `T` whose Rust type is `V`, e.g. `Record::FIELDS.status`.
pub struct Field<T, V> {
    name: &'static str,
    attr: &'static str,
    _types: PhantomData<fn() -> (T, V)>,
}

impl<T, V> Field<T, V> {
    /// Used by the derive.
    #[doc(hidden)]
    pub const fn new(name: &'static str, attr: &'static str) -> Self {
        Field { name, attr, _types: PhantomData }
    }
    /// The Rust field name.
    pub fn name(&self) -> &'static str {
        self.name
    }
    /// The stored attribute name.
    pub fn attr(&self) -> &'static str {
        self.attr
    }
}

impl<T, V> Clone for Field<T, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, V> Copy for Field<T, V> {}

/// Decodes an item into `T`, dropping the library's own attributes first is not needed: serde
/// ignores unknown attributes unless the type denies them.
pub(crate) fn decode_item<T: DeserializeOwned>(item: Item) -> Result<T, Error> {
    serde_dynamo::from_item(item).map_err(undecodable)
}

/// Decodes the items of one response into `T`s, as [`decode_item`] does one by one.
pub(crate) fn decode_items<T: DeserializeOwned>(items: Vec<Item>) -> Result<Vec<T>, Error> {
    serde_dynamo::from_items(items).map_err(undecodable)
}

fn undecodable(e: serde_dynamo::Error) -> Error {
    Error::Backend { operation: "decode", code: None, message: format!("stored item does not decode: {e}") }
}

/// Encodes `T` into an item.
pub(crate) fn encode_item<T: Serialize>(value: &T) -> Result<Item, Error> {
    serde_dynamo::to_item(value)
        .map_err(|e| Error::Validation(ValidationErrors::field("<item>", format!("cannot encode: {e}"))))
}

/// Encodes one value into an attribute value.
pub(crate) fn encode_value<V: Serialize>(field: &str, value: &V) -> Result<AttributeValue, Error> {
    serde_dynamo::to_attribute_value(value)
        .map_err(|e| Error::Validation(ValidationErrors::field(field, format!("cannot encode: {e}"))))
}
