//! [`StoreError`]: every way opening or using a data directory can fail.

use std::path::PathBuf;

use monotable_engine::StorageError;

/// A failure of the durable store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// An operating-system I/O error on a file of the data directory.
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The data directory holds damaged bytes that are not a torn tail: the store refuses to
    /// open (or to return the damaged entry) rather than silently lose acknowledged writes.
    #[error("corruption in {path} at byte offset {offset}: {reason}")]
    Corrupt { path: PathBuf, offset: u64, reason: String },
    /// The data directory was written by an incompatible format version.
    #[error("{path} holds monotable storage format {found:?}; this build reads format {expected}")]
    Version { path: PathBuf, found: String, expected: u32 },
    /// The directory exists, is not empty, and is not a monotable data directory.
    #[error("{0} is not empty and is not a monotable data directory (no FORMAT file)")]
    NotADataDir(PathBuf),
    /// A stored value failed its checks (see the message).
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// Another process (or another open store in this one) has the directory open.
    #[error("{0} is in use by another process (stop the server using it, or export through it)")]
    Locked(PathBuf),
    /// An error reported by the fjall storage engine.
    #[error("storage engine error: {0}")]
    Engine(String),
}

impl StoreError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> StoreError {
        StoreError::Io { path: path.into(), source }
    }
}

impl From<fjall::Error> for StoreError {
    fn from(e: fjall::Error) -> StoreError {
        StoreError::Engine(fjall_message(&e))
    }
}

impl From<StoreError> for StorageError {
    fn from(e: StoreError) -> StorageError {
        StorageError::Io(e.to_string())
    }
}

/// A readable description of a fjall error (its `Display` is only `Debug`).
pub(crate) fn fjall_message(e: &fjall::Error) -> String {
    match e {
        fjall::Error::Io(io) => format!("I/O error: {io}"),
        fjall::Error::JournalRecovery(r) => format!("journal recovery failed: {r:?}"),
        fjall::Error::Poisoned => {
            "a previous write or fsync failed; the store accepts no more writes until it is reopened"
                .to_owned()
        }
        fjall::Error::Locked => "the data directory is in use by another process".to_owned(),
        other => format!("{other:?}"),
    }
}

/// Converts a fjall error met while serving a request.
pub(crate) fn storage_err(e: fjall::Error) -> StorageError {
    StorageError::Io(fjall_message(&e))
}
