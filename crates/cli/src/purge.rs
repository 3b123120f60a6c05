//! Freed memory goes back to the system from a thread of its own, not from the thread that
//! happened to free a page when the delay ran out.
//!
//! mimalloc v3 does not return freed memory at once: it marks the freed arena slices and
//! returns them (`madvise`) once its purge delay has passed (`purge_delay`, 1,000 ms by
//! default). The return is done by whichever thread next frees a page after that moment
//! (`_mi_page_free` calls `_mi_arenas_collect` in v3's page.c), all of it at once, one thread
//! at a time. In `monotable serve` that thread is an async worker. After forty clients'
//! 16 MiB bodies are released together, returning their 640 MiB took 52-92 ms of that
//! worker, and every request queued behind it waited that long (`bench/attack.sh`, shapes
//! `held-bodies` then `none`).
//!
//! So `serve` moves the work: [`start`] raises mimalloc's own delay to
//! [`FALLBACK_PURGE_DELAY_MS`] and starts a thread, below the workers' CPU priority, that
//! returns every marked slice each [`PURGE_EVERY`] (`mi_collect(true)` forces the arenas'
//! pending purges). Freed memory still goes back to the system within about the same time
//! as before, and a worker returns it only if that thread has not run for the whole
//! fallback delay.
//!
//! Invariant: a purge delay the user set (`MIMALLOC_PURGE_DELAY`, or its older name
//! `MIMALLOC_RESET_DELAY`) is left alone, and then no thread is started: `-1` (never return
//! memory) and `0` (return it at once) both mean the user chose where the work happens.

use std::time::Duration;

use libmimalloc_sys as mi;

/// `mi_option_purge_delay` in v3's `mimalloc.h` (the crate's bindings predate the option's
/// current name). The test below checks it against this build's default.
const MI_OPTION_PURGE_DELAY: mi::mi_option_t = 15;

/// mimalloc's own purge delay while the purging thread runs: long enough that the thread,
/// waking every [`PURGE_EVERY`], is always first unless it is starved of CPU for this long.
const FALLBACK_PURGE_DELAY_MS: i64 = 10_000;

/// How often the purging thread returns freed memory: mimalloc's default purge delay, so
/// memory freed and soon reused is no more often returned and faulted in again than before.
const PURGE_EVERY: Duration = Duration::from_millis(1_000);

/// Moves mimalloc's purging to a background thread, unless the environment sets the purge
/// delay. Returns whether the thread was started.
pub(crate) fn start() -> bool {
    if user_set_purge_delay(std::env::vars_os().map(|(name, _)| name)) {
        return false;
    }
    // SAFETY: mi_option_get and mi_option_set take an option index (and a value) and touch no
    // memory of ours; options may be changed at any time (each read is `mi_option_get`).
    let own_delay = unsafe { mi::mi_option_get(MI_OPTION_PURGE_DELAY) };
    // SAFETY: as above.
    unsafe { mi::mi_option_set(MI_OPTION_PURGE_DELAY, FALLBACK_PURGE_DELAY_MS as _) };
    let spawned = std::thread::Builder::new().name("monotable-purge".into()).spawn(|| {
        // A purge yields to a worker with requests to answer, as the blocking pool does.
        monotable_server::lower_this_thread_below_workers();
        loop {
            std::thread::sleep(PURGE_EVERY);
            purge_now();
        }
    });
    match spawned {
        Ok(_) => true,
        Err(e) => {
            // Without the thread, purging goes back to mimalloc's own timing.
            // SAFETY: as above.
            unsafe { mi::mi_option_set(MI_OPTION_PURGE_DELAY, own_delay) };
            tracing::warn!(
                "could not start the memory-purging thread ({e}); freed memory is returned by the workers"
            );
            false
        }
    }
}

/// Returns every freed slice mimalloc has marked for purging, now, on the calling thread.
pub(crate) fn purge_now() {
    // SAFETY: mi_collect has no preconditions; with `force` it also purges the arenas'
    // pending slices, whichever thread freed them.
    unsafe { mi::mi_collect(true) };
}

/// Whether any of the environment's variable names sets mimalloc's purge delay (mimalloc
/// matches option names without regard to case).
fn user_set_purge_delay(names: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    names.into_iter().any(|name| {
        name.to_str().is_some_and(|name| {
            name.eq_ignore_ascii_case("MIMALLOC_PURGE_DELAY")
                || name.eq_ignore_ascii_case("MIMALLOC_RESET_DELAY")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_set_purge_delay_is_recognised_in_any_case() {
        let names = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert!(user_set_purge_delay(names(&["PATH", "MIMALLOC_PURGE_DELAY"])));
        assert!(user_set_purge_delay(names(&["mimalloc_purge_delay"])));
        assert!(user_set_purge_delay(names(&["MIMALLOC_RESET_DELAY"])));
        assert!(!user_set_purge_delay(names(&["PATH", "MIMALLOC_PURGE_DECOMMITS", "HOME"])));
    }

    /// VmRSS from /proc/self/status, which gives it in kB whatever the page size.
    fn resident_bytes() -> usize {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        let kb: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb * 1024
    }

    /// The option index is this build's purge delay (v3 defaults it to 1,000 ms, and no
    /// neighbouring option has that default). With purging then delayed far beyond the test,
    /// freed memory stays resident until [`purge_now`] returns it, on the calling thread.
    #[cfg(target_os = "linux")]
    #[test]
    fn purge_now_returns_freed_memory_at_once() {
        if user_set_purge_delay(std::env::vars_os().map(|(name, _)| name)) {
            return;
        }
        // Sixteen bodies of DynamoDB's largest request, as a burst of clients leaves them.
        const BLOCK: usize = 16 << 20;
        const BLOCKS: usize = 16;
        // SAFETY: options may be read and set at any time; each block is written within its
        // size and freed once.
        unsafe {
            assert_eq!(mi::mi_option_get(MI_OPTION_PURGE_DELAY), 1_000);
            mi::mi_option_set(MI_OPTION_PURGE_DELAY, 600_000);
            let blocks: Vec<*mut u8> = (0..BLOCKS).map(|_| mi::mi_malloc(BLOCK) as *mut u8).collect();
            for &block in &blocks {
                assert!(!block.is_null());
                std::ptr::write_bytes(block, 1, BLOCK);
            }
            let touched = resident_bytes();
            for block in blocks {
                mi::mi_free(block.cast());
            }
            let half = BLOCK * BLOCKS / 2;
            assert!(resident_bytes() > touched - half, "freed memory was returned before purge_now");
            purge_now();
            assert!(resident_bytes() < touched - half, "purge_now left the freed memory resident");
        }
    }
}
