//! What `export`, `import` and `copy` share when they talk to an endpoint rather than a data
//! directory: the transfer options, the `URL/TABLE` syntax, and a runtime that turns Ctrl-C
//! into a clean stop (the checkpoint stays consistent; a rerun with --resume continues).

use std::future::Future;
use std::path::PathBuf;

use monotable_transfer::{Options, ProgressMode, RateUnit, Report};

/// Options of every transfer with an endpoint. The capacity limits are in [`ReadLimit`] and
/// [`WriteLimit`], flattened only into the commands that read or write with them, so that no
/// command lists an option it ignores.
#[derive(Debug, Clone, clap::Args)]
pub struct TransferArgs {
    /// Parallel Scan segments (export, copy) or parallel writers (import).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1000))]
    segments: u32,
    /// Limit the transfer to this many items per second (all segments together).
    #[arg(long, value_name = "ITEMS", group = "rate_limit")]
    rate: Option<f64>,
    /// Continue an interrupted run from its checkpoint.
    #[arg(long)]
    resume: bool,
    /// The checkpoint directory (default: next to the output file, or in the working directory
    /// for copy).
    #[arg(long, value_name = "DIR")]
    checkpoint: Option<PathBuf>,
}

/// The options of a transfer that scans a table (export, copy).
#[derive(Debug, Clone, clap::Args)]
pub struct ReadLimit {
    /// Limit reads to this many read capacity units per second.
    #[arg(long, value_name = "UNITS", group = "rate_limit")]
    max_rcu: Option<f64>,
    /// Items per Scan page (Scan's Limit). Default: 1 MB pages.
    #[arg(long, value_name = "ITEMS")]
    page_size: Option<u32>,
}

/// The options of a transfer that writes a table (import, copy).
#[derive(Debug, Clone, clap::Args)]
pub struct WriteLimit {
    /// Limit writes to this many write capacity units per second.
    #[arg(long, value_name = "UNITS", group = "rate_limit")]
    max_wcu: Option<f64>,
}

impl TransferArgs {
    /// The library's options for these arguments and the command's limits, if it has them.
    /// At most one rate limit is given: the options share the clap group `rate_limit`.
    pub fn options(&self, read: Option<&ReadLimit>, write: Option<&WriteLimit>) -> anyhow::Result<Options> {
        let mut o = Options::default();
        o.segments = self.segments;
        o.page_size = read.and_then(|r| r.page_size);
        o.resume = self.resume;
        o.checkpoint = self.checkpoint.clone();
        o.progress = ProgressMode::for_stderr();
        let units = write.and_then(|w| w.max_wcu).or(read.and_then(|r| r.max_rcu));
        let rate = match (self.rate, units) {
            (Some(r), _) => Some((r, RateUnit::Items)),
            (None, Some(units)) => Some((units, RateUnit::CapacityUnits)),
            (None, None) => None,
        };
        if let Some((r, _)) = rate {
            anyhow::ensure!(r.is_finite() && r > 0.0, "a rate limit must be a positive number, not {r}");
        }
        o.rate = rate;
        Ok(o)
    }
}

/// Splits `URL/TABLE` (or `aws/TABLE` for Amazon DynamoDB) at its last slash.
pub fn split_table_ref(text: &str) -> anyhow::Result<(String, String)> {
    match text.rsplit_once('/') {
        Some((endpoint, table)) if !endpoint.is_empty() && !table.is_empty() && !endpoint.ends_with('/') => {
            Ok((endpoint.to_owned(), table.to_owned()))
        }
        _ => {
            anyhow::bail!("{text:?} is not ENDPOINT/TABLE (e.g. http://127.0.0.1:8000/Orders, or aws/Orders)")
        }
    }
}

/// Runs a transfer on a new runtime. Ctrl-C stops it between two awaits, where every
/// checkpoint file is whole, and says how to resume.
pub fn run<F>(checkpoint_hint: String, work: impl FnOnce() -> F) -> anyhow::Result<Report>
where
    F: Future<Output = Result<Report, monotable_transfer::TransferError>>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        tokio::select! {
            result = work() => Ok(result?),
            _ = tokio::signal::ctrl_c() => {
                anyhow::bail!("interrupted: the checkpoint in {checkpoint_hint} is consistent; rerun with --resume to continue")
            }
        }
    })
}

/// The closing line of a transfer.
pub fn summary(verb: &str, report: &Report, what: &str) -> String {
    let resumed = if report.resumed_items > 0 {
        format!(" ({} of them by the interrupted run resumed)", report.resumed_items)
    } else {
        String::new()
    };
    let created =
        if report.created_table { "; the target table was created from the definition" } else { "" };
    format!("{verb} {} items ({} bytes){resumed} {what}{created}", report.items, report.bytes)
}

#[cfg(test)]
mod tests {
    use super::split_table_ref;

    #[test]
    fn a_table_reference_splits_at_its_last_slash() {
        let (e, t) = split_table_ref("http://127.0.0.1:8000/Orders").expect("valid");
        assert_eq!((e.as_str(), t.as_str()), ("http://127.0.0.1:8000", "Orders"));
        let (e, t) = split_table_ref("aws/Orders").expect("valid");
        assert_eq!((e.as_str(), t.as_str()), ("aws", "Orders"));
        for bad in ["Orders", "http://127.0.0.1:8000/", "/Orders", "http://x"] {
            assert!(split_table_ref(bad).is_err(), "{bad}");
        }
    }
}
