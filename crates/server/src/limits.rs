//! The transport's limits against hostile clients, with defaults that never bother a
//! legitimate SDK client (`tests/hostile_clients.rs` runs an SDK workload under them).
//!
//! * **Buffered request bytes** ([`Limits::max_buffered_bytes`]): the bodies of all requests
//!   in flight, counted as their frames arrive and held until the request's response is made
//!   (`budget`). Default: an eighth of physical memory (`MemTotal` in /proc/meminfo), at least
//!   64 MiB and at most 1 GiB; 256 MiB where /proc/meminfo cannot be read. A body that would
//!   pass it waits for room, at most [`Limits::budget_wait`] (default 5 s: a client whose
//!   request waited that long retries anyway); then it is refused with DynamoDB's
//!   `ThrottlingException`, which SDKs retry with backoff, and its connection is closed. A
//!   compressed body also holds room for its inflated copy, at the most it can inflate to
//!   (deflate's 1,032 to 1, at most 16 MiB; `encoding::inflated_bound`) before it is inflated.
//!   What the budget does not count: hyper's read buffer of each connection (at most about
//!   400 KiB, bounded by the connection cap).
//! * **Slow bodies** ([`Limits::body_grace`], [`Limits::min_body_rate`]): once its head has
//!   arrived, a request's body must keep up with a minimum rate: by any moment `t` after the
//!   body started, `(t - grace) * rate` bytes must have arrived, and no gap between two of its
//!   frames may exceed the grace. Defaults: 10 s and 64 KiB/s, so a 16 MiB body may take
//!   4 min 26 s; an SDK on the same machine sends one in milliseconds. A connection that falls
//!   behind is closed without an answer (its client is not reading at this rate either). The
//!   head itself is bounded by the idle watchdog (`transport`: 30 to 40 s).
//! * **Open connections** ([`Limits::max_connections`]): default the process's soft limit of
//!   file descriptors minus a quarter of it (at most 1,024 kept back) for the data
//!   directory's files, the blocking pool and the listener; 1,024 where it cannot be read.
//!   `monotable serve` first raises the soft limit to the hard one
//!   ([`raise_descriptor_limit`]). A new connection past the cap closes the longest-open
//!   connection that has no request in flight, or else the one whose request body is arriving
//!   slowest; when every connection has a request in flight and none is waiting for its body,
//!   the new connection is closed at once.

use std::time::Duration;

/// The transport's limits (see the module comment); [`Limits::default`] gives the documented
/// defaults, and each setter replaces one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    max_buffered_bytes: usize,
    budget_wait: Duration,
    body_grace: Duration,
    min_body_rate: u64,
    max_connections: usize,
}

/// The bounds of the default buffered-bytes budget.
const MIN_BUDGET: usize = 64 << 20;
const MAX_BUDGET: usize = 1 << 30;
/// The default budget where physical memory cannot be read.
const FALLBACK_BUDGET: usize = 256 << 20;
/// The default cap on connections where the descriptor limit cannot be read.
const FALLBACK_CONNECTIONS: usize = 1024;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_buffered_bytes: default_max_buffered_bytes(),
            budget_wait: Duration::from_secs(5),
            body_grace: Duration::from_secs(10),
            min_body_rate: 64 * 1024,
            max_connections: default_max_connections(),
        }
    }
}

impl Limits {
    /// The most bytes of request bodies buffered at once, over all connections.
    pub fn max_buffered_bytes(&self) -> usize {
        self.max_buffered_bytes
    }

    /// Replaces [`Limits::max_buffered_bytes`] (at least one byte is budgeted).
    pub fn with_max_buffered_bytes(mut self, bytes: usize) -> Limits {
        self.max_buffered_bytes = bytes.max(1);
        self
    }

    /// How long a body waits for room in the budget before it is refused.
    pub fn budget_wait(&self) -> Duration {
        self.budget_wait
    }

    /// Replaces [`Limits::budget_wait`].
    pub fn with_budget_wait(mut self, wait: Duration) -> Limits {
        self.budget_wait = wait;
        self
    }

