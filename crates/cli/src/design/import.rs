//! `monotable design import --from workbench|onetable|aws-data-model FILE [-o/--output FILE]`:
//! another tool's data model as a design (YAML, or JSON when the output file ends in `.json`),
//! with one note on standard error for each thing that could not be carried over.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use monotable_design::convert;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Source {
    /// NoSQL Workbench's data model (JSON).
    Workbench,
    /// A OneTable schema (JSON).
    Onetable,
    /// AWS's DynamoDB data-model JSON (`dynamodb_data_model.json` or `schema.json`).
    AwsDataModel,
}

/// `design import` arguments.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The source format.
    #[arg(long, value_enum)]
    from: Source,
    /// The file to convert.
    file: PathBuf,
    /// Write the design here instead of standard output.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    let path = args.file.display();
    let text = std::fs::read_to_string(&args.file).with_context(|| format!("reading {path}"))?;
    let imported = match args.from {
        Source::Workbench => convert::from_workbench(&text),
        Source::Onetable => convert::from_onetable(&text),
        Source::AwsDataModel => convert::from_aws_data_model(&text),
    }
    .with_context(|| format!("{path}"))?;
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    let json = args.output.as_ref().is_some_and(|o| o.extension().is_some_and(|e| e == "json"));
    let text = if json { imported.design.to_json() + "\n" } else { imported.design.to_yaml() };
    super::emit(args.output.as_deref(), &text)
}
