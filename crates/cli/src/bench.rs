//! `monotable bench`: load-test a DynamoDB endpoint on this machine, or measure a server's
//! start-up time and idle memory. The work is done by the `monotable-bench` library; this
//! file maps command-line arguments onto its configuration and prints the report.

use std::time::Duration;

use anyhow::Context;
use monotable_bench::{
    measure_startup, parse_duration, run_ceiling, Attack, BenchConfig, Coalesce, DataModel, SigningConfig,
    Stop, Workload,
};

/// Arguments of `monotable bench` (boxed: they are many, and the subcommand enum stays small).
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    options: Box<BenchOptions>,
}

/// The options of `monotable bench`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    monotable bench --endpoint http://127.0.0.1:8000 --workload get --duration 10s\n  \
    monotable bench --workload put --requests 100000 --json report.json\n  \
    monotable bench --workload get --concurrency 4 --attack string-set-80k\n  \
    monotable bench --endpoint http://127.0.0.1:8001 --startup -- ./server --port 8001")]
struct BenchOptions {
    /// The DynamoDB endpoint (http://host:port on this machine: loopback addresses only).
    #[arg(long, env = "MONOTABLE_BENCH_ENDPOINT", default_value = "http://127.0.0.1:8000")]
    endpoint: String,
    /// What the measured requests do: put, get, update, query, mixed or transact.
    #[arg(long, short, default_value = "get", value_parser = str::parse::<Workload>)]
    workload: Workload,
    /// Also attack the endpoint during the measured phase: a hostile request in a loop
    /// (string-set-40k, string-set-80k, unused-values-80k, attributes-to-get-80k,
    /// names-100k, wide-item, gzip-bomb, cross-origin, costly-condition, tombstones: the last
    /// two first put what they read), or hostile connections (held-bodies: 40 bodies of
    /// 16 MiB held; slow-bodies: 500 bodies trickled). The report adds the attack's own
    /// latencies and those of new connections opened beside it every 100 ms.
    #[arg(long, value_parser = str::parse::<Attack>)]
    attack: Option<Attack>,
    /// Items loaded before the measured phase.
    #[arg(long, default_value_t = 10_000)]
    items: u64,
    /// Size of each item in bytes, as DynamoDB counts it.
    #[arg(long, default_value_t = 256)]
    item_size: usize,
    /// Items per partition key: the number of items a Query returns.
    #[arg(long, default_value_t = 25)]
    partition_size: u64,
    /// Connections, each with one request in flight.
    #[arg(long, short, default_value_t = 32)]
    concurrency: usize,
    /// Length of the measured phase (e.g. 10s, 500ms, 1m).
    #[arg(long, short, value_parser = parse_duration, conflicts_with = "requests")]
    duration: Option<Duration>,
    /// Number of requests in the measured phase, instead of --duration.
    #[arg(long, short)]
    requests: Option<u64>,
    /// Unrecorded warm-up before the measured phase, on the same connections.
    #[arg(long, value_parser = parse_duration, default_value = "0s")]
    warmup: Duration,
    /// Seed of the key choices: the same seed sends the same requests.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Client threads (1 keeps the load generator on one core).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Distinct pre-built request bodies the connections cycle through.
    #[arg(long, default_value_t = 10_000)]
    distinct: usize,
    /// Table name (an existing table of this name is deleted and re-created).
    #[arg(long, default_value = "monotable-bench")]
    table: String,
    /// Reuse the existing table and its items instead of re-creating and loading them.
    #[arg(long)]
    skip_setup: bool,
    /// Create the table with a DynamoDB stream of this view type (KEYS_ONLY, NEW_IMAGE,
    /// OLD_IMAGE or NEW_AND_OLD_IMAGES), to measure the write path with a stream.
    #[arg(long)]
    stream: Option<String>,
    /// A server process id whose resident memory is reported before setup and after the run.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Signing region.
    #[arg(long, default_value = "us-east-1")]
    region: String,
    /// Access key id to sign with (local emulators accept any).
    #[arg(long, default_value = "AKIDMONOTABLEBENCH")]
    access_key: String,
    /// Secret key to sign with (local emulators accept any).
    #[arg(long, default_value = "monotable-bench-secret", hide_default_value = true)]
    secret_key: String,
    /// Also write the report as JSON to this file ("-": JSON on stdout, the table on stderr).
    #[arg(long)]
    json: Option<String>,
    /// Serve the ceiling instead of measuring: a one-thread HTTP server on 127.0.0.1:PORT that
    /// answers every request with a fixed `{}`, the most one server worker can reach here.
    #[arg(long, value_name = "PORT", conflicts_with = "startup")]
    serve_ceiling: Option<u16>,
    /// With --serve-ceiling: write every answer as soon as it is made, instead of after the
    /// other ready requests as `monotable serve` does (the ceiling of the runs recorded in
    /// bench/results/ before commit 6a53a8a).
    #[arg(long, requires = "serve_ceiling")]
    plain_ceiling: bool,
    /// Measure start-up instead of load: run the command after `--`, time it to the first
    /// successful request at --endpoint, read its idle memory, then stop it.
    #[arg(long, requires = "command")]
    startup: bool,
    /// Longest wait for the first successful request with --startup.
    #[arg(long, value_parser = parse_duration, default_value = "60s")]
    startup_timeout: Duration,
    /// Pause after the first success before idle memory is read, with --startup.
    #[arg(long, value_parser = parse_duration, default_value = "500ms")]
    settle: Duration,
    /// The server command for --startup.
    #[arg(last = true)]
    command: Vec<String>,
}

