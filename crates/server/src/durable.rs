//! Answers to writes wait for their durability, off the engine's locks and off any thread.
//!
//! The transport (and the embedded client) runs every engine call inside the engine's
//! `defer_sync` scope. A durable store then hands back, instead of blocking in `commit`, what
//! the request wrote but has not yet flushed; the caller awaits it here before the response
//! leaves. An in-memory engine never defers, and its responses pass straight through.
//!
//! Invariant: a response to a request whose writes are not yet durable is never sent. When
//! the store cannot make them durable the client gets the `InternalServerError` a failing
//! commit has always produced (with the same request id), never the success.

use bytes::Bytes;
use http::header::{HeaderName, CONTENT_TYPE};
use http::Response;
use monotable_engine::PendingSync;

use crate::response::{error_response, JSON_1_0, PLAIN_JSON};
use crate::ServerError;

const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-amzn-requestid");

/// `response`, once `pending` (the request's deferred writes) is durable.
///
/// Run the engine call inside `monotable_engine::defer_sync` (as the TCP server and the
/// embedded client do) to get `pending`. The server awaits this boxed (`Box::pin`) and only
/// when there is something to wait for: the request future then holds a pointer across the
/// wait instead of the whole response, and reads and in-memory writes, which never wait, do
/// not build (and copy) a larger future.
pub async fn when_durable(response: Response<Bytes>, pending: PendingSync) -> Response<Bytes> {
    match pending.await {
        Ok(()) => response,
        Err(e) => failed(&response, e),
    }
}

/// The error response that replaces `response` when its writes could not be made durable.
fn failed(response: &Response<Bytes>, e: monotable_engine::StorageError) -> Response<Bytes> {
    let headers = response.headers();
    let request_id = headers.get(REQUEST_ID_HEADER).map(|v| v.as_bytes()).unwrap_or_default();
    let content_type = if headers.get(CONTENT_TYPE).is_some_and(|v| v.as_bytes() == PLAIN_JSON.as_bytes()) {
        PLAIN_JSON
    } else {
        JSON_1_0
    };
    tracing::error!(
        target: "monotable_server::request",
        request_id = %String::from_utf8_lossy(request_id),
        error = %e,
        "the request's writes could not be made durable"
    );
    let mut out = error_response(&ServerError::Engine(e.into()), content_type, request_id);
    for (name, value) in headers {
        if name.as_str().starts_with("access-control-") {
            out.headers_mut().insert(name, value.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use monotable_engine::storage::defer;
    use monotable_engine::{defer_sync, StorageError, SyncWaiter};
    use std::sync::Arc;
    use std::task::{Context, Poll};

    /// A store whose flushes have failed.
    struct Failed;
    impl SyncWaiter for Failed {
        fn poll_synced(&self, _: u64, _: &mut Context<'_>) -> Poll<Result<(), StorageError>> {
            Poll::Ready(Err(StorageError::Io("I/O error: disk gone".into())))
        }
        fn wait_synced(&self, _: u64) -> Result<(), StorageError> {
            Err(StorageError::Io("I/O error: disk gone".into()))
        }
    }

    /// A store whose flushes have all succeeded.
    struct Synced;
    impl SyncWaiter for Synced {
        fn poll_synced(&self, _: u64, _: &mut Context<'_>) -> Poll<Result<(), StorageError>> {
            Poll::Ready(Ok(()))
        }
        fn wait_synced(&self, _: u64) -> Result<(), StorageError> {
            Ok(())
        }
    }

    fn ok_response() -> Response<Bytes> {
        let mut r = crate::response::respond(
            http::StatusCode::OK,
            Bytes::from_static(b"{}"),
            Some(PLAIN_JSON),
            "RID1",
        );
        r.headers_mut().insert("access-control-allow-origin", http::HeaderValue::from_static("*"));
        r
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().expect("runtime").block_on(f)
    }

    #[test]
    fn a_response_whose_writes_are_durable_passes_through() {
        let waiter: Arc<dyn SyncWaiter> = Arc::new(Synced);
        let ((), pending) = defer_sync(|| assert!(defer(&waiter, 1)));
        let out = block_on(when_durable(ok_response(), pending.expect("deferred")));
        assert_eq!(out.status(), 200);
        assert_eq!(out.body().as_ref(), b"{}");
    }

    #[test]
    fn a_write_that_cannot_be_made_durable_answers_internal_server_error() {
        let waiter: Arc<dyn SyncWaiter> = Arc::new(Failed);
        let ((), pending) = defer_sync(|| assert!(defer(&waiter, 1)));
        let out = block_on(when_durable(ok_response(), pending.expect("deferred")));
        assert_eq!(out.status(), 500);
        let body: serde_json::Value = serde_json::from_slice(out.body()).expect("json");
        assert_eq!(body["__type"], "com.amazonaws.dynamodb.v20120810#InternalServerError");
        assert_eq!(body["message"], "storage failure: I/O error: disk gone");
        assert_eq!(out.headers()["x-amzn-requestid"], "RID1", "the request keeps its id");
        assert_eq!(out.headers()[CONTENT_TYPE], PLAIN_JSON);
        assert_eq!(out.headers()["access-control-allow-origin"], "*");
    }
}
