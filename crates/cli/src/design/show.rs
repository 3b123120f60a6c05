//! `monotable design show FILE --markdown|--svg|--html [-o/--output FILE]`.

use std::path::PathBuf;

use clap::Args;
use monotable_design::show;

/// `design show` arguments.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The design file (JSON or YAML).
    file: PathBuf,
    /// The access-pattern table as Markdown.
    #[arg(long, group = "what")]
    markdown: bool,
    /// The aggregate view as SVG.
    #[arg(long, group = "what")]
    svg: bool,
    /// The aggregate view and the patterns as a standalone HTML page (the default).
    #[arg(long, group = "what")]
    html: bool,
    /// Write here instead of standard output.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: ShowArgs) -> anyhow::Result<()> {
    let design = super::read(&args.file)?;
    let text = if args.markdown {
        show::markdown(&design)
    } else if args.svg {
        show::svg(&design)
    } else {
        show::html(&design)
    };
    super::emit(args.output.as_deref(), &text)
}
