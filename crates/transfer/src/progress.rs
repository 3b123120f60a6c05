//! Progress: a bar (items, bytes, rate, ETA) on a terminal, a plain log line every few
//! seconds otherwise, or nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProgressMode {
    /// A progress bar on standard error (for a terminal).
    Bar,
    /// A log line on standard error every `interval` (for logs and pipes).
    Log { interval: Duration },
    /// Nothing.
    Quiet,
}

impl ProgressMode {
    /// A bar when standard error is a terminal, log lines every 10 s otherwise.
    pub fn for_stderr() -> ProgressMode {
        use std::io::IsTerminal;
        if std::io::stderr().is_terminal() {
            ProgressMode::Bar
        } else {
            ProgressMode::Log { interval: Duration::from_secs(10) }
        }
    }
}

/// The progress of one run, shared by its segments.
#[derive(Debug)]
pub struct Progress {
    verb: &'static str,
    mode: ProgressMode,
    bar: Option<ProgressBar>,
    total: Option<u64>,
    items: AtomicU64,
    bytes: AtomicU64,
    started: Instant,
    /// Items already done by an earlier run (not counted in the rate).
    resumed: u64,
    last_log: Mutex<Instant>,
}

impl Progress {
    /// Progress of `verb` ("exported", "imported", "copied") towards `total` items if known,
    /// starting from what an interrupted run already did.
    pub fn new(
        verb: &'static str,
        mode: ProgressMode,
        total: Option<u64>,
        done_items: u64,
        done_bytes: u64,
    ) -> Progress {
        let bar = (mode == ProgressMode::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
            let template = if total.is_some() {
                "{spinner} {prefix} [{bar:30}] {human_pos}/{human_len} items, {msg} ({rate}, eta {eta})"
            } else {
                "{spinner} {prefix} {human_pos} items, {msg} ({rate})"
            };
            bar.set_style(
                ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.0} items/s", state.per_sec());
                    })
                    .progress_chars("=> "),
            );
            bar.set_prefix(verb);
            bar.set_position(done_items);
            bar.reset_eta();
            bar.set_message(HumanBytes(done_bytes).to_string());
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Progress {
            verb,
            mode,
            bar,
            total,
            items: AtomicU64::new(done_items),
            bytes: AtomicU64::new(done_bytes),
            started: Instant::now(),
            resumed: done_items,
            last_log: Mutex::new(Instant::now()),
        }
    }

    /// Counts `items` more items of `bytes` bytes.
    pub fn add(&self, items: u64, bytes: u64) {
        let done = self.items.fetch_add(items, Ordering::Relaxed) + items;
        let size = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(HumanBytes(size).to_string());
        }
        if let ProgressMode::Log { interval } = self.mode {
            let mut last = self.last_log.lock().unwrap_or_else(|p| p.into_inner());
            if last.elapsed() >= interval {
                *last = Instant::now();
                drop(last);
                eprintln!("{}", self.line());
            }
        }
    }

    /// Items counted so far (resumed ones included).
    pub fn items(&self) -> u64 {
        self.items.load(Ordering::Relaxed)
    }

    /// Bytes counted so far (resumed ones included).
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// A one-line summary: items, bytes and rate.
    pub fn line(&self) -> String {
        let items = self.items();
        let of = self.total.map(|t| format!("/{t}")).unwrap_or_default();
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = (items - self.resumed) as f64 / secs;
        format!("{} {items}{of} items, {} ({rate:.0} items/s)", self.verb, HumanBytes(self.bytes()))
    }

    /// Stops the bar, leaving its last state on the terminal, on a line of its own.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
            eprintln!();
        }
    }
}
