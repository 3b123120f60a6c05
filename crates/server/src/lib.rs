//! DynamoDB's JSON 1.0 protocol over HTTP/1.1, in front of a [`monotable_engine::Engine`].
//!
//! * [`Service`] is the protocol: one complete request in, one response out. The TCP server
//!   and the in-process SDK connector (`monotable-embedded`) both call [`Service::handle`].
//! * [`Operation`] maps `X-Amz-Target: DynamoDB_20120810.<Name>` to an engine call.
//! * [`ServerError`] is every failure; `response.rs` is the only place one becomes a response.
//! * [`Auth`] accepts any well-formed SigV4 request (the default) or verifies signatures.
//! * A [`Service`] runs on one engine for every request ([`Service::new`], DynamoDB Local's
//!   `-sharedDb`) or on one per account and region ([`Service::per_location`]).
//! * [`run`] / [`serve`] accept connections on a tokio `TcpListener` until a shutdown future
//!   completes; [`serve_with`] also hands one non-protocol path prefix to a [`Mount`] (the
//!   CLI mounts the web console there; this crate knows nothing of it).
//!
//! Module map: `operation` (name → engine call), `decode` (body → typed input, with
//! DynamoDB's serialization errors), `encoding` (compressed requests and responses),
//! `endpoints` (DescribeEndpoints names the request's host), `service` (the check order),
//! `headers` (the request headers the protocol reads, in one pass), `locations` (the engine
//! of a request's region and account), `response` (headers,
//! request id, CRC32, error rendering), `auth` (SigV4), `cors` (browser access), `browsers` (web
//! pages refused when signatures are not verified), `transport`
//! (hyper), `limits` (what the transport allows a client: `budget` of buffered bytes,
//! `connections` cap, minimum body rate), `graceful` (shutdown: connections finish their request, then close), `priority` (the
//! blocking pool runs below the workers' CPU priority), `reads` (a socket read 64 KiB at a time),
//! `body` (a request body's frames).

mod auth;
mod body;
mod browsers;
mod budget;
mod connections;
mod cors;
mod decode;
mod durable;
mod encode;
mod encoding;
mod endpoints;
mod error;
mod fairness;
mod graceful;
mod headers;
mod limits;
mod locations;
mod operation;
mod priority;
mod reads;
mod response;
mod service;
mod transport;

pub use auth::{Auth, Credentials, CredentialsError};
pub use browsers::is_loopback_host;
pub use durable::when_durable;
pub use error::ServerError;
pub use limits::{raise_descriptor_limit, Limits};
pub use locations::{OpenEngine, MAX_LOCATIONS};
pub use operation::{Operation, STREAMS_TARGET_PREFIX, TARGET_PREFIX};
pub use priority::lower_this_pool_thread as lower_this_thread_below_workers;
pub use response::{JSON_1_0, PLAIN_JSON};
pub use service::{Service, HEALTH_BODY, MAX_REQUEST_BYTES};
pub use transport::{run, serve, serve_with, Mount, MountFuture};
