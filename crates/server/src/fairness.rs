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

use crate::operation::Operation;

/// The largest body a single-item request may have and still run on an async worker. Typical
/// GetItem/PutItem bodies are a few hundred bytes; the blocking pool's thread hop (a few
/// microseconds) is noise against the work a larger body brings.
pub(crate) const INLINE_BODY_LIMIT: usize = 16 * 1024;

/// Whether a request for `target` with a body of `body_len` bytes is light enough to run on an
/// async worker (see the module comment). An unknown target is light: it is refused without
/// reaching the engine.
pub(crate) fn runs_inline(target: Option<&str>, body_len: usize) -> bool {
    if body_len > INLINE_BODY_LIMIT {
        return false;
    }
    match Operation::from_target(target) {
        Ok(op) => matches!(
            op.name(),
            "GetItem" | "PutItem" | "UpdateItem" | "DeleteItem" | "DescribeTable" | "ListTables"
        ),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_small_single_item_requests_run_inline() {
        let t = |op: &str| format!("DynamoDB_20120810.{op}");
        assert!(runs_inline(Some(&t("GetItem")), 300));
        assert!(runs_inline(Some(&t("PutItem")), INLINE_BODY_LIMIT));
        assert!(!runs_inline(Some(&t("PutItem")), INLINE_BODY_LIMIT + 1));
        for heavy in ["Scan", "Query", "BatchWriteItem", "BatchGetItem", "TransactWriteItems", "CreateTable"]
        {
            assert!(!runs_inline(Some(&t(heavy)), 100), "{heavy}");
        }
        assert!(runs_inline(Some("Nope"), 10));
    }
}
