//! `monotable design diff FILE --endpoint URL [--stage S | --table NAME]`: how the live table
//! differs from the design, one line per difference.
//!
//! Exit codes: 0 the live table matches the design; 2 it differs (or does not exist);
//! 1 the design could not be read or the endpoint failed.

use std::path::PathBuf;

use clap::Args;
use monotable_design::deploy::{diff, TableShape};

use crate::endpoint::Retries;
use crate::output::line;

/// Where the live table is: shared by `design diff` and `design apply`.
#[derive(Debug, Args)]
pub struct Target {
    /// The design file (JSON or YAML).
    pub file: PathBuf,
    /// The DynamoDB endpoint: a URL such as `http://127.0.0.1:8000`, or `aws` for Amazon
    /// DynamoDB (endpoint, region and credentials from the standard AWS configuration).
    #[arg(long, value_name = "URL")]
    pub endpoint: String,
    /// Stage of the table name `<app>-<stage>-<model>` (S19).
    #[arg(long, default_value = "dev")]
    pub stage: String,
    /// The table name, instead of the one the design and stage give.
    #[arg(long)]
    pub table: Option<String>,
}

impl Target {
    /// The design and the table it asks for.
    pub fn desired(&self) -> anyhow::Result<TableShape> {
        let design = super::read(&self.file)?;
        let name = self.table.clone().unwrap_or_else(|| design.table_name(&self.stage));
        Ok(TableShape::desired(&design, &name))
    }
}

/// `design diff` arguments.
#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    target: Target,
}

/// The exit code of `design diff` when the live table differs from the design.
pub const DRIFT: i32 = 2;

pub fn run(args: DiffArgs) -> anyhow::Result<()> {
    let desired = args.target.desired()?;
    let runtime = super::runtime()?;
    let drifted = runtime.block_on(async {
        let client = crate::endpoint::client(&args.target.endpoint, Retries::Standard).await;
        let Some(live) = super::live::describe(&client, &desired.name).await? else {
            line(format_args!("+ table {}: live missing (apply creates it)", desired.name))?;
            return anyhow::Ok(true);
        };
        let drift = diff(&desired, &live);
        for d in &drift {
            line(format_args!("{d}"))?;
        }
        if drift.is_empty() {
            line(format_args!("table {} matches {}", desired.name, args.target.file.display()))?;
        }
        Ok(!drift.is_empty())
    })?;
    if drifted {
        std::process::exit(DRIFT);
    }
    Ok(())
}