impl BenchOptions {
    fn signing(&self) -> SigningConfig {
        SigningConfig {
            access_key: self.access_key.clone(),
            secret_key: self.secret_key.clone(),
            region: self.region.clone(),
        }
    }

    fn config(&self) -> BenchConfig {
        let mut c = BenchConfig::new(&self.endpoint, self.workload);
        c.model = DataModel {
            table: self.table.clone(),
            items: self.items,
            item_size: self.item_size,
            partition_size: self.partition_size,
            stream: self.stream.clone(),
        };
        c.concurrency = self.concurrency;
        c.stop = match (self.requests, self.duration) {
            (Some(n), _) => Stop::Requests(n),
            (None, Some(d)) => Stop::Duration(d),
            (None, None) => Stop::Duration(Duration::from_secs(10)),
        };
        c.warmup = self.warmup;
        c.seed = self.seed;
        c.threads = self.threads;
        c.distinct = self.distinct;
        c.signing = self.signing();
        c.setup = !self.skip_setup;
        c.server_pid = self.server_pid;
        c.attack = self.attack;
        c
    }
}

/// Prints `table` and the JSON form where `--json` asked for it.
fn emit(json_target: Option<&str>, table: &str, json: &str) -> anyhow::Result<()> {
    match json_target {
        Some("-") => {
            eprint!("{table}");
            crate::output::line(json)?;
        }
        Some(path) => {
            crate::output::print(table)?;
            std::fs::write(path, format!("{json}\n")).with_context(|| format!("cannot write {path}"))?;
        }
        None => crate::output::print(table)?,
    }
    Ok(())
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let args = args.options;
    if let Some(port) = args.serve_ceiling {
        let coalesce = if args.plain_ceiling { Coalesce::No } else { Coalesce::Yes };
        run_ceiling(std::net::SocketAddr::from(([127, 0, 0, 1], port)), coalesce)?;
        return Ok(());
    }
    if args.startup {
        let report = measure_startup(
            &args.endpoint,
            &args.command,
            args.startup_timeout,
            args.settle,
            &args.signing(),
        )?;
        return emit(args.json.as_deref(), &report.to_table(), &report.to_json());
    }
    if !args.command.is_empty() {
        anyhow::bail!("a command after `--` is only used with --startup");
    }
    let report = monotable_bench::run(&args.config())?;
    emit(args.json.as_deref(), &report.to_table(), &report.to_json())?;
    if report.ok == 0 {
        anyhow::bail!("no request succeeded ({} errors)", report.errors);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: BenchArgs,
    }

    fn parse(argv: &[&str]) -> Result<BenchOptions, clap::Error> {
        Cli::try_parse_from(std::iter::once("bench").chain(argv.iter().copied())).map(|c| *c.args.options)
    }

    #[test]
    fn defaults_match_the_documented_ones() {
        let c = parse(&[]).unwrap().config();
        assert_eq!(c.endpoint, "http://127.0.0.1:8000");
        assert_eq!(c.workload, Workload::Get);
        assert_eq!(c.concurrency, 32);
        assert_eq!(c.stop, Stop::Duration(Duration::from_secs(10)));
        assert_eq!(c.model.items, 10_000);
        assert_eq!(c.threads, 1);
        assert!(c.setup);
    }

    #[test]
    fn every_documented_flag_reaches_the_configuration() {
        let c = parse(&[
            "--endpoint",
            "http://localhost:9000",
            "--workload",
            "transact",
            "--items",
            "500",
            "--item-size",
            "1000",
            "--concurrency",
            "8",
            "--requests",
            "200",
            "--seed",
            "7",
            "--threads",
            "2",
            "--skip-setup",
            "--attack",
            "names-100k",
        ])
        .unwrap()
        .config();
        assert_eq!(c.endpoint, "http://localhost:9000");
        assert_eq!(c.workload, Workload::Transact);
        assert_eq!((c.model.items, c.model.item_size), (500, 1000));
        assert_eq!((c.concurrency, c.seed, c.threads), (8, 7, 2));
        assert_eq!(c.stop, Stop::Requests(200));
        assert!(!c.setup);
        assert_eq!(c.attack, Some(Attack::Names100k));
    }

    #[test]
    fn duration_accepts_units() {
        let c = parse(&["--duration", "1500ms"]).unwrap().config();
        assert_eq!(c.stop, Stop::Duration(Duration::from_millis(1500)));
    }

    #[test]
    fn duration_and_requests_are_exclusive() {
        assert!(parse(&["--duration", "5s", "--requests", "10"]).is_err());
    }

    #[test]
    fn unknown_workload_is_refused() {
        let err = parse(&["--workload", "scan"]).unwrap_err().to_string();
        assert!(err.contains("put, get, update, query, mixed, transact"), "{err}");
    }

    #[test]
    fn startup_needs_a_command() {
        assert!(parse(&["--startup"]).is_err());
        let a = parse(&["--startup", "--", "server", "--port", "1"]).unwrap();
        assert_eq!(a.command, vec!["server", "--port", "1"]);
    }
}
