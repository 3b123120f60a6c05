//! The cap on open connections (`Limits::max_connections`).
//!
//! Invariant: at most `cap` connections are registered. A connection is admitted only after
//! the registry has room, made if need be by closing the longest-open connection that has no
//! request in flight (a keep-alive connection its client has not used, or one whose client
//! trickles a request head); when every registered connection has a request in flight, the
//! new connection is refused and its socket closed at once. Connections are admitted by the
//! one accept loop, so an admission and its registration never race another admission.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::task::AbortHandle;

/// What the registry asks of a connection.
pub(crate) trait Idle {
    /// True when no request is in flight on the connection.
    fn is_idle(&self) -> bool;
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
        match oldest_idle.and_then(|id| open.remove(&id)) {
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

    struct Fake(AtomicBool);

    impl Idle for Fake {
        fn is_idle(&self) -> bool {
            self.0.load(Ordering::Relaxed)
        }
    }

    #[tokio::test]
    async fn past_the_cap_the_longest_open_idle_connection_is_closed_else_the_new_one() {
        let registry = Registry::new(3);
        let mut tasks = Vec::new();
        for idle in [false, true, true] {
            assert!(registry.admit());
            let task = tokio::spawn(std::future::pending::<()>());
            registry.insert(Arc::new(Fake(AtomicBool::new(idle))), task.abort_handle());
            tasks.push(task);
        }
        assert!(registry.admit(), "the second connection, the oldest idle one, makes room");
        assert_eq!(registry.len(), 2);
        assert!(tasks.remove(1).await.unwrap_err().is_cancelled());
        registry.insert(Arc::new(Fake(AtomicBool::new(false))), tokio::spawn(async {}).abort_handle());
        assert!(registry.admit(), "the third");
        registry.insert(Arc::new(Fake(AtomicBool::new(false))), tokio::spawn(async {}).abort_handle());
        assert!(!registry.admit(), "every connection has a request in flight");
        assert_eq!(registry.len(), 3);
    }
}
