//! The console's JSON API: one async function per call, each talking to the endpoint through
//! `aws_sdk_dynamodb::Client` only. The page posts `{…}` to `/console/api/<call>`.
//!
//! Module map: `tables` (list, describe), `read` (scan, query, get), `partiql` (statements),
//! `export` (a result as CSV or JSON lines), `write` (put, delete, batch-put; `versioned` makes
//! an edit of a design's versioned entity a save as the library makes it), `admin` (create and
//! delete tables), `settings` (TTL, stream, billing, deletion protection, tags, GSIs),
//! `patterns` (the design document and access patterns run by name), `stats` (items and bytes
//! per entity type and partition, a Scan page at a time).

mod admin;
mod export;
mod partiql;
mod patterns;
mod read;
mod settings;
mod stats;
mod tables;
mod versioned;
mod write;

use aws_sdk_dynamodb::Client;
use monotable_design::Design;
use serde_json::Value;

use crate::cursor::CursorKey;
use crate::error::ApiError;

/// What one API call may use.
pub struct Ctx<'a> {
    /// The endpoint's client (the signed-in user's, in login mode).
    pub client: &'a Client,
    /// Whether state-changing calls are allowed.
    pub writable: bool,
    /// The design document, if the console was given one.
    pub design: Option<&'a Design>,
    /// The key that seals page cursors.
    pub cursors: &'a CursorKey,
}

impl Ctx<'_> {
    fn require_writable(&self) -> Result<(), ApiError> {
        if self.writable {
            Ok(())
        } else {
            Err(ApiError::Forbidden(
                "The console is read-only; start it with --writable to change data.".into(),
            ))
        }
    }
}

/// Runs the API call `name` with `input`.
pub async fn dispatch(name: &str, ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    match name {
        "tables" => tables::list(ctx).await,
        "describe" => tables::describe(ctx, input).await,
        "scan" => read::scan(ctx, input).await,
        "query" => read::query(ctx, input).await,
        "get" => read::get(ctx, input).await,
        "statement" => partiql::execute(ctx, input).await,
        "export" => export::export(ctx, input).await,
        "put" => write::put(ctx, input).await,
        "delete" => write::delete(ctx, input).await,
        "batch-put" => write::batch_put(ctx, input).await,
        "create-table" => admin::create_table(ctx, input).await,
        "delete-table" => admin::delete_table(ctx, input).await,
        "tags" => settings::tags(ctx, input).await,
        "update-table" => settings::update(ctx, input).await,
        "design" => Ok(patterns::design(ctx)),
        "run-pattern" => patterns::run(ctx, input).await,
        "stats" => stats::page(ctx, input).await,
        other => Err(ApiError::NotFound(other.to_string())),
    }
}

/// The string member `name` of `input`.
fn string<'a>(input: &'a Value, name: &str) -> Result<&'a str, ApiError> {
    optional_string(input, name)?.ok_or_else(|| ApiError::bad(format!("`{name}` is required")))
}

/// The string member `name` of `input`, if present and not empty.
fn optional_string<'a>(input: &'a Value, name: &str) -> Result<Option<&'a str>, ApiError> {
    match input.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::bad(format!("`{name}` must be a string"))),
    }
}

/// The boolean member `name` of `input` (`default` when absent).
fn flag(input: &Value, name: &str, default: bool) -> Result<bool, ApiError> {
    match input.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(ApiError::bad(format!("`{name}` must be true or false"))),
    }
}

/// The page size: `limit` between 1 and 1000, 25 when absent.
fn limit(input: &Value) -> Result<i32, ApiError> {
    match input.get("limit") {
        None | Some(Value::Null) => Ok(25),
        Some(v) => v
            .as_i64()
            .filter(|n| (1..=1000).contains(n))
            .map(|n| n as i32)
            .ok_or_else(|| ApiError::bad("`limit` must be a whole number from 1 to 1000")),
    }
}
