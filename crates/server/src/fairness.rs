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
//!
//! A compressed body of more than [`INLINE_COMPRESSED_LIMIT`] bytes also runs on the blocking
//! pool, whatever its operation: inflating it is work out of proportion to its size (a 16 KB
//! gzip body can inflate to 16 MiB, the limit at which inflating stops).
//!
//! A Query with a small body runs on the worker *optimistically*: under a budget of
//! [`INLINE_READ_BYTES`] of items visited (`monotable_engine::within_budget`). Most
//! Queries (a partition's few items) finish well within it and are answered without leaving
//! the worker; a Query that reaches the budget is abandoned at that point, its result thrown
//! away, and run again from the start on the blocking pool. A Query has no effects, so the
//! abandoned attempt leaves no trace, and pages are never shortened. The work it costs the
//! worker is bounded like a single-item request's: at most the budget's worth of items read,
//! filtered and projected. On a data directory, deleted entries that compaction has not yet
//! dropped count as well (64 bytes each, for the whole table, as fjall's range walk skips
//! them unseen), so a Query over a partition of deleted items leaves the worker too.
//!
//! A conditional write (PutItem, UpdateItem, DeleteItem) runs on the worker under a budget of
//! [`INLINE_EVALUATION`] operand elements, because its condition's cost is known only once the
//! stored item is read: `contains` on a list of 40,000 elements, 190 times over, is small on
//! the wire and tens of milliseconds of work. The engine weighs the condition against the item
//! it read (every term, and every value a path names there, by its elements: see
//! `monotable_engine::InlineBudget`) before evaluating it, so a write past the budget stops
//! before its condition is evaluated and before anything is written, and is run again from the
//! start on the blocking pool. A write is therefore never applied twice. A Query's filter is
//! weighed the same way, item by item, against the same budget. A write that must sum its item
//! collection (`ReturnItemCollectionMetrics=SIZE` on a table with local secondary indexes)
//! walks its whole partition after the commit, where no budget could stop it, so under a
//! budget it stops before it starts and runs on the pool.

use monotable_engine::InlineBudget;

use crate::operation::Operation;

/// The largest body a single-item request may have and still run on an async worker. Typical
/// GetItem/PutItem bodies are a few hundred bytes; the blocking pool's thread hop (a few
/// microseconds) is noise against the work a larger body brings.
pub(crate) const INLINE_BODY_LIMIT: usize = 16 * 1024;

/// The bytes of items (DynamoDB's item size) a Query may visit on an async worker before it is
/// moved to the blocking pool: a fraction of one 400 KB item, about 250 items of 256 bytes.
pub(crate) const INLINE_READ_BYTES: usize = 64 * 1024;

/// The operand elements (list, map and set elements, 64-byte runs of strings and binaries)
/// the conditions and filters of a request on an async worker may touch: a few tenths of a
/// millisecond of comparisons, about what decoding the 400 KB item a single-item request may
/// carry costs. One `contains` over a list of 40,000 elements is past it.
pub(crate) const INLINE_EVALUATION: u64 = 64 * 1024;

/// The budget of a request placed [`Placement::InlineWithinBudget`].
pub(crate) const INLINE_BUDGET: InlineBudget =
    InlineBudget { read_bytes: INLINE_READ_BYTES, evaluation: INLINE_EVALUATION };

/// The largest compressed body inflated on an async worker: at most about 512 KiB of output
/// (deflate's ratio is at most about 1,032 to 1), a fraction of a millisecond.
pub(crate) const INLINE_COMPRESSED_LIMIT: usize = 512;

/// Whether a body with this `Content-Encoding` and length must be inflated on the blocking
/// pool rather than on the worker.
pub(crate) fn inflates_on_pool(content_encoding: Option<&http::HeaderValue>, body_len: usize) -> bool {
    body_len > INLINE_COMPRESSED_LIMIT
        && content_encoding.is_some_and(|coding| !coding.as_bytes().eq_ignore_ascii_case(b"identity"))
}

