//! Exports to and imports from S3 through an [`ObjectStore`](crate::ObjectStore)
//! (`core/bucket.rs`): by default a [`DirectoryStore`](crate::DirectoryStore) whose bucket
//! `b` is the directory `<bucket root>/b` (the root is
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
//! imports read DynamoDB JSON items from every object under a key prefix (`import.rs`). The
//! store and the job lists are the core's `Transfers` (`core/transfers.rs`).
//!
//! ImportTable and ExportTableToPointInTime are front ends: they create and delete the
//! table, put its items and scan it through the public [`Engine`](crate::Engine) handle, so
//! an import validates each item exactly as PutItem does.

mod csv;
mod export;
mod import;

use crate::{Error, ErrorKind};

pub(in crate::engine) use export::{describe_export, export_table_to_point_in_time, list_exports};
pub(in crate::engine) use import::{describe_import, import_table, list_imports};

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
