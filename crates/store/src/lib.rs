//! monotable's durable storage.
//!
//! * [`FjallStore`] implements the engine's [`monotable_engine::Storage`] on the fjall LSM
//!   store: `open(dir, SyncPolicy::default())` then `Engine::with_storage(store)`.
//!   The on-disk format is described in `docs/STORAGE.md`.
//! * [`TtlSweeper`] deletes expired items through the engine's public API, on any storage.
//! * [`export_table`] / [`import_file`] stream a table to and from DynamoDB's export JSON
//!   lines format, with a [`TableDefinition`] file to recreate the table and its indexes.
//!
//! Module map: `options` (sync policy, cache), `store` (the `Storage` impl, directory layout),
//! `keyspace` (reads), `codec` (value framing), `verify` (journal check before recovery),
//! `group` (group commit), `journal_sync` (its device flush, outside fjall's journal lock),
//! `ttl`, `transfer`.

mod codec;
mod error;
mod group;
mod journal_sync;
mod keyspace;
mod options;
mod store;
mod transfer;
mod ttl;
mod verify;

/// The progress-bar crate whose `ProgressBar` the export/import API takes.
pub use indicatif;

pub use codec::{VALUE_VERSION, VALUE_VERSION_JSON};
pub use error::StoreError;
pub use keyspace::FjallKeyspace;
pub use options::{ParseSyncPolicyError, StoreOptions, SyncPolicy};
pub use store::{open, open_with, FjallStore, RecoveryReport, FORMAT_VERSION};
pub use transfer::{
    export_table, export_to_path, import_file, BadLine, ExportReport, ImportOptions, ImportReport,
    TableDefinition, TransferError, DEFINITION_FORMAT,
};
pub use ttl::{Clock, ManualClock, SweepReport, SweepStats, SweeperHandle, SystemClock, TtlSweeper};
