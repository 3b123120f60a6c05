//! The result of a run: counts, throughput and latency percentiles, as a table or as JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::attack::AttackReport;
use crate::setup::SetupReport;

/// Latency percentiles of successful requests, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub max: f64,
}

impl Latency {
    /// Reads the percentiles of a histogram recorded in nanoseconds.
    pub fn from_nanos(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Self::default();
        }
        let us = |ns: u64| ns as f64 / 1000.0;
        Self {
            min: us(h.min()),
            mean: h.mean() / 1000.0,
            p50: us(h.value_at_quantile(0.50)),
            p90: us(h.value_at_quantile(0.90)),
            p99: us(h.value_at_quantile(0.99)),
            p99_9: us(h.value_at_quantile(0.999)),
            max: us(h.max()),
        }
    }
}

/// The server's resident memory around the run (from `/proc/PID/status`, in KiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ServerMemory {
    pub pid: u32,
    pub rss_before_kib: Option<u64>,
    pub rss_after_kib: Option<u64>,
}

/// Everything one `monotable bench` run measured. Its JSON form is the stable interface of
/// the peer script and of anyone comparing runs: fields are only ever added.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub tool: &'static str,
    pub version: &'static str,
    pub endpoint: String,
    pub workload: String,
    pub concurrency: usize,
    pub threads: usize,
    pub items: u64,
    pub item_size: usize,
    pub partition_size: u64,
    pub seed: u64,
    /// `None` when setup was skipped.
    pub setup: Option<SetupReport>,
    pub warmup_secs: f64,
    pub duration_secs: f64,
    /// Requests sent in the measured phase: `ok + errors`.
    pub requests: u64,
    pub ok: u64,
    pub errors: u64,
    /// Errors by DynamoDB `__type` (without namespace), `HTTP <status>`, or transport error.
    pub error_kinds: BTreeMap<String, u64>,
    /// Successful GetItem without an item or Query with no items.
    pub empty_results: u64,
    /// Connections re-opened during the measured phase because the server closed them
    /// (a server without keep-alive closes one per request).
    pub reconnects: u64,
    /// Successful requests per second.
    pub throughput_per_sec: f64,
    pub latency_us: Latency,
    pub server_memory: Option<ServerMemory>,
    /// What the `--attack` connection did, when one ran.
    pub attack: Option<AttackReport>,
}

fn fmt_us(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.0}", v)
    } else {
        format!("{:.1}", v)
    }
}

