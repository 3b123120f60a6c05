//! `monotable bench` (being written).

/// Arguments of `monotable bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {}

pub fn run(_args: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("monotable bench is not built yet")
}
