//! `monotable import`: load DynamoDB JSON lines (as written by `monotable export` or
//! DynamoDB's export to S3, uncompressed) into a table of a data directory, creating the
//! table from a definition file when it does not exist. The work is done by
//! `monotable_store::import_file`; this file parses arguments and draws the progress bar.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use monotable_engine::Engine;
use monotable_store::indicatif::{ProgressBar, ProgressStyle};
use monotable_store::{import_file, ImportOptions, TableDefinition, TransferError};

/// Arguments of `monotable import`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  monotable import --data-dir ./data --input Orders.jsonl --definition Orders.table.json"
)]
pub struct ImportArgs {
    /// The data directory of the tables (as given to `monotable serve --data-dir`).
    #[arg(long)]
    data_dir: PathBuf,
    /// The JSON lines file: one {"Item": {...}} per line (gzip-compressed if it ends in .gz).
    #[arg(long, short)]
    input: PathBuf,
    /// A table definition file (from `monotable export`), used to create the table.
    #[arg(long)]
    definition: Option<PathBuf>,
    /// The table to import into. Default: the definition's table name.
    #[arg(long)]
    table: Option<String>,
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
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
    let store = monotable_store::open(&args.data_dir, monotable_store::SyncPolicy::None)
        .with_context(|| format!("could not open data directory {}", args.data_dir.display()))?;
    let engine = Engine::with_storage(store.clone()).context("could not load the tables")?;
    let size = std::fs::metadata(&args.input)
        .with_context(|| format!("could not read {}", args.input.display()))?
        .len();
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
    let result = import_file(&engine, &args.input, definition.as_ref(), &options, &progress);
    progress.finish_and_clear();
    store.flush().context("could not flush the data directory")?;
    let mut err = std::io::stderr();
    match result {
        Ok(report) => {
            writeln!(
                err,
                "imported {} items from {}{}",
                report.items,
                args.input.display(),
                if report.created_table { " (table created from the definition)" } else { "" }
            )?;
            Ok(())
        }
        Err(TransferError::BadLines(bad)) => {
            for b in &bad {
                if b.line > 0 {
                    writeln!(err, "{}:{}: {}", args.input.display(), b.line, b.reason)?;
                } else {
                    writeln!(err, "{}", b.reason)?;
                }
            }
            anyhow::bail!("{} has bad lines; nothing was imported", args.input.display())
        }
        Err(e) => Err(e.into()),
    }
}
