//! HTTP/1.1 over TCP with hyper: accept loop, keep-alive, body size limit, graceful shutdown,
//! and the limits that hold it under hostile clients (`limits`: a budget of buffered request
//! bytes, a minimum rate for bodies, a cap on connections).
//!
//! Each connection is served by its own task. A request whose request line or header section
//! exceeds 16 KiB is refused with 400 (`head_too_large`). A request's body is collected up to
//! [`MAX_REQUEST_BYTES`], within the budget and at the minimum rate, and handed, complete, to
//! [`Service::handle`]. Engine calls are
//! synchronous: small single-item requests run directly on the tokio worker, a small Query
//! there too within a read budget (and again on the blocking pool if it reaches it), everything
//! else on the blocking pool, so that a long request never stalls the others (`fairness`).
//! Either way the call runs with durability deferred, and the response waits for the
//! request's writes to be durable without holding a thread (`durable`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body as _, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use monotable_engine::{defer_sync, within_budget, Engine};
use tokio::net::TcpListener;

use crate::body::Body;
use crate::budget::{Budget, Held};
use crate::connections::{Idle, Registry};
use crate::durable::when_durable;
use crate::encoding::{inflated_bound, inflates};
use crate::fairness::{inflates_on_pool, placement, Placement, INLINE_BUDGET};
use crate::graceful::{Live, Shutdown};
use crate::headers::{text, RequestHeaders};
use crate::limits::Limits;
use crate::operation::Operation;
use crate::reads::SlicedReads;
use crate::response::{error_response, new_request_id, JSON_1_0};
use crate::service::{Service, MAX_REQUEST_BYTES};
use crate::ServerError;

/// How long a connection may go without starting a request while none is in flight (a
/// client trickling a request head, or an idle keep-alive connection) before it is dropped.
/// Checked every [`IDLE_CHECK`], so a connection is dropped between 30 and 40 seconds after
/// its last request finished.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a connection's watchdog looks at its request counters.
const IDLE_CHECK: Duration = Duration::from_secs(10);
/// How much of an oversized body is read and discarded before answering 413.
const DRAIN_BYTES: usize = 64 * 1024 * 1024;
/// How long an oversized body is drained at most.
const DRAIN_TIME: Duration = Duration::from_secs(10);
/// How many bytes of a body are taken in one go while its frames keep arriving, before the
/// connection's task lets the worker's other tasks run: tens of microseconds of reading.
/// Without it a 16 MiB body that arrives at once is read whole in one poll, and forty of them
/// hold the worker (and the accept loop) while they arrive.
const BODY_SLICE_BYTES: usize = 64 * 1024;
/// How many connections the accept loop takes before it lets the worker's other tasks run. A
/// task that tokio wakes for a ready socket is queued behind every task already queued, and
/// each accepted connection queues one: without a pause, a GetItem on an open connection
/// would wait behind every connection of a flood of new ones. One yield per sixteen accepts
/// bounds that wait to sixteen new connections' first polls.
const ACCEPT_BURST: usize = 16;
/// How long shutdown waits for in-flight requests before closing their connections.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// The longest request line and the largest header section DynamoDB accepts, each: past them
/// it answers 400 Bad Request. Sources: ScyllaDB issue 23438 ("DynamoDB's server limits the
/// total header size to just 16 KB. Above that, the request is failed with a \"400 Bad
/// Request\" error"), and the tests ScyllaDB PR 23442 adds to
/// test/alternator/test_manual_requests.py, which pass on DynamoDB: a 17,000-byte URL gets a
/// 400 that is not a signature error.
///
/// hyper's own limits cannot give that answer: past its `max_header_size` (when set), its read
/// buffer (`max_buf_size`, 417,792 bytes by default) or 100 header lines, hyper answers 431
/// itself and closes the connection, a status nothing can change. So hyper keeps its defaults,
/// which bound what a connection reads, and the 16 KiB limit is checked here, on the parsed head.
const MAX_HEAD_PART_BYTES: usize = 16 * 1024;
/// The body of the 400 for an oversized head, in plain text (DynamoDB's is not recorded).
const HEAD_TOO_LARGE_BODY: &str =
    "Bad Request: the request line and the request headers may hold 16384 bytes each\n";

