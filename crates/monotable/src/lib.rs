//! # monotable — the single-table toolkit
//!
//! Typed repositories over one DynamoDB table, following the single-table standard (rules
//! S1–S22, docs/STANDARD.md in the repository, which names the API that enforces each rule):
//! entity types with key templates, tenant scopes obtained only from a verified caller,
//! authenticated cursors with full pages, optimistic concurrency, idempotent and unique writes,
//! transactions and batches. It talks only to an [`aws_sdk_dynamodb::Client`], so the same code
//! runs on the embedded engine, `monotable serve`, Amazon DynamoDB or ScyllaDB Alternator.
//!
//! ```no_run
//! use monotable::{auth, Conventions, CursorKey, Entity, JwtVerifier, Keys, Query, Sort, Table, TableName};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, Clone, Serialize, Deserialize, Entity)]
//! #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id,
//!          gsi1(pk = "ORG#{org_id}#STATUS#{status}", sk = "RECORD#{id}"), version = version)]
//! struct Record { org_id: String, id: String, status: String, version: i64 }
//!
//! # async fn run(client: aws_sdk_dynamodb::Client, token: &str) -> Result<(), monotable::Error> {
//! let table = Table::builder(client)
//!     .conventions(Conventions::lower())
//!     .name(TableName::env("RECORDS_TABLE"))
//!     .gsi(1)
//!     .entity::<Record>()
//!     .cursor_key(CursorKey::new([7u8; 32])?)
//!     .build()
//!     .await?;
//! let caller = auth::authenticate(&JwtVerifier::hs256(b"secret"), token)?;
//! let records = table.repo::<Record>(&caller.org("org-1")?)?;          // Forbidden if not held
//! records.create(&Record { org_id: "org-1".into(), id: "r1".into(), status: "open".into(), version: 0 }).await?;
//! let open = records
//!     .query(Query::index("gsi1").partition(Keys::new().with(Record::FIELDS.status, "open")).limit(20))
//!     .await?;                                                      // open.cursor continues
//! # let _ = (open, Sort::<Record>::eq(Keys::new()));
//! # Ok(()) }
//! ```
//!
//! ## Rules enforced by the API shape
//! - S2/S5: keys come from templates checked at compile time; values are escaped so `#` in a
//!   value cannot forge a key; colliding entity types are refused at start-up.
//! - S12/S13: a [`Repository`] needs a [`Scope`], which only an [`AuthContext`] grants, and
//!   only for organisations it holds.
//! - S9: no Scan outside [`Maintenance`].
//! - S10: every listing returns a [`Page`] whose cursor is signed and bound to tenant, target
//!   and query.
//! - Dry run: [`Repository::plan`] returns the exact [`Request`]s without sending them.
//!
//! Change streams: [`changes`] decodes a table's DynamoDB stream, read by
//! [`changes::ChangeConsumer`] or delivered to Lambda, into typed records of a [`Collection`].

// The layers, imports pointing down only (ARCHITECTURE.md, "crates/monotable";
// tests/layers.rs checks it). Foundation: errors, naming, the static schema, keys and who
// the caller is.
pub mod auth;
mod conventions;
mod error;
mod internal;
mod jwt;
mod key;
mod overlap;
pub mod schema;
// Model: entities and the requests built from them (expressions, queries, cursors).
mod cursor;
mod entity;
mod expr;
mod multi_key;
mod query;
mod request;
mod update_op;
// The table: the built, checked `Table` and the sending of requests through its client.
mod send;
mod table;
// Operations on a table: repositories and what builds on them, maintenance, the design
// document, infrastructure, change streams.
mod batch;
pub mod changes;
pub mod design;
mod idempotency;
mod infra;
mod listing;
mod maintenance;
mod repo;
mod transaction;
mod unique;

pub use auth::{authenticate, AdminScope, AuthContext, Mint, Scope, Verifier, ADMIN};
pub use conventions::Conventions;
pub use cursor::CursorKey;
pub use entity::{Collection, Entity, EntityKey, Field, Item};
pub use error::{
    ActionOutcome, ConflictReason, CursorError, Error, FieldError, ForbiddenReason, Result, ValidationErrors,
};
pub use expr::{Filter, Projection, Update};
pub use jwt::JwtVerifier;
pub use key::{escape, unescape, KeyPart};
pub use listing::MAX_PAGE;
pub use maintenance::{Maintenance, ScanPage};
pub use monotable_derive::{Collection, Entity};
pub use query::{Keys, Page, Query, Sort};
pub use repo::{Plan, Repository};

/// The created/updated stamp the library writes (S4) for the current time: RFC 3339 in UTC
/// with milliseconds (`2026-12-06T13:30:05.123Z`), so stamps sort in time order. Tools that
/// write items beside the library (the console) stamp with it too.
pub fn stamp_now() -> String {
    repo::now_iso()
}
pub use request::{Request, TxAction};
pub use table::{ParamFuture, ParameterStore, Table, TableBuilder, TableName};
pub use transaction::Transaction;

/// The in-process engine client for tests and local development (S21).
#[cfg(feature = "embedded")]
pub use monotable_embedded as embedded;

/// The DynamoDB SDK the library is built on, re-exported so applications name the same version.
pub use aws_sdk_dynamodb as dynamodb;

/// The DynamoDB Streams SDK [`changes::ChangeConsumer`] reads with, re-exported likewise.
pub use aws_sdk_dynamodbstreams as dynamodbstreams;

/// A JSON Schema of a domain type, for forms and API docs (S20).
pub fn json_schema<T: schemars::JsonSchema>() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(serde_json::Value::Null)
}

/// Re-exports for the derive's generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::entity::{Item, Partial};
    pub use garde;
    pub use serde;

    /// Decodes one item of a collection member.
    pub fn decode_item<T: serde::de::DeserializeOwned>(item: Item) -> Result<T, crate::Error> {
        crate::entity::decode_item(item)
    }

    /// Maps a garde report to field-level errors.
    pub fn garde_report(r: Result<(), garde::Report>) -> Result<(), crate::ValidationErrors> {
        crate::ValidationErrors::from_garde(r)
    }
}
