//! [`Only<T>`]: the collection of one entity type, for consumers of a single type.

use crate::entity::{decode_item, Collection, Entity, Item};
use crate::error::Error;
use crate::schema::EntitySchema;

/// A [`Collection`] of the single entity type `T`: `ChangeConsumer::<Only<Order>>` delivers
/// orders, and reports every other item as foreign.
#[derive(Debug, Clone, PartialEq)]
pub struct Only<T>(pub T);

impl<T: Entity> Collection for Only<T> {
    fn members() -> Vec<&'static EntitySchema> {
        vec![T::schema()]
    }

    fn decode(entity_type: &str, item: Item) -> Result<Option<Self>, Error> {
        if entity_type != T::schema().type_name {
            return Ok(None);
        }
        decode_item(item).map(|t| Some(Only(t)))
    }
}
