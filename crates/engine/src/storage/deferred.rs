//! Deferred durability: a caller that can wait asynchronously runs engine calls inside
//! [`defer_sync`], and a durable [`Storage`](super::Storage) that would block in `commit` until
//! its write reaches the device hands back a [`PendingSync`] instead.
//!
//! Without a scope (the embedded engine, background sweepers) a durable commit waits inside
//! `commit` as it always did. Inside a scope it writes the batch to the operating system, takes
//! a ticket and returns at once; the caller awaits the ticket after the engine call has
//! returned, and so after every lock the call took is released. The server does this, so that
//! no worker thread waits for a device flush and no engine lock is held across one.
//!
//! Invariant: a call's effects become visible to readers when its batch is written, before it
//! is durable, as they already were while a committer waited for its flush. What deferral
//! changes is only *where* the wait happens: a client still gets no answer until every batch
//! its request wrote is durable, because the ticket covers them all (tickets of one store are
//! ordered, and a flush covers every ticket up to the one it was started for).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::StorageError;

/// Something that makes writes durable in ticket order (a durable store's group commit).
pub trait SyncWaiter: Send + Sync {
    /// Ready once every write up to `ticket` is durable (or the store has failed); otherwise
    /// arranges for `cx`'s waker to be woken when that may have changed.
    fn poll_synced(&self, ticket: u64, cx: &mut Context<'_>) -> Poll<Result<(), StorageError>>;
    /// Blocks until every write up to `ticket` is durable.
    fn wait_synced(&self, ticket: u64) -> Result<(), StorageError>;
}

/// Writes of one engine call that are in the operating system but not yet known durable; a
/// future that completes when they are.
#[must_use = "a deferred write is acknowledged only once it is durable"]
pub struct PendingSync {
    waiter: Arc<dyn SyncWaiter>,
    ticket: u64,
}

impl PendingSync {
    /// Blocks until the writes are durable (for callers outside an async runtime).
    pub fn wait(self) -> Result<(), StorageError> {
        self.waiter.wait_synced(self.ticket)
    }
}

impl Future for PendingSync {
    type Output = Result<(), StorageError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.waiter.poll_synced(self.ticket, cx)
    }
}

impl std::fmt::Debug for PendingSync {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSync").field("ticket", &self.ticket).finish_non_exhaustive()
    }
}

thread_local! {
    /// `None` outside a scope; inside one, the pending sync gathered so far.
    static SCOPE: RefCell<Option<Option<PendingSync>>> = const { RefCell::new(None) };
}

/// Runs `f` with durability deferred (see the module docs) and returns its result together
/// with what the caller must await before it acknowledges anything `f` wrote. Scopes do not
/// nest: an inner scope's writes are handed to the outer scope's caller.
pub fn defer_sync<R>(f: impl FnOnce() -> R) -> (R, Option<PendingSync>) {
    /// Leaves the scope even when `f` unwinds, so that the thread is never left deferring.
    struct Leave(bool);
    impl Drop for Leave {
        fn drop(&mut self) {
            if self.0 {
                SCOPE.with(|s| s.borrow_mut().take());
            }
        }
    }
    let entered = SCOPE.with(|s| {
        let mut s = s.borrow_mut();
        let enter = s.is_none();
        if enter {
            *s = Some(None);
        }
        enter
    });
    let leave = Leave(entered);
    let result = f();
    let pending = if entered { SCOPE.with(|s| s.borrow_mut().take().flatten()) } else { None };
    drop(leave);
    (result, pending)
}

