//! Whole-table export and import in the DynamoDB JSON lines format that DynamoDB's
//! export-to-S3 writes: one `{"Item": {...}}` object per line, attribute values in the wire
//! form (`{"S": "x"}`). Both directions stream (memory does not grow with the table) and
//! use only the engine's public API: Scan / DescribeTable / CreateTable / BatchWriteItem.

mod definition;
mod export;
mod import;

pub use definition::{TableDefinition, DEFINITION_FORMAT};
pub use export::{export_table, export_to_path, ExportReport};
pub use import::{import_file, BadLine, ImportOptions, ImportReport};

use monotable_engine::Error as EngineError;

/// Why an export or import failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransferError {
    /// Reading or writing a file failed.
    #[error("I/O error on {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The engine refused a request before anything was written.
    #[error("{0}")]
    Engine(#[from] EngineError),
    /// The table definition file is not usable.
    #[error("table definition: {0}")]
    Definition(String),
    /// Lines of the input are not items of the table; nothing was imported.
    #[error("{} bad line(s), nothing was imported; first: line {}: {}", .0.len(),
        .0.first().map_or(0, |b| b.line), .0.first().map_or("", |b| b.reason.as_str()))]
    BadLines(Vec<BadLine>),
    /// The import stopped part-way: the first `imported` items (lines before `line`) are in
    /// the table, the rest are not.
    #[error(
        "import stopped at line {line} after writing {imported} item(s), which remain in the table: {error}"
    )]
    Partial { imported: u64, line: u64, error: EngineError },
}

impl TransferError {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> TransferError {
        TransferError::Io { what: what.into(), source }
    }
}

/// True when `path` names a gzip file (`.gz`).
fn is_gzip(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}
