//! Group commit: one `fdatasync` of the journal covers every commit written before it began.
//!
//! A committer writes its batch to the operating system, then takes a ticket ([`GroupSync::
//! ticket`]). It waits for that ticket in one of two ways:
//!
//! * **Blocking** ([`GroupSync::wait_durable`]): when no flush is running the committer runs
//!   one itself; otherwise it sleeps until a flush completes, and repeats until its ticket is
//!   covered.
//! * **Asynchronously** ([`SyncWaiter::poll_synced`], reached through the engine's deferred
//!   durability): the task leaves its waker and is woken after a flush that covers its
//!   ticket. A flusher thread of the store's own runs those flushes, so no async worker ever
//!   waits on the device. Many tasks share one flush and one wake-up of their worker, where a
//!   blocking committer costs a thread hand-off each way.
//!
//! Invariants:
//! * A ticket is taken after its batch has been written to the operating system, and a flush
//!   reads its target (`written`) before it starts; a flush that succeeds therefore makes
//!   every ticket up to its target durable, and `synced` only grows.
//! * Only one flush runs at a time (`flushing`); commits that arrive during it are covered by
//!   the next one, which starts as soon as it ends if anyone still waits.
//! * After a flush fails, every wait fails with its error: fjall poisons itself too, and a
//!   journal whose tail may not be on the device must not acknowledge anything more.
//! * Every waker left with a ticket is woken once `synced` reaches it or a flush fails, and
//!   closing the store (`close`) flushes everything written before it ends the flusher.

use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::thread::JoinHandle;
use std::time::Duration;

use monotable_engine::{StorageError, SyncWaiter};
use parking_lot::{Condvar, Mutex, MutexGuard};

/// Makes everything written to the journal so far durable.
pub(crate) type Flush = Box<dyn Fn() -> Result<(), String> + Send + Sync>;

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
    /// Tasks waiting for their ticket, woken after the flush that covers it.
    wakers: Vec<(u64, Waker)>,
    /// The highest ticket a task waits for: the flusher runs while `synced` is below it.
    wanted: u64,
    /// The store is closing: the flusher makes the last writes durable and ends.
    closed: bool,
}

/// Coordinates group commits for one store.
pub(crate) struct GroupSync {
    state: Mutex<State>,
    /// Blocking committers wait here for a flush to end.
    done: Condvar,
    /// The flusher thread waits here for work.
    work: Condvar,
    max_delay: Duration,
    flush: Flush,
    flusher: Mutex<Option<JoinHandle<()>>>,
}

impl GroupSync {
    /// A group commit over `flush`, with its flusher thread running. `max_delay` is an extra
    /// wait before each flush to gather more commits. Call [`GroupSync::close`] when done.
    pub(crate) fn start(max_delay: Duration, flush: Flush) -> std::io::Result<Arc<GroupSync>> {
        let sync = Arc::new(GroupSync {
            state: Mutex::new(State::default()),
            done: Condvar::new(),
            work: Condvar::new(),
            max_delay,
            flush,
            flusher: Mutex::new(None),
        });
        let runner = Arc::clone(&sync);
        let handle = std::thread::Builder::new()
            .name("monotable-flusher".into())
            .spawn(move || runner.run_flusher())?;
        *sync.flusher.lock() = Some(handle);
        Ok(sync)
    }

    /// Takes the ticket of a commit the caller has just written to the operating system.
    pub(crate) fn ticket(&self) -> u64 {
        let mut state = self.state.lock();
        state.written += 1;
        state.written
    }

