//! How a store is opened: sync policy and memory bound.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// When an acknowledged write reaches stable storage.
///
/// Every policy writes each commit to the operating system before `commit` returns, so an
/// acknowledged write always survives a crash of the *process* (kill -9). The policies differ
/// in what survives a crash of the *machine* (power loss, kernel panic):
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyncPolicy {
    /// `fdatasync` the journal inside every commit, before it returns. Every acknowledged
    /// write survives a machine crash; each commit pays one device flush, and commits are
    /// serialised behind it.
    Always,
    /// Group commit (the default): a commit returns after an `fdatasync` that started after
    /// its write. One committer at a time runs the flush for everyone waiting; others queue
    /// behind it and are covered by the next one, so under concurrency one flush serves many
    /// commits. `max_delay` is an optional extra wait before a flush to gather more commits
    /// (zero by default: batching then comes only from commits arriving during a flush).
    /// Every acknowledged write survives a machine crash.
    GroupCommit { max_delay: Duration },
    /// Never flush to the device (except when the store closes or a journal is sealed).
    /// Acknowledged writes survive a process crash but the last seconds of them may be lost
    /// in a machine crash. For throwaway data, tests and bulk loads that can be redone.
    None,
}

impl Default for SyncPolicy {
    fn default() -> SyncPolicy {
        SyncPolicy::GroupCommit { max_delay: Duration::ZERO }
    }
}

impl fmt::Display for SyncPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncPolicy::Always => f.write_str("always"),
            SyncPolicy::GroupCommit { max_delay } if max_delay.is_zero() => f.write_str("group"),
            SyncPolicy::GroupCommit { max_delay } => write!(f, "group:{}ms", max_delay.as_millis()),
            SyncPolicy::None => f.write_str("none"),
        }
    }
}

/// An unrecognised `--sync` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sync policy {0:?}: expected always, group, group:<milliseconds>ms or none")]
pub struct ParseSyncPolicyError(String);

impl FromStr for SyncPolicy {
    type Err = ParseSyncPolicyError;

    /// Parses `always`, `group`, `group:5ms` or `none`.
    fn from_str(s: &str) -> Result<SyncPolicy, ParseSyncPolicyError> {
        let bad = || ParseSyncPolicyError(s.to_owned());
        match s {
            "always" => Ok(SyncPolicy::Always),
            "group" => Ok(SyncPolicy::default()),
            "none" => Ok(SyncPolicy::None),
            _ => {
                let ms = s.strip_prefix("group:").and_then(|r| r.strip_suffix("ms")).ok_or_else(bad)?;
                let ms: u64 = ms.parse().map_err(|_| bad())?;
                if ms > 1000 {
                    return Err(bad());
                }
                Ok(SyncPolicy::GroupCommit { max_delay: Duration::from_millis(ms) })
            }
        }
    }
}

/// Options for [`crate::open_with`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StoreOptions {
    /// See [`SyncPolicy`].
    pub sync: SyncPolicy,
    /// Bytes of decompressed data blocks kept in the block cache (default 64 MiB).
    pub cache_bytes: u64,
    /// Bytes of one keyspace's in-memory write buffer (memtable) before it is written to a
    /// table file (default 16 MiB, at least 1 MiB). Fixed when a keyspace is created.
    /// Memory use is bounded by `cache_bytes` plus about two memtables per keyspace in use.
    pub memtable_bytes: u64,
    /// Journal bytes kept before the oldest memtables are forced to table files and their
    /// journals deleted (default 128 MiB, at least 64 MiB). Bounds the journal replayed at
    /// start-up, and so recovery time, at the cost of more frequent flushes.
    pub max_journal_bytes: u64,
    /// Cut the active journal at its first damaged batch even when complete batches follow
    /// (losing them), instead of refusing to open. For operators recovering what they can.
    pub repair: bool,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            sync: SyncPolicy::default(),
            cache_bytes: 64 << 20,
            memtable_bytes: 16 << 20,
            max_journal_bytes: 128 << 20,
            repair: false,
        }
    }
}

impl StoreOptions {
    /// Default options with the given sync policy.
    pub fn with_sync(sync: SyncPolicy) -> StoreOptions {
        StoreOptions { sync, ..StoreOptions::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_policies_parse_and_display_round_trip() {
        for text in ["always", "group", "group:5ms", "none"] {
            let p: SyncPolicy = text.parse().expect("valid policy");
            assert_eq!(p.to_string(), text);
        }
        assert!("sometimes".parse::<SyncPolicy>().is_err());
        assert!("group:5".parse::<SyncPolicy>().is_err());
        assert!("group:99999ms".parse::<SyncPolicy>().is_err());
    }
}
