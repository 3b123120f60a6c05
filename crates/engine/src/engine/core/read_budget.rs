//! A budget on what one read may visit, for a caller that runs reads optimistically where
//! only small work is allowed (the server's async workers, `fairness` in the server crate).
//!
//! [`within_read_budget`] runs a read with a limit on the bytes of items its page may visit.
//! A page that would go past the limit stops at once, and the scope reports that the result
//! is to be thrown away; the caller then runs the same request again without a budget, where
//! long work is harmless. Pages are never shortened: a read either completes exactly as it
//! would without a budget, or its result is not used.
//!
//! Invariant: only reads without effects may run under a budget (Query: nothing it does is
//! recorded anywhere), so an abandoned attempt leaves no trace.

use std::cell::Cell;

thread_local! {
    /// The limit in force on this thread, and whether a page went past it.
    static BUDGET: Cell<Option<(usize, bool)>> = const { Cell::new(None) };
}

/// Runs `f` with every page it reads limited to `bytes` of items visited. Returns `None` when a
/// page reached the limit: `f`'s result is then incomplete and must be discarded. Scopes do
/// not nest: an inner scope keeps the outer limit.
pub fn within_read_budget<R>(bytes: usize, f: impl FnOnce() -> R) -> Option<R> {
    /// Leaves the scope even when `f` unwinds.
    struct Leave(bool);
    impl Drop for Leave {
        fn drop(&mut self) {
            if self.0 {
                BUDGET.set(None);
            }
        }
    }
    let entered = BUDGET.get().is_none();
    if entered {
        BUDGET.set(Some((bytes, false)));
    }
    let leave = Leave(entered);
    let result = f();
    let exceeded = BUDGET.get().is_some_and(|(_, exceeded)| exceeded);
    drop(leave);
    (!exceeded).then_some(result)
}

/// The limit a page read on this thread must stay within, if any.
pub(crate) fn limit() -> Option<usize> {
    BUDGET.get().map(|(bytes, _)| bytes)
}

/// Records that a page reached the limit and stopped early.
pub(crate) fn exceeded() {
    if let Some((bytes, _)) = BUDGET.get() {
        BUDGET.set(Some((bytes, true)));
    }
}

/// Whether a read in this thread's current scope has gone past its budget (so that what it
/// produced is about to be discarded).
pub fn read_budget_exceeded() -> bool {
    BUDGET.get().is_some_and(|(_, exceeded)| exceeded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_scope_there_is_no_limit() {
        assert_eq!(limit(), None);
        exceeded();
        assert!(!read_budget_exceeded());
    }

    #[test]
    fn a_read_within_its_budget_keeps_its_result() {
        assert_eq!(within_read_budget(100, limit), Some(Some(100)));
        assert_eq!(limit(), None, "the scope ended with the call");
    }

    #[test]
    fn a_read_past_its_budget_loses_its_result() {
        assert_eq!(
            within_read_budget(100, || {
                exceeded();
                assert!(read_budget_exceeded());
                7
            }),
            None
        );
        assert!(!read_budget_exceeded());
        assert_eq!(within_read_budget(100, || 8), Some(8), "the next scope starts afresh");
    }

    #[test]
    fn an_inner_scope_keeps_the_outer_limit() {
        let outer = within_read_budget(100, || within_read_budget(5, limit));
        assert_eq!(outer, Some(Some(Some(100))));
    }
}
