//! `monotable copy`: every item of a table on one endpoint into a table on another (created
//! from the source's definition if missing). The work is done by `monotable_transfer::copy`.

use monotable_transfer::{copy, copy_checkpoint, TableRef};

use crate::endpoint::{client, Retries};
use crate::transfer::{split_table_ref, summary, ReadLimit, TransferArgs, WriteLimit};

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
    #[command(flatten)]
    read: ReadLimit,
    #[command(flatten)]
    write: WriteLimit,
}

pub fn run(args: CopyArgs) -> anyhow::Result<()> {
    let (from_endpoint, from_table) = split_table_ref(&args.from)?;
    let (to_endpoint, to_table) = split_table_ref(&args.to)?;
    let options = args.transfer.options(Some(&args.read), Some(&args.write))?;
    let hint = options.checkpoint.clone().unwrap_or_else(|| copy_checkpoint(&from_table, &to_table));
    let report = crate::transfer::run(hint.display().to_string(), || async {
        let from = TableRef {
            client: client(&from_endpoint, Retries::Off).await,
            endpoint: from_endpoint,
            table: from_table,
        };
        let to = TableRef {
            client: client(&to_endpoint, Retries::Off).await,
            endpoint: to_endpoint,
            table: to_table,
        };
        copy(&from, &to, &options).await
    })?;
    eprintln!("{}", summary("copied", &report, &format!("from {} to {}", args.from, args.to)));
    Ok(())
}
