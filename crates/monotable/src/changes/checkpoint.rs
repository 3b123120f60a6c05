//! Where a consumer remembers, per shard, the last record it has handled.
//!
//! Two implementations: [`MemoryCheckpoint`] (a process's lifetime; clones share one state,
//! which is what a test that runs two consumers one after the other needs) and
//! [`FileCheckpoint`] (durable, one JSON file). A file rather than a DynamoDB item: a
//! checkpoint item in the table being consumed would itself produce a stream record on every
//! save, which the consumer would read and save again, without end; a second table would be
//! infrastructure to create and grant. A file needs neither, and one consumer per stream per
//! host is what the consumer is for (Lambda keeps its own checkpoint in its event source
//! mapping).

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use crate::error::Error;

/// A boxed future returned by [`Checkpoint`] methods.
pub type CheckpointFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'a>>;

/// Storage for the last handled sequence number of each shard of each stream.
///
/// Invariant a consumer relies on: after `save(s, h, n)` returns `Ok`, `load(s, h)` returns
/// `Some(n)` until the next `save` of that shard, also in another process for a durable store.
pub trait Checkpoint: Send + Sync {
    /// The last handled sequence number of `shard_id` of `stream_arn`; `None` if none was saved.
    fn load<'a>(&'a self, stream_arn: &'a str, shard_id: &'a str) -> CheckpointFuture<'a, Option<String>>;
    /// Records `sequence_number` as the last handled record of the shard.
    fn save<'a>(
        &'a self,
        stream_arn: &'a str,
        shard_id: &'a str,
        sequence_number: &'a str,
    ) -> CheckpointFuture<'a, ()>;
}

fn slot(stream_arn: &str, shard_id: &str) -> String {
    format!("{stream_arn}|{shard_id}")
}

/// A checkpoint in memory. Clones share one state.
#[derive(Debug, Clone, Default)]
pub struct MemoryCheckpoint {
    state: Arc<Mutex<HashMap<String, String>>>,
}

impl MemoryCheckpoint {
    /// An empty checkpoint.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Checkpoint for MemoryCheckpoint {
    fn load<'a>(&'a self, stream_arn: &'a str, shard_id: &'a str) -> CheckpointFuture<'a, Option<String>> {
        let got =
            self.state.lock().map(|s| s.get(&slot(stream_arn, shard_id)).cloned()).map_err(|_| poisoned());
        Box::pin(async move { got })
    }

    fn save<'a>(
        &'a self,
        stream_arn: &'a str,
        shard_id: &'a str,
        sequence_number: &'a str,
    ) -> CheckpointFuture<'a, ()> {
        let done = self
            .state
            .lock()
            .map(|mut s| {
                s.insert(slot(stream_arn, shard_id), sequence_number.to_string());
            })
            .map_err(|_| poisoned());
        Box::pin(async move { done })
    }
}

fn poisoned() -> Error {
    Error::Backend { operation: "checkpoint", code: None, message: "a checkpoint writer panicked".into() }
}

/// A durable checkpoint: a JSON object `{"<stream ARN>|<shard id>": "<sequence number>"}` in
/// one file.
///
/// Invariant: the file is replaced whole by a rename of a fully written sibling file, so a
/// crash leaves either the old or the new checkpoint, never a torn one. Saves of one
/// `FileCheckpoint` (and its clones) are serialized; two processes must not share a file.
#[derive(Debug, Clone)]
pub struct FileCheckpoint {
    path: Arc<PathBuf>,
    lock: Arc<tokio::sync::Mutex<()>>,
}

impl FileCheckpoint {
    /// A checkpoint kept in `path` (created on the first save; its directory must exist).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileCheckpoint { path: Arc::new(path.into()), lock: Arc::default() }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn read(&self) -> Result<BTreeMap<String, String>, Error> {
        match tokio::fs::read(&*self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                file_error(&self.path, format!("is not a checkpoint file ({e}); move it away to start over"))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(file_error(&self.path, format!("cannot be read: {e}"))),
        }
    }
}

fn file_error(path: &Path, what: String) -> Error {
    Error::Backend { operation: "checkpoint", code: None, message: format!("{} {what}", path.display()) }
}

impl Checkpoint for FileCheckpoint {
    fn load<'a>(&'a self, stream_arn: &'a str, shard_id: &'a str) -> CheckpointFuture<'a, Option<String>> {
        Box::pin(async move {
            let _guard = self.lock.lock().await;
            Ok(self.read().await?.remove(&slot(stream_arn, shard_id)))
        })
    }

    fn save<'a>(
        &'a self,
        stream_arn: &'a str,
        shard_id: &'a str,
        sequence_number: &'a str,
    ) -> CheckpointFuture<'a, ()> {
        Box::pin(async move {
            let _guard = self.lock.lock().await;
            let mut all = self.read().await?;
            all.insert(slot(stream_arn, shard_id), sequence_number.to_string());
            let text = serde_json::to_vec_pretty(&all)
                .map_err(|e| file_error(&self.path, format!("cannot be encoded: {e}")))?;
            let mut tmp = self.path.as_os_str().to_owned();
            tmp.push(".tmp");
            let tmp = PathBuf::from(tmp);
            let write = async {
                use tokio::io::AsyncWriteExt;
                let mut f = tokio::fs::File::create(&tmp).await?;
                f.write_all(&text).await?;
                f.sync_all().await?;
                tokio::fs::rename(&tmp, &*self.path).await
            };
            write.await.map_err(|e| file_error(&self.path, format!("cannot be written: {e}")))
        })
    }
}
