//! `monotable design apply FILE --endpoint URL [--allow-destructive]`: creates the table the
//! design asks for, or brings a live one to it with UpdateTable, UpdateTimeToLive and tags.
//!
//! Without `--allow-destructive`, apply changes nothing if any difference is destructive
//! (dropping or rebuilding an index, disabling TTL or the stream, removing a tag or deletion
//! protection) and lists those. Differences only a new table can remove (the table's key,
//! attribute types, LSIs) are never made; apply says so.
//!
//! Exit codes: 0 the live table now matches the design; 3 it still differs (refused or
//! needing a new table); 1 the design could not be read or a request failed.

use clap::Args;
use monotable_design::deploy::diff;

use super::diff::Target;
use crate::endpoint::Retries;
use crate::output::line;

/// `design apply` arguments.
#[derive(Debug, Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    target: Target,
    /// Also drop and rebuild indexes, disable TTL or the stream, remove tags.
    #[arg(long)]
    allow_destructive: bool,
}

/// The exit code of `design apply` when the live table still differs from the design.
pub const STILL_DIFFERS: i32 = 3;

pub fn run(args: ApplyArgs) -> anyhow::Result<()> {
    let desired = args.target.desired()?;
    let runtime = super::runtime()?;
    let differs = runtime.block_on(async {
        let client = crate::endpoint::client(&args.target.endpoint, Retries::Standard).await;
        let name = &desired.name;
        let Some(live) = super::live::describe(&client, name).await? else {
            super::live::create(&client, &desired).await?;
            line(format_args!("created table {name}"))?;
            return anyhow::Ok(false);
        };
        let drift = diff(&desired, &live);
        if drift.is_empty() {
            line(format_args!("table {name} matches {}: nothing to do", args.target.file.display()))?;
            return Ok(false);
        }
        let refused: Vec<_> = drift.iter().filter(|d| d.destructive() && !d.needs_new_table()).collect();
        if !args.allow_destructive && !refused.is_empty() {
            for d in &drift {
                line(format_args!("{d}"))?;
            }
            line(format_args!(
                "refused: {} destructive change(s); nothing was changed (rerun with --allow-destructive)",
                refused.len()
            ))?;
            return Ok(true);
        }
        let mut left = 0;
        for d in &drift {
            if d.needs_new_table() {
                line(format_args!("not done: {d}"))?;
                left += 1;
                continue;
            }
            super::live::apply(&client, &desired, &d.change, Some(&live)).await?;
            line(format_args!("done: {}: now {}", d.subject, d.design))?;
        }
        if left > 0 {
            line(format_args!(
                "{left} difference(s) need a new table: create one from the design and copy the items over"
            ))?;
        }
        Ok(left > 0)
    })?;
    if differs {
        std::process::exit(STILL_DIFFERS);
    }
    Ok(())
}
