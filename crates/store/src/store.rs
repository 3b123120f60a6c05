//! [`FjallStore`]: the engine's [`Storage`] on one fjall database.
//!
//! Directory layout (see `docs/STORAGE.md`): `DIR/FORMAT` names the format version; `DIR/db/`
//! is the fjall database. Inside it, the keyspace `monotable_meta` maps engine keyspace names
//! to fjall keyspace names (`k<n>`) and holds the catalog; every engine keyspace is one fjall
//! keyspace.
//!
//! Invariants:
//! * Every commit is one fjall write batch, so it is atomic on disk: journal replay restores
//!   a batch whole or not at all.
//! * A commit has been written to the operating system before `commit` returns. Under
//!   `Always` it has also been flushed to the device; under `GroupCommit` it has been flushed,
//!   or, inside the engine's `defer_sync` scope, its ticket is handed to the scope's caller,
//!   who acknowledges nothing before the flush that covers it.
//! * `writes_may_block` is true under `Always` (every commit waits for the device) and while
//!   a keyspace the last commits touched is close to fjall's write stall or halt.
//! * Catalog and keyspace-map changes are always flushed (`SyncAll`) before returning.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fjall::{Database, KeyspaceCreateOptions, PersistMode};
use monotable_engine::{Keyspace, Storage, StorageError, SyncWaiter, WriteBatch};
use parking_lot::Mutex;

use crate::codec::{encode_item, frame, unframe};
use crate::error::{storage_err, StoreError};
use crate::group::GroupSync;
use crate::journal_sync::JournalSync;
use crate::keyspace::FjallKeyspace;
use crate::options::{StoreOptions, SyncPolicy};
use crate::verify::{self, JournalCheck};

/// The on-disk format version this build reads and writes (the `FORMAT` file).
pub const FORMAT_VERSION: u32 = 1;
const FORMAT_FILE: &str = "FORMAT";
const DB_DIR: &str = "db";
const LOCK_FILE: &str = "LOCK";
const META: &str = "monotable_meta";
const KS_PREFIX: &[u8] = b"ks\0";
const CATALOG_PREFIX: &[u8] = b"cat\0";
const NEXT_KS: &[u8] = b"next_ks";

/// What start-up found and did.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RecoveryReport {
    /// Wall time of opening (journal check, fjall recovery, metadata load).
    pub elapsed: Duration,
    /// Journal files checked.
    pub journals: usize,
    /// Bytes of torn tail cut from the active journal (an incomplete last write).
    pub torn_tail_bytes: u64,
    /// fjall keyspaces left behind by an interrupted create/drop and removed.
    pub orphans_removed: usize,
}

/// A durable [`Storage`]; share it as `Arc<FjallStore>` (or `Arc<dyn Storage>`).
pub struct FjallStore {
    /// An exclusive lock on `DIR/LOCK`, held while the store is open.
    _lock: std::fs::File,
    dir: PathBuf,
    db: Database,
    meta: fjall::Keyspace,
    open: Mutex<HashMap<String, Arc<FjallKeyspace>>>,
    /// Bytes of one keyspace's in-memory write buffer before it is flushed to a table file.
    memtable: u64,
    sync: SyncPolicy,
    /// Group commit, under `GroupCommit` only; the same object as `waiter`.
    group: Option<Arc<GroupSync>>,
    waiter: Option<Arc<dyn SyncWaiter>>,
    /// A keyspace the last commits wrote to is close to fjall's write back-pressure.
    pressure: AtomicBool,
    report: RecoveryReport,
}

/// fjall sleeps writers for 100 ms at a time once a keyspace has four sealed memtables
/// waiting for their flush, and slows then halts them from 20 level-0 runs. A keyspace is
/// under pressure well before either: two sealed memtables (one is normal right after a
/// rotation) or 12 level-0 tables (each run has at least one table).
fn under_pressure(tree: &fjall::Keyspace) -> bool {
    tree.sealed_memtable_count() >= 2 || tree.l0_table_count() >= 12
}

/// Opens (creating if absent or empty) the data directory `dir` with default options and
/// the given sync policy.
pub fn open(dir: impl AsRef<Path>, sync: SyncPolicy) -> Result<Arc<FjallStore>, StoreError> {
    open_with(dir, StoreOptions::with_sync(sync))
}

