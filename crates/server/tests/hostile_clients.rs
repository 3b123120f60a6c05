//! `monotable serve` under hostile clients, over TCP: web pages kept out of an endpoint that
//! does not verify signatures, and (further down) the transport's limits on memory, time and
//! connections. Raw sockets make the shapes an SDK cannot; an SDK workload checks that the
//! defaults never bother a legitimate client. Outcomes are asserted, never durations.
//!
//! These refusals are monotable's own, not DynamoDB behaviour: DynamoDB is never reached
//! without a signature, and DynamoDB Local answers every origin and Host.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use common::{hash_table, post, sdk_client, send_raw, RawConnection, RawResponse, TestServer};
use monotable_engine::Engine;
use monotable_server::{Auth, Credentials, Limits, Service};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

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

/// The head of a PutItem whose body will be `length` bytes.
fn put_head(length: usize) -> Vec<u8> {
    let request = String::from_utf8(post("DynamoDB_20120810.PutItem", b"")).unwrap();
    request.replacen("Content-Length: 0", &format!("Content-Length: {length}"), 1).into_bytes()
}

/// Opens a connection and sends a head declaring `length` body bytes, then `parts` of the
/// body one write at a time, `pause` apart (so that each arrives as a frame of its own).
async fn send_partial(server: &TestServer, length: usize, parts: &[usize], pause: Duration) -> RawConnection {
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(&put_head(length)).await.unwrap();
    for &part in parts {
        tokio::time::sleep(pause).await;
        stream.write_all(&vec![b' '; part]).await.unwrap();
    }
    RawConnection::from_stream(stream)
}

#[tokio::test]
async fn a_body_that_finds_no_room_in_the_budget_is_throttled_past_its_deadline() {
    let limits =
        Limits::default().with_max_buffered_bytes(64 * 1024).with_budget_wait(Duration::from_millis(300));
    let server = TestServer::start(Service::new(Engine::new()).with_limits(limits)).await;
    let pause = Duration::from_millis(100);
    // 59,990 of the budget's 65,536 bytes held by a body that never completes (the frames
    // that have arrived, not the 60,000 it declares).
    let holder = send_partial(&server, 60_000, &[30_000, 29_990], pause).await;
    tokio::time::sleep(pause * 3).await;
    let mut waiting = send_partial(&server, 30_000, &[10_000, 10_000], pause).await;
    let r = waiting.read_response().await;
    // DynamoDB's throttling answer (see THROTTLING_MESSAGE in src/error.rs for its source),
    // which SDKs retry with backoff.
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.error_type(), "com.amazon.coral.availability#ThrottlingException");
    assert_eq!(r.header("connection"), Some("close"));
    assert!(waiting.is_closed().await, "the throttled body's connection is closed");
    // Once the holder goes, its room is given back.
    drop(holder);
    tokio::time::sleep(pause).await;
    let mut again = send_partial(&server, 20_000, &[10_000, 10_000], pause).await;
    let r = again.read_response().await;
    assert_ne!(r.error_type(), "com.amazon.coral.availability#ThrottlingException", "{r:?}");
}

#[tokio::test]
async fn a_body_that_stalls_or_trickles_is_closed_unanswered() {
    let limits = Limits::default().with_body_grace(Duration::from_millis(300)).with_min_body_rate(1000);
    let server = TestServer::start(Service::new(Engine::new()).with_limits(limits)).await;
    let mut stalled = send_partial(&server, 100_000, &[10], Duration::ZERO).await;
    assert!(stalled.is_closed().await, "a body with no frame for longer than its grace");
    // Ten bytes every 50 ms is 200 B/s: behind 1000 B/s once the grace is spent, though no
    // gap reaches the grace.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(&put_head(100_000)).await.unwrap();
    let mut closed = false;
    for _ in 0..200 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if stream.write_all(&[b' '; 10]).await.is_err() {
            closed = true;
            break;
        }
    }
    assert!(closed || RawConnection::from_stream(stream).is_closed().await, "a trickling body");
    // The server goes on serving.
    let r = send_raw(server.addr, &post(LIST_TABLES, b"{}")).await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[tokio::test]
async fn past_the_connection_cap_the_oldest_idle_connection_is_closed() {
    let server =
        TestServer::start(Service::new(Engine::new()).with_limits(Limits::default().with_max_connections(2)))
            .await;
    let health = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let mut oldest = RawConnection::open(server.addr).await;
    assert_eq!(oldest.send(health).await.status, 200);
    let mut second = RawConnection::open(server.addr).await;
    assert_eq!(second.send(health).await.status, 200);
    let mut third = RawConnection::open(server.addr).await;
    assert_eq!(third.send(health).await.status, 200, "a new connection past the cap is served");
    assert!(oldest.is_closed().await, "the oldest idle connection made room");
    assert_eq!(second.send(health).await.status, 200, "the younger one stays open");
}

