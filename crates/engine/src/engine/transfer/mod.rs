//! Exports to and imports from S3 through an [`ObjectStore`] (`bucket.rs`): by default a
//! [`DirectoryStore`] whose bucket `b` is the directory `<bucket root>/b` (the root is
//! [`crate::Engine::set_bucket_root`], by default `monotable-buckets` in the system's temporary
//! directory), or any store given to [`crate::Engine::set_object_store`] (`monotable serve
//! --s3-endpoint` gives an S3 client from the `monotable-s3` crate). This module does no
//! network I/O itself. A bucket that does not exist fails an export or import the way a
//! missing S3 bucket does: the request is accepted and the job ends `FAILED` with
//! `S3NoSuchBucket`.
//!
//! Jobs run to completion inside the request, so the response already says `COMPLETED` (or
//! `FAILED`); DynamoDB answers `IN_PROGRESS` and finishes later. The job list lives in memory
//! and is empty after a restart. Exports write DynamoDB's export layout (`export.rs`);
//! imports read DynamoDB JSON items from every object under a key prefix (`import.rs`).

mod bucket;
mod csv;
mod export;
mod import;

use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::api::{ExportDescription, ImportTableDescription};
use crate::{Error, ErrorKind};

pub use bucket::{DirectoryStore, ObjectStore, ObjectStoreError};
pub(super) use export::{describe_export, export_table_to_point_in_time, list_exports};
pub(super) use import::{describe_import, import_table, list_imports};

/// The engine's exports and imports and where its buckets are.
pub(crate) struct Transfers {
    store: RwLock<Arc<dyn ObjectStore>>,
    exports: Mutex<Vec<ExportDescription>>,
    imports: Mutex<Vec<ImportTableDescription>>,
}

impl Default for Transfers {
    fn default() -> Transfers {
        Transfers {
            store: RwLock::new(Arc::new(DirectoryStore::new(std::env::temp_dir().join("monotable-buckets")))),
            exports: Mutex::new(Vec::new()),
            imports: Mutex::new(Vec::new()),
        }
    }
}

impl Transfers {
    /// Sets where the buckets are; jobs already running keep the store they started with.
    pub fn set_store(&self, store: Arc<dyn ObjectStore>) {
        *self.store.write() = store;
    }

    /// Where the buckets are.
    pub fn store(&self) -> Arc<dyn ObjectStore> {
        self.store.read().clone()
    }
}

/// A job id as DynamoDB writes them: 14 digits of epoch milliseconds, a dash, 8 hex digits
/// (`01234567890123-a1b2c3d4`, developer guide S3DataExport.Output).
fn job_id() -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{millis:014}-{}", &random[..8])
}

/// A page of a job list: `next_token` is the index to start at, as DynamoDB's tokens are
/// opaque strings.
fn page<T: Clone>(
    all: &[T],
    size: usize,
    next_token: Option<&str>,
) -> Result<(Vec<T>, Option<String>), Error> {
    let start = match next_token {
        None => 0,
        Some(t) => t
            .parse::<usize>()
            .map_err(|_| Error::new(ErrorKind::Validation, format!("Invalid NextToken: {t}")))?,
    };
    let end = (start + size).min(all.len());
    let items = all.get(start.min(end)..end).unwrap_or_default().to_vec();
    Ok((items, (end < all.len()).then(|| end.to_string())))
}
