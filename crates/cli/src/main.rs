//! The `monotable` command-line tool. One file per subcommand; this file only dispatches.

use clap::{Parser, Subcommand};

mod bench;
mod serve;

/// monotable: a DynamoDB-compatible engine and single-table toolkit.
#[derive(Debug, Parser)]
#[command(name = "monotable", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the DynamoDB JSON protocol on a local endpoint.
    Serve(serve::ServeArgs),
    /// Load-test any DynamoDB endpoint and report throughput and latency percentiles.
    Bench(bench::BenchArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Bench(args) => bench::run(args),
    }
}
