//! The traits `#[derive(Entity)]` and `#[derive(Collection)]` implement, and typed field handles.

use std::borrow::Cow;
use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{de::DeserializeOwned, Serialize};

use crate::error::{Error, ValidationErrors};
use crate::schema::EntitySchema;

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
    serde_dynamo::from_item(item).map_err(|e| Error::Backend {
        operation: "decode",
        code: None,
        message: format!("stored item does not decode: {e}"),
    })
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
