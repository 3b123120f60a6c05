//! `monotable serve` under hostile clients, over TCP: web pages kept out of an endpoint that
//! does not verify signatures, and (further down) the transport's limits on memory, time and
//! connections. Raw sockets make the shapes an SDK cannot; an SDK workload checks that the
//! defaults never bother a legitimate client. Outcomes are asserted, never durations.
//!
//! These refusals are monotable's own, not DynamoDB behaviour: DynamoDB is never reached
//! without a signature, and DynamoDB Local answers every origin and Host.

mod common;

use common::{post, send_raw, RawResponse, TestServer};
use monotable_engine::Engine;
use monotable_server::{Auth, Credentials, Service};

const LIST_TABLES: &str = "DynamoDB_20120810.ListTables";

/// A ListTables request with `Host: host` and, when given, an `Origin`.
fn list_tables_from(host: &str, origin: Option<&str>) -> Vec<u8> {
    let request = String::from_utf8(post(LIST_TABLES, b"{}")).unwrap();
    let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
    request.replacen("Host: localhost\r\n", &format!("Host: {host}\r\n{origin}"), 1).into_bytes()
}

/// A CORS preflight for a POST from `origin`.
fn preflight_from(origin: &str) -> Vec<u8> {
    format!(
        "OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: {origin}\r\n\
         Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: x-amz-target\r\n\r\n"
    )
    .into_bytes()
}

fn assert_refused(r: &RawResponse, flag: &str) {
    assert_eq!(r.status, 403, "{r:?}");
    assert_eq!(r.error_type(), "com.amazon.coral.service#AccessDeniedException", "{r:?}");
    let message = r.json()["message"].as_str().unwrap_or_default().to_string();
    assert!(message.contains(flag), "the message names {flag}: {message}");
}

#[tokio::test]
async fn a_cross_origin_request_or_preflight_is_refused_without_verified_signatures() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let r = send_raw(server.addr, &list_tables_from("localhost", Some("https://evil.example"))).await;
    assert_refused(&r, "--allow-origin https://evil.example");
    let r = send_raw(server.addr, &preflight_from("https://evil.example")).await;
    assert_refused(&r, "--allow-origin");
    // A page on another site that names itself localhost in a subdomain is no loopback origin.
    let r =
        send_raw(server.addr, &list_tables_from("localhost", Some("http://localhost.evil.example"))).await;
    assert_refused(&r, "--allow-origin");
}

#[tokio::test]
async fn loopback_origins_and_allowed_origins_are_answered() {
    let service = Service::new(Engine::new()).with_allowed_origins(["https://app.example:3000".to_string()]);
    let server = TestServer::start(service).await;
    for origin in
        ["http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000", "https://app.example:3000"]
    {
        let r = send_raw(server.addr, &list_tables_from("localhost", Some(origin))).await;
        assert_eq!(r.status, 200, "{origin}: {r:?}");
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{origin}");
        let r = send_raw(server.addr, &preflight_from(origin)).await;
        assert_eq!(r.status, 200, "{origin}: {r:?}");
    }
    let r = send_raw(server.addr, &list_tables_from("localhost", Some("https://other.example:3000"))).await;
    assert_refused(&r, "--allow-origin");
}

#[tokio::test]
async fn a_rebound_host_is_refused_on_a_loopback_listener() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    // DNS rebinding: the page's own name, re-pointed at 127.0.0.1, arrives in Host.
    let r = send_raw(server.addr, &list_tables_from("rebind.example:8000", None)).await;
    assert_refused(&r, "--auth verify");
    for host in ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", &server.addr.to_string()] {
        let r = send_raw(server.addr, &list_tables_from(host, None)).await;
        assert_eq!(r.status, 200, "{host}: {r:?}");
    }
    // HTTP/1.0 needs no Host; a browser always sends one.
    let r = send_raw(server.addr, b"GET / HTTP/1.0\r\n\r\n").await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn under_verified_signatures_any_origin_is_answered_as_dynamodb_does() {
    // ScyllaDB's test/alternator/test_cors.py, run against DynamoDB: a preflight from any
    // origin gets Allow-Origin `*`.
    let credentials = Credentials::new().with("AKIDGOOD", "good-secret");
    let server = TestServer::start(Service::new(Engine::new()).with_auth(Auth::Verify(credentials))).await;
    let r = send_raw(server.addr, &preflight_from("https://evil.example")).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    // Unsigned, the request is refused by its signature, not by its origin or Host.
    let r = send_raw(server.addr, &list_tables_from("rebind.example", Some("https://evil.example"))).await;
    assert_ne!(r.status, 403, "{r:?}");
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
}
