//! `monotable console --endpoint URL`: the console on its own port, for any endpoint.

use std::convert::Infallible;
use std::future::Future;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use crate::Console;

/// The largest request body the standalone console reads.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// Serves `console` on `listener` (paths under `/console`; `/` redirects there) until
/// `shutdown` completes, then lets in-flight requests finish.
pub async fn serve(
    listener: TcpListener,
    console: Console,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                };
                let console = console.clone();
                let connection = http1::Builder::new().serve_connection(
                    TokioIo::new(stream),
                    service_fn(move |mut request: http::Request<hyper::body::Incoming>| {
                        let console = console.clone();
                        // The console counts sign-in attempts per peer address (`throttle`).
                        request.extensions_mut().insert(peer);
                        async move { Ok::<_, Infallible>(respond(&console, request).await.map(Full::new)) }
                    }),
                );
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    let _ = connection.await;
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(std::time::Duration::from_secs(10)) => {}
    }
    Ok(())
}

async fn respond(console: &Console, request: http::Request<hyper::body::Incoming>) -> http::Response<Bytes> {
    let (parts, body) = request.into_parts();
    if parts.uri.path() == "/" {
        let mut response = http::Response::new(Bytes::new());
        *response.status_mut() = http::StatusCode::TEMPORARY_REDIRECT;
        response.headers_mut().insert(http::header::LOCATION, http::HeaderValue::from_static("/console/"));
        return response;
    }
    match Limited::new(body, MAX_BODY).collect().await {
        Ok(body) => console.handle(parts, body.to_bytes()).await,
        Err(_) => {
            let mut response = http::Response::new(Bytes::from_static(b"The request is too large."));
            *response.status_mut() = http::StatusCode::PAYLOAD_TOO_LARGE;
            response
        }
    }
}
