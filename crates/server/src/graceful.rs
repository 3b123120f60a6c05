//! Graceful shutdown of connections: on shutdown every watched connection finishes the request
//! it is on and closes, and [`Shutdown::shutdown`] waits until all of them have ended.
//!
//! This does what hyper-util's `GracefulShutdown` does, at less cost per request. That one
//! polls its shutdown signal (a `watch` channel's `changed()`, which locks a mutex to store the
//! waker) every time the connection is polled, about 450 instructions per request, a
//! fiftieth of a GetItem. Here a poll reads one atomic flag; the signal is polled only when
//! the task's waker is new, which for a tokio task is once per connection.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use tokio::sync::futures::OwnedNotified;
use tokio::sync::Notify;

/// A connection that can be told to finish its current request and close.
pub(crate) trait GracefulConnection: Future {
    fn graceful_shutdown(self: Pin<&mut Self>);
}

impl<I, S, B> GracefulConnection for hyper::server::conn::http1::Connection<I, S>
where
    S: hyper::service::HttpService<hyper::body::Incoming, ResBody = B>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    I: hyper::rt::Read + hyper::rt::Write + Unpin + 'static,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    fn graceful_shutdown(self: Pin<&mut Self>) {
        hyper::server::conn::http1::Connection::graceful_shutdown(self)
    }
}

struct Shared {
    /// Set once, before `stop` is notified.
    stopping: AtomicBool,
    stop: Arc<Notify>,
    /// Watched connections that have not ended.
    live: AtomicUsize,
    /// Notified when `live` drops to zero.
    ended: Notify,
}

/// The shutdown signal for a set of connections.
pub(crate) struct Shutdown {
    shared: Arc<Shared>,
}

impl Shutdown {
    pub(crate) fn new() -> Shutdown {
        Shutdown {
            shared: Arc::new(Shared {
                stopping: AtomicBool::new(false),
                stop: Arc::new(Notify::new()),
                live: AtomicUsize::new(0),
                ended: Notify::new(),
            }),
        }
    }

    /// Wraps `connection` so that it shuts down gracefully when [`Shutdown::shutdown`] is
    /// called, and counts it until it ends (the wrapper is dropped).
    pub(crate) fn watch<C: GracefulConnection>(&self, connection: C) -> Watched<C> {
        self.shared.live.fetch_add(1, Ordering::SeqCst);
        Watched {
            connection: Box::pin(connection),
            // Created now, so that a shutdown signalled before the first poll still counts.
            stop: Box::pin(self.shared.stop.clone().notified_owned()),
            waker: None,
            stopping: false,
            shared: self.shared.clone(),
        }
    }

    /// Watched connections that have not ended.
    pub(crate) fn count(&self) -> usize {
        self.shared.live.load(Ordering::SeqCst)
    }

    /// A handle that reads [`Shutdown::count`] without owning the signal.
    pub(crate) fn live(&self) -> Live {
        Live(self.shared.clone())
    }

    /// Tells every watched connection to finish and close, and waits until all have ended.
    pub(crate) async fn shutdown(self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        self.shared.stop.notify_waiters();
        loop {
            // Created before the count is read: a connection that ends in between notifies it.
            let ended = self.shared.ended.notified();
            if self.shared.live.load(Ordering::SeqCst) == 0 {
                return;
            }
            ended.await;
        }
    }
}

/// The number of live connections of a [`Shutdown`], readable from the connections' tasks.
#[derive(Clone)]
pub(crate) struct Live(Arc<Shared>);

impl Live {
    /// Watched connections that have not ended, read without ordering: a hint, not a barrier.
    pub(crate) fn count(&self) -> usize {
        self.0.live.load(Ordering::Relaxed)
    }
}

/// A connection under a [`Shutdown`], counted among its live connections until dropped.
pub(crate) struct Watched<C> {
    connection: Pin<Box<C>>,
    stop: Pin<Box<OwnedNotified>>,
    /// The waker `stop` was last polled with; `None` before the first poll.
    waker: Option<Waker>,
    /// Whether the connection has been told to shut down.
    stopping: bool,
    shared: Arc<Shared>,
}

impl<C> Drop for Watched<C> {
    fn drop(&mut self) {
        if self.shared.live.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.shared.ended.notify_waiters();
        }
    }
}

impl<C: GracefulConnection> Future for Watched<C> {
    type Output = C::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<C::Output> {
        let this = &mut *self;
        if !this.stopping {
            // `stop` holds a registration with the waker it was polled with, and shutdown
            // sets the flag before it wakes that waker; so while the waker stays the same,
            // the flag alone tells whether shutdown has begun.
            let mut stop = this.shared.stopping.load(Ordering::Acquire);
            if !stop && !this.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                stop = this.stop.as_mut().poll(cx).is_ready();
                this.waker = Some(cx.waker().clone());
            }
            if stop {
                this.stopping = true;
                this.connection.as_mut().graceful_shutdown();
            }
        }
        this.connection.as_mut().poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A connection that ends when told to shut down, and counts its polls.
    struct Idle {
        told: bool,
        polls: Arc<AtomicUsize>,
    }

    impl Future for Idle {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            if self.told {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }
    }

    impl GracefulConnection for Idle {
        fn graceful_shutdown(mut self: Pin<&mut Self>) {
            self.told = true;
        }
    }

    fn idle() -> (Idle, Arc<AtomicUsize>) {
        let polls = Arc::new(AtomicUsize::new(0));
        (Idle { told: false, polls: polls.clone() }, polls)
    }

    #[tokio::test]
    async fn shutdown_wakes_idle_connections_and_waits_for_them() {
        let shutdown = Shutdown::new();
        let mut tasks = Vec::new();
        for _ in 0..3 {
            let (conn, polls) = idle();
            tasks.push((tokio::spawn(shutdown.watch(conn)), polls));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(shutdown.count(), 3);
        tokio::time::timeout(Duration::from_secs(5), shutdown.shutdown())
            .await
            .expect("shutdown waits too long");
        for (task, polls) in tasks {
            task.await.unwrap();
            assert_eq!(polls.load(Ordering::SeqCst), 2, "polled once idle, once after the signal");
        }
    }

    #[tokio::test]
    async fn a_connection_first_polled_after_shutdown_stops_at_once() {
        let shutdown = Shutdown::new();
        let (conn, _) = idle();
        let watched = shutdown.watch(conn);
        let shared = shutdown.shared.clone();
        let waiting = tokio::spawn(shutdown.shutdown());
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "shutdown waits for the live connection");
        assert!(shared.stopping.load(Ordering::SeqCst));
        tokio::time::timeout(Duration::from_secs(5), watched).await.expect("the connection never stopped");
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("shutdown never returned")
            .unwrap();
        assert_eq!(shared.live.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn shutdown_with_no_connections_returns_at_once() {
        tokio::time::timeout(Duration::from_secs(5), Shutdown::new().shutdown()).await.unwrap();
    }

    #[tokio::test]
    async fn an_aborted_connection_stops_being_counted() {
        let shutdown = Shutdown::new();
        let (conn, _) = idle();
        let task = tokio::spawn(shutdown.watch(conn));
        tokio::time::sleep(Duration::from_millis(20)).await;
        task.abort();
        let _ = task.await;
        assert_eq!(shutdown.count(), 0);
        tokio::time::timeout(Duration::from_secs(5), shutdown.shutdown()).await.unwrap();
    }
}
