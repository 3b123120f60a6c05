//! DynamoDB's request and response shapes, one file per operation family.
//!
//! Every struct is named like the DynamoDB shape it mirrors and (de)serialises with
//! DynamoDB's JSON member names, so the protocol layer hands request bodies straight through.
//! Every member is optional on the way in (`#[serde(default)]`), unknown members are ignored,
//! and absent members are not written on the way out. Enumerated members (`ReturnValues`,
//! `Select`, `BillingMode`…) are plain strings so that the engine, not the JSON parser,
//! refuses bad values with DynamoDB's `ValidationException` text.

/// Declares a DynamoDB shape: every member becomes `Option<T>`, named in PascalCase on the
/// wire (or by an explicit `#[serde(rename)]`), skipped when absent.
macro_rules! shape {
    ($(#[$m:meta])* pub struct $name:ident { $( $(#[$fm:meta])* $f:ident : $t:ty ),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "PascalCase", default)]
        pub struct $name {
            $( $(#[$fm])* #[serde(skip_serializing_if = "Option::is_none")] pub $f: Option<$t>, )*
        }
    };
}

mod backup;
mod batch;
mod common;
mod item;
mod misc;
mod partiql;
mod policy;
mod query;
mod shared;
mod streams;
mod table;
mod transact;
mod transfer;

pub use backup::*;
pub use batch::*;
pub use common::*;
pub use item::*;
pub use misc::*;
pub use partiql::*;
pub use policy::*;
pub use query::*;
pub use streams::*;
pub use table::*;
pub use transact::*;
pub use transfer::*;
