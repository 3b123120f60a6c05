//! # monotable-design — the table's model as data
//!
//! A [`Design`] is the single-table model written down: naming conventions (S2), indexes,
//! entity types with their key templates, and the named access patterns each index serves
//! (S7, S9, S14). It is read from JSON or YAML ([`Design::from_json`], [`Design::from_yaml`]),
//! checked by [`check`] (stable rule ids `MT001`…), and compared with a live table by
//! [`deploy::diff`].
//!
//! Architecture Invariant: this crate depends on neither the library nor the engine; the
//! library, the CLI and the console read it. The key-template overlap decision lives here
//! ([`overlap`]) and the library's start-up check calls it.

pub mod codegen;
pub mod convert;
pub mod cost;
pub mod deploy;
mod error;
mod escape;
pub mod iac;
mod lint;
mod model;
pub mod overlap;
mod pattern;
mod schema;
mod settings;
pub mod show;
mod template;
mod text;

pub use error::DesignError;
pub use escape::{escape, unescape};
pub use lint::{check, Finding, Severity, RULES};
pub use model::{
    Accept, AccessPattern, Conventions, Count, Design, Entity, EntityIndexKey, Field, FieldType, Index,
    IndexKind, KeyAttrs, KeyCondition, Operation, Order, Projection, Scope, SortCondition, SortOp, Tenant,
    TenantKind, TABLE,
};
pub use schema::json_schema;
pub use settings::{Billing, StreamView, TableSettings};
pub use template::{Part, Template, TemplateError, TemplateFault};
