//! The one error type of the load generator.

use std::time::Duration;

/// Why a benchmark could not be set up or run.
///
/// Failed requests *during* a run are not errors of this type: they are counted and reported
/// in [`crate::Report`]. This type is for what stops a benchmark from running at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// The `--endpoint` value is not an `http://host:port` URL.
    #[error("invalid endpoint {url:?}: {reason}")]
    InvalidEndpoint { url: String, reason: String },
    /// The endpoint resolves to an address outside the loopback range.
    #[error(
        "endpoint {url:?} resolves to {addr}, which is not a loopback address; \
         monotable bench only sends load to this machine (127.0.0.0/8 or ::1)"
    )]
    NotLoopback { url: String, addr: std::net::IpAddr },
    /// A configuration value is out of range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// The connection to the endpoint failed.
    #[error("connection to {addr} failed: {source}")]
    Connect { addr: std::net::SocketAddr, source: std::io::Error },
    /// An HTTP exchange failed below the DynamoDB protocol.
    #[error("HTTP error: {0}")]
    Http(#[from] hyper::Error),
    /// A setup request (create table, load data) was refused by the endpoint.
    #[error("{operation} failed with HTTP {status}: {body}")]
    SetupRequest { operation: &'static str, status: u16, body: String },
    /// Waiting for a table state or a server took longer than allowed.
    #[error("timed out after {0:?} waiting for {1}")]
    Timeout(Duration, String),
    /// Starting or watching a server process failed.
    #[error("server process: {0}")]
    Process(std::io::Error),
    /// A load task panicked or was cancelled.
    #[error("a load task failed: {0}")]
    Task(String),
    /// The tokio runtime could not be built.
    #[error("cannot build the async runtime: {0}")]
    Runtime(std::io::Error),
}
