//! The `monotable` command-line tool. One file per subcommand; this file only dispatches.

use clap::{Parser, Subcommand};

/// mimalloc instead of glibc malloc: the engine allocates and frees many small items and
/// attribute strings per request, which glibc's arenas fragment under multi-threaded load.
/// Built with `no_thp`: with transparent huge pages on, mimalloc's arenas fault in 2 MiB pages
/// and an idle server sat at 13-14 MiB resident instead of 7. Called through
/// [`alloc::MonotableAlloc`], which takes mimalloc's plain entry points where they suffice.
#[global_allocator]
static GLOBAL: alloc::MonotableAlloc = alloc::MonotableAlloc;

mod alloc;
mod bench;
mod console;
mod copy;
mod design;
mod endpoint;
mod export;
mod import;
mod mcp;
mod output;
mod purge;
mod s3;
mod serve;
mod transfer;

// The summary in `--help` is this struct's doc comment, not the package description (which
// names only some of the subcommands), so it stays true of every subcommand listed under it.
/// monotable: a DynamoDB-compatible engine and single-table toolkit.
#[derive(Debug, Parser)]
#[command(name = "monotable", version)]
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
    /// Export a table (of a data directory or an endpoint) as DynamoDB JSON lines plus a table definition.
    Export(export::ExportArgs),
    /// Import DynamoDB JSON lines into a table of a data directory or an endpoint.
    Import(import::ImportArgs),
    /// Copy a table from one endpoint to another.
    Copy(copy::CopyArgs),
    /// Design a table: scaffold, lint, generate infrastructure as code.
    Design(design::DesignArgs),
    /// Serve the web console for any DynamoDB endpoint (read-only unless --writable).
    Console(console::ConsoleArgs),
    /// Serve design and data tools to coding agents over MCP (stdio, or HTTP with --http).
    Mcp(mcp::McpArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Export(args) => export::run(args),
        Command::Import(args) => import::run(args),
        Command::Copy(args) => copy::run(args),
        Command::Design(args) => design::run(args),
        Command::Console(args) => console::run(args),
        Command::Mcp(args) => mcp::run(args),
    };
    if let Err(e) = &result {
        output::exit_if_broken_pipe(e);
    }
    result
}