    /// Returns once a flush that started after the caller's write has completed, running it
    /// itself when no flush is in progress.
    pub(crate) fn wait_durable(&self, ticket: u64) -> Result<(), String> {
        let mut state = self.state.lock();
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
            state = self.flush_once(state);
        }
    }

    /// Makes everything written so far durable and stops the flusher thread. Waits that are
    /// still pending complete (the final flush covers them).
    pub(crate) fn close(&self) {
        self.state.lock().closed = true;
        self.work.notify_all();
        if let Some(handle) = self.flusher.lock().take() {
            // The flusher never panics on its own; a panic in `flush` has already been
            // reported by the panic hook and leaves nothing to recover here.
            let _ = handle.join();
        }
    }

    /// Runs one flush with the state unlocked, records its outcome and wakes whoever it
    /// concerns. Called only when no flush is running.
    fn flush_once<'a>(&'a self, mut state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        debug_assert!(!state.flushing);
        state.flushing = true;
        drop(state);
        if !self.max_delay.is_zero() {
            std::thread::sleep(self.max_delay);
        }
        let target = self.state.lock().written;
        let result = (self.flush)();
        let mut state = self.state.lock();
        state.flushing = false;
        match result {
            Ok(()) => state.synced = state.synced.max(target),
            Err(e) => state.failed = Some(e),
        }
        let (synced, failed) = (state.synced, state.failed.is_some());
        state.wakers.retain(|(ticket, waker)| {
            let ready = failed || *ticket <= synced;
            if ready {
                waker.wake_by_ref();
            }
            !ready
        });
        self.done.notify_all();
        // The flusher (when it did not run this flush) may have more to do: a task waiting
        // for a later ticket, or a close waiting for this flush to end.
        if state.closed || (!failed && state.wanted > state.synced) {
            self.work.notify_one();
        }
        state
    }

    /// The flusher thread: flushes while a task waits for a ticket beyond `synced`, and on
    /// close flushes whatever was written before it ends.
    fn run_flusher(&self) {
        let mut state = self.state.lock();
        loop {
            let behind = if state.closed { state.written } else { state.wanted };
            if !state.flushing && state.failed.is_none() && behind > state.synced {
                state = self.flush_once(state);
                continue;
            }
            if state.closed && !state.flushing {
                return;
            }
            self.work.wait(&mut state);
        }
    }
}

impl SyncWaiter for GroupSync {
    fn poll_synced(&self, ticket: u64, cx: &mut Context<'_>) -> Poll<Result<(), StorageError>> {
        let mut state = self.state.lock();
        if let Some(e) = &state.failed {
            return Poll::Ready(Err(StorageError::Io(e.clone())));
        }
        if state.synced >= ticket {
            return Poll::Ready(Ok(()));
        }
        state.wakers.push((ticket, cx.waker().clone()));
        state.wanted = state.wanted.max(ticket);
        if !state.flushing {
            self.work.notify_one();
        }
        Poll::Pending
    }

    fn wait_synced(&self, ticket: u64) -> Result<(), StorageError> {
        self.wait_durable(ticket).map_err(StorageError::Io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::task::Wake;

    fn counting(flushes: &Arc<AtomicU64>, pause: Duration) -> Flush {
        let flushes = Arc::clone(flushes);
        Box::new(move || {
            flushes.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(pause);
            Ok(())
        })
    }

    /// A waker that counts its wake-ups and unparks the waiting thread.
    struct Unpark(std::thread::Thread, AtomicU64);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.1.fetch_add(1, Ordering::SeqCst);
            self.0.unpark();
        }
    }

    /// Polls `ticket` to completion on this thread the way an executor would: polling again
    /// only after a wake-up. A wake-up that never comes fails the test instead of hanging it.
    fn block_on_ticket(sync: &GroupSync, ticket: u64) -> (Result<(), StorageError>, u64) {
        let unpark = Arc::new(Unpark(std::thread::current(), AtomicU64::new(0)));
        let waker = Waker::from(Arc::clone(&unpark));
        let mut cx = Context::from_waker(&waker);
        loop {
            let wakes = unpark.1.load(Ordering::SeqCst);
            if let Poll::Ready(r) = sync.poll_synced(ticket, &mut cx) {
                return (r, unpark.1.load(Ordering::SeqCst));
            }
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while unpark.1.load(Ordering::SeqCst) == wakes {
                assert!(std::time::Instant::now() < deadline, "ticket {ticket} was never woken");
                std::thread::park_timeout(Duration::from_millis(100));
            }
        }
    }

