//! The blocking pool runs below the async workers' CPU priority.
//!
//! Everything that may run long goes to tokio's blocking pool (`fairness`), where the
//! operating system time-slices it against the workers. A fair time-slice is not enough on a
//! small machine: ten large requests in flight are ten pool threads, and a worker competing
//! with them for two cores gets a sixth of the CPU, so the light requests it answers wait tens
//! of milliseconds. So a pool thread lowers its own priority by [`POOL_NICENESS`] the first
//! time it runs a request: with CFS's weights (nice 0 weighs 1,024, nice 10 weighs 110) a
//! worker that has work gets about nine tenths of a core against any one pool thread, and the
//! pool still has every cycle the workers leave idle, so heavy requests lose no throughput on
//! an otherwise idle machine. RocksDB does the same for its compaction threads
//! (`Env::LowerThreadPoolCPUPriority`).
//!
//! Invariant: only threads of tokio's blocking pool, and background threads that ask for it,
//! are lowered, each once, and never raised again (an unprivileged process may not raise a
//! priority back). The async workers and the engine's own threads keep the process's priority.
//!
//! Linux only: there the nice value belongs to a thread (setpriority(2), "the nice value is a
//! per-thread attribute"); elsewhere it belongs to the process, and nothing is changed.

use std::cell::Cell;

/// How much a blocking-pool thread lowers its priority (added to its nice value).
pub(crate) const POOL_NICENESS: i32 = 10;

thread_local! {
    static LOWERED: Cell<bool> = const { Cell::new(false) };
}

/// Lowers the calling thread's CPU priority by ten nice levels, once per thread, as the
/// blocking pool's threads are: on Linux only, where a nice value is per thread. Called at the
/// start of every request run on the blocking pool, and by any background thread of a server
/// process that must yield to the workers (`monotable serve`'s memory purging).
pub fn lower_this_pool_thread() {
    if !LOWERED.with(|lowered| lowered.replace(true)) {
        lower();
    }
}

#[cfg(target_os = "linux")]
fn lower() {
    // SAFETY: nice(2) takes an integer and touches no memory of ours. On Linux it changes the
    // calling thread's nice value only. Raising a nice value needs no privilege, so it fails
    // only past the maximum of 19, where it is clamped; its result is not needed.
    unsafe {
        libc::nice(POOL_NICENESS);
    }
}

#[cfg(not(target_os = "linux"))]
fn lower() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn nice_of_this_thread() -> i32 {
        // SAFETY: getpriority takes integers; `who` 0 is the calling thread on Linux.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    #[test]
    fn a_pool_thread_is_lowered_once_and_other_threads_not_at_all() {
        let before = nice_of_this_thread();
        let (lowered, again) = std::thread::spawn(|| {
            lower_this_pool_thread();
            let lowered = nice_of_this_thread();
            lower_this_pool_thread();
            (lowered, nice_of_this_thread())
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (before + POOL_NICENESS).min(19));
        assert_eq!(again, lowered, "a second request on the same thread lowers nothing more");
        assert_eq!(nice_of_this_thread(), before, "the calling thread keeps its priority");
    }
}
