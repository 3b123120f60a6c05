//! `monotable-bench`: a closed-loop load generator for any DynamoDB-compatible endpoint on
//! this machine, and a start-up/idle-memory probe for server processes.
//!
//! A run creates its table (string `pk`/`sk`, one GSI), loads items with `BatchWriteItem`,
//! pre-builds every request body, then drives `concurrency` kept-alive HTTP/1.1 connections,
//! one task each with one request in flight, signing every request with SigV4 as an SDK does.
//! Latencies of successful requests go to an HDR histogram; failures are counted by kind.
//!
//! ```no_run
//! use monotable_bench::{run, BenchConfig, Stop, Workload};
//! let mut config = BenchConfig::new("http://127.0.0.1:8000", Workload::Get);
//! config.stop = Stop::Requests(10_000);
//! let report = run(&config)?;
//! println!("{}", report.to_table());
//! # Ok::<(), monotable_bench::BenchError>(())
//! ```

mod attack;
mod ceiling;
mod conn;
mod endpoint;
mod error;
mod hostile;
mod report;
mod rng;
mod run;
mod setup;
mod sigv4;
mod startup;
mod workload;

pub use attack::{Attack, AttackReport, NewConnections};
pub use ceiling::{run_ceiling, serve_ceiling, Coalesce};
pub use conn::SigningConfig;
pub use endpoint::Endpoint;
pub use error::BenchError;
pub use report::{Latency, Report, ServerMemory};
pub use run::{rss_kib, run, BenchConfig, Stop};
pub use setup::SetupReport;
pub use startup::{measure_startup, StartupReport};
pub use workload::{DataModel, Workload, MAX_ITEM_SIZE};

/// Parses a duration such as `10s`, `500ms`, `2m`, `1.5s` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 =
        number.parse().map_err(|_| format!("invalid duration {text:?}: expected e.g. 10s, 500ms, 2m"))?;
    let secs = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "us" | "µs" => value / 1_000_000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("invalid duration unit {other:?} in {text:?}: use ms, s, m or h")),
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("invalid duration {text:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
    }

    #[test]
    fn bad_durations_are_refused_with_a_hint() {
        assert!(parse_duration("ten").unwrap_err().contains("expected e.g."));
        assert!(parse_duration("5d").unwrap_err().contains("unit"));
        assert!(parse_duration("").is_err());
    }
}
