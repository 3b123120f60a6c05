//! `monotable export`: write a table as DynamoDB JSON lines (the format of DynamoDB's export
//! to S3) plus a table definition file, from a data directory not in use
//! (`monotable_store::export_table`) or from any running endpoint
//! (`monotable_transfer::export`: parallel Scan segments, resumable). This file parses
//! arguments and draws the progress bar.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use monotable_engine::{DescribeTableInput, Engine};
use monotable_store::indicatif::{ProgressBar, ProgressStyle};
use monotable_store::{export_table, export_to_path, TableDefinition};

use crate::endpoint::Retries;
use crate::transfer::{summary, ReadLimit, TransferArgs};

/// Arguments of `monotable export`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  monotable export --data-dir ./data --table Orders\n  \
    (writes Orders.jsonl and Orders.table.json; the data directory must not be in use by a server)\n  \
    monotable export --endpoint http://127.0.0.1:8000 --table Orders --output Orders.jsonl.gz --segments 8\n  \
    (any endpoint, a running server included; interrupted? rerun with --resume)")]
#[command(group = clap::ArgGroup::new("source").required(true).args(["data_dir", "endpoint"]))]
pub struct ExportArgs {
    /// The data directory of the tables (as given to `monotable serve --data-dir`).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Export from this endpoint (a URL, or `aws` for Amazon DynamoDB) instead of a data
    /// directory.
    #[arg(long, value_name = "URL")]
    endpoint: Option<String>,
    /// The table to export.
    #[arg(long)]
    table: String,
    /// Where to write the items (`-` for standard output; a name ending in `.gz` is
    /// gzip-compressed, as DynamoDB's export to S3 writes). Default: TABLE.jsonl.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Where to write the table definition. Default: TABLE.table.json.
    #[arg(long)]
    definition: Option<PathBuf>,
    #[command(flatten)]
    transfer: TransferArgs,
    #[command(flatten)]
    read: ReadLimit,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let Some(data_dir) = args.data_dir.clone() else { return run_endpoint(args) };
    let store = monotable_store::open(&data_dir, monotable_store::SyncPolicy::None)
        .with_context(|| format!("could not open data directory {}", data_dir.display()))?;
    let engine = Engine::with_storage(store).context("could not load the tables")?;
    let described = engine
        .describe_table(DescribeTableInput { table_name: Some(args.table.clone()) })
        .with_context(|| format!("table {}", args.table))?;
    let total = described.table.and_then(|t| t.item_count).unwrap_or(0).max(0) as u64;

    let definition = TableDefinition::of_table(&engine, &args.table)?;
    let def_path = args.definition.unwrap_or_else(|| PathBuf::from(format!("{}.table.json", args.table)));
    std::fs::write(&def_path, definition.to_json()? + "\n")
        .with_context(|| format!("could not write {}", def_path.display()))?;

    let progress = ProgressBar::new(total);
    progress.set_style(
        ProgressStyle::with_template(
            "{spinner} exporting [{bar:40}] {pos}/{len} items ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let output = args.output.unwrap_or_else(|| PathBuf::from(format!("{}.jsonl", args.table)));
    let report = if output.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        export_table(&engine, &args.table, &mut out, &progress)?
    } else {
        export_to_path(&engine, &args.table, &output, &progress)?
    };
    progress.finish_and_clear();
    let mut err = std::io::stderr();
    writeln!(
        err,
        "exported {} items ({} bytes) of {} to {}; definition in {}",
        report.items,
        report.bytes,
        args.table,
        output.display(),
        def_path.display()
    )?;
    Ok(())
}

/// `monotable export --endpoint`: the table of a running endpoint, read with parallel Scans.
fn run_endpoint(args: ExportArgs) -> anyhow::Result<()> {
    let endpoint = args.endpoint.clone().unwrap_or_default();
    let output = args.output.unwrap_or_else(|| PathBuf::from(format!("{}.jsonl", args.table)));
    anyhow::ensure!(
        output.as_os_str() != "-",
        "an export from an endpoint is written to a file (it is resumable)"
    );
    let def_path = args.definition.unwrap_or_else(|| PathBuf::from(format!("{}.table.json", args.table)));
    let options = args.transfer.options(Some(&args.read), None)?;
    let hint = options.checkpoint.clone().unwrap_or_else(|| monotable_transfer::export_checkpoint(&output));
    let report = crate::transfer::run(hint.display().to_string(), || async {
        let client = crate::endpoint::client(&endpoint, Retries::Off).await;
        monotable_transfer::export(&client, &endpoint, &args.table, &output, &def_path, &options).await
    })?;
    let what = format!("of {} to {}; definition in {}", args.table, output.display(), def_path.display());
    eprintln!("{}", summary("exported", &report, &what));
    Ok(())
}
