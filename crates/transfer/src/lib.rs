//! `monotable-transfer`: export, import and copy of DynamoDB tables between any endpoints
//! (Amazon DynamoDB, `monotable serve`, other emulators), through `aws_sdk_dynamodb`.
//!
//! - Reads are parallel Scan segments ([`Options::segments`]), strongly consistent.
//! - Writes are BatchWriteItem calls of up to 25 puts; unprocessed items and throttling
//!   errors are retried after exponentially growing pauses with full jitter ([`Backoff`]).
//! - A rate limit in items or capacity units per second is shared by all segments
//!   ([`RateLimiter`]).
//! - Each run keeps a checkpoint directory, one file per segment, so an interrupted run
//!   (Ctrl-C included) resumes with [`Options::resume`] without duplicates or gaps.
//! - Progress is a bar on a terminal, log lines otherwise ([`ProgressMode`]).
//!
//! Files are DynamoDB's export format: one `{"Item": {...}}` per line (gzip when the name
//! ends in `.gz`), plus a `<table>.table.json` definition, the same files as
//! `monotable export --data-dir` writes.
//!
//! Architecture Invariant: this crate knows endpoints only through `aws_sdk_dynamodb`; it
//! does not depend on the engine, so what it does to `monotable serve` it does to any peer.

mod backoff;
mod checkpoint;
mod client;
mod copy;
mod definition;
mod error;
mod export;
mod import;
mod options;
mod progress;
mod rate;
mod run;
mod scan;
mod wire;
mod write;

pub use backoff::Backoff;
pub use client::{connect, is_retryable};
pub use copy::{copy, default_checkpoint as copy_checkpoint, TableRef};
pub use definition::{Definition, DEFINITION_FORMAT};
pub use error::TransferError;
pub use export::{default_checkpoint as export_checkpoint, export};
pub use import::{default_checkpoint as import_checkpoint, import};
pub use options::{Options, Report};
pub use progress::{Progress, ProgressMode};
pub use rate::{RateLimiter, RateUnit};
pub use wire::{from_sdk, to_sdk, SdkItem};
