//! The streamable HTTP transport: rmcp's `StreamableHttpService` at `/mcp` on a listener,
//! one hyper HTTP/1 connection task per client.
//!
//! Invariant: rmcp's default `Host` check stays on (loopback names only), so a page in a
//! browser cannot reach the server by DNS rebinding.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use crate::server::Server;

/// The path the MCP endpoint is served at.
pub const PATH: &str = "/mcp";

/// Serves `server` at `http://ADDRESS/mcp` on `listener` until `shutdown` completes.
pub async fn serve_http(
    listener: TcpListener,
    server: Server,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let config = StreamableHttpServerConfig::default();
    let cancel = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted?,
            () = &mut shutdown => break,
        };
        let service = service.clone();
        tokio::spawn(async move {
            let handler = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let service = service.clone();
                async move {
                    if request.uri().path() != PATH {
                        let body = rmcp_body(format!("not found: the MCP endpoint is {PATH}"));
                        let mut response = hyper::Response::new(body);
                        *response.status_mut() = hyper::StatusCode::NOT_FOUND;
                        return Ok::<_, Infallible>(response);
                    }
                    Ok(service.handle(request).await)
                }
            });
            let connection =
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), handler);
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "MCP HTTP connection ended");
            }
        });
    }
    cancel.cancel();
    Ok(())
}

/// A body of the type rmcp's responses have.
fn rmcp_body(text: String) -> http_body_util::combinators::BoxBody<bytes::Bytes, Infallible> {
    use http_body_util::BodyExt;
    http_body_util::Full::new(bytes::Bytes::from(text)).boxed()
}