/// Called by a durable storage after it has written a batch with `ticket`: inside a
/// [`defer_sync`] scope the ticket is kept for the scope's caller and this returns `true`;
/// otherwise (or when the scope already waits on a different storage) it returns `false` and
/// the storage must wait itself.
pub fn defer(waiter: &Arc<dyn SyncWaiter>, ticket: u64) -> bool {
    SCOPE.with(|s| match &mut *s.borrow_mut() {
        None => false,
        Some(slot @ None) => {
            *slot = Some(PendingSync { waiter: Arc::clone(waiter), ticket });
            true
        }
        Some(Some(p)) if Arc::ptr_eq(&p.waiter, waiter) => {
            p.ticket = p.ticket.max(ticket);
            true
        }
        Some(Some(_)) => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A waiter whose writes are durable up to `synced`; records what it was asked.
    #[derive(Default)]
    struct Fake {
        synced: Mutex<u64>,
    }

    impl SyncWaiter for Fake {
        fn poll_synced(&self, ticket: u64, cx: &mut Context<'_>) -> Poll<Result<(), StorageError>> {
            if *self.synced.lock().unwrap() >= ticket {
                Poll::Ready(Ok(()))
            } else {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
        fn wait_synced(&self, ticket: u64) -> Result<(), StorageError> {
            let mut synced = self.synced.lock().unwrap();
            *synced = (*synced).max(ticket);
            Ok(())
        }
    }

    #[test]
    fn outside_a_scope_a_storage_must_wait_itself() {
        let waiter: Arc<dyn SyncWaiter> = Arc::new(Fake::default());
        assert!(!defer(&waiter, 1));
    }

    #[test]
    fn a_scope_keeps_the_highest_ticket_of_its_writes() {
        let waiter: Arc<dyn SyncWaiter> = Arc::new(Fake::default());
        let ((), pending) = defer_sync(|| {
            assert!(defer(&waiter, 7));
            assert!(defer(&waiter, 3));
            assert!(defer(&waiter, 9));
        });
        assert_eq!(pending.expect("deferred").ticket, 9);
        let ((), none) = defer_sync(|| ());
        assert!(none.is_none(), "a call that wrote nothing has nothing to await");
        assert!(!defer(&waiter, 1), "the scope ended with the call");
    }

    #[test]
    fn a_second_storage_in_one_scope_waits_itself() {
        let first: Arc<dyn SyncWaiter> = Arc::new(Fake::default());
        let second: Arc<dyn SyncWaiter> = Arc::new(Fake::default());
        let ((), pending) = defer_sync(|| {
            assert!(defer(&first, 2));
            assert!(!defer(&second, 5));
        });
        let pending = pending.expect("deferred");
        assert!(Arc::ptr_eq(&pending.waiter, &first));
        assert_eq!(pending.ticket, 2);
    }

    #[test]
    fn an_inner_scope_hands_its_writes_to_the_outer_one() {
        let waiter: Arc<dyn SyncWaiter> = Arc::new(Fake::default());
        let (inner, outer) = defer_sync(|| defer_sync(|| defer(&waiter, 4)));
        let (deferred, inner_pending) = inner;
        assert!(deferred);
        assert!(inner_pending.is_none());
        assert_eq!(outer.expect("deferred").ticket, 4);
    }

    #[test]
    fn a_panicking_call_leaves_the_scope() {
        let waiter: Arc<dyn SyncWaiter> = Arc::new(Fake::default());
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            defer_sync(|| {
                defer(&waiter, 1);
                panic!("boom")
            })
        }));
        assert!(caught.is_err());
        assert!(!defer(&waiter, 2), "the thread no longer defers");
    }

    #[test]
    fn the_pending_sync_completes_when_the_waiter_has_synced_its_ticket() {
        let fake = Arc::new(Fake::default());
        let waiter: Arc<dyn SyncWaiter> = fake.clone();
        let ((), pending) = defer_sync(|| assert!(defer(&waiter, 3)));
        let mut pending = pending.expect("deferred");
        let mut cx = Context::from_waker(std::task::Waker::noop());
        assert!(Pin::new(&mut pending).poll(&mut cx).is_pending());
        *fake.synced.lock().unwrap() = 3;
        assert_eq!(Pin::new(&mut pending).poll(&mut cx), Poll::Ready(Ok(())));
        assert_eq!(pending.wait(), Ok(()));
    }
}
