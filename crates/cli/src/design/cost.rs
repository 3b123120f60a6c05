//! `monotable design cost FILE --traffic TRAFFIC [--prices PRICES] [--seed N] [--format
//! text|json]`: a month's bill for the design, from the capacity the embedded engine measured
//! on sample items (`monotable_design_run::measure`) and a traffic file (`docs/cost.md`).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use monotable_design::cost::{self, Prices, Traffic};

use crate::output::line;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// `design cost` arguments.
#[derive(Debug, Args)]
pub struct CostArgs {
    /// The design file (JSON or YAML).
    file: PathBuf,
    /// Requests per access pattern and items per entity type (YAML or JSON; docs/cost.md).
    #[arg(long)]
    traffic: PathBuf,
    /// A price table in the format of the built-in one (us-east-1 when omitted).
    #[arg(long)]
    prices: Option<PathBuf>,
    /// Seed of the sample items the capacity is measured on.
    #[arg(long, default_value_t = monotable_design_run::DEFAULT_SEED)]
    seed: u64,
    /// Output for people (`text`) or tools (`json`).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

pub fn run(args: CostArgs) -> anyhow::Result<()> {
    let design = super::read(&args.file)?;
    let read =
        |path: &PathBuf| std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()));
    let traffic =
        Traffic::parse(&read(&args.traffic)?).with_context(|| args.traffic.display().to_string())?;
    let prices = match &args.prices {
        Some(path) => Prices::parse(&read(path)?).with_context(|| path.display().to_string())?,
        None => Prices::us_east_1(),
    };
    let measured = monotable_design_run::measure(&design, args.seed)?;
    let estimate = cost::estimate(&design, &measured, &traffic, &prices)?;
    match args.format {
        Format::Json => line(serde_json::to_string_pretty(&estimate)?)?,
        Format::Text => line(estimate.to_text().trim_end())?,
    }
    Ok(())
}