/// Opens (creating if absent or empty) the data directory `dir`.
///
/// Before fjall replays the journals, every journal is checked: a torn tail of the active
/// journal is cut off (and counted in [`FjallStore::recovery`]); damage anywhere else is a
/// [`StoreError::Corrupt`] naming the file and offset, and nothing is modified.
pub fn open_with(dir: impl AsRef<Path>, options: StoreOptions) -> Result<Arc<FjallStore>, StoreError> {
    let started = Instant::now();
    let dir = dir.as_ref().to_path_buf();
    check_format(&dir)?;
    // Lock before the journal check: it may cut a torn tail, which must never happen to a
    // journal another process is appending to.
    let lock = lock_dir(&dir)?;
    let db_dir = dir.join(DB_DIR);
    let JournalCheck { journals, torn_tail_bytes } = verify::check_and_repair(&db_dir, options.repair)?;
    let db = Database::builder(&db_dir)
        .cache_size(options.cache_bytes)
        .journal_compression(fjall::CompressionType::None)
        .max_journaling_size(options.max_journal_bytes.max(64 << 20))
        .manual_journal_persist(true)
        .open()?;
    let memtable = options.memtable_bytes.max(1 << 20);
    let meta = db.keyspace(META, || KeyspaceCreateOptions::default().max_memtable_size(memtable))?;
    let group = match options.sync {
        SyncPolicy::GroupCommit { max_delay } => {
            let journal = JournalSync::new(db_dir.clone());
            let flush_db = db.clone();
            let flush = Box::new(move || journal.flush(&flush_db));
            Some(GroupSync::start(max_delay, flush).map_err(|e| StoreError::io(&dir, e))?)
        }
        _ => None,
    };
    let mut store = FjallStore {
        _lock: lock,
        dir,
        db,
        meta,
        open: Mutex::new(HashMap::new()),
        memtable,
        sync: options.sync,
        waiter: group.clone().map(|g| g as Arc<dyn SyncWaiter>),
        group,
        pressure: AtomicBool::new(false),
        report: RecoveryReport { journals, torn_tail_bytes, ..RecoveryReport::default() },
    };
    store.report.orphans_removed = store.remove_orphans()?;
    store.report.elapsed = started.elapsed();
    Ok(Arc::new(store))
}

/// Creates `FORMAT` in a new or empty directory, or checks the one present.
fn check_format(dir: &Path) -> Result<(), StoreError> {
    let path = dir.join(FORMAT_FILE);
    let expected = format!("monotable-store format {FORMAT_VERSION}\n");
    match std::fs::read_to_string(&path) {
        Ok(found) if found == expected => Ok(()),
        Ok(found) => {
            Err(StoreError::Version { path, found: found.trim().to_owned(), expected: FORMAT_VERSION })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
            let mut entries = std::fs::read_dir(dir).map_err(|e| StoreError::io(dir, e))?;
            if entries.next().is_some() {
                return Err(StoreError::NotADataDir(dir.to_path_buf()));
            }
            // Write the marker atomically: a crash leaves either no FORMAT or a whole one.
            let tmp = dir.join("FORMAT.tmp");
            std::fs::write(&tmp, expected).map_err(|e| StoreError::io(&tmp, e))?;
            sync_file(&tmp)?;
            std::fs::rename(&tmp, &path).map_err(|e| StoreError::io(&path, e))?;
            sync_file(dir)
        }
        Err(e) => Err(StoreError::io(path, e)),
    }
}

/// Takes the exclusive lock of the data directory, or reports who holds it.
fn lock_dir(dir: &Path) -> Result<std::fs::File, StoreError> {
    let path = dir.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| StoreError::io(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Locked(dir.to_path_buf())),
        Err(std::fs::TryLockError::Error(e)) => Err(StoreError::io(&path, e)),
    }
}

fn sync_file(path: &Path) -> Result<(), StoreError> {
    std::fs::File::open(path).and_then(|f| f.sync_all()).map_err(|e| StoreError::io(path, e))
}

fn prefixed(prefix: &[u8], name: &str) -> Vec<u8> {
    let mut key = prefix.to_vec();
    key.extend_from_slice(name.as_bytes());
    key
}

