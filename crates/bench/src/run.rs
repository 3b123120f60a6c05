//! The measured phase: one task per connection, each looping over the pre-built requests.
//!
//! Every loop is bounded: it stops when the shared request budget is used up or when the
//! deadline passes, whichever the configuration chose. A request that fails (transport error
//! or non-200 answer) is counted by kind and still uses up its share of the budget, so a dead
//! server cannot make a run loop forever.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::attack::{attack_loop, Attack};
use crate::conn::{error_kind, Conn, RequestSigner};
use crate::endpoint::Endpoint;
use crate::report::{Latency, Report, ServerMemory};
use crate::workload::{DataModel, PreparedOp, Workload};
use crate::{setup, BenchError, SigningConfig};

/// When the measured phase ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// After this many requests in total (over all connections).
    Requests(u64),
    /// After this much wall-clock time.
    Duration(Duration),
}

/// Everything a run needs. [`BenchConfig::new`] gives the documented defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchConfig {
    pub endpoint: String,
    pub workload: Workload,
    pub model: DataModel,
    /// Connections, each driven by one task with one request in flight (closed loop).
    pub concurrency: usize,
    pub stop: Stop,
    /// Unrecorded run time before the measured phase, on the same connections.
    pub warmup: Duration,
    pub seed: u64,
    /// Runtime worker threads; 1 runs everything on the calling thread.
    pub threads: usize,
    /// Number of distinct pre-built request bodies the connections cycle through.
    pub distinct: usize,
    pub signing: SigningConfig,
    /// When false, the table is assumed to exist and hold the items already.
    pub setup: bool,
    /// A server process whose resident memory is reported before setup and after the run.
    pub server_pid: Option<u32>,
    /// A hostile request sent in a loop on one extra connection during the measured phase.
    pub attack: Option<Attack>,
}

impl BenchConfig {
    /// The defaults: 10,000 items of 256 bytes in partitions of 25, 32 connections, 10 s,
    /// seed 1, one thread, 10,000 distinct bodies, table `monotable-bench`.
    pub fn new(endpoint: &str, workload: Workload) -> Self {
        Self {
            endpoint: endpoint.to_owned(),
            workload,
            model: DataModel {
                table: "monotable-bench".into(),
                items: 10_000,
                item_size: 256,
                partition_size: 25,
                stream: None,
            },
            concurrency: 32,
            stop: Stop::Duration(Duration::from_secs(10)),
            warmup: Duration::ZERO,
            seed: 1,
            threads: 1,
            distinct: 10_000,
            signing: SigningConfig::default(),
            setup: true,
            server_pid: None,
            attack: None,
        }
    }

    /// Checks every value before any connection is made.
    pub fn validate(&self) -> Result<Endpoint, BenchError> {
        self.model.validate().map_err(BenchError::InvalidConfig)?;
        let check =
            |ok: bool, what: &str| if ok { Ok(()) } else { Err(BenchError::InvalidConfig(what.into())) };
        check((1..=4096).contains(&self.concurrency), "--concurrency must be 1 to 4096")?;
        check((1..=64).contains(&self.threads), "--threads must be 1 to 64")?;
        check((1..=1_000_000).contains(&self.distinct), "--distinct must be 1 to 1,000,000")?;
        match self.stop {
            Stop::Requests(n) => check(n > 0, "--requests must be positive")?,
            Stop::Duration(d) => {
                check(!d.is_zero() && d <= Duration::from_secs(3600), "--duration must be 1ms to 1h")?
            }
        }
        check(self.warmup <= Duration::from_secs(600), "--warmup must be at most 10 minutes")?;
        Endpoint::parse(&self.endpoint)
    }
}

/// What one connection's task recorded.
struct TaskStats {
    histogram: Histogram<u64>,
    ok: u64,
    empty: u64,
    errors: HashMap<String, u64>,
    /// Connections re-opened because the server had closed them.
    reconnects: u64,
}

