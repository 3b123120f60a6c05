//! `monotable design check FILE [--format text|json]`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use monotable_design::{check, Severity};

use crate::output::line;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// `design check` arguments.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The design file (JSON or YAML).
    file: PathBuf,
    /// Output for people (`text`) or tools (`json`).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

pub fn run(args: CheckArgs) -> anyhow::Result<()> {
    let design = super::read(&args.file)?;
    let findings = check(&design);
    match args.format {
        Format::Json => line(serde_json::to_string_pretty(&findings)?)?,
        Format::Text => {
            for f in &findings {
                let sev = if f.severity == Severity::Error { "error" } else { "warning" };
                line(format_args!("{sev}[{}] {}: {}\n  fix: {}", f.rule, f.subject, f.message, f.hint))?;
            }
            let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
            line(format_args!(
                "{}: {errors} error(s), {} warning(s)",
                args.file.display(),
                findings.len() - errors
            ))?;
        }
    }
    if findings.iter().any(|f| f.severity == Severity::Error) {
        std::process::exit(1);
    }
    Ok(())
}