/// Serves a fresh in-memory engine with default authentication on `listener` until
/// `shutdown` completes.
pub async fn run(listener: TcpListener, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
    serve(listener, Service::new(Engine::new()), shutdown).await
}

/// The future a [`Mount`] handler returns: one complete response.
pub type MountFuture = Pin<Box<dyn Future<Output = http::Response<Bytes>> + Send>>;

/// A handler for requests outside the protocol under one path prefix (the CLI mounts the web
/// console at `/console`). The protocol never uses such paths, so a mount changes nothing for
/// SDK requests: the transport checks one string prefix before it dispatches. The handler gets
/// the request head (the client's `SocketAddr` in its extensions) and its complete body (read with
/// the protocol's size limit).
#[derive(Clone)]
pub struct Mount {
    prefix: &'static str,
    handler: Arc<dyn Fn(http::request::Parts, Bytes) -> MountFuture + Send + Sync>,
}

impl Mount {
    /// Sends requests whose path is `prefix` or starts with `prefix/` to `handler`.
    pub fn new(
        prefix: &'static str,
        handler: impl Fn(http::request::Parts, Bytes) -> MountFuture + Send + Sync + 'static,
    ) -> Mount {
        Mount { prefix, handler: Arc::new(handler) }
    }

    fn matches(&self, path: &str) -> bool {
        path.strip_prefix(self.prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
}

/// Serves `service` on `listener` until `shutdown` completes, then stops accepting, lets
/// in-flight requests finish (for at most ten seconds) and returns.
pub async fn serve(
    listener: TcpListener,
    service: Service,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_with(listener, service, None, shutdown).await
}

/// [`serve`] with an optional [`Mount`] for paths outside the protocol.
pub async fn serve_with(
    listener: TcpListener,
    service: Service,
    mount: Option<Mount>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
    let service = service.listening_on_loopback(loopback);
    let limits = service.limits();
    let registry = Arc::new(Registry::<Connection>::new(limits.max_connections()));
    let shared = Arc::new(Shared {
        budget: Budget::new(limits.max_buffered_bytes(), limits.budget_wait()),
        inflating: tokio::sync::Semaphore::new(concurrent_inflations()),
        limits,
    });
    let graceful = Shutdown::new();
    tokio::pin!(shutdown);
    let mut accepts = 0usize;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                accepts += 1;
                if accepts.is_multiple_of(ACCEPT_BURST) {
                    // Let the connections already open be served between bursts (see ACCEPT_BURST).
                    tokio::task::yield_now().await;
                }
                let (stream, peer) = match accepted {
                    Ok(conn) => conn,
                    Err(e) => {
                        // Out of file descriptors and similar: back off instead of spinning.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                if !registry.admit() {
                    // Debug, not warn: a flood of connections would flood the log too.
                    tracing::debug!(%peer, cap = shared.limits.max_connections(), "connection cap reached with every connection busy; new connection closed");
                    continue;
                }
                let _ = stream.set_nodelay(true);
                let conn = Arc::new(Connection {
                    service: service.clone(),
                    mount: mount.clone(),
                    progress: Progress::default(),
                    live: graceful.live(),
                    shared: shared.clone(),
                    peer,
                });
                let watched = conn.clone();
                // No hyper timer: hyper's header read timeout arms, polls and cancels a timer
                // for every request head; the connection's watchdog (`watch_idle`) enforces
                // the same bound with one timer tick every ten seconds.
                let connection = http1::Builder::new()
                    .keep_alive(true)
                    .header_read_timeout(None)
                    .serve_connection(
                        TokioIo::new(SlicedReads::new(stream)),
                        service_fn(move |request| {
                            let conn = conn.clone();
                            Progress::count(&conn.progress.started);
                            async move {
                                let response = match &conn.mount {
                                    Some(mount) if mount.matches(request.uri().path()) => {
                                        let mut request = request;
                                        request.extensions_mut().insert(conn.peer);
                                        respond_mounted(mount, &conn.shared, &conn.progress, request).await
                                    }
                                    _ => respond(&conn.service, &conn.shared, &conn.progress, request).await,
                                };
                                // A body too slow to keep: hyper closes the connection unanswered.
                                let response = response?;
                                coalesce(&conn.live).await;
                                Progress::count(&conn.progress.finished);
                                Ok::<_, TooSlow>(response)
                            }
                        }),
                    );
                let connection = tokio::spawn(graceful.watch(connection));
                let id = registry.insert(watched.clone(), connection.abort_handle());
                let registry = registry.clone();
                tokio::spawn(async move {
                    let outcome = watch_idle(connection, &watched.progress, IDLE_CHECK, IDLE_TIMEOUT).await;
                    registry.remove(id);
                    match outcome {
                        Some(Ok(Ok(()))) => {}
                        Some(Ok(Err(e))) => tracing::debug!(%peer, error = %e, "connection closed with an error"),
                        Some(Err(e)) => tracing::debug!(%peer, error = %e, "connection task failed"),
                        None => tracing::debug!(%peer, "connection idle too long; closed"),
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    tracing::info!(connections = graceful.count(), "shutting down");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => tracing::warn!("shutdown grace period over; closing open connections"),
    }
    Ok(())
}

/// What a connection's service function needs, behind one `Arc`: a request clones one pointer
/// (one atomic increment, one decrement) where cloning the service, the mount and the counters
/// cost three of each.
struct Connection {
    service: Service,
    mount: Option<Mount>,
    progress: Progress,
    /// The server's open connections, for [`coalesce`].
    live: Live,
    shared: Arc<Shared>,
    /// The client's address, handed to a mount in each request's extensions.
    peer: std::net::SocketAddr,
}

impl Idle for Connection {
    fn is_idle(&self) -> bool {
        self.progress.started.load(Ordering::Relaxed) == self.progress.finished.load(Ordering::Relaxed)
    }

    fn body_rate(&self, now: Instant) -> Option<f64> {
        let (since, received) = (*self.progress.waiting_body.lock())?;
        // One byte more, and at least a millisecond, so that a body just begun is not slower
        // than one that has trickled for seconds.
        Some((received + 1) as f64 / now.saturating_duration_since(since).as_secs_f64().max(0.001))
    }
}

/// What every connection of one server shares.
struct Shared {
    budget: Budget,
    /// One permit per compressed body that may be inflated on the blocking pool at once.
    inflating: tokio::sync::Semaphore,
    limits: Limits,
}

/// How many compressed bodies are inflated on the blocking pool at once: half the cores, at
/// least one. A small body that inflates to 16 MiB is tens of milliseconds of work; ten of
/// them at once, each on its own pool thread, left the async worker a fraction of a core on a
/// two-core machine. The others wait for a permit on no thread, and a legitimate compressed
/// request waits at most for the ones ahead of it.
fn concurrent_inflations() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get() / 2).max(1)
}

/// Why a request is dropped unanswered: its body fell behind the minimum rate
/// (`Limits::min_body_rate`). hyper closes the connection.
#[derive(Debug, thiserror::Error)]
#[error("the request body arrived slower than the minimum rate; connection closed")]
struct TooSlow;

/// Why a body was not read whole.
enum BodyError {
    /// Answered with this error, then the connection is closed.
    Refused(ServerError),
    /// Dropped unanswered.
    TooSlow,
}

/// Holds a response back until the worker has handled the other requests that are ready,
/// when another connection is open: the task yields once, and tokio wakes a yielded task only
/// after it has run every ready task and polled the I/O driver (`tokio::task::yield_now`).
///
/// Why: writing each response as soon as it is made wakes a waiting client once per response,
/// and that wake-up is the costliest part of a small request's system time (the kernel's
/// `sock_def_readable` signalling the client's `epoll_wait` on another CPU). Written back to
/// back after the tick's other requests, the responses find the client still awake reading
/// the previous ones. With 32 connections under wrk this cut a GetItem's server CPU from
/// 13.2 to 10.9 µs (system time 8.2 to 6.4 µs) and raised GetItem, PutItem and Query
/// throughput by a fifth or more (bench/results/2026-12-06-1820631-peers.md). It costs
/// one more poll of the connection task, so a lone connection, with no response to batch
/// with, skips it.
async fn coalesce(live: &Live) {
    if live.count() > 1 {
        tokio::task::yield_now().await;
    }
}

/// Requests a connection has started and finished, counted by its service function; a
/// request that has started but not finished is in flight (its body being read, the engine
/// running, or a mount's handler).
#[derive(Default)]
struct Progress {
    started: AtomicU64,
    finished: AtomicU64,
    /// While a request body is being waited for (a frame was not ready): when the body began
    /// to be waited for, and the bytes received. Written only on that slow path.
    waiting_body: parking_lot::Mutex<Option<(Instant, usize)>>,
}

impl Progress {
    /// Adds one to a counter of this connection. Only the connection's own task writes its
    /// counters (hyper serves one request of an HTTP/1 connection at a time), so a load and a
    /// store lose no update and need no locked read-modify-write; the watchdog only reads.
    fn count(counter: &AtomicU64) {
        counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }
}

/// Waits for `connection` to end, and aborts it when no request has started for `timeout`
/// ([`IDLE_TIMEOUT`]) while none was in flight, looking every `check` ([`IDLE_CHECK`]); `None`
/// means it was aborted. This is the bound
/// hyper's header read timeout gives (a request head must arrive within 30 s of the previous
/// response, or of the connection's start), at one timer per ten seconds instead of one per
/// request; it also drops a client that trickles a head, which never starts a request.
async fn watch_idle<T>(
    mut connection: tokio::task::JoinHandle<T>,
    progress: &Progress,
    check: Duration,
    timeout: Duration,
) -> Option<Result<T, tokio::task::JoinError>> {
    let mut last_started = progress.started.load(Ordering::Relaxed);
    let mut idle_for = Duration::ZERO;
    loop {
        tokio::select! {
            result = &mut connection => return Some(result),
            () = tokio::time::sleep(check) => {
                let started = progress.started.load(Ordering::Relaxed);
                let finished = progress.finished.load(Ordering::Relaxed);
                if started != last_started || started != finished {
                    last_started = started;
                    idle_for = Duration::ZERO;
                    continue;
                }
                idle_for += check;
                if idle_for >= timeout {
                    connection.abort();
                    return None;
                }
            }
        }
    }
}

/// Answers one protocol request. The body's hold on the budget is given back when this
/// returns, after the response is made.
async fn respond(
    service: &Service,
    shared: &Shared,
    progress: &Progress,
    request: http::Request<Incoming>,
) -> Result<http::Response<Full<Bytes>>, TooSlow> {
    let (parts, body) = request.into_parts();
    let headers = RequestHeaders::read(&parts.headers);
    let declared = declared_length(headers.content_length);
    // A client waiting for `100 Continue` has not sent its body yet: refuse it unread.
    let expects_continue = headers.expect.is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    if head_too_large(&parts, &headers) {
        return Ok(refuse_head(&parts, body, expects_continue).await);
    }
    let mut held = shared.budget.hold();
    let read = read_body(body, declared, expects_continue, &mut held, &shared.limits, progress).await;
    let read = match read {
        Ok(body) => copies_held(body, &headers, &mut held).await,
        Err(e) => Err(e),
    };
    Ok(match read {
        Ok(body) => {
            let inflating = inflates_on_pool(headers.content_encoding, body.len());
            let place = if inflating {
                Placement::Pool
            } else {
                placement(headers.target(), body.len(), service.engine().writes_may_block())
            };
            if place == Placement::Pool {
                // A body to inflate waits for a permit (the semaphore is never closed), held
                // until the request has run. A large body is joined there, where it runs.
                let _permit = if inflating { shared.inflating.acquire().await.ok() } else { None };
                return Ok(Box::pin(on_pool(service.clone(), parts, body)).await);
            }
            let body = body.join();
            let handle = || defer_sync(|| service.handle_with_headers(&parts, &headers, &body));
            let attempt = match place {
                Placement::Inline => Some(handle()),
                // Abandoned past its budget before it had any effect (see `fairness`).
                Placement::InlineWithinBudget => within_budget(INLINE_BUDGET, handle),
                // Sent to the pool above, with its body unjoined.
                Placement::Pool => None,
            };
            let Some((response, pending)) = attempt else {
                if place == Placement::InlineWithinBudget {
                    tracing::debug!(
                        target: "monotable_server::fairness",
                        operation = Operation::from_target(headers.target()).map_or("-", Operation::name),
                        "request past its inline budget; run again on the blocking pool"
                    );
                }
                // A request that may run long goes to the blocking pool, so that it never holds
                // up the light requests of other connections (see `fairness`).
                return Ok(Box::pin(on_pool(service.clone(), parts, Body::from(body))).await);
            };
            crate::response::recycle_headers(parts.headers);
            match pending {
                None => response.map(Full::new),
                Some(pending) => Box::pin(when_durable(response, pending)).await.map(Full::new),
            }
        }
        Err(BodyError::TooSlow) => {
            tracing::debug!(method = %parts.method, declared_bytes = declared, "request body too slow; connection closed");
            return Err(TooSlow);
        }
        Err(BodyError::Refused(error)) => {
            let request_id = new_request_id();
            tracing::debug!(
                target: "monotable_server::request",
                request_id = %request_id,
                method = %parts.method,
                status = error.status().as_u16(),
                error = %error.type_name(),
                declared_bytes = declared,
                "request refused before dispatch"
            );
            let mut response = error_response(&error, JSON_1_0, &request_id).map(Full::new);
            // The rest of an oversized, broken or throttled body was not read; the connection
            // cannot be reused.
            response.headers_mut().insert(http::header::CONNECTION, http::HeaderValue::from_static("close"));
            response
        }
    })
}

/// Whether the request line or the header section exceeds [`MAX_HEAD_PART_BYTES`], each
/// counted as written: `METHOD target HTTP/1.1\r\n`, and `name: value\r\n` per field.
fn head_too_large(parts: &http::request::Parts, headers: &RequestHeaders<'_>) -> bool {
    let uri = &parts.uri;
    let path = uri.path_and_query().map_or(0, |p| p.as_str().len());
    let target = match (uri.scheme_str(), uri.authority()) {
        (Some(scheme), Some(authority)) => scheme.len() + "://".len() + authority.as_str().len() + path,
        (None, Some(authority)) => authority.as_str().len() + path,
        _ => path,
    };
    let request_line = parts.method.as_str().len() + target + " HTTP/1.1\r\n".len() + 1;
    request_line > MAX_HEAD_PART_BYTES || headers.section_bytes > MAX_HEAD_PART_BYTES
}

/// The 400 for an oversized head. The body is read on and discarded first, as for an oversized
/// body (see [`read_body`]), so that a client that writes before it reads receives the answer;
/// the connection is then closed.
async fn refuse_head(
    parts: &http::request::Parts,
    body: Incoming,
    expects_continue: bool,
) -> http::Response<Full<Bytes>> {
    if !expects_continue {
        let _ = tokio::time::timeout(DRAIN_TIME, drain(body, 0)).await;
    }
    let request_id = new_request_id();
    tracing::debug!(
        target: "monotable_server::request",
        request_id = %request_id,
        method = %parts.method,
        status = 400,
        "request refused before dispatch: request line or headers over 16 KiB"
    );
    let body = Bytes::from_static(HEAD_TOO_LARGE_BODY.as_bytes());
    let mut response = crate::response::respond(
        http::StatusCode::BAD_REQUEST,
        body,
        Some("text/plain; charset=utf-8"),
        &request_id,
    )
    .map(Full::new);
    response.headers_mut().insert(http::header::CONNECTION, http::HeaderValue::from_static("close"));
    response
}

/// Holds room in the budget for the copies a body will need beyond its frames: the buffer
/// that joins a body of several frames, and the inflated copy of a compressed body, at the
/// most it can inflate to.
async fn copies_held(
    body: Body,
    headers: &RequestHeaders<'_>,
    held: &mut Held<'_>,
) -> Result<Body, BodyError> {
    let joined = if body.is_split() { body.len() } else { 0 };
    let inflated = if inflates(headers.content_encoding) { inflated_bound(body.len()) } else { 0 };
    if joined + inflated > 0 {
        held.cover_more(joined + inflated).await.map_err(BodyError::Refused)?;
    }
    Ok(body)
}

/// Runs a request on the blocking pool (its body joined there), and waits there for nothing:
/// the response waits for the request's writes to be durable here, on no thread.
async fn on_pool(service: Service, parts: http::request::Parts, body: Body) -> http::Response<Full<Bytes>> {
    let handle = tokio::task::spawn_blocking(move || {
        crate::priority::lower_this_pool_thread();
        let body = body.join();
        defer_sync(|| service.handle(&parts, &body))
    });
    match handle.await {
        Ok((response, None)) => response.map(Full::new),
        Ok((response, Some(pending))) => when_durable(response, pending).await.map(Full::new),
        Err(_) => {
            let request_id = new_request_id();
            error_response(
                &ServerError::Internal("The server encountered an internal error.".into()),
                JSON_1_0,
                &request_id,
            )
            .map(Full::new)
        }
    }
}

/// Reads the body with the protocol's limits and hands the request to the mount's handler.
/// The body is held in the budget until the handler has answered.
async fn respond_mounted(
    mount: &Mount,
    shared: &Shared,
    progress: &Progress,
    request: http::Request<Incoming>,
) -> Result<http::Response<Full<Bytes>>, TooSlow> {
    let (parts, body) = request.into_parts();
    let declared = declared_length(parts.headers.get(http::header::CONTENT_LENGTH));
    let mut held = shared.budget.hold();
    match read_body(body, declared, false, &mut held, &shared.limits, progress).await {
        Ok(body) => Ok((mount.handler)(parts, body.join()).await.map(Full::new)),
        Err(BodyError::TooSlow) => Err(TooSlow),
        Err(BodyError::Refused(error)) => {
            let mut response = error_response(&error, JSON_1_0, &new_request_id()).map(Full::new);
            response.headers_mut().insert(http::header::CONNECTION, http::HeaderValue::from_static("close"));
            Ok(response)
        }
    }
}

/// The body length a request's `Content-Length` declares, if it declares one.
fn declared_length(content_length: Option<&http::HeaderValue>) -> Option<usize> {
    text(content_length).and_then(|v| v.parse::<u64>().ok()).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Reads a request body of at most [`MAX_REQUEST_BYTES`], frame by frame (`body`). A larger body is read on and
/// discarded up to [`DRAIN_BYTES`] (or [`DRAIN_TIME`]) so that a client that writes its whole
/// body before reading still receives the 413, then refused with `RequestTooLarge`.
///
/// The frames are covered by `held` as they arrive (`budget`); a body that finds no room in
/// time is refused with `ThrottlingException`. A lone first frame is a view into hyper's
/// current read buffer, which is the connection's own and bounded by hyper, so only a body of
/// two frames or more, whose frames keep blocks of that buffer alive, takes room. A body that falls behind `limits`'s
/// minimum rate, or leaves a gap longer than its grace between frames, is `TooSlow`. While a
/// frame is waited for, `progress` shows the body's rate to the connection cap, which closes
/// the slowest such body when every connection is busy (`connections`). A body whose frames
/// keep arriving gives up the worker every [`BODY_SLICE_BYTES`], so other connections are
/// served while it is read.
async fn read_body(
    mut body: Incoming,
    declared: Option<usize>,
    expects_continue: bool,
    held: &mut Held<'_>,
    limits: &Limits,
    progress: &Progress,
) -> Result<Body, BodyError> {
    /// Clears the connection's waiting body however the read ends.
    struct Waited<'a>(&'a Progress);
    impl Drop for Waited<'_> {
        fn drop(&mut self) {
            *self.0.waiting_body.lock() = None;
        }
    }
    if let Some(declared) = declared.filter(|&n| n > MAX_REQUEST_BYTES) {
        if declared <= DRAIN_BYTES && !expects_continue {
            let _ = tokio::time::timeout(DRAIN_TIME, drain(body, 0)).await;
        }
        return Err(BodyError::Refused(ServerError::RequestTooLarge));
    }
    let mut collected = Body::default();
    // When the body was first waited for: no clock is read while frames are ready.
    let mut started: Option<Instant> = None;
    let mut waited: Option<Waited<'_>> = None;
    // Bytes read since the task last gave up the worker.
    let mut slice = 0;
    loop {
        let frame = match frame_now(&mut body).await {
            Poll::Ready(frame) => frame,
            Poll::Pending => {
                slice = 0;
                let now = Instant::now();
                let start = *started.get_or_insert(now);
                *progress.waiting_body.lock() = Some((start, collected.len()));
                waited.get_or_insert_with(|| Waited(progress));
                let by_rate = start + held.waited() + limits.body_allowance(collected.len());
                let deadline = by_rate.min(now + limits.body_grace());
                match tokio::time::timeout_at(deadline.into(), body.frame()).await {
                    Ok(frame) => frame,
                    Err(_) => return Err(BodyError::TooSlow),
                }
            }
        };
        let Some(frame) = frame else { break };
        let frame = frame.map_err(|e| {
            tracing::debug!(error = %e, "could not read request body");
            BodyError::Refused(ServerError::Serialization(None))
        })?;
        let Ok(data) = frame.into_data() else { continue };
        if collected.len() + data.len() > MAX_REQUEST_BYTES {
            let seen = collected.len() + data.len();
            drop(collected);
            let _ = tokio::time::timeout(DRAIN_TIME, drain(body, seen)).await;
            return Err(BodyError::Refused(ServerError::RequestTooLarge));
        }
        if collected.len() > 0 {
            held.cover(collected.len() + data.len()).await.map_err(BodyError::Refused)?;
        }
        slice += data.len();
        collected.push(data);
        // A body whose declared length has all arrived is complete: asking for another frame
        // would only learn that (a second trip through hyper's body channel per request).
        if body.is_end_stream() {
            break;
        }
        if slice >= BODY_SLICE_BYTES {
            slice = 0;
            tokio::task::yield_now().await;
        }
    }
    Ok(collected)
}

/// The body's next frame if it is ready now, without a timer; `Pending` leaves the task's
/// waker with the body, to be polled again under a deadline.
async fn frame_now(body: &mut Incoming) -> Poll<Option<Result<hyper::body::Frame<Bytes>, hyper::Error>>> {
    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *body).poll_frame(cx))).await
}

