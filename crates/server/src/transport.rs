//! HTTP/1.1 over TCP with hyper: accept loop, keep-alive, body size limit, graceful shutdown.
//!
//! Each connection is served by its own task. A request's body is collected up to
//! [`MAX_REQUEST_BYTES`] and handed, complete, to [`Service::handle`]; engine calls are
//! synchronous and short, so they run directly on the tokio worker.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use monotable_engine::Engine;
use tokio::net::TcpListener;

use crate::response::{error_response, new_request_id, JSON_1_0};
use crate::service::{Service, MAX_REQUEST_BYTES};
use crate::ServerError;

/// How long a client may take to send a request head before the connection is dropped.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long shutdown waits for in-flight requests before closing their connections.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Serves a fresh in-memory engine with default authentication on `listener` until
/// `shutdown` completes.
pub async fn run(listener: TcpListener, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
    serve(listener, Service::new(Engine::new()), shutdown).await
}

/// Serves `service` on `listener` until `shutdown` completes, then stops accepting, lets
/// in-flight requests finish (for at most ten seconds) and returns.
pub async fn serve(
    listener: TcpListener,
    service: Service,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(conn) => conn,
                    Err(e) => {
                        // Out of file descriptors and similar: back off instead of spinning.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let service = service.clone();
                let connection = http1::Builder::new()
                    .keep_alive(true)
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_READ_TIMEOUT)
                    .serve_connection(
                        TokioIo::new(stream),
                        service_fn(move |request| {
                            let service = service.clone();
                            async move { Ok::<_, Infallible>(respond(&service, request).await) }
                        }),
                    );
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!(%peer, error = %e, "connection closed with an error");
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

async fn respond(service: &Service, request: http::Request<Incoming>) -> http::Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large =
        || error_response(&ServerError::RequestTooLarge, JSON_1_0, &new_request_id()).map(Full::new);
    if declared.is_some_and(|n| n > MAX_REQUEST_BYTES as u64) {
        return too_large();
    }
    let body = match Limited::new(body, MAX_REQUEST_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => return too_large(),
        Err(e) => {
            // The client went away or sent a broken body; this response will likely not be
            // read, but the connection task still needs one.
            tracing::debug!(error = %e, "could not read request body");
            return error_response(&ServerError::Serialization(None), JSON_1_0, &new_request_id())
                .map(Full::new);
        }
    };
    service.handle(&parts, &body).map(Full::new)
}
