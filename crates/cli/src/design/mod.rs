//! `monotable design …`: the table's model as data. One file per subcommand.

mod apply;
mod check;
mod codegen;
mod cost;
mod diff;
mod export;
mod iac;
mod import;
pub(crate) mod live;
mod new;
mod schema;
mod show;
mod validate;

use anyhow::Context;
use clap::{Args, Subcommand};
use monotable_design::Design;

/// `monotable design` arguments.
#[derive(Debug, Args)]
pub struct DesignArgs {
    #[command(subcommand)]
    command: DesignCommand,
}

#[derive(Debug, Subcommand)]
enum DesignCommand {
    /// Scaffold a design file (YAML) for a team that designs before coding.
    New(new::NewArgs),
    /// Print the design file's JSON Schema, for editor completion.
    Schema(schema::SchemaArgs),
    /// Lint a design: findings with rule ids; exits non-zero on errors.
    Check(check::CheckArgs),
    /// Generate CloudFormation, Terraform, Pulumi or CDK with a least-privilege IAM policy.
    Iac(iac::IacArgs),
    /// Generate TypeScript (Zod schemas, lib-dynamodb command inputs) or Rust entity types.
    Codegen(codegen::CodegenArgs),
    /// Show the access-pattern table (Markdown) or the aggregate view (SVG, HTML).
    Show(show::ShowArgs),
    /// Create the design's table on an endpoint, or add what a live one lacks (exit 3 if it
    /// still differs).
    Apply(apply::ApplyArgs),
    /// Show how a live table differs from the design (exit 2 on drift).
    Diff(diff::DiffArgs),
    /// Run every access pattern on generated sample items in the embedded engine; exits
    /// non-zero when one fails.
    Validate(validate::ValidateArgs),
    /// A month's bill, on-demand and provisioned, from the capacity measured on sample items
    /// and a traffic file.
    Cost(cost::CostArgs),
    /// Convert NoSQL Workbench, OneTable or AWS data-model JSON into a design.
    Import(import::ImportArgs),
    /// Write a design as a NoSQL Workbench data model.
    Export(export::ExportArgs),
}

/// Runs `monotable design`.
pub fn run(args: DesignArgs) -> anyhow::Result<()> {
    match args.command {
        DesignCommand::New(a) => new::run(a),
        DesignCommand::Schema(a) => schema::run(a),
        DesignCommand::Check(a) => check::run(a),
        DesignCommand::Iac(a) => iac::run(a),
        DesignCommand::Codegen(a) => codegen::run(a),
        DesignCommand::Show(a) => show::run(a),
        DesignCommand::Apply(a) => apply::run(a),
        DesignCommand::Diff(a) => diff::run(a),
        DesignCommand::Validate(a) => validate::run(a),
        DesignCommand::Cost(a) => cost::run(a),
        DesignCommand::Import(a) => import::run(a),
        DesignCommand::Export(a) => export::run(a),
    }
}

/// Reads a design file (JSON or YAML).
pub(crate) fn read(path: &std::path::Path) -> anyhow::Result<Design> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Design::parse(&text).with_context(|| format!("{}", path.display()))
}

/// A small runtime for the commands that talk to an endpoint.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build();
    rt.context("could not start the async runtime")
}

/// Writes to `-o/--output FILE` or standard output.
pub(crate) fn emit(output: Option<&std::path::Path>, text: &str) -> anyhow::Result<()> {
    match output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display())),
        None => Ok(crate::output::print(text)?),
    }
}