    #[test]
    fn concurrent_commits_share_flushes_and_all_return() {
        let flushes = Arc::new(AtomicU64::new(0));
        let sync = GroupSync::start(Duration::ZERO, counting(&flushes, Duration::from_micros(200))).unwrap();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let sync = Arc::clone(&sync);
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let ticket = sync.ticket();
                        sync.wait_durable(ticket).expect("flush ok");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("no panic");
        }
        sync.close();
        let n = flushes.load(Ordering::SeqCst);
        assert!((1..=400).contains(&n), "{n} flushes for 400 commits");
    }

    #[test]
    fn a_failed_flush_fails_every_later_commit() {
        let sync = GroupSync::start(Duration::ZERO, Box::new(|| Err("disk gone".into()))).unwrap();
        let first = sync.ticket();
        assert!(sync.wait_durable(first).is_err());
        let second = sync.ticket();
        assert_eq!(sync.wait_durable(second), Err("disk gone".into()));
        let third = sync.ticket();
        assert_eq!(block_on_ticket(&sync, third).0, Err(StorageError::Io("disk gone".into())));
        sync.close();
    }

    #[test]
    fn an_async_waiter_is_woken_by_the_flusher_thread_after_its_flush() {
        let flushes = Arc::new(AtomicU64::new(0));
        let sync = GroupSync::start(Duration::ZERO, counting(&flushes, Duration::ZERO)).unwrap();
        let ticket = sync.ticket();
        let (result, wakes) = block_on_ticket(&sync, ticket);
        assert_eq!(result, Ok(()));
        assert!(wakes >= 1, "completed by a wake-up, not by polling alone");
        assert!(flushes.load(Ordering::SeqCst) >= 1, "the ticket was flushed");
        // A ticket already covered is ready at once, without another flush.
        let before = flushes.load(Ordering::SeqCst);
        assert_eq!(block_on_ticket(&sync, ticket), (Ok(()), 0));
        assert_eq!(flushes.load(Ordering::SeqCst), before);
        sync.close();
    }

    #[test]
    fn async_waiters_share_flushes_with_blocking_committers() {
        let flushes = Arc::new(AtomicU64::new(0));
        let sync = GroupSync::start(Duration::ZERO, counting(&flushes, Duration::from_micros(300))).unwrap();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let sync = Arc::clone(&sync);
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let ticket = sync.ticket();
                        if i % 2 == 0 {
                            sync.wait_durable(ticket).expect("flush ok");
                        } else {
                            assert_eq!(block_on_ticket(&sync, ticket).0, Ok(()));
                        }
                        assert!(sync.state.lock().synced >= ticket);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("no panic");
        }
        let n = flushes.load(Ordering::SeqCst);
        assert!((1..400).contains(&n), "{n} flushes for 400 commits");
        assert!(sync.state.lock().wakers.is_empty(), "every waker was woken and dropped");
        sync.close();
    }

    #[test]
    fn closing_flushes_what_was_written_and_stops_the_flusher() {
        let flushes = Arc::new(AtomicU64::new(0));
        let sync = GroupSync::start(Duration::ZERO, counting(&flushes, Duration::ZERO)).unwrap();
        let ticket = sync.ticket();
        sync.close();
        assert_eq!(flushes.load(Ordering::SeqCst), 1, "the last write was flushed on close");
        assert!(sync.flusher.lock().is_none());
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(sync.poll_synced(ticket, &mut cx), Poll::Ready(Ok(())));
        // A pending sync is a future over the same state.
        let waiter: Arc<dyn SyncWaiter> = sync;
        let ((), pending) = monotable_engine::defer_sync(|| {
            assert!(monotable_engine::storage::defer(&waiter, ticket));
        });
        let mut pending = pending.expect("deferred");
        assert_eq!(std::pin::Pin::new(&mut pending).poll(&mut cx), Poll::Ready(Ok(())));
    }
}