#[tokio::test]
async fn past_the_connection_cap_with_none_idle_the_slowest_body_is_closed() {
    let server =
        TestServer::start(Service::new(Engine::new()).with_limits(Limits::default().with_max_connections(2)))
            .await;
    // Two requests whose bodies are waited for: one has sent 10 of its 1,000 bytes, the
    // other 610, both within the default grace and rate.
    let pause = Duration::from_millis(100);
    let mut slowest = send_partial(&server, 1000, &[10], Duration::ZERO).await;
    let mut faster = send_partial(&server, 1000, &[10, 300, 300], pause).await;
    tokio::time::sleep(pause * 2).await;
    let health = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let mut new = RawConnection::open(server.addr).await;
    assert_eq!(new.send(health).await.status, 200, "a new connection at the cap is served");
    assert!(slowest.is_closed().await, "the slowest body made room");
    // The faster one is still open: its body completes and is answered.
    faster.write_all(&[b' '; 390]).await;
    let r = faster.read_response().await;
    assert_eq!(r.status, 400, "a body of spaces is no JSON, but it was read and answered: {r:?}");
}

#[tokio::test]
async fn an_sdk_workload_meets_none_of_the_default_limits() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let client = sdk_client(&server.endpoint(), "AKID", "secret");
    hash_table(&client, "hostile").send().await.unwrap();
    // Sixteen clients at once, each writing items near DynamoDB's 400 KB limit, batches of
    // 25 items, and reading them all back.
    let big = "x".repeat(390_000);
    let mut tasks = Vec::new();
    for worker in 0..16 {
        let client = client.clone();
        let big = big.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..4 {
                let pk = AttributeValue::S(format!("big#{worker}#{i}"));
                client
                    .put_item()
                    .table_name("hostile")
                    .item("pk", pk)
                    .item("v", AttributeValue::S(big.clone()))
                    .send()
                    .await?;
            }
            let writes = (0..25).map(|i| {
                let item = HashMap::from([
                    ("pk".to_string(), AttributeValue::S(format!("small#{worker}#{i}"))),
                    ("v".to_string(), AttributeValue::S("y".repeat(10_000))),
                ]);
                WriteRequest::builder()
                    .put_request(PutRequest::builder().set_item(Some(item)).build().unwrap())
                    .build()
            });
            client.batch_write_item().request_items("hostile", writes.collect()).send().await.map(|_| ())?;
            Ok::<_, aws_sdk_dynamodb::Error>(())
        }));
    }
    for task in tasks {
        task.await.unwrap().expect("no request of an SDK client meets a limit");
    }
    let mut scanned = 0;
    let mut start = None;
    loop {
        let page = client.scan().table_name("hostile").set_exclusive_start_key(start).send().await.unwrap();
        scanned += page.count();
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            break;
        }
    }
    assert_eq!(scanned, 16 * (4 + 25));
}

