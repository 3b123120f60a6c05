//! Streams of deleted tables. "If you have DynamoDB Streams enabled on the table, then the
//! corresponding stream on that table goes into the DISABLED state, and the stream is
//! automatically deleted after 24 hours" (API Reference, DeleteTable); until then its records
//! stay readable, like those of any disabled stream. DeleteTable therefore disables the table's
//! enabled stream and keeps its log here instead of dropping it.
//!
//! A retired table is kept in the catalog under `$retired/<table name>/<table id>` (no table
//! name contains `$` or `/`, so these entries never collide with tables) with what the Streams
//! API needs: the name, the key schema and the streams. Its log keyspace (named by the table
//! id, unique per incarnation, so a table re-created under the same name has its own) is
//! dropped, and its catalog entry removed, once none of its streams is readable any more.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Inner;
use crate::api::KeySchemaElement;
use crate::stream::{self, Info, Log};
use crate::Error;

/// The catalog name prefix of retired tables.
const PREFIX: &str = "$retired/";

/// A deleted table whose streams may still be read.
#[derive(Clone)]
pub(crate) struct Retired {
    pub entry: RetiredEntry,
    pub log: Arc<Log>,
}

/// What the catalog keeps of a retired table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RetiredEntry {
    pub table_name: String,
    pub table_id: String,
    pub key_schema: Option<Vec<KeySchemaElement>>,
    pub streams: Vec<Info>,
}

impl RetiredEntry {
    fn catalog_name(&self) -> String {
        format!("{PREFIX}{}/{}", self.table_name, self.table_id)
    }
}

/// True for a catalog entry of a retired table (not a table).
pub(in crate::engine) fn is_retired_name(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// Retires a table being deleted: disables its enabled stream at `last_seq` and keeps its
/// log readable. Returns false (and keeps nothing) when none of its streams is readable, in
/// which case the caller drops the log.
pub(in crate::engine) fn retire(
    inner: &Inner,
    table_name: &str,
    table_id: &str,
    key_schema: Option<Vec<KeySchemaElement>>,
    mut streams: Vec<Info>,
    log: Option<Arc<Log>>,
) -> Result<bool, Error> {
    let Some(log) = log else { return Ok(false) };
    let now = stream::now_millis();
    let last = log.sequencer.next() - 1;
    for s in streams.iter_mut().filter(|s| s.disabled.is_none()) {
        s.disabled = Some((now, last));
    }
    streams.retain(|s| s.readable(now));
    if streams.is_empty() {
        return Ok(false);
    }
    let entry = RetiredEntry {
        table_name: table_name.to_owned(),
        table_id: table_id.to_owned(),
        key_schema,
        streams,
    };
    let bytes =
        serde_json::to_vec(&entry).map_err(|e| Error::internal(format!("retired table entry: {e}")))?;
    inner.storage.put_catalog(&entry.catalog_name(), Some(bytes))?;
    inner.retired.lock().push(Retired { entry, log });
    Ok(true)
}

/// At start-up: reopens the log of a retired table found in the catalog.
pub(in crate::engine) fn load(inner: &Inner, name: &str, bytes: &[u8]) -> Result<(), Error> {
    let entry: RetiredEntry = serde_json::from_slice(bytes)
        .map_err(|e| Error::internal(format!("catalog entry {name} is unreadable: {e}")))?;
    let log = super::stream_control::open_log(inner, &entry.table_id)?;
    inner.retired.lock().push(Retired { entry, log });
    Ok(())
}

/// The retired tables that still have a readable stream, after dropping those that have none
/// (their logs and catalog entries go).
pub(in crate::engine) fn live(inner: &Inner) -> Result<Vec<Retired>, Error> {
    let now = stream::now_millis();
    let mut retired = inner.retired.lock();
    let (keep, expired): (Vec<Retired>, Vec<Retired>) =
        retired.drain(..).partition(|r| r.entry.streams.iter().any(|s| s.readable(now)));
    *retired = keep;
    let result = retired.clone();
    drop(retired);
    for r in expired {
        inner.storage.drop_keyspace(r.log.keyspace.name())?;
        inner.storage.put_catalog(&r.entry.catalog_name(), None)?;
    }
    Ok(result)
}