fn histogram() -> Histogram<u64> {
    // 1 ns to 60 s at 3 significant digits. The bounds are constants that satisfy
    // hdrhistogram's rules (low >= 1, high >= 2 * low, sigfig <= 5), so creation cannot fail.
    #[allow(clippy::expect_used)]
    Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("constant histogram bounds are valid")
}

/// Where a task's next request comes from and when it must stop.
#[derive(Clone)]
struct Budget {
    stop: Stop,
    deadline: Instant,
    sent: Arc<AtomicU64>,
}

impl Budget {
    fn new(stop: Stop) -> Self {
        let deadline = match stop {
            Stop::Duration(d) => Instant::now() + d,
            Stop::Requests(_) => Instant::now() + Duration::from_secs(24 * 3600),
        };
        Self { stop, deadline, sent: Arc::new(AtomicU64::new(0)) }
    }

    /// Takes one request from the budget; false when the phase is over.
    fn take(&self) -> bool {
        match self.stop {
            Stop::Requests(n) => self.sent.fetch_add(1, Ordering::Relaxed) < n,
            Stop::Duration(_) => Instant::now() < self.deadline,
        }
    }
}

/// Runs one connection's loop; returns the connection (if still usable) and its counts.
async fn drive(
    mut conn: Option<Conn>,
    mut signer: RequestSigner,
    endpoint: Endpoint,
    ops: Arc<Vec<PreparedOp>>,
    mut index: usize,
    budget: Budget,
) -> (Option<Conn>, RequestSigner, TaskStats) {
    let mut stats =
        TaskStats { histogram: histogram(), ok: 0, empty: 0, errors: HashMap::new(), reconnects: 0 };
    let count_error = |stats: &mut TaskStats, kind: String| *stats.errors.entry(kind).or_insert(0) += 1;
    while budget.take() {
        let Some(op) = ops.get(index % ops.len().max(1)) else { break };
        index = index.wrapping_add(1);
        let c = match conn.as_mut() {
            Some(c) => c,
            None => match Conn::connect(endpoint.addr).await {
                Ok(c) => conn.insert(c),
                Err(e) => {
                    count_error(&mut stats, format!("connect: {}", io_kind(&e)));
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let started = Instant::now();
        let result = match signer.request(op.kind.target(), &op.body, &op.body_hash) {
            Ok(request) => c.send(request).await,
            Err(e) => Err(e),
        };
        let elapsed = started.elapsed();
        match result {
            Ok(response) if response.status == 200 => {
                stats.histogram.saturating_record(elapsed.as_nanos().min(u64::MAX as u128) as u64);
                stats.ok += 1;
                if op.kind.is_empty_result(&response.body) {
                    stats.empty += 1;
                }
            }
            Ok(response) => count_error(&mut stats, error_kind(response.status, &response.body)),
            Err(e) => {
                count_error(&mut stats, format!("transport: {}", io_kind(&e)));
                if let Some(c) = conn.take() {
                    stats.reconnects += c.reconnects + 1;
                }
            }
        }
    }
    if let Some(c) = conn.as_mut() {
        stats.reconnects += std::mem::take(&mut c.reconnects);
    }
    (conn, signer, stats)
}

fn io_kind(e: &BenchError) -> String {
    match e {
        BenchError::Connect { source, .. } => format!("{:?}", source.kind()),
        BenchError::Http(h) if h.is_closed() || h.is_incomplete_message() => "connection closed".into(),
        BenchError::Http(_) => "HTTP protocol error".into(),
        other => other.to_string(),
    }
}

/// Runs all connections for one phase and gathers their stats.
async fn phase(
    conns: Vec<(Option<Conn>, RequestSigner)>,
    endpoint: &Endpoint,
    ops: &Arc<Vec<PreparedOp>>,
    stop: Stop,
) -> Result<(Vec<(Option<Conn>, RequestSigner)>, Vec<TaskStats>, Duration), BenchError> {
    let budget = Budget::new(stop);
    let n = conns.len().max(1);
    let started = Instant::now();
    let tasks: Vec<_> = conns
        .into_iter()
        .enumerate()
        .map(|(i, (conn, signer))| {
            // Spread the connections' starting points over the body set.
            let start = i * ops.len() / n;
            tokio::spawn(drive(conn, signer, endpoint.clone(), ops.clone(), start, budget.clone()))
        })
        .collect();
    let mut conns = Vec::with_capacity(n);
    let mut stats = Vec::with_capacity(n);
    for task in tasks {
        let (conn, signer, s) = task.await.map_err(|e| BenchError::Task(e.to_string()))?;
        conns.push((conn, signer));
        stats.push(s);
    }
    Ok((conns, stats, started.elapsed()))
}

/// Reads `VmRSS` of a process from `/proc/PID/status`, in KiB (Linux only).
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Builds the runtime the configuration asks for.
pub(crate) fn runtime(threads: usize) -> Result<tokio::runtime::Runtime, BenchError> {
    let mut builder = if threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(threads);
        b
    };
    builder.enable_all().build().map_err(BenchError::Runtime)
}

/// Sets up the table (unless told not to), warms up, runs the measured phase and reports.
pub fn run(config: &BenchConfig) -> Result<Report, BenchError> {
    let endpoint = config.validate()?;
    runtime(config.threads)?.block_on(run_async(config, endpoint))
}

async fn run_async(config: &BenchConfig, endpoint: Endpoint) -> Result<Report, BenchError> {
    let rss_before = config.server_pid.and_then(rss_kib);
    let setup_report = if config.setup {
        setup::recreate_table(&endpoint, &config.signing, &config.model).await?;
        Some(setup::load(&endpoint, &config.signing, &config.model, config.concurrency.min(8)).await?)
    } else {
        None
    };
    let count = match config.stop {
        Stop::Requests(n) => (n.min(config.distinct as u64)) as usize,
        Stop::Duration(_) => config.distinct,
    };
    let ops = Arc::new(config.model.build_ops(config.workload, count, config.seed));

    // One signature cache for all connections (see `SignatureCache`).
    let first_signer = RequestSigner::new(&endpoint, &config.signing)?;
    let mut conns = Vec::with_capacity(config.concurrency);
    for _ in 0..config.concurrency {
        conns.push((Some(Conn::connect(endpoint.addr).await?), first_signer.sharing()));
    }
    if !config.warmup.is_zero() {
        conns = phase(conns, &endpoint, &ops, Stop::Duration(config.warmup)).await?.0;
    }
    if let Some(attack) = config.attack {
        crate::attack::prepare(attack, &endpoint, &mut first_signer.sharing(), &config.model.table).await?;
    }
    let attacker = config.attack.map(|attack| {
        let done = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn(attack_loop(
            attack,
            endpoint.clone(),
            first_signer.sharing(),
            config.model.table.clone(),
            done.clone(),
        ));
        (task, done)
    });
    let (conns, stats, elapsed) = phase(conns, &endpoint, &ops, config.stop).await?;
    drop(conns);
    let attack = match attacker {
        Some((task, done)) => {
            done.store(true, Ordering::Relaxed);
            Some(task.await.map_err(|e| BenchError::Task(e.to_string()))??)
        }
        None => None,
    };

    let mut merged = histogram();
    let (mut ok, mut empty, mut reconnects) = (0, 0, 0);
    let mut error_kinds = BTreeMap::new();
    for s in &stats {
        // Both histograms share bounds, so adding cannot overflow them.
        let _ = merged.add(&s.histogram);
        ok += s.ok;
        empty += s.empty;
        reconnects += s.reconnects;
        for (kind, n) in &s.errors {
            *error_kinds.entry(kind.clone()).or_insert(0) += n;
        }
    }
    let errors: u64 = error_kinds.values().sum();
    let secs = elapsed.as_secs_f64();
    Ok(Report {
        tool: "monotable-bench",
        version: env!("CARGO_PKG_VERSION"),
        endpoint: config.endpoint.clone(),
        workload: config.workload.name().into(),
        concurrency: config.concurrency,
        threads: config.threads,
        items: config.model.items,
        item_size: config.model.item_size,
        partition_size: config.model.partition_size,
        seed: config.seed,
        setup: setup_report,
        warmup_secs: config.warmup.as_secs_f64(),
        duration_secs: secs,
        requests: ok + errors,
        ok,
        errors,
        error_kinds,
        empty_results: empty,
        reconnects,
        throughput_per_sec: if secs > 0.0 { ok as f64 / secs } else { 0.0 },
        latency_us: Latency::from_nanos(&merged),
        server_memory: config.server_pid.map(|pid| ServerMemory {
            pid,
            rss_before_kib: rss_before,
            rss_after_kib: rss_kib(pid),
        }),
        attack,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert!(BenchConfig::new("http://127.0.0.1:8000", Workload::Get).validate().is_ok());
    }

    #[test]
    fn out_of_range_values_are_refused_before_connecting() {
        let base = BenchConfig::new("http://127.0.0.1:8000", Workload::Get);
        let cases = [
            BenchConfig { concurrency: 0, ..base.clone() },
            BenchConfig { threads: 0, ..base.clone() },
            BenchConfig { stop: Stop::Requests(0), ..base.clone() },
            BenchConfig { stop: Stop::Duration(Duration::ZERO), ..base.clone() },
            BenchConfig { distinct: 0, ..base.clone() },
        ];
        for c in cases {
            assert!(matches!(c.validate(), Err(BenchError::InvalidConfig(_))), "{c:?}");
        }
    }

    #[test]
    fn request_budget_hands_out_exactly_n() {
        let b = Budget::new(Stop::Requests(5));
        assert_eq!((0..10).filter(|_| b.take()).count(), 5);
    }

    #[test]
    fn duration_budget_ends_at_the_deadline() {
        let b = Budget::new(Stop::Duration(Duration::from_millis(20)));
        assert!(b.take());
        std::thread::sleep(Duration::from_millis(30));
        assert!(!b.take());
    }

    #[test]
    fn own_resident_memory_is_readable() {
        assert!(rss_kib(std::process::id()).is_some_and(|k| k > 0));
        assert_eq!(rss_kib(u32::MAX), None);
    }

    #[test]
    fn a_run_against_a_closed_port_fails_at_setup_with_a_connect_error() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let mut c = BenchConfig::new(&format!("http://127.0.0.1:{port}"), Workload::Get);
        c.stop = Stop::Requests(10);
        assert!(matches!(run(&c), Err(BenchError::Connect { .. })));
    }

    /// A real (if minimal) HTTP server that answers `{}` and closes the connection after
    /// every response, as servers without keep-alive do; it serves `n` connections and stops
    /// (the thread is left to end with the test process if fewer arrive).
    fn closing_server(n: usize) -> (u16, std::thread::JoinHandle<()>) {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = std::thread::spawn(move || {
            for stream in listener.incoming().take(n) {
                let mut stream = stream.unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                    if line == "\r\n" || line.is_empty() {
                        break;
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let reply = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
                stream.write_all(reply.as_bytes()).unwrap();
            }
        });
        (port, handle)
    }

    #[test]
    fn a_server_closing_every_connection_costs_reconnects_not_errors() {
        // One connection at the start, then one per further request.
        let (port, _server) = closing_server(19);
        let mut c = BenchConfig::new(&format!("http://127.0.0.1:{port}"), Workload::Put);
        c.setup = false;
        c.concurrency = 1;
        c.stop = Stop::Requests(19);
        let report = run(&c).unwrap();
        assert_eq!((report.ok, report.errors), (19, 0), "{:?}", report.error_kinds);
        assert_eq!(report.reconnects, 18);
    }
}
