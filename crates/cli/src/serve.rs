//! `monotable serve` (being written).

/// Arguments of `monotable serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {}

pub fn run(_args: ServeArgs) -> anyhow::Result<()> {
    anyhow::bail!("monotable serve is not built yet")
}
