//! [`Options`] shared by export, import and copy, and the [`Report`] they return.

use std::path::PathBuf;
use std::sync::Arc;

use crate::{Backoff, ProgressMode, RateLimiter, RateUnit};

/// How to run a transfer.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Parallel Scan segments (export, copy) or parallel writers (import).
    pub segments: u32,
    /// A rate limit, shared by all segments: units per second and what they count.
    pub rate: Option<(f64, RateUnit)>,
    /// Items per Scan page (Scan's `Limit`). Default: none (1 MB pages), or one second of
    /// the rate per segment when an item rate is set, so that checkpoints stay frequent.
    pub page_size: Option<u32>,
    /// Continue an interrupted run from its checkpoint.
    pub resume: bool,
    /// Where the checkpoint lives; each operation has a default next to its output.
    pub checkpoint: Option<PathBuf>,
    /// How progress is shown.
    pub progress: ProgressMode,
    /// Pauses between retries of throttled calls and unprocessed items.
    pub backoff: Backoff,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            segments: 4,
            rate: None,
            page_size: None,
            resume: false,
            checkpoint: None,
            progress: ProgressMode::Quiet,
            backoff: Backoff::default(),
        }
    }
}

impl Options {
    /// The Scan page size to use (see [`Options::page_size`]).
    pub(crate) fn scan_page_size(&self) -> Option<u32> {
        self.page_size.or(match self.rate {
            Some((rate, RateUnit::Items)) => Some(((rate / f64::from(self.segments.max(1))) as u32).max(25)),
            _ => None,
        })
    }

    pub(crate) fn limiter(&self) -> Option<(Arc<RateLimiter>, RateUnit)> {
        let (rate, unit) = self.rate?;
        Some((Arc::new(RateLimiter::new(rate)?), unit))
    }
}

/// What a transfer did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Items transferred, by this run and the interrupted runs it resumed.
    pub items: u64,
    /// Bytes transferred (for an export: of the uncompressed lines).
    pub bytes: u64,
    /// Items an interrupted run had already transferred.
    pub resumed_items: u64,
    /// The target table was created from the source's definition.
    pub created_table: bool,
}
