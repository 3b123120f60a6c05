//! # monotable-console — a web console for any DynamoDB endpoint
//!
//! [`Console::handle`] serves a single-page console under `/console`: tables, a table's items
//! page by page, a query builder that shows the exact request and the consumed capacity, an
//! item editor that saves conditionally on the version read, table creation and deletion,
//! import and export, and single-table views from a design document. Its API talks to the
//! endpoint only through `aws_sdk_dynamodb::Client`, so the same console works for
//! `monotable serve` (the CLI mounts it on the protocol port) and for Amazon DynamoDB.
//!
//! The page is hand-written HTML, CSS and JavaScript compiled into the binary. It builds
//! every element with `textContent`, never from markup, and the console's
//! `Content-Security-Policy` allows only its own scripts.
//!
//! Module map: `console` (routing, checks, headers), `session` (CSRF token, sign-in),
//! `throttle` (sign-in attempts per client), `api/*` (one file per page's calls), `value`
//! (DynamoDB JSON ↔ SDK values), `capture` (the exact request sent), `cursor` (sealed page
//! cursors), `csv` (RFC 4180 records), `single` (entity types and key templates), `assets` (the
//! compiled-in files), `server` (the standalone listener).

mod api;
mod assets;
mod capture;
mod console;
mod csv;
mod cursor;
mod error;
mod server;
mod session;
mod single;
mod throttle;
mod value;

pub use console::{Access, Console, LoginClient, Options, PREFIX};
pub use error::ApiError;
pub use server::serve;
pub use single::{decode, render};
