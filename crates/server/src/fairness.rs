//! Which requests may run on the async workers and which go to the blocking pool.
//!
//! The server runs few async workers (one on a two-core machine). A request that runs on a
//! worker holds it until the engine returns, and every other connection on that worker waits.
//! So only requests whose work is small by construction run there: a single-item operation
//! (at most one item of at most 400 KB, plus its index entries) or a table listing (at most
//! 100 names) with a small body. Everything
//! else — Scan and Query (up to 1 MB read), batches, transactions, PartiQL, control-plane
//! calls, and any request with a large body — runs on the runtime's blocking pool, where the
//! operating system time-slices it against the workers, which keep accepting and answering.
//!
//! A durable engine (a data directory) runs its light writes inline too: under group commit
//! a write only appends its batch to the journal in the operating system's cache, and the
//! wait for the device flush happens after the call, asynchronously (`durable`), on no
//! thread at all. Two cases would make a write block inside the call, and then light writes
//! go to the blocking pool like heavy requests: a store that flushes inside every commit
//! (`--sync always`), and a store under back-pressure (fjall slows writers down when its
//! flushes or compactions fall behind). The engine says which (`Engine::writes_may_block`).
//! A light read of a key not in fjall's caches costs one bounded read of a single block, as
//! small as the single-item work the rule already allows.

use crate::operation::Operation;

/// The largest body a single-item request may have and still run on an async worker. Typical
/// GetItem/PutItem bodies are a few hundred bytes; the blocking pool's thread hop (a few
/// microseconds) is noise against the work a larger body brings.
pub(crate) const INLINE_BODY_LIMIT: usize = 16 * 1024;

/// Whether a request for `target` with a body of `body_len` bytes is light enough to run on an
/// async worker (see the module comment); `writes_block` says the engine's writes may block
/// their thread now, which keeps them on the blocking pool. An unknown target is light: it is
/// refused without reaching the engine.
pub(crate) fn runs_inline(target: Option<&str>, body_len: usize, writes_block: bool) -> bool {
    if body_len > INLINE_BODY_LIMIT {
        return false;
    }
    match Operation::from_target(target) {
        Ok(Operation::GetItem | Operation::DescribeTable | Operation::ListTables) => true,
        Ok(Operation::PutItem | Operation::UpdateItem | Operation::DeleteItem) => !writes_block,
        Ok(_) => false,
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(op: &str) -> String {
        format!("DynamoDB_20120810.{op}")
    }

    #[test]
    fn only_small_single_item_requests_run_inline() {
        for writes_block in [false, true] {
            assert!(runs_inline(Some(&t("GetItem")), 300, writes_block));
            assert!(runs_inline(Some(&t("DescribeTable")), 300, writes_block));
            assert!(runs_inline(Some(&t("ListTables")), 300, writes_block));
            assert!(!runs_inline(Some(&t("GetItem")), INLINE_BODY_LIMIT + 1, writes_block));
            for heavy in
                ["Scan", "Query", "BatchWriteItem", "BatchGetItem", "TransactWriteItems", "CreateTable"]
            {
                assert!(!runs_inline(Some(&t(heavy)), 100, writes_block), "{heavy}");
            }
            assert!(runs_inline(Some("Nope"), 10, writes_block));
        }
        assert!(runs_inline(Some(&t("PutItem")), INLINE_BODY_LIMIT, false));
        assert!(!runs_inline(Some(&t("PutItem")), INLINE_BODY_LIMIT + 1, false));
    }

    #[test]
    fn writes_that_may_block_run_on_the_blocking_pool_and_reads_stay_inline() {
        for write in ["PutItem", "UpdateItem", "DeleteItem"] {
            assert!(runs_inline(Some(&t(write)), 300, false), "{write}");
            assert!(!runs_inline(Some(&t(write)), 300, true), "{write}");
        }
        assert!(runs_inline(Some(&t("GetItem")), 300, true));
    }
}
