//! `monotable design export --to workbench FILE [-o/--output FILE]`: a design as NoSQL
//! Workbench's data model, with one note on standard error for each thing the model cannot
//! hold.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use monotable_design::convert;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Target {
    /// NoSQL Workbench's data model (JSON).
    Workbench,
}

/// `design export` arguments.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The target format.
    #[arg(long, value_enum)]
    to: Target,
    /// The design file (JSON or YAML).
    file: PathBuf,
    /// Write here instead of standard output.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let design = super::read(&args.file)?;
    let (text, notes) = match args.to {
        Target::Workbench => convert::to_workbench(&design),
    };
    for note in &notes {
        eprintln!("note: {note}");
    }
    super::emit(args.output.as_deref(), &text)
}
