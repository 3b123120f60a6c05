//! `monotable design schema [-o/--output FILE]`: the design file's JSON Schema, for editor
//! completion and validation without network (the same text as `docs/design.schema.json`).

use std::path::PathBuf;

use clap::Args;

/// `design schema` arguments.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Write here instead of standard output (`design.schema.json` beside the design file is
    /// what `design new` references).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: SchemaArgs) -> anyhow::Result<()> {
    super::emit(args.output.as_deref(), &monotable_design::json_schema())
}
