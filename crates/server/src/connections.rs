//! The cap on open connections (`Limits::max_connections`).
//!
//! Invariant: at most `cap` connections are registered. A connection is admitted only after
//! the registry has room, made if need be by closing the longest-open connection that has no
//! request in flight (a keep-alive connection its client has not used, or one whose client
//! trickles a request head), or else the connection whose request body arrives slowest (a
//! flood of trickled bodies, each still above the minimum rate or within its grace, would
//! otherwise keep every new client out until it falls behind); when every registered
//! connection has a request in flight and none is waiting for its body, the new connection is
//! refused and its socket closed at once. Connections are admitted by the one accept loop, so
//! an admission and its registration never race another admission.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;
use tokio::task::AbortHandle;

/// What the registry asks of a connection.
pub(crate) trait Idle {
    /// True when no request is in flight on the connection.
    fn is_idle(&self) -> bool;
    /// The bytes per second at which the body of the request in flight has arrived, while
    /// the server waits for more of it; `None` when it waits for no body.
    fn body_rate(&self, now: Instant) -> Option<f64>;
}

pub(crate) struct Registry<T> {
    cap: usize,
    /// Open connections by the order they were opened in.
    open: Mutex<BTreeMap<u64, (Arc<T>, AbortHandle)>>,
    next: AtomicU64,
}

impl<T: Idle> Registry<T> {
    pub(crate) fn new(cap: usize) -> Registry<T> {
        Registry { cap: cap.max(1), open: Mutex::new(BTreeMap::new()), next: AtomicU64::new(0) }
    }

    /// Makes room for one more connection; `false` when there is none to make.
    pub(crate) fn admit(&self) -> bool {
        let mut open = self.open.lock();
        if open.len() < self.cap {
            return true;
        }
        let oldest_idle = open.iter().find(|(_, (connection, _))| connection.is_idle()).map(|(id, _)| *id);
        let victim = oldest_idle.or_else(|| {
            let now = Instant::now();
            open.iter()
                .filter_map(|(id, (connection, _))| Some((*id, connection.body_rate(now)?)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(id, _)| id)
        });
        match victim.and_then(|id| open.remove(&id)) {
            Some((_, abort)) => {
                abort.abort();
                true
            }
            None => false,
        }
    }

    /// Registers an admitted connection; the id is for [`Registry::remove`].
    pub(crate) fn insert(&self, connection: Arc<T>, abort: AbortHandle) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.open.lock().insert(id, (connection, abort));
        id
    }

    /// Forgets a connection that has ended (or was closed to make room).
    pub(crate) fn remove(&self, id: u64) {
        self.open.lock().remove(&id);
    }

    /// Registered connections.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.open.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;

    struct Fake(AtomicBool, Option<f64>);

    impl Idle for Fake {
        fn is_idle(&self) -> bool {
            self.0.load(Ordering::Relaxed)
        }

        fn body_rate(&self, _now: Instant) -> Option<f64> {
            self.1
        }
    }

    fn fake(idle: bool) -> Arc<Fake> {
        Arc::new(Fake(AtomicBool::new(idle), None))
    }

    /// Registers one connection task per fake, each pending until aborted.
    fn register(registry: &Registry<Fake>, fakes: Vec<Fake>) -> Vec<tokio::task::JoinHandle<()>> {
        let mut tasks = Vec::new();
        for fake in fakes {
            assert!(registry.admit());
            let task = tokio::spawn(std::future::pending::<()>());
            registry.insert(Arc::new(fake), task.abort_handle());
            tasks.push(task);
        }
        tasks
    }

    #[tokio::test]
    async fn past_the_cap_the_longest_open_idle_connection_is_closed_else_the_new_one() {
        let registry = Registry::new(3);
        let fakes = [false, true, true].map(|idle| Fake(AtomicBool::new(idle), None));
        let mut tasks = register(&registry, fakes.into());
        assert!(registry.admit(), "the second connection, the oldest idle one, makes room");
        assert_eq!(registry.len(), 2);
        assert!(tasks.remove(1).await.unwrap_err().is_cancelled());
        registry.insert(fake(false), tokio::spawn(async {}).abort_handle());
        assert!(registry.admit(), "the third");
        registry.insert(fake(false), tokio::spawn(async {}).abort_handle());
        assert!(!registry.admit(), "every connection has a request in flight");
        assert_eq!(registry.len(), 3);
    }

    #[tokio::test]
    async fn with_no_idle_connection_the_slowest_waiting_body_is_closed() {
        let registry = Registry::new(3);
        let fakes = [None, Some(5000.0), Some(20.0)].map(|rate| Fake(AtomicBool::new(false), rate));
        let mut tasks = register(&registry, fakes.into());
        assert!(registry.admit(), "the body arriving at 20 B/s makes room");
        assert_eq!(registry.len(), 2);
        assert!(tasks.remove(2).await.unwrap_err().is_cancelled());
        registry.insert(fake(false), tokio::spawn(async {}).abort_handle());
        assert!(registry.admit(), "then the one at 5,000 B/s");
        assert!(tasks.remove(1).await.unwrap_err().is_cancelled());
    }
}