/// `YYYYMMDDTHHMMSSZ` and `YYYYMMDD` of now, in UTC.
fn now_amz() -> (String, String) {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = monotable_types::civil_from_days(days);
    let date = format!("{year:04}{month:02}{day:02}");
    (format!("{date}T{:02}{:02}{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60), date)
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    use hmac::Mac;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// A PutItem with a gzip `body`, signed (SigV4, key AKIDGOOD) over `signed_payload`.
fn signed_gzip_put(body: &[u8], signed_payload: &[u8], secret: &str) -> Vec<u8> {
    use sha2::Digest;
    let (stamp, day) = now_amz();
    let canonical = format!(
        "POST\n/\n\nhost:localhost\nx-amz-date:{stamp}\n\nhost;x-amz-date\n{}",
        hex::encode(sha2::Sha256::digest(signed_payload))
    );
    let scope = format!("{day}/us-east-1/dynamodb/aws4_request");
    let to_sign =
        format!("AWS4-HMAC-SHA256\n{stamp}\n{scope}\n{}", hex::encode(sha2::Sha256::digest(canonical)));
    let mut key = hmac(format!("AWS4{secret}").as_bytes(), &day);
    for part in ["us-east-1", "dynamodb", "aws4_request"] {
        key = hmac(&key, part);
    }
    let signature = hex::encode(hmac(&key, &to_sign));
    let mut request = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.PutItem\r\nX-Amz-Date: {stamp}\r\nContent-Encoding: gzip\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=AKIDGOOD/{scope}, SignedHeaders=host;x-amz-date, \
         Signature={signature}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test]
async fn a_compressed_body_is_verified_as_sent_before_it_is_inflated() {
    // The in-process client signs with the key pair monotable/monotable.
    let credentials = Credentials::new().with("AKIDGOOD", "good-secret").with("monotable", "monotable");
    let service = Service::new(Engine::new()).with_auth(Auth::Verify(credentials));
    let client = monotable_embedded::client_for_service(service.clone());
    let server = TestServer::start(service).await;
    hash_table(&client, "hostile").send().await.unwrap();
    // SigV4 signs the body as sent (AWS General Reference, "Create a canonical request for
    // Signature Version 4": the payload hash is of the request body): a signature over the
    // compressed bytes is accepted.
    let put = br#"{"TableName":"hostile","Item":{"pk":{"S":"zipped"}}}"#;
    let compressed = gzip(put);
    let r = send_raw(server.addr, &signed_gzip_put(&compressed, &compressed, "good-secret")).await;
    assert_eq!(r.status, 200, "{r:?}");
    // One over the inflated bytes is not.
    let r = send_raw(server.addr, &signed_gzip_put(&compressed, put, "good-secret")).await;
    assert_eq!(r.error_type(), "com.amazon.coral.service#InvalidSignatureException", "{r:?}");
    // A bomb: about 17 KB that would inflate past the 16 MiB limit. Signed wrongly, it gets
    // the signature error, not the size error it gets once inflated (413).
    let bomb = gzip(&vec![b' '; 17 << 20]);
    assert!(bomb.len() < 64 * 1024, "{}", bomb.len());
    let r = send_raw(server.addr, &signed_gzip_put(&bomb, &bomb, "wrong-secret")).await;
    assert_eq!(r.error_type(), "com.amazon.coral.service#InvalidSignatureException", "{r:?}");
    let r = send_raw(server.addr, &signed_gzip_put(&bomb, &bomb, "good-secret")).await;
    assert_eq!(r.status, 413, "signed, the bomb is inflated and stopped at the limit: {r:?}");
}

/// A mount (the console) gets the client's address in the request's extensions, so it can
/// count what each client does (the console's sign-in attempts).
#[tokio::test]
async fn a_compressed_body_holds_room_for_the_most_it_can_inflate_to() {
    let limits =
        Limits::default().with_max_buffered_bytes(1 << 20).with_budget_wait(Duration::from_millis(200));
    let service = Service::new(Engine::new()).with_limits(limits);
    let client = monotable_embedded::client_for_service(service.clone());
    let server = TestServer::start(service).await;
    hash_table(&client, "zipped").send().await.unwrap();
    let gzip_put = |item: &str| {
        let body = gzip(format!(r#"{{"TableName":"zipped","Item":{{"pk":{{"S":"{item}"}}}}}}"#).as_bytes());
        let request = String::from_utf8_lossy(&post("DynamoDB_20120810.PutItem", b"")).into_owned();
        let mut request = request
            .replacen(
                "Content-Length: 0\r\n",
                &format!("Content-Encoding: gzip\r\nContent-Length: {}\r\n", body.len()),
                1,
            )
            .into_bytes();
        request.extend_from_slice(&body);
        (request, body.len())
    };
    // A small compressed body may inflate to deflate's 1,032 times its size: well within the
    // 1 MiB budget, so it runs.
    let (small, _) = gzip_put("small");
    let r = send_raw(server.addr, &small).await;
    assert_eq!(r.status, 200, "{r:?}");
    // One of a few KiB (random text compresses little) may inflate past the whole budget, and
    // is refused before it is inflated, whatever it really holds.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let noise: String = (0..6000)
        .map(|_| {
            // xorshift64: letters that do not repeat in any pattern deflate can use.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'a' + (state % 26) as u8)
        })
        .collect();
    let (large, compressed) = gzip_put(&noise);
    assert!(compressed * 1032 > 1 << 20, "{compressed} compressed bytes");
    let r = send_raw(server.addr, &large).await;
    assert_eq!(r.error_type(), "com.amazon.coral.availability#ThrottlingException", "{r:?}");
}

#[tokio::test]
async fn a_mounted_handler_learns_the_clients_address() {
    let mount = monotable_server::Mount::new("/echo", |parts, _body| {
        let peer = parts.extensions.get::<std::net::SocketAddr>().map(|a| a.to_string()).unwrap_or_default();
        Box::pin(async move { http::Response::new(bytes::Bytes::from(peer)) })
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(monotable_server::serve_with(
        listener,
        Service::new(Engine::new()),
        Some(mount),
        async move {
            let _ = stopped.await;
        },
    ));
    let stream = TcpStream::connect(addr).await.unwrap();
    let client = stream.local_addr().unwrap();
    let response = common::RawConnection::from_stream(stream)
        .send(b"GET /echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(String::from_utf8_lossy(&response.body), client.to_string());
}