async fn drain(mut body: Incoming, mut seen: usize) {
    while let Some(Ok(frame)) = body.frame().await {
        seen += frame.data_ref().map_or(0, Bytes::len);
        if seen > DRAIN_BYTES {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECK: Duration = Duration::from_millis(50);
    const TIMEOUT: Duration = Duration::from_millis(500);

    #[tokio::test]
    async fn a_connection_that_starts_no_request_is_aborted_after_the_timeout() {
        let progress = Progress::default();
        let started = std::time::Instant::now();
        let outcome = watch_idle(tokio::spawn(std::future::pending::<()>()), &progress, CHECK, TIMEOUT).await;
        assert!(outcome.is_none());
        assert!(started.elapsed() >= TIMEOUT);
    }

    #[tokio::test]
    async fn a_request_in_flight_or_a_new_request_keeps_the_connection() {
        let progress = Arc::new(Progress::default());
        progress.started.fetch_add(1, Ordering::Relaxed);
        let counters = progress.clone();
        let connection = tokio::spawn(async move {
            // One request in flight for three timeouts, then one new request every check.
            tokio::time::sleep(TIMEOUT * 3).await;
            counters.finished.fetch_add(1, Ordering::Relaxed);
            for _ in 0..10 {
                tokio::time::sleep(CHECK).await;
                counters.started.fetch_add(1, Ordering::Relaxed);
                counters.finished.fetch_add(1, Ordering::Relaxed);
            }
            "done"
        });
        let outcome = watch_idle(connection, &progress, CHECK, TIMEOUT).await;
        assert_eq!(outcome.map(|r| r.ok()), Some(Some("done")));
    }
}