    /// The time a body may lag behind [`Limits::min_body_rate`], and the longest gap between
    /// two of its frames.
    pub fn body_grace(&self) -> Duration {
        self.body_grace
    }

    /// Replaces [`Limits::body_grace`].
    pub fn with_body_grace(mut self, grace: Duration) -> Limits {
        self.body_grace = grace;
        self
    }

    /// The slowest a body may arrive, in bytes per second, after its grace.
    pub fn min_body_rate(&self) -> u64 {
        self.min_body_rate
    }

    /// Replaces [`Limits::min_body_rate`] (at least one byte per second).
    pub fn with_min_body_rate(mut self, bytes_per_second: u64) -> Limits {
        self.min_body_rate = bytes_per_second.max(1);
        self
    }

    /// The most connections open at once.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// Replaces [`Limits::max_connections`] (at least one).
    pub fn with_max_connections(mut self, connections: usize) -> Limits {
        self.max_connections = connections.max(1);
        self
    }

    /// How long a body that has received `received` bytes may have taken since it started.
    pub(crate) fn body_allowance(&self, received: usize) -> Duration {
        self.body_grace + Duration::from_secs_f64(received as f64 / self.min_body_rate as f64)
    }
}

/// An eighth of physical memory, within 64 MiB and 1 GiB (see the module comment).
fn default_max_buffered_bytes() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| mem_total(&text));
    match total {
        Some(bytes) => (bytes / 8).clamp(MIN_BUDGET, MAX_BUDGET),
        None => FALLBACK_BUDGET,
    }
}

/// `MemTotal` of /proc/meminfo, in bytes (the file says kB and means KiB).
fn mem_total(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The soft descriptor limit less what the rest of the process needs (see the module comment).
fn default_max_connections() -> usize {
    match descriptor_limit() {
        Some(limit) => {
            let limit = usize::try_from(limit).unwrap_or(usize::MAX);
            (limit - (limit / 4).min(1024)).max(1)
        }
        None => FALLBACK_CONNECTIONS,
    }
}

#[cfg(unix)]
#[allow(clippy::useless_conversion)] // `rlim_t` is `u64` on Linux and macOS, not on every Unix.
fn descriptor_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `limit` is a valid, writable rlimit for the call.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (rc == 0).then_some(u64::from(limit.rlim_cur))
}

#[cfg(not(unix))]
fn descriptor_limit() -> Option<u64> {
    None
}

/// Raises the process's soft limit of open file descriptors to its hard limit, and returns
/// the soft limit now in force. Call it before [`Limits::default`], whose connection cap
/// derives from that limit. Where the platform has no such limit, returns `None`.
#[allow(clippy::useless_conversion)] // `rlim_t` is `u64` on Linux and macOS, not on every Unix.
pub fn raise_descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: `limit` is a valid, writable rlimit for the call.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            // SAFETY: `raised` is a valid rlimit; failure leaves the limit unchanged.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                limit = raised;
            }
        }
        Some(u64::from(limit.rlim_cur))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_budget_is_an_eighth_of_memory_within_bounds() {
        let meminfo = |kib: usize| format!("MemTotal:       {kib} kB\nMemFree:         1 kB\n");
        assert_eq!(mem_total(&meminfo(24 << 20)), Some(24 << 30));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
        let budget = default_max_buffered_bytes();
        assert!((MIN_BUDGET..=MAX_BUDGET).contains(&budget), "{budget}");
    }

    #[test]
    fn a_body_is_allowed_its_grace_plus_its_bytes_at_the_minimum_rate() {
        let limits = Limits::default().with_body_grace(Duration::from_secs(2)).with_min_body_rate(1000);
        assert_eq!(limits.body_allowance(0), Duration::from_secs(2));
        assert_eq!(limits.body_allowance(3000), Duration::from_secs(5));
    }

    #[test]
    fn the_connection_cap_leaves_descriptors_for_the_rest_of_the_process() {
        let cap = Limits::default().max_connections();
        match descriptor_limit() {
            Some(limit) => assert!((cap as u64) < limit.max(2), "{cap} of {limit}"),
            None => assert_eq!(cap, FALLBACK_CONNECTIONS),
        }
    }
}