impl FjallStore {
    /// Under group commit, waits (or, inside a `defer_sync` scope, hands the wait to the
    /// scope's caller) until a flush covers every batch written so far; otherwise nothing.
    fn group_durable(&self) -> Result<(), StorageError> {
        if let (Some(group), Some(waiter)) = (&self.group, &self.waiter) {
            let ticket = group.ticket();
            if !monotable_engine::storage::defer(waiter, ticket) {
                group.wait_durable(ticket).map_err(StorageError::Io)?;
            }
        }
        Ok(())
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The sync policy in force.
    pub fn sync_policy(&self) -> SyncPolicy {
        self.sync
    }

    /// What start-up found and did.
    pub fn recovery(&self) -> &RecoveryReport {
        &self.report
    }

    /// Bytes the database occupies on disk.
    pub fn disk_space(&self) -> Result<u64, StoreError> {
        Ok(self.db.disk_space()?)
    }

    /// Bytes currently held by the block cache.
    pub fn cache_size(&self) -> u64 {
        self.db.cache_size()
    }

    /// Flushes everything written so far to the device, whatever the sync policy.
    pub fn flush(&self) -> Result<(), StoreError> {
        Ok(self.db.persist(PersistMode::SyncAll)?)
    }

    /// Writes every in-memory write buffer out to table files and waits for it (a
    /// checkpoint: afterwards recovery replays no journal). Used by tests and benchmarks.
    pub fn flush_to_tables(&self) -> Result<(), StoreError> {
        for (_, ks) in self.mapped()? {
            self.db.keyspace(&ks, || self.keyspace_options())?.rotate_memtable_and_wait()?;
        }
        self.meta.rotate_memtable_and_wait()?;
        Ok(())
    }

    /// Reads every entry of every keyspace, checking every block checksum of the storage
    /// engine and every value checksum; returns the number of entries read.
    pub fn verify(&self) -> Result<u64, StoreError> {
        let mut entries = 0;
        for (name, ks) in self.mapped()? {
            let tree = self.db.keyspace(&ks, || self.keyspace_options())?;
            for guard in tree.iter() {
                let (key, value) = guard.into_inner()?;
                crate::codec::decode_item(&name, &key, &value)?;
                entries += 1;
            }
        }
        for guard in self.meta.prefix(CATALOG_PREFIX) {
            let (key, value) = guard.into_inner()?;
            unframe(&|| format!("catalog entry {}", String::from_utf8_lossy(&key)), &value)?;
        }
        Ok(entries)
    }

    /// Every (engine name, fjall name) pair of the keyspace map.
    fn mapped(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut out = Vec::new();
        for guard in self.meta.prefix(KS_PREFIX) {
            let (key, value) = guard.into_inner()?;
            let name = key.get(KS_PREFIX.len()..).unwrap_or_default();
            let corrupt = || StoreError::Corrupt {
                path: self.dir.join(DB_DIR),
                offset: 0,
                reason: format!("keyspace map entry {} is not UTF-8", crate::codec::hex(&key)),
            };
            let name = String::from_utf8(name.to_vec()).map_err(|_| corrupt())?;
            let fjall_name = String::from_utf8(value.to_vec()).map_err(|_| corrupt())?;
            out.push((name, fjall_name));
        }
        Ok(out)
    }

    /// Deletes fjall keyspaces that no map entry names (left by a crash between creating a
    /// keyspace and recording it, or between unmapping and deleting it).
    fn remove_orphans(&self) -> Result<usize, StoreError> {
        let live: std::collections::HashSet<String> = self.mapped()?.into_iter().map(|(_, f)| f).collect();
        let mut removed = 0;
        for name in self.db.list_keyspace_names() {
            let name: &str = &name;
            if name.starts_with('k') && !live.contains(name) {
                let handle = self.db.keyspace(name, || self.keyspace_options())?;
                self.db.delete_keyspace(handle)?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    fn next_keyspace_id(&self) -> Result<u64, StoreError> {
        let current = match self.meta.get(NEXT_KS)? {
            Some(bytes) => {
                let arr: [u8; 8] = bytes.as_ref().try_into().map_err(|_| StoreError::Corrupt {
                    path: self.dir.join(DB_DIR),
                    offset: 0,
                    reason: "keyspace counter is not 8 bytes".into(),
                })?;
                u64::from_le_bytes(arr)
            }
            None => 0,
        };
        Ok(current)
    }

    fn open_keyspace_inner(&self, name: &str) -> Result<Arc<FjallKeyspace>, StoreError> {
        let mut open = self.open.lock();
        if let Some(ks) = open.get(name) {
            return Ok(Arc::clone(ks));
        }
        let map_key = prefixed(KS_PREFIX, name);
        let fjall_name = match self.meta.get(&map_key)? {
            Some(v) => String::from_utf8(v.to_vec()).map_err(|_| StoreError::Corrupt {
                path: self.dir.join(DB_DIR),
                offset: 0,
                reason: format!("keyspace map entry for {name} is not UTF-8"),
            })?,
            None => {
                let id = self.next_keyspace_id()?;
                let fjall_name = format!("k{id}");
                self.db.keyspace(&fjall_name, || self.keyspace_options())?;
                let mut batch = self.db.batch().durability(Some(PersistMode::SyncAll));
                batch.insert(&self.meta, map_key, fjall_name.as_bytes().to_vec());
                batch.insert(&self.meta, NEXT_KS, (id + 1).to_le_bytes().to_vec());
                batch.commit()?;
                fjall_name
            }
        };
        let tree = self.db.keyspace(&fjall_name, || self.keyspace_options())?;
        let ks = Arc::new(FjallKeyspace::new(name, tree));
        open.insert(name.to_owned(), Arc::clone(&ks));
        Ok(ks)
    }

    fn drop_keyspace_inner(&self, name: &str) -> Result<(), StoreError> {
        let mut open = self.open.lock();
        if let Some(ks) = open.remove(name) {
            ks.dropped.store(true, Ordering::Release);
        }
        let map_key = prefixed(KS_PREFIX, name);
        let Some(fjall_name) = self.meta.get(&map_key)? else { return Ok(()) };
        let fjall_name = String::from_utf8_lossy(&fjall_name).into_owned();
        let mut batch = self.db.batch().durability(Some(PersistMode::SyncAll));
        batch.remove(&self.meta, map_key);
        batch.commit()?;
        let handle = self.db.keyspace(&fjall_name, || self.keyspace_options())?;
        self.db.delete_keyspace(handle)?;
        Ok(())
    }

    fn keyspace_options(&self) -> KeyspaceCreateOptions {
        KeyspaceCreateOptions::default().max_memtable_size(self.memtable)
    }

    fn durability(&self) -> PersistMode {
        match self.sync {
            SyncPolicy::Always => PersistMode::SyncData,
            _ => PersistMode::Buffer,
        }
    }
}

impl Storage for FjallStore {
    fn open_keyspace(&self, name: &str) -> Result<Arc<dyn Keyspace>, StorageError> {
        Ok(self.open_keyspace_inner(name)? as Arc<dyn Keyspace>)
    }

    fn drop_keyspace(&self, name: &str) -> Result<(), StorageError> {
        Ok(self.drop_keyspace_inner(name)?)
    }

    fn commit(&self, batch: WriteBatch) -> Result<(), StorageError> {
        if batch.ops.is_empty() {
            return Ok(());
        }
        let mut out = self.db.batch().durability(Some(self.durability()));
        let mut pressure = false;
        for op in batch.ops {
            let ks = op
                .keyspace
                .as_any()
                .downcast_ref::<FjallKeyspace>()
                .filter(|ks| !ks.is_dropped())
                .ok_or_else(|| StorageError::NoKeyspace(op.keyspace.name().to_owned()))?;
            // fjall asserts keys are 1..=65535 bytes; the engine's keys always are, but a
            // storage must not panic on its input.
            if op.key.is_empty() || op.key.len() > usize::from(u16::MAX) {
                return Err(StorageError::Io(format!("key of {} bytes cannot be stored", op.key.len())));
            }
            pressure = pressure || under_pressure(&ks.tree);
            match op.value {
                Some(item) => out.insert(&ks.tree, op.key, encode_item(&item)),
                None => {
                    ks.count_delete();
                    out.remove(&ks.tree, op.key)
                }
            }
        }
        self.pressure.store(pressure, Ordering::Relaxed);
        out.commit().map_err(storage_err)?;
        self.group_durable()
    }

    fn writes_may_block(&self) -> bool {
        matches!(self.sync, SyncPolicy::Always) || self.pressure.load(Ordering::Relaxed)
    }

    /// Under group commit, a ticket taken now is covered only by a flush that starts after
    /// every batch already written to the operating system; under `Always` a commit is
    /// durable before it returns, and under `None` nothing ever waits.
    fn barrier(&self) -> Result<(), StorageError> {
        self.group_durable()
    }

    fn load_catalog(&self) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        let mut out = Vec::new();
        for guard in self.meta.prefix(CATALOG_PREFIX) {
            let (key, value) = guard.into_inner().map_err(storage_err)?;
            let name =
                String::from_utf8_lossy(key.get(CATALOG_PREFIX.len()..).unwrap_or_default()).into_owned();
            let payload = unframe(&|| format!("catalog entry {name}"), &value)?;
            out.push((name, payload.to_vec()));
        }
        Ok(out)
    }

    fn put_catalog(&self, name: &str, value: Option<Vec<u8>>) -> Result<(), StorageError> {
        let key = prefixed(CATALOG_PREFIX, name);
        let mut batch = self.db.batch().durability(Some(PersistMode::SyncAll));
        match value {
            Some(v) => batch.insert(&self.meta, key, frame(&v)),
            None => batch.remove(&self.meta, key),
        }
        batch.commit().map_err(storage_err)
    }
}

impl Drop for FjallStore {
    /// Stops the flusher thread, first making every commit it was asked about durable, so
    /// that the database is released with the store.
    fn drop(&mut self) {
        if let Some(group) = &self.group {
            group.close();
        }
    }
}
