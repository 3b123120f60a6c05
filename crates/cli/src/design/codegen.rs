//! `monotable design codegen FILE --lang typescript|rust -o DIR`: source code from the design.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use monotable_design::codegen;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Lang {
    /// Zod schemas, key builders and `@aws-sdk/lib-dynamodb` command inputs.
    Typescript,
    /// `#[derive(Entity)]` structs with their access patterns, and `table(..)`.
    Rust,
}

/// `design codegen` arguments.
#[derive(Debug, Args)]
pub struct CodegenArgs {
    /// The design file (JSON or YAML).
    file: PathBuf,
    /// The language to generate.
    #[arg(long, value_enum)]
    lang: Lang,
    /// The directory to write `<model>.ts` or `<model>.rs` into (created if missing); standard
    /// output when omitted.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: CodegenArgs) -> anyhow::Result<()> {
    let design = super::read(&args.file)?;
    let lang = match args.lang {
        Lang::Typescript => "typescript",
        Lang::Rust => "rust",
    };
    // The header names the command as given, so the same command gives the same bytes.
    let command = format!("monotable design codegen {} --lang {lang}", args.file.display());
    let out = match args.lang {
        Lang::Typescript => codegen::typescript(&design, &command),
        Lang::Rust => codegen::rust(&design, &command),
    }
    .with_context(|| format!("{}", args.file.display()))?;
    for s in &out.skipped {
        eprintln!("not generated: {s}");
    }
    match &args.output {
        None => super::emit(None, &out.text),
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            let path = dir.join(&out.file_name);
            super::emit(Some(&path), &out.text)?;
            eprintln!("wrote {}", path.display());
            Ok(())
        }
    }
}