/// Where a request runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// On the async worker that read it.
    Inline,
    /// On the worker under [`INLINE_BUDGET`], and again on the blocking pool if it gets there.
    InlineWithinBudget,
    /// On the blocking pool.
    Pool,
}

/// Where a request for `target` with a body of `body_len` bytes runs (see the module comment);
/// `writes_block` says the engine's writes may block their thread now, which keeps them on the
/// blocking pool. An unknown target is light: it is refused without reaching the engine.
pub(crate) fn placement(target: Option<&str>, body_len: usize, writes_block: bool) -> Placement {
    if body_len > INLINE_BODY_LIMIT {
        return Placement::Pool;
    }
    match Operation::from_target(target) {
        Ok(Operation::GetItem | Operation::DescribeTable | Operation::ListTables) => Placement::Inline,
        Ok(Operation::Query) => Placement::InlineWithinBudget,
        Ok(Operation::PutItem | Operation::UpdateItem | Operation::DeleteItem) if !writes_block => {
            Placement::InlineWithinBudget
        }
        Ok(_) => Placement::Pool,
        Err(_) => Placement::Inline,
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
            assert_eq!(placement(Some(&t("GetItem")), 300, writes_block), Placement::Inline);
            assert_eq!(placement(Some(&t("DescribeTable")), 300, writes_block), Placement::Inline);
            assert_eq!(placement(Some(&t("ListTables")), 300, writes_block), Placement::Inline);
            assert_eq!(placement(Some(&t("GetItem")), INLINE_BODY_LIMIT + 1, writes_block), Placement::Pool);
            for heavy in ["Scan", "BatchWriteItem", "BatchGetItem", "TransactWriteItems", "CreateTable"] {
                assert_eq!(placement(Some(&t(heavy)), 100, writes_block), Placement::Pool, "{heavy}");
            }
            assert_eq!(placement(Some("Nope"), 10, writes_block), Placement::Inline);
        }
        assert_eq!(placement(Some(&t("PutItem")), INLINE_BODY_LIMIT, false), Placement::InlineWithinBudget);
        assert_eq!(placement(Some(&t("PutItem")), INLINE_BODY_LIMIT + 1, false), Placement::Pool);
    }

    #[test]
    fn a_small_query_runs_inline_within_a_budget_and_anything_bigger_on_the_pool() {
        for writes_block in [false, true] {
            assert_eq!(placement(Some(&t("Query")), 300, writes_block), Placement::InlineWithinBudget);
            assert_eq!(placement(Some(&t("Query")), INLINE_BODY_LIMIT + 1, writes_block), Placement::Pool);
            assert_eq!(placement(Some(&t("Scan")), 300, writes_block), Placement::Pool);
            assert_eq!(placement(Some(&t("GetItem")), 300, writes_block), Placement::Inline);
        }
        assert_eq!(placement(Some(&t("PutItem")), 300, true), Placement::Pool);
    }

    #[test]
    fn a_compressed_body_beyond_a_small_size_is_inflated_on_the_pool() {
        let gzip = http::HeaderValue::from_static("gzip");
        let identity = http::HeaderValue::from_static("identity");
        assert!(!inflates_on_pool(Some(&gzip), INLINE_COMPRESSED_LIMIT));
        assert!(inflates_on_pool(Some(&gzip), INLINE_COMPRESSED_LIMIT + 1));
        assert!(!inflates_on_pool(Some(&identity), INLINE_BODY_LIMIT));
        assert!(!inflates_on_pool(None, INLINE_BODY_LIMIT));
    }

    #[test]
    fn writes_run_inline_within_a_budget_unless_they_may_block_and_reads_stay_inline() {
        for write in ["PutItem", "UpdateItem", "DeleteItem"] {
            assert_eq!(placement(Some(&t(write)), 300, false), Placement::InlineWithinBudget, "{write}");
            assert_eq!(placement(Some(&t(write)), 300, true), Placement::Pool, "{write}");
        }
        assert_eq!(placement(Some(&t("GetItem")), 300, true), Placement::Inline);
    }
}
