//! The catalog: one entry per table (description, time to live, tags, sub-resources,
//! streams), stored through `Storage::put_catalog` whenever any of them changes and read back
//! when an engine opens its store.

use serde::{Deserialize, Serialize};

use crate::api::*;
use crate::engine::core::Inner;
use crate::table::{SubResources, Table};
use crate::Error;

/// What the catalog stores per table.
#[derive(Serialize, Deserialize)]
pub(in crate::engine) struct CatalogEntry {
    pub description: TableDescription,
    pub ttl: Option<TimeToLiveSpecification>,
    pub tags: Vec<Tag>,
    #[serde(default)]
    pub sub: SubResources,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<crate::stream::Info>,
}

/// Stores the table's catalog entry. Every control-plane change that outlives the process
/// ends here.
pub(in crate::engine) fn save(inner: &Inner, table: &Table) -> Result<(), Error> {
    let meta = table.meta.lock();
    let entry = CatalogEntry {
        description: meta.description.clone(),
        ttl: meta.ttl.clone(),
        tags: meta.tags.clone(),
        sub: meta.sub.clone(),
        streams: meta.streams.clone(),
    };
    let bytes = serde_json::to_vec(&entry).map_err(|e| Error::internal(e.to_string()))?;
    inner.storage.put_catalog(&table.name, Some(bytes))?;
    Ok(())
}
