//! The TTL sweeper: deletes items whose TTL attribute (a Number of epoch seconds) is in the
//! past, through the engine's public API only, so it works on any storage and every index
//! is maintained by the engine's normal delete path.
//!
//! Like DynamoDB: an item is expired when its TTL value is less than the current time; items
//! whose TTL is not a Number, or is more than five years in the past, are never deleted;
//! expired items stay readable until a sweep deletes them. Each deletion is conditional on
//! the item still being expired, so an item whose TTL was pushed forward after the scan saw
//! it survives.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use monotable_engine::{
    DeleteItemInput, DescribeTableInput, DescribeTimeToLiveInput, Engine, Error, ErrorKind, ListTablesInput,
    ScanInput,
};
use monotable_types::{AttributeValue, Item};
use parking_lot::{Condvar, Mutex};

/// DynamoDB leaves items whose TTL is more than five years in the past alone.
const FIVE_YEARS: u64 = 5 * 365 * 24 * 3600;

/// A source of the current time in epoch seconds (injectable so tests need not sleep).
pub trait Clock: Send + Sync {
    /// Seconds since the Unix epoch.
    fn now(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
    }
}

/// A clock that only moves when told to.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// A clock reading `now`.
    pub fn new(now: u64) -> ManualClock {
        ManualClock(AtomicU64::new(now))
    }

    /// Sets the time.
    pub fn set(&self, now: u64) {
        self.0.store(now, Ordering::SeqCst);
    }

    /// Moves the time forward.
    pub fn advance(&self, seconds: u64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// What one sweep did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SweepReport {
    /// Tables with TTL enabled that were scanned.
    pub tables: usize,
    /// Items deleted.
    pub deleted: usize,
}

/// Deletes expired items, once ([`TtlSweeper::sweep_once`]) or periodically
/// ([`TtlSweeper::spawn`]).
pub struct TtlSweeper {
    engine: Engine,
    clock: Arc<dyn Clock>,
    period: Duration,
}

impl TtlSweeper {
    /// A sweeper on the system clock with a one-second period.
    pub fn new(engine: Engine) -> TtlSweeper {
        TtlSweeper { engine, clock: Arc::new(SystemClock), period: Duration::from_secs(1) }
    }

