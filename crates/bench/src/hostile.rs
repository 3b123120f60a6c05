//! The attacks on the transport (`--attack held-bodies` and `slow-bodies`), made on raw TCP
//! connections because no HTTP client sends them, and the probe of new connections that runs
//! beside every attack: what a client opening a connection meanwhile waits for.
//!
//! Invariant: every loop here ends when `done` is set, and connects only to the run's
//! endpoint (a loopback address, `Endpoint::parse`).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hdrhistogram::Histogram;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A request head declaring a PutItem body of `length` bytes (the body never completes, so
/// its target hardly matters).
fn head(length: usize) -> Vec<u8> {
    format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.PutItem\r\nContent-Length: {length}\r\n\r\n"
    )
    .into_bytes()
}

/// What a transport attack's connections did: rounds (a connection opened and its body
/// sent as far as the shape goes), and connections the server closed or refused.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Rounds {
    pub opened: u64,
    pub closed_by_server: u64,
}

/// How a transport attack's connections behave.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// `connections` connections each declare a 16 MiB body, send all of it but one byte at
    /// once, and hold it until the server closes them.
    Held { connections: usize },
    /// `connections` connections each declare a 1 MiB body and send one byte of it every
    /// `every`, far below any sane minimum rate, until the server closes them.
    Slow { connections: usize, every: Duration },
}

/// The bytes a shape's connections declare.
pub(crate) fn declared_bytes(shape: Shape) -> usize {
    match shape {
        Shape::Held { .. } => 16 << 20,
        Shape::Slow { .. } => 1 << 20,
    }
}

/// Runs `shape` against `addr` until `done`; each connection is re-opened when the server
/// closes it.
pub(crate) async fn run(shape: Shape, addr: SocketAddr, done: Arc<AtomicBool>) -> Rounds {
    let connections = match shape {
        Shape::Held { connections } | Shape::Slow { connections, .. } => connections,
    };
    // One body for every connection: the attacker's own cost is not what is measured.
    let body = Bytes::from(vec![b' '; declared_bytes(shape) - 1]);
    let mut tasks = Vec::with_capacity(connections);
    for _ in 0..connections {
        let done = done.clone();
        let body = body.clone();
        tasks.push(tokio::spawn(async move {
            let mut rounds = Rounds::default();
            while !done.load(Ordering::Relaxed) {
                rounds.opened += 1;
                if one_connection(shape, addr, &body, &done).await {
                    rounds.closed_by_server += 1;
                }
            }
            rounds
        }));
    }
    let mut total = Rounds::default();
    for task in tasks {
        if let Ok(r) = task.await {
            total.opened += r.opened;
            total.closed_by_server += r.closed_by_server;
        }
    }
    total
}

/// One connection of `shape`; true when the server closed (or refused) it before `done`.
async fn one_connection(shape: Shape, addr: SocketAddr, body: &[u8], done: &AtomicBool) -> bool {
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        tokio::time::sleep(Duration::from_millis(10)).await;
        return true;
    };
    let length = declared_bytes(shape);
    if stream.write_all(&head(length)).await.is_err() {
        return true;
    }
    let every = match shape {
        Shape::Held { .. } => {
            if stream.write_all(body).await.is_err() {
                return true;
            }
            Duration::from_millis(100)
        }
        Shape::Slow { every, .. } => every,
    };
    let mut byte = [0u8; 1];
    while !done.load(Ordering::Relaxed) {
        // A read that ends (or answers) means the server closed the connection or refused the
        // body; a slow shape then sends its next byte.
        match tokio::time::timeout(every, stream.read(&mut byte)).await {
            Ok(_) => return true,
            Err(_) => {
                if matches!(shape, Shape::Slow { .. }) && stream.write_all(b" ").await.is_err() {
                    return true;
                }
            }
        }
    }
    false
}

/// Opens a new connection every `every` until `done` and sends `GET /` on it; records how
/// long each took to be answered (connect included), in nanoseconds, and counts the ones
/// that failed.
pub(crate) async fn new_connections(
    addr: SocketAddr,
    every: Duration,
    done: Arc<AtomicBool>,
) -> (Histogram<u64>, u64) {
    #[allow(clippy::expect_used)] // constant bounds that satisfy hdrhistogram's rules
    let mut histogram =
        Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("constant histogram bounds are valid");
    let mut failed = 0;
    while !done.load(Ordering::Relaxed) {
        let started = Instant::now();
        let answered = tokio::time::timeout(Duration::from_secs(10), async {
            let mut stream = TcpStream::connect(addr).await.ok()?;
            stream.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.ok()?;
            let mut head = [0u8; 12];
            stream.read_exact(&mut head).await.ok()?;
            (&head == b"HTTP/1.1 200").then_some(())
        })
        .await;
        match answered {
            Ok(Some(())) => {
                histogram.saturating_record(started.elapsed().as_nanos().min(u64::MAX as u128) as u64)
            }
            _ => failed += 1,
        }
        tokio::time::sleep(every).await;
    }
    (histogram, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_declares_the_shapes_length() {
        let text = String::from_utf8(head(declared_bytes(Shape::Held { connections: 1 }))).unwrap();
        assert!(text.contains("Content-Length: 16777216\r\n\r\n"), "{text}");
        assert_eq!(declared_bytes(Shape::Slow { connections: 1, every: Duration::from_secs(1) }), 1 << 20);
    }
}
