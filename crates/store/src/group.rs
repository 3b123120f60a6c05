//! Group commit: one `fdatasync` of the journal covers every commit written before it began.
//!
//! Invariant: a caller of [`GroupSync::wait_durable`] has already written its batch to the
//! operating system, and its ticket is taken afterwards; a flush that read `written >= ticket`
//! before starting therefore covers that batch. Only one flush runs at a time; commits that
//! arrive during it wait and are all covered by the next one.

use std::time::Duration;

use parking_lot::{Condvar, Mutex};

#[derive(Default)]
struct State {
    /// Tickets handed out: commits written to the OS so far.
    written: u64,
    /// Every ticket up to this one is on stable storage.
    synced: u64,
    /// A flush is running.
    flushing: bool,
    /// The last flush failed: the store is unusable (fjall poisons itself too).
    failed: Option<String>,
}

/// Coordinates group commits for one store.
pub(crate) struct GroupSync {
    state: Mutex<State>,
    done: Condvar,
    max_delay: Duration,
}

impl GroupSync {
    pub(crate) fn new(max_delay: Duration) -> GroupSync {
        GroupSync { state: Mutex::new(State::default()), done: Condvar::new(), max_delay }
    }

    /// Returns once a flush that started after the caller's write has completed, running it
    /// itself when no flush is in progress. `flush` makes everything written so far durable.
    pub(crate) fn wait_durable(&self, flush: &dyn Fn() -> Result<(), String>) -> Result<(), String> {
        let mut state = self.state.lock();
        state.written += 1;
        let ticket = state.written;
        loop {
            if let Some(e) = &state.failed {
                return Err(e.clone());
            }
            if state.synced >= ticket {
                return Ok(());
            }
            if state.flushing {
                self.done.wait(&mut state);
                continue;
            }
            state.flushing = true;
            drop(state);
            if !self.max_delay.is_zero() {
                std::thread::sleep(self.max_delay);
            }
            let target = self.state.lock().written;
            let result = flush();
            state = self.state.lock();
            state.flushing = false;
            match result {
                Ok(()) => state.synced = state.synced.max(target),
                Err(e) => state.failed = Some(e),
            }
            self.done.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    #[test]
    fn concurrent_commits_share_flushes_and_all_return() {
        let sync = Arc::new(GroupSync::new(Duration::ZERO));
        let flushes = Arc::new(AtomicU64::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let sync = Arc::clone(&sync);
                let flushes = Arc::clone(&flushes);
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        sync.wait_durable(&|| {
                            flushes.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(Duration::from_micros(200));
                            Ok(())
                        })
                        .expect("flush ok");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("no panic");
        }
        let n = flushes.load(Ordering::SeqCst);
        assert!((1..=400).contains(&n), "{n} flushes for 400 commits");
    }

    #[test]
    fn a_failed_flush_fails_every_later_commit() {
        let sync = GroupSync::new(Duration::ZERO);
        assert!(sync.wait_durable(&|| Err("disk gone".into())).is_err());
        assert_eq!(sync.wait_durable(&|| Ok(())), Err("disk gone".into()));
    }
}
