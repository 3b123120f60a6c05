//! `monotable copy`: every item of a table on one endpoint into a table on another (created
//! from the source's definition if missing). The work is done by `monotable_transfer::copy`.

use monotable_transfer::{connect, copy, copy_checkpoint, TableRef};

use crate::transfer::{split_table_ref, summary, TransferArgs};

/// Arguments of `monotable copy`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  monotable copy --from http://127.0.0.1:8000/Orders --to http://127.0.0.1:8001/Orders --segments 8\n  \
    (interrupted? rerun the same command with --resume)"
)]
pub struct CopyArgs {
    /// The source, as ENDPOINT/TABLE (`aws/TABLE` for Amazon DynamoDB).
    #[arg(long, value_name = "ENDPOINT/TABLE")]
    from: String,
    /// The target, as ENDPOINT/TABLE.
    #[arg(long, value_name = "ENDPOINT/TABLE")]
    to: String,
    #[command(flatten)]
    transfer: TransferArgs,
}

pub fn run(args: CopyArgs) -> anyhow::Result<()> {
    let (from_endpoint, from_table) = split_table_ref(&args.from)?;
    let (to_endpoint, to_table) = split_table_ref(&args.to)?;
    let options = args.transfer.options()?;
    let hint = options.checkpoint.clone().unwrap_or_else(|| copy_checkpoint(&from_table, &to_table));
    let report = crate::transfer::run(hint.display().to_string(), || async {
        let from =
            TableRef { client: connect(&from_endpoint).await, endpoint: from_endpoint, table: from_table };
        let to = TableRef { client: connect(&to_endpoint).await, endpoint: to_endpoint, table: to_table };
        copy(&from, &to, &options).await
    })?;
    eprintln!("{}", summary("copied", &report, &format!("from {} to {}", args.from, args.to)));
    Ok(())
}