    /// Uses `clock` for the current time.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> TtlSweeper {
        self.clock = clock;
        self
    }

    /// Sweeps every `period`.
    pub fn with_period(mut self, period: Duration) -> TtlSweeper {
        self.period = period;
        self
    }

    /// Sweeps every table once at the clock's current time.
    pub fn sweep_once(&self) -> Result<SweepReport, Error> {
        let now = self.clock.now();
        let mut report = SweepReport::default();
        for table in self.tables()? {
            let ttl = self
                .engine
                .describe_time_to_live(DescribeTimeToLiveInput { table_name: Some(table.clone()) });
            let Some(desc) = ttl.ok().and_then(|o| o.time_to_live_description) else { continue };
            let (Some("ENABLED"), Some(attr)) = (desc.time_to_live_status.as_deref(), desc.attribute_name)
            else {
                continue;
            };
            report.tables += 1;
            match self.sweep_table(&table, &attr, now) {
                Ok(n) => report.deleted += n,
                // A table deleted while being swept is simply done.
                Err(e) if e.kind == ErrorKind::ResourceNotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(report)
    }

    fn tables(&self) -> Result<Vec<String>, Error> {
        let mut names = Vec::new();
        let mut start = None;
        loop {
            let out = self
                .engine
                .list_tables(ListTablesInput { exclusive_start_table_name: start, limit: None })?;
            names.extend(out.table_names.unwrap_or_default());
            start = out.last_evaluated_table_name;
            if start.is_none() {
                return Ok(names);
            }
        }
    }

    fn sweep_table(&self, table: &str, attr: &str, now: u64) -> Result<usize, Error> {
        let described =
            self.engine.describe_table(DescribeTableInput { table_name: Some(table.to_owned()) })?;
        let key_names: Vec<String> = described
            .table
            .and_then(|t| t.key_schema)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|k| k.attribute_name)
            .collect();
        let names = HashMap::from([("#ttl".to_owned(), attr.to_owned())]);
        let (Some(now_n), Some(oldest_n)) = (number(now), number(now.saturating_sub(FIVE_YEARS))) else {
            return Ok(0);
        };
        let values = HashMap::from([(":now".to_owned(), now_n), (":oldest".to_owned(), oldest_n)]);
        let expired = "#ttl < :now AND #ttl >= :oldest".to_owned();
        let mut deleted = 0;
        let mut start = None;
        loop {
            let page = self.engine.scan(ScanInput {
                table_name: Some(table.to_owned()),
                filter_expression: Some(expired.clone()),
                expression_attribute_names: Some(names.clone()),
                expression_attribute_values: Some(values.clone()),
                exclusive_start_key: start,
                consistent_read: Some(true),
                ..ScanInput::default()
            })?;
            for item in page.items.unwrap_or_default() {
                let key: Item =
                    key_names.iter().filter_map(|k| Some((k.clone(), item.get(k)?.clone()))).collect();
                let result = self.engine.delete_expired_item(DeleteItemInput {
                    table_name: Some(table.to_owned()),
                    key: Some(key),
                    condition_expression: Some(expired.clone()),
                    expression_attribute_names: Some(names.clone()),
                    expression_attribute_values: Some(values.clone()),
                    ..DeleteItemInput::default()
                });
                match result {
                    Ok(_) => deleted += 1,
                    // Changed or deleted since the scan saw it: no longer ours to delete.
                    // An item of an in-flight transaction is left for the next sweep.
                    Err(e)
                        if matches!(
                            e.kind,
                            ErrorKind::ConditionalCheckFailed | ErrorKind::TransactionConflict
                        ) => {}
                    Err(e) => return Err(e),
                }
            }
            start = page.last_evaluated_key;
            if start.is_none() {
                return Ok(deleted);
            }
        }
    }

    /// Runs [`TtlSweeper::sweep_once`] every period on a background thread until the handle
    /// is stopped or dropped. Sweep errors are counted and the next period tries again.
    pub fn spawn(self) -> SweeperHandle {
        let shared =
            Arc::new(Shared { stop: AtomicBool::new(false), lock: Mutex::new(()), wake: Condvar::new() });
        let stats = Arc::new(SweepStats::default());
        let thread = {
            let shared = Arc::clone(&shared);
            let stats = Arc::clone(&stats);
            std::thread::Builder::new().name("monotable-ttl".into()).spawn(move || {
                while !shared.stop.load(Ordering::SeqCst) {
                    match self.sweep_once() {
                        Ok(r) => {
                            stats.deleted.fetch_add(r.deleted as u64, Ordering::SeqCst);
                        }
                        Err(_) => {
                            stats.errors.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    stats.sweeps.fetch_add(1, Ordering::SeqCst);
                    let mut guard = shared.lock.lock();
                    if !shared.stop.load(Ordering::SeqCst) {
                        shared.wake.wait_for(&mut guard, self.period);
                    }
                }
            })
        };
        SweeperHandle { shared, stats, thread: thread.ok() }
    }
}

/// A Number attribute value; a u64 has at most 20 digits, well within DynamoDB's 38, so
/// this is always `Some`.
fn number(n: u64) -> Option<AttributeValue> {
    n.to_string().parse().ok().map(AttributeValue::N)
}

struct Shared {
    stop: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

/// Counters of a running sweeper.
#[derive(Debug, Default)]
pub struct SweepStats {
    /// Completed sweeps.
    pub sweeps: AtomicU64,
    /// Items deleted.
    pub deleted: AtomicU64,
    /// Sweeps that failed.
    pub errors: AtomicU64,
}

/// A running sweeper; stops (and joins its thread) when dropped.
pub struct SweeperHandle {
    shared: Arc<Shared>,
    stats: Arc<SweepStats>,
    thread: Option<JoinHandle<()>>,
}

impl SweeperHandle {
    /// The sweeper's counters.
    pub fn stats(&self) -> &SweepStats {
        &self.stats
    }

    /// Stops the sweeper and waits for its thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        {
            let _guard = self.shared.lock.lock();
            self.shared.wake.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for SweeperHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}
