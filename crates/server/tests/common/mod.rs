//! Test support: a server on `127.0.0.1:0`, a raw HTTP/1.1 client for malformed requests, and
//! SDK clients over TCP.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
use monotable_server::Service;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running server; dropping the handle's `stop` sender shuts it down.
pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<std::io::Result<()>>,
}

impl TestServer {
    pub async fn start(service: Service) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(monotable_server::serve(listener, service, async move {
            let _ = stopped.await;
        }));
        TestServer { addr, stop: Some(stop), task }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Signals shutdown and waits for `serve` to return.
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(15), &mut self.task)
            .await
            .expect("server stops within 15 s")
            .expect("server task does not panic")
    }
}

/// An SDK client over TCP with the given static credentials.
pub fn sdk_client(endpoint: &str, key_id: &str, secret: &str) -> aws_sdk_dynamodb::Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::from_static("us-east-1"))
        .credentials_provider(aws_credential_types::Credentials::new(key_id, secret, None, None, "test"))
        .endpoint_url(endpoint)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn error_type(&self) -> String {
        self.json()["__type"].as_str().unwrap_or_default().to_string()
    }
}

/// A `POST /` with DynamoDB's headers and a well-formed (unverified) SigV4 header.
pub fn post(target: &str, body: &[u8]) -> Vec<u8> {
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: {target}\r\nX-Amz-Date: 20240101T000000Z\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, \
         SignedHeaders=host;x-amz-date;x-amz-target, Signature=00\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// A connection that sends raw bytes and reads one response at a time (keep-alive aware).
pub struct RawConnection {
    stream: TcpStream,
    buffer: Vec<u8>,
}

impl RawConnection {
    pub async fn open(addr: SocketAddr) -> RawConnection {
        RawConnection { stream: TcpStream::connect(addr).await.expect("connect"), buffer: Vec::new() }
    }

    /// A connection over a stream the test has already written to.
    pub fn from_stream(stream: TcpStream) -> RawConnection {
        RawConnection { stream, buffer: Vec::new() }
    }

    /// Writes more of a request.
    pub async fn write_all(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("write");
    }

    pub async fn send(&mut self, request: &[u8]) -> RawResponse {
        self.stream.write_all(request).await.expect("write request");
        self.read_response().await
    }

    pub async fn read_response(&mut self) -> RawResponse {
        tokio::time::timeout(Duration::from_secs(30), self.read_response_inner())
            .await
            .expect("response within 30 s")
    }

    async fn read_response_inner(&mut self) -> RawResponse {
        let head_end = loop {
            if let Some(i) = find(&self.buffer, b"\r\n\r\n") {
                break i;
            }
            self.fill().await;
        };
        let head = String::from_utf8_lossy(&self.buffer[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status: u16 = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status code");
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        self.buffer.drain(..head_end + 4);
        let header =
            |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
        let body = if let Some(len) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
            while self.buffer.len() < len {
                self.fill().await;
            }
            self.buffer.drain(..len).collect()
        } else if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            self.read_chunked().await
        } else {
            Vec::new()
        };
        RawResponse { status, headers, body }
    }

    async fn read_chunked(&mut self) -> Vec<u8> {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(i) = find(&self.buffer, b"\r\n") {
                    break i;
                }
                self.fill().await;
            };
            let size = usize::from_str_radix(String::from_utf8_lossy(&self.buffer[..line_end]).trim(), 16)
                .expect("chunk size");
            self.buffer.drain(..line_end + 2);
            while self.buffer.len() < size + 2 {
                self.fill().await;
            }
            body.extend(self.buffer.drain(..size));
            self.buffer.drain(..2);
            if size == 0 {
                return body;
            }
        }
    }

    async fn fill(&mut self) {
        let mut chunk = [0u8; 64 * 1024];
        let n = self.stream.read(&mut chunk).await.expect("read");
        assert!(
            n > 0,
            "connection closed before a full response; got {:?}",
            String::from_utf8_lossy(&self.buffer)
        );
        self.buffer.extend_from_slice(&chunk[..n]);
    }

    /// True when the server has closed the connection (reads EOF).
    pub async fn is_closed(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(
            tokio::time::timeout(Duration::from_secs(5), self.stream.read(&mut byte)).await,
            Ok(Ok(0)) | Ok(Err(_))
        )
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Sends one request on a fresh connection.
pub async fn send_raw(addr: SocketAddr, request: &[u8]) -> RawResponse {
    RawConnection::open(addr).await.send(request).await
}

/// A CreateTable request for an on-demand table keyed by one string attribute `pk`, for tests
/// to extend and send.
pub fn hash_table(
    client: &aws_sdk_dynamodb::Client,
    name: &str,
) -> aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };
    client
        .create_table()
        .table_name(name)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("attribute definition"),
        )
        .key_schema(
            KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().expect("key"),
        )
        .billing_mode(BillingMode::PayPerRequest)
}

/// CPU time this thread has spent (`CLOCK_THREAD_CPUTIME_ID`): what a request run on this
/// thread costs, whatever else the machine is doing.
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Runs one request with `X-Amz-Target: target` through `service` on this thread (no socket);
/// returns the status and the body.
pub fn handle_in_process(service: &Service, target: &str, body: &[u8]) -> (u16, Vec<u8>) {
    handle_in_process_with(service, target, body, &[])
}

/// [`handle_in_process`] with `extra` headers (`Content-Encoding`, `Origin`, ...).
pub fn handle_in_process_with(
    service: &Service,
    target: &str,
    body: &[u8],
    extra: &[(&str, &str)],
) -> (u16, Vec<u8>) {
    let mut request = http::Request::post("/");
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let request = request
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", target)
        .header("x-amz-date", "20240101T000000Z")
        .header(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, \
             SignedHeaders=host;x-amz-date;x-amz-target, Signature=00",
        )
        .body(())
        .expect("request head");
    let (parts, ()) = request.into_parts();
    let response = service.handle(&parts, body);
    (response.status().as_u16(), response.body().to_vec())
}

/// The `__type` and message of a call that must fail.
pub fn failure<T: std::fmt::Debug, E, R: std::fmt::Debug>(
    r: Result<T, aws_sdk_dynamodb::error::SdkError<E, R>>,
) -> (String, String)
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::fmt::Debug,
{
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    let e = r.expect_err("the call fails");
    (e.code().unwrap_or_default().to_owned(), e.message().unwrap_or_default().to_owned())
}

/// A `MakeWriter` that appends every log line to a shared buffer.
#[derive(Clone, Default)]
pub struct Captured(pub std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Captured {
    /// Everything logged so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;

    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

/// Captures this thread's events of the server's `target` (e.g. `monotable_server::fairness`)
/// until the guard is dropped. Under `#[tokio::test]`'s current-thread runtime the server's
/// async tasks run on this thread too; work on the blocking pool does not.
pub fn capture(target: &str) -> (Captured, tracing::subscriber::DefaultGuard) {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(format!("{target}=trace")))
        .with_ansi(false)
        .with_writer(captured.clone())
        .finish();
    let guard = tracing::subscriber::set_default(subscriber);
    (captured, guard)
}
