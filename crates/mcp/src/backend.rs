//! The embedded engine `monotable mcp` runs on unless given an endpoint: in memory, or over a
//! data directory of `monotable serve --data-dir`.
//!
//! Invariant: a read-only server never writes the data directory. Opening a store writes to
//! it (journal rotation, version files), so a read-only server opens a private copy taken at
//! start, removed when the [`Backend`] is dropped; only `--writable` opens the directory itself.

use std::path::Path;

use aws_sdk_dynamodb::Client;
use monotable_engine::Engine;

/// A client of the embedded engine, and the scratch copy it reads when read-only.
#[derive(Debug)]
pub struct Backend {
    pub client: Client,
    _copy: Option<tempfile::TempDir>,
}

/// A fresh in-memory engine.
pub fn in_memory() -> Client {
    monotable_embedded::client_for(Engine::new())
}

/// The engine over the data directory `dir`, in the default location, whose tables are the
/// ones `monotable serve --data-dir DIR` serves there. `writable` opens `dir` itself (created
/// if missing); otherwise a copy of it, which must exist.
pub fn data_dir(dir: &Path, writable: bool) -> Result<Backend, String> {
    let copy = match writable {
        true => None,
        false => {
            if !dir.is_dir() {
                return Err(format!("there is no data directory {}", dir.display()));
            }
            let scratch = tempfile::Builder::new()
                .prefix("monotable-mcp-")
                .tempdir()
                .map_err(|e| format!("could not create a scratch directory: {e}"))?;
            copy_tree(dir, scratch.path())
                .map_err(|e| format!("could not copy the data directory {}: {e}", dir.display()))?;
            Some(scratch)
        }
    };
    let open = copy.as_ref().map_or(dir, |c| c.path());
    let store = monotable_store::open(open, monotable_store::SyncPolicy::default())
        .map_err(|e| format!("could not open the data directory {}: {e}", dir.display()))?;
    let engine = Engine::with_storage(store)
        .map_err(|e| format!("could not load the tables of {}: {e}", dir.display()))?;
    Ok(Backend { client: monotable_embedded::client_for(engine), _copy: copy })
}

/// Copies the files and directories under `from` into `to` (which exists).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
