//! [`TransferError`]: why an export, import or copy stopped.

/// Why an export, import or copy stopped. After any of these, the checkpoint on disk is
/// consistent: a rerun with `--resume` continues from it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransferError {
    /// Reading or writing a local file failed.
    #[error("I/O error on {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The endpoint refused a request (after retries, for retryable errors).
    #[error("{operation} failed: {message}")]
    Endpoint { operation: &'static str, message: String },
    /// An item, key or file line is not valid DynamoDB JSON.
    #[error("{0}")]
    Data(String),
    /// Lines of the input are not items of the table; nothing was imported.
    #[error("{count} bad line(s) in the input, nothing was imported; first: line {line}: {reason}")]
    BadLines { count: u64, line: u64, reason: String },
    /// The table definition is missing or unusable.
    #[error("table definition: {0}")]
    Definition(String),
    /// A checkpoint exists and `resume` was not asked for, or it belongs to another run.
    #[error("{0}")]
    Checkpoint(String),
}

impl TransferError {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> TransferError {
        TransferError::Io { what: what.into(), source }
    }
}