impl Report {
    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The report as an aligned plain-text table.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "monotable bench: workload={} endpoint={} concurrency={} threads={} items={} item_size={}B seed={}",
            self.workload, self.endpoint, self.concurrency, self.threads, self.items, self.item_size, self.seed
        );
        match &self.setup {
            Some(s) => {
                let _ = writeln!(
                    out,
                    "setup: table created, {} items loaded in {:.2} s",
                    s.items_loaded, s.load_secs
                );
            }
            None => {
                let _ = writeln!(out, "setup: skipped (existing table)");
            }
        }
        let _ = writeln!(
            out,
            "{:>10} {:>10} {:>8} {:>8} {:>10} {:>12}",
            "requests", "ok", "errors", "empty", "seconds", "ok/s"
        );
        let _ = writeln!(
            out,
            "{:>10} {:>10} {:>8} {:>8} {:>10.2} {:>12.1}",
            self.requests,
            self.ok,
            self.errors,
            self.empty_results,
            self.duration_secs,
            self.throughput_per_sec
        );
        let l = &self.latency_us;
        let _ = writeln!(
            out,
            "{:>10} {:>10} {:>8} {:>8} {:>10} {:>12} {:>10}",
            "lat µs min", "mean", "p50", "p90", "p99", "p99.9", "max"
        );
        let _ = writeln!(
            out,
            "{:>10} {:>10} {:>8} {:>8} {:>10} {:>12} {:>10}",
            fmt_us(l.min),
            fmt_us(l.mean),
            fmt_us(l.p50),
            fmt_us(l.p90),
            fmt_us(l.p99),
            fmt_us(l.p99_9),
            fmt_us(l.max)
        );
        if self.reconnects > 0 {
            let _ = writeln!(
                out,
                "reconnects: {} (the server closed kept-alive connections; reconnecting is in the latency)",
                self.reconnects
            );
        }
        if !self.error_kinds.is_empty() {
            let _ = writeln!(out, "errors by kind:");
            for (kind, count) in &self.error_kinds {
                let _ = writeln!(out, "  {count:>10}  {kind}");
            }
        }
        if let Some(a) = &self.attack {
            let statuses: Vec<String> = a.statuses.iter().map(|(s, n)| format!("{n}×{s}")).collect();
            let _ = writeln!(
                out,
                "attack {} ({} bytes): {} answered [{}], {} transport errors; latency µs p50 {} p99 {} max {}",
                a.shape,
                a.body_bytes,
                a.requests,
                statuses.join(" "),
                a.transport_errors,
                fmt_us(a.latency_us.p50),
                fmt_us(a.latency_us.p99),
                fmt_us(a.latency_us.max)
            );
            let n = &a.new_connections;
            let _ = writeln!(
                out,
                "new connections beside the attack: {} answered, {} failed; µs p50 {} p99 {} max {}",
                n.answered,
                n.failed,
                fmt_us(n.latency_us.p50),
                fmt_us(n.latency_us.p99),
                fmt_us(n.latency_us.max)
            );
        }
        if let Some(m) = &self.server_memory {
            let kib = |v: Option<u64>| v.map_or("?".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
            let _ = writeln!(
                out,
                "server pid {} RSS: {} before setup, {} after the run",
                m.pid,
                kib(m.rss_before_kib),
                kib(m.rss_after_kib)
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Report {
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        for ns in 1..=1000u64 {
            h.record(ns * 1000).unwrap();
        }
        Report {
            tool: "monotable-bench",
            version: "0.1.0",
            endpoint: "http://127.0.0.1:8000".into(),
            workload: "get".into(),
            concurrency: 32,
            threads: 1,
            items: 1000,
            item_size: 256,
            partition_size: 25,
            seed: 1,
            setup: Some(SetupReport { items_loaded: 1000, load_secs: 0.5 }),
            warmup_secs: 0.0,
            duration_secs: 2.0,
            requests: 1003,
            ok: 1000,
            errors: 3,
            error_kinds: BTreeMap::from([("ThrottlingException".to_string(), 3)]),
            empty_results: 0,
            reconnects: 0,
            throughput_per_sec: 500.0,
            latency_us: Latency::from_nanos(&h),
            server_memory: Some(ServerMemory { pid: 42, rss_before_kib: Some(8192), rss_after_kib: None }),
            attack: Some(AttackReport {
                shape: "string-set-80k".into(),
                body_bytes: 800_000,
                requests: 12,
                statuses: BTreeMap::from([(200, 12)]),
                transport_errors: 0,
                latency_us: Latency::default(),
                new_connections: crate::attack::NewConnections::default(),
            }),
        }
    }

    #[test]
    fn percentiles_come_from_the_histogram_in_microseconds() {
        let l = sample().latency_us;
        assert_eq!(l.min, 1.0);
        assert!((l.p50 - 500.0).abs() < 1.0, "{l:?}");
        assert!((l.p90 - 900.0).abs() < 1.0, "{l:?}");
        assert!((l.p99 - 990.0).abs() < 1.0, "{l:?}");
        assert!((l.max - 1000.0).abs() < 1.0, "{l:?}");
        assert!((l.mean - 500.5).abs() < 1.0, "{l:?}");
    }

    #[test]
    fn empty_histogram_gives_zero_latencies() {
        let h = Histogram::<u64>::new_with_bounds(1, 1_000_000, 3).unwrap();
        assert_eq!(Latency::from_nanos(&h), Latency::default());
    }

    #[test]
    fn json_report_has_the_documented_shape() {
        let v: serde_json::Value = serde_json::from_str(&sample().to_json()).unwrap();
        for key in [
            "tool",
            "endpoint",
            "workload",
            "concurrency",
            "threads",
            "setup",
            "duration_secs",
            "requests",
            "ok",
            "errors",
            "error_kinds",
            "empty_results",
            "throughput_per_sec",
            "latency_us",
            "server_memory",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        for p in ["min", "mean", "p50", "p90", "p99", "p99_9", "max"] {
            assert!(v["latency_us"][p].is_number(), "missing latency {p}");
        }
        assert_eq!(v["error_kinds"]["ThrottlingException"], 3);
        assert_eq!(v["setup"]["items_loaded"], 1000);
    }

    #[test]
    fn table_shows_throughput_percentiles_and_every_error_kind() {
        let t = sample().to_table();
        assert!(t.contains("workload=get"), "{t}");
        assert!(t.contains("500.0"), "{t}");
        assert!(t.contains("p99.9"), "{t}");
        assert!(t.contains("ThrottlingException"), "{t}");
        assert!(t.contains("8.0 MiB before setup, ? after"), "{t}");
        assert!(t.contains("attack string-set-80k (800000 bytes): 12 answered [12×200]"), "{t}");
    }
}
