//! The engine's export and import state: where its buckets are and the jobs it has run
//! (held in memory; a restart empties the lists). `ops/transfer/` runs the jobs.

use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::api::{ExportDescription, ImportTableDescription};
use crate::engine::core::bucket::{DirectoryStore, ObjectStore};

/// The engine's exports and imports and where its buckets are.
pub(crate) struct Transfers {
    store: RwLock<Arc<dyn ObjectStore>>,
    pub exports: Mutex<Vec<ExportDescription>>,
    pub imports: Mutex<Vec<ImportTableDescription>>,
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
