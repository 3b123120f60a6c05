//! `monotable design validate FILE [--seed N] [--format text|json]`: every access pattern
//! executed on sample items in the embedded engine (`monotable-design-run`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::output::line;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// `design validate` arguments.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The design file (JSON or YAML).
    file: PathBuf,
    /// Seed of the sample items: the same seed generates the same items.
    #[arg(long, default_value_t = monotable_design_run::DEFAULT_SEED)]
    seed: u64,
    /// Output for people (`text`) or tools (`json`).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

pub fn run(args: ValidateArgs) -> anyhow::Result<()> {
    let design = super::read(&args.file)?;
    let report = monotable_design_run::validate(&design, args.seed)?;
    match args.format {
        Format::Json => line(serde_json::to_string_pretty(&report)?)?,
        Format::Text => line(report.text())?,
    }
    if !report.passed() {
        std::process::exit(1);
    }
    Ok(())
}
