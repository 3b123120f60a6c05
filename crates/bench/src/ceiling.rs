//! The ceiling: an HTTP/1.1 server on one thread that answers every request with a fixed
//! `{}` as a DynamoDB endpoint would frame it (JSON 1.0 content type, a request id, the
//! body's CRC-32), doing no other work. Driven by the same client as the real servers, its
//! throughput is the most that one server worker can reach on this machine, so every
//! `bench/peers.sh` run reports how close `monotable serve` comes to it.
//!
//! The body is read in full before the answer, as a server must; the request is not parsed.
//! Like `monotable serve`, it writes an answer only after the other ready requests have been
//! answered when more than one connection is open (one `yield_now`, see the server's
//! `transport::coalesce`; the rule is restated here, as the load generator does not depend
//! on the server): without that, the ceiling would sit below what a worker reaches.
//! [`Coalesce::No`] gives the plain hyper server of the benchmark tables measured before
//! commit 6a53a8a.
//! Runs against it skip setup (`--skip-setup`): it has no table to create or load.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::BenchError;

/// `{}`: the body of every answer.
const BODY: &[u8] = b"{}";
/// CRC-32 (IEEE) of [`BODY`], as DynamoDB's `x-amz-crc32` header carries it.
const BODY_CRC32: &str = "2745614147";

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Whether the ceiling holds an answer back until the other ready requests are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coalesce {
    /// As `monotable serve` does, when more than one connection is open.
    Yes,
    /// Every answer is written as soon as it is made.
    No,
}

/// Open connections, counted by the connection tasks.
struct Live(Arc<AtomicUsize>);

impl Live {
    fn new(count: &Arc<AtomicUsize>) -> Live {
        count.fetch_add(1, Ordering::Relaxed);
        Live(count.clone())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn answer(
    request: Request<Incoming>,
    coalesce: Coalesce,
    live: &AtomicUsize,
) -> Result<Response<Full<Bytes>>, Infallible> {
    // Reading the whole body is part of the work any server does; a broken body still gets
    // the fixed answer.
    let _ = request.into_body().collect().await;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut response = Response::new(Full::new(Bytes::from_static(BODY)));
    let headers = response.headers_mut();
    headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/x-amz-json-1.0"));
    if let Ok(v) = http::HeaderValue::from_str(&format!("CEILING{id:020}")) {
        headers.insert("x-amzn-requestid", v);
    }
    headers.insert("x-amz-crc32", http::HeaderValue::from_static(BODY_CRC32));
    if coalesce == Coalesce::Yes && live.load(Ordering::Relaxed) > 1 {
        tokio::task::yield_now().await;
    }
    Ok(response)
}

/// Serves the fixed answer on `listener` until the process ends, on the calling thread.
pub async fn serve_ceiling(listener: TcpListener, coalesce: Coalesce) -> Result<(), BenchError> {
    let live = Arc::new(AtomicUsize::new(0));
    loop {
        let (stream, _) = listener.accept().await.map_err(BenchError::Runtime)?;
        let _ = stream.set_nodelay(true);
        let live = Live::new(&live);
        tokio::task::spawn(async move {
            let count = &live.0;
            // A connection that fails only ends itself.
            let _ = http1::Builder::new()
                .serve_connection(
                    TokioIo::new(stream),
                    service_fn(|request| answer(request, coalesce, count)),
                )
                .await;
        });
    }
}

/// Binds `addr` and runs [`serve_ceiling`] on a single-threaded runtime (one worker, as
/// `monotable serve` uses on two cores).
pub fn run_ceiling(addr: SocketAddr, coalesce: Coalesce) -> Result<(), BenchError> {
    let runtime = crate::run::runtime(1)?;
    runtime.block_on(async {
        let listener = TcpListener::bind(addr).await.map_err(BenchError::Runtime)?;
        serve_ceiling(listener, coalesce).await
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_body_crc_is_its_crc32() {
        // CRC-32/IEEE of "{}" computed bit by bit, so the constant cannot drift from the body.
        let mut crc = 0xFFFF_FFFFu32;
        for &b in BODY {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        assert_eq!((!crc).to_string(), BODY_CRC32);
    }

    #[test]
    fn the_bench_client_drives_the_ceiling_server() {
        let runtime = crate::run::runtime(2).unwrap();
        let addr = runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(serve_ceiling(listener, Coalesce::Yes));
            addr
        });
        let mut c = crate::BenchConfig::new(&format!("http://{addr}"), crate::Workload::Get);
        c.stop = crate::Stop::Requests(200);
        // There is no table to set up: the ceiling answers `{}` to DescribeTable too.
        c.setup = false;
        c.concurrency = 4;
        let report = std::thread::spawn(move || crate::run(&c)).join().unwrap().unwrap();
        assert_eq!((report.ok, report.errors), (200, 0), "{:?}", report.error_kinds);
        // Every GetItem answer is `{}`: no item, as the report counts it.
        assert_eq!(report.empty_results, 200);
        drop(runtime);
    }
}
