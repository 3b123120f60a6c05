//! `monotable design iac FILE --format cloudformation|cloudformation-yaml|terraform [-o/--output FILE]`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use monotable_design::iac;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Cloudformation,
    CloudformationYaml,
    Terraform,
}

/// `design iac` arguments.
#[derive(Debug, Args)]
pub struct IacArgs {
    /// The design file (JSON or YAML).
    file: PathBuf,
    /// CloudFormation (JSON or YAML) or Terraform (HCL).
    #[arg(long, value_enum)]
    format: Format,
    /// Write here instead of standard output.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: IacArgs) -> anyhow::Result<()> {
    let design = super::read(&args.file)?;
    let text = match args.format {
        Format::Cloudformation => serde_json::to_string_pretty(&iac::cloudformation(&design))? + "\n",
        Format::CloudformationYaml => iac::cloudformation_yaml(&design),
        Format::Terraform => iac::terraform(&design),
    };
    super::emit(args.output.as_deref(), &text)
}
