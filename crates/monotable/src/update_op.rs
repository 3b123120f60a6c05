//! One operation of an update as data: what [`Update`](crate::Update) collects, what the
//! repository compiles into an `UpdateExpression` and what an entity's generated partial
//! validation reads (through `Partial`).
//!
//! Below both entities and expressions: it names nothing of the crate.

use aws_sdk_dynamodb::types::AttributeValue;

/// One operation of an update, in Rust field name, stored attribute name and value.
#[derive(Debug, Clone)]
pub(crate) enum UpdateOp {
    Set(&'static str, &'static str, AttributeValue),
    Remove(&'static str, &'static str),
    Add(&'static str, &'static str, AttributeValue),
}

impl UpdateOp {
    /// The Rust field name.
    pub(crate) fn field(&self) -> &'static str {
        match self {
            UpdateOp::Set(n, ..) | UpdateOp::Remove(n, _) | UpdateOp::Add(n, ..) => n,
        }
    }
}
