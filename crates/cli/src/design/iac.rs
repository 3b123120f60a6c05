//! `monotable design iac FILE --format cloudformation|cloudformation-yaml|terraform|pulumi|cdk
//! [-o/--output FILE]`. CDK is two files (a construct and an app), so it needs `-o DIRECTORY`.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use monotable_design::iac;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Cloudformation,
    CloudformationYaml,
    Terraform,
    Pulumi,
    Cdk,
}

/// `design iac` arguments.
#[derive(Debug, Args)]
pub struct IacArgs {
    /// The design file (JSON or YAML).
    file: PathBuf,
    /// CloudFormation (JSON or YAML), Terraform (HCL), Pulumi (TypeScript) or CDK (a
    /// TypeScript construct and app).
    #[arg(long, value_enum)]
    format: Format,
    /// Write here instead of standard output (for cdk: the project directory to write
    /// lib/<model>-table.ts and bin/app.ts into).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: IacArgs) -> anyhow::Result<()> {
    let design = super::read(&args.file)?;
    let text = match args.format {
        Format::Cloudformation => serde_json::to_string_pretty(&iac::cloudformation(&design))? + "\n",
        Format::CloudformationYaml => iac::cloudformation_yaml(&design),
        Format::Terraform => iac::terraform(&design),
        Format::Pulumi => iac::pulumi(&design),
        Format::Cdk => {
            let Some(dir) = args.output else {
                bail!(
                    "--format cdk writes two files (lib/<model>-table.ts and bin/app.ts): give -o DIRECTORY"
                )
            };
            for (path, text) in iac::cdk(&design) {
                let file = dir.join(path);
                if let Some(parent) = file.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("creating {}", parent.display()))?;
                }
                std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
            }
            return Ok(());
        }
    };
    super::emit(args.output.as_deref(), &text)
}
