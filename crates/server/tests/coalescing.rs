//! Responses to requests that are ready together are written together: the worker handles
//! every ready request before it writes their responses, so that a client is woken once for
//! several responses instead of once per response (`transport::coalesce`).

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use common::post;
use monotable_engine::Engine;
use monotable_server::Service;

const TABLE: &str = r#"{"TableName":"coalesce","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;

fn put(pk: &str) -> Vec<u8> {
    post(
        "DynamoDB_20120810.PutItem",
        format!(r#"{{"TableName":"coalesce","Item":{{"pk":{{"S":"{pk}"}}}}}}"#).as_bytes(),
    )
}

/// Reads one response and returns its status: the head up to the blank line, then as many
/// body bytes as its `Content-Length` says.
fn read_status(stream: &mut TcpStream) -> u16 {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).expect("read a response head"), 1, "connection closed");
        buf.push(byte[0]);
    }
    let head = String::from_utf8(buf).expect("an ASCII head");
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap())
        })
        .expect("a Content-Length");
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).expect("read the body");
    head[9..12].parse().expect("a status code")
}

fn send(stream: &mut TcpStream, request: &[u8]) -> u16 {
    stream.write_all(request).expect("write a request");
    read_status(stream)
}

/// Whether a response has arrived on `stream`, without waiting or consuming it. The flag is
/// shared with the test's own handle on the socket, which reads only after this has returned.
fn has_bytes(stream: &TcpStream) -> bool {
    let mut byte = [0u8; 1];
    stream.set_nonblocking(true).expect("nonblocking");
    let arrived = matches!(stream.peek(&mut byte), Ok(n) if n > 0);
    stream.set_nonblocking(false).expect("blocking");
    arrived
}

/// A server on its own thread with one single-threaded runtime, as `monotable serve` runs on
/// two cores.
fn start(service: Service) -> (SocketAddr, tokio::sync::oneshot::Sender<()>, std::thread::JoinHandle<()>) {
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
            addr_tx.send(listener.local_addr().expect("addr")).expect("send addr");
            monotable_server::serve(listener, service, async move {
                let _ = stop_rx.await;
            })
            .await
            .expect("serve");
        });
    });
    (addr_rx.recv().expect("server address"), stop_tx, thread)
}

/// Connection C's PutItem is held inside the engine while A and B each send a PutItem, so that
/// both are ready when the worker gets free. When the second of them enters the engine, neither
/// A nor B has a response yet: the first one's waits until the worker has handled the second.
/// (Written as soon as it was made, the first response would be there already: loopback
/// delivers a write before the `writev` returns.) This pins tokio's documented order for a
/// yielded task: woken after every ready task has run and the I/O driver has been polled.
#[test]
fn a_response_waits_until_the_other_ready_requests_are_handled() {
    let engine = Engine::new();
    let (addr, stop, server) = start(Service::new(engine.clone()));
    let connect = || {
        let s = TcpStream::connect(addr).expect("connect");
        s.set_nodelay(true).expect("nodelay");
        s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
        s
    };
    let (mut a, mut b, mut c) = (connect(), connect(), connect());
    assert_eq!(send(&mut c, &post("DynamoDB_20120810.CreateTable", TABLE.as_bytes())), 200);

    let (peek_a, peek_b) = (a.try_clone().expect("clone"), b.try_clone().expect("clone"));
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(None));
    {
        let (gate, calls, seen) = (gate.clone(), calls.clone(), seen.clone());
        engine.set_in_flight_hook(Some(Arc::new(move |op: &str| {
            if op != "write" {
                return;
            }
            match calls.fetch_add(1, Ordering::SeqCst) + 1 {
                1 => {
                    let (open, cv) = &*gate;
                    let guard = open.lock().unwrap();
                    let _unused =
                        cv.wait_timeout_while(guard, Duration::from_secs(10), |open| !*open).unwrap();
                }
                3 => *seen.lock().unwrap() = Some((has_bytes(&peek_a), has_bytes(&peek_b))),
                _ => {}
            }
        })));
    }

    c.write_all(&put("c")).expect("write");
    let deadline = Instant::now() + Duration::from_secs(10);
    while calls.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "C's PutItem never reached the engine");
        std::thread::sleep(Duration::from_millis(1));
    }
    // Both requests are in the server's socket buffers when these return (loopback).
    a.write_all(&put("a")).expect("write");
    b.write_all(&put("b")).expect("write");
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();

    assert_eq!(read_status(&mut c), 200);
    while seen.lock().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the PutItems of A and B never both reached the engine");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!([read_status(&mut a), read_status(&mut b)], [200, 200]);
    engine.set_in_flight_hook(None);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(
        *seen.lock().unwrap(),
        Some((false, false)),
        "(A has a response, B has a response) when the second of their PutItems entered the engine"
    );
    let _ = stop.send(());
    server.join().expect("server thread");
}
