//! The DynamoDB value model shared by every monotable crate.
//!
//! * [`AttributeValue`] is one of DynamoDB's ten attribute types.
//! * [`Number`] is an exact decimal with DynamoDB's limits (38 significant digits, magnitude
//!   between 1E-130 and 9.99…E+125) and DynamoDB's canonical text form.
//! * [`Item`] is a map from attribute names to values, kept compact: a sorted vector of pairs,
//!   names of up to 24 bytes inline ([`Name`]).
//! * [`PackedItem`] is an item packed into one shared byte allocation: how items are stored.
//!
//! The serde implementations speak DynamoDB's JSON wire form (`{"S": "x"}`, `{"N": "1"}`,
//! base64 for binary). Deserialisation errors whose text starts with one of the prefixes
//! recognised by [`is_validation_message`] are DynamoDB `ValidationException`s; all other
//! serde errors are `SerializationException`s.

mod civil;
mod error;
mod item;
mod json_out;
mod number;
mod packed;
mod value;
mod wire;

pub use civil::civil_from_days;
pub use error::NumberError;
pub use item::{Item, Iter, IterMut, Name};
pub use json_out::{clean_len, write_item, write_str, write_value};
pub use number::Number;
pub use packed::{PackedError, PackedItem, ValueRef, MAX_NESTING, PACKED_VERSION};
pub use value::{item_size, AttributeType, AttributeValue};
pub use wire::is_validation_message;
