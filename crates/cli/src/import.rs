//! `monotable import`: load DynamoDB JSON lines (as written by `monotable export` or
//! DynamoDB's export to S3) into a table of a data directory (`monotable_store::import_file`)
//! or of any running endpoint (`monotable_transfer::import`: parallel BatchWriteItem,
//! resumable), creating the table from a definition file when it does not exist. This file
//! parses arguments and draws the progress bar.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use monotable_engine::Engine;
use monotable_store::indicatif::{ProgressBar, ProgressStyle};
use monotable_store::{import_file, ImportOptions, TableDefinition, TransferError};

use crate::endpoint::Retries;
use crate::transfer::{summary, TransferArgs, WriteLimit};

/// Arguments of `monotable import`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  monotable import --data-dir ./data --input Orders.jsonl --definition Orders.table.json\n  \
    monotable import --endpoint http://127.0.0.1:8000 --table Orders Orders.jsonl.gz --definition Orders.table.json"
)]
#[command(group = clap::ArgGroup::new("target").required(true).args(["data_dir", "endpoint"]))]
#[command(group = clap::ArgGroup::new("source").required(true).args(["input", "file"]))]
pub struct ImportArgs {
    /// The data directory of the tables (as given to `monotable serve --data-dir`).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Import into this endpoint (a URL, or `aws` for Amazon DynamoDB) instead of a data
    /// directory.
    #[arg(long, value_name = "URL")]
    endpoint: Option<String>,
    /// The JSON lines file: one {"Item": {...}} per line (gzip-compressed if it ends in .gz).
    #[arg(long, short)]
    input: Option<PathBuf>,
    /// The JSON lines file, given without --input.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// A table definition file (from `monotable export`), used to create the table.
    #[arg(long)]
    definition: Option<PathBuf>,
    /// The table to import into. Default: the definition's table name.
    #[arg(long)]
    table: Option<String>,
    #[command(flatten)]
    transfer: TransferArgs,
    #[command(flatten)]
    write: WriteLimit,
}

pub fn run(mut args: ImportArgs) -> anyhow::Result<()> {
    let input = args.input.take().or(args.file.take()).context("no input file")?;
    let Some(data_dir) = args.data_dir.clone() else { return run_endpoint(args, input) };
    let definition = match &args.definition {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("could not read {}", path.display()))?;
            Some(TableDefinition::from_json(&text)?)
        }
        None => None,
    };
    // A bulk load is redone if interrupted, so it writes without per-batch flushes and
    // flushes everything once at the end, before reporting success.
    let store = monotable_store::open(&data_dir, monotable_store::SyncPolicy::None)
        .with_context(|| format!("could not open data directory {}", data_dir.display()))?;
    let engine = Engine::with_storage(store.clone()).context("could not load the tables")?;
    let size =
        std::fs::metadata(&input).with_context(|| format!("could not read {}", input.display()))?.len();
    let progress = ProgressBar::new(size);
    progress.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    progress.set_message("checking");
    let mut options = ImportOptions::default();
    options.table = args.table.clone();
    let result = import_file(&engine, &input, definition.as_ref(), &options, &progress);
    progress.finish_and_clear();
    store.flush().context("could not flush the data directory")?;
    let mut err = std::io::stderr();
    match result {
        Ok(report) => {
            writeln!(
                err,
                "imported {} items from {}{}",
                report.items,
                input.display(),
                if report.created_table { " (table created from the definition)" } else { "" }
            )?;
            Ok(())
        }
        Err(TransferError::BadLines(bad)) => {
            for b in &bad {
                if b.line > 0 {
                    writeln!(err, "{}:{}: {}", input.display(), b.line, b.reason)?;
                } else {
                    writeln!(err, "{}", b.reason)?;
                }
            }
            anyhow::bail!("{} has bad lines; nothing was imported", input.display())
        }
        Err(e) => Err(e.into()),
    }
}

/// `monotable import --endpoint`: the lines written to a running endpoint.
fn run_endpoint(args: ImportArgs, input: PathBuf) -> anyhow::Result<()> {
    let endpoint = args.endpoint.clone().unwrap_or_default();
    let definition = match &args.definition {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("could not read {}", path.display()))?;
            Some(monotable_transfer::Definition::from_json(&text)?)
        }
        None => None,
    };
    let table = match (&args.table, &definition) {
        (Some(t), _) => t.clone(),
        (None, Some(d)) => {
            d.0.pointer("/CreateTable/TableName").and_then(|v| v.as_str()).unwrap_or_default().to_owned()
        }
        (None, None) => anyhow::bail!("give --table, or a --definition naming the table"),
    };
    let options = args.transfer.options(None, Some(&args.write))?;
    let hint = options.checkpoint.clone().unwrap_or_else(|| monotable_transfer::import_checkpoint(&input));
    let report = crate::transfer::run(hint.display().to_string(), || async {
        let client = crate::endpoint::client(&endpoint, Retries::Off).await;
        monotable_transfer::import(&client, &endpoint, &table, &input, definition.as_ref(), &options).await
    })?;
    eprintln!("{}", summary("imported", &report, &format!("from {} into {table}", input.display())));
    Ok(())
}
