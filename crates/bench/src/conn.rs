//! One kept-alive HTTP/1.1 connection and the signing of each request sent on it.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, AUTHORIZATION, CONTENT_TYPE, HOST};
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{handshake, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::endpoint::Endpoint;
use crate::sigv4::{self, DateSigner, Signer};
use crate::BenchError;

/// The credentials and region requests are signed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningConfig {
    pub access_key: String,
    pub secret_key: String,
    pub region: String,
}

impl Default for SigningConfig {
    /// Local emulators accept any key pair; these make it obvious where a request came from.
    fn default() -> Self {
        Self {
            access_key: "AKIDMONOTABLEBENCH".into(),
            secret_key: "monotable-bench-secret".into(),
            region: "us-east-1".into(),
        }
    }
}

/// What each connection's task needs to sign requests: a signer and a per-second cache of the
/// date header and of the signing state for that date.
pub(crate) struct RequestSigner {
    signer: Signer,
    host: HeaderValue,
    last_second: u64,
    amz_date_header: HeaderValue,
    date_signer: Option<DateSigner>,
}

/// The target header's name, parsed once.
fn target_header() -> HeaderName {
    HeaderName::from_static("x-amz-target")
}

/// The date header's name, parsed once.
fn date_header() -> HeaderName {
    HeaderName::from_static("x-amz-date")
}

impl RequestSigner {
    pub(crate) fn new(endpoint: &Endpoint, signing: &SigningConfig) -> Result<Self, BenchError> {
        let host = HeaderValue::from_str(&endpoint.host).map_err(|_| BenchError::InvalidEndpoint {
            url: endpoint.url.clone(),
            reason: "the host is not a valid Host header".into(),
        })?;
        Ok(Self {
            signer: Signer::new(&signing.access_key, &signing.secret_key, &signing.region, &endpoint.host),
            host,
            last_second: u64::MAX,
            amz_date_header: HeaderValue::from_static(""),
            date_signer: None,
        })
    }

    /// The signing state of the current wall-clock second, refreshed when the second changed.
    fn date_signer(&mut self) -> &DateSigner {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        if now != self.last_second || self.date_signer.is_none() {
            self.last_second = now;
            let amz_date = sigv4::amz_date(now);
            // The date is ASCII digits and letters, always a valid header value.
            self.amz_date_header =
                HeaderValue::from_str(&amz_date).unwrap_or_else(|_| HeaderValue::from_static(""));
            self.date_signer = Some(self.signer.for_date(&amz_date));
        }
        self.date_signer.get_or_insert_with(|| self.signer.for_date(""))
    }

    /// A signed `POST /` carrying `body`.
    pub(crate) fn request(
        &mut self,
        target: &'static str,
        body: &Bytes,
        body_hash: &str,
    ) -> Result<Request<Full<Bytes>>, BenchError> {
        let authorization = self.date_signer().authorization(target, body_hash);
        let authorization = HeaderValue::from_maybe_shared(Bytes::from(authorization))
            .map_err(|_| BenchError::InvalidConfig("credentials must be printable ASCII".into()))?;
        let mut request = Request::new(Full::new(body.clone()));
        *request.method_mut() = http::Method::POST;
        let headers = request.headers_mut();
        headers.reserve(5);
        headers.insert(HOST, self.host.clone());
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(sigv4::CONTENT_TYPE));
        headers.insert(target_header(), HeaderValue::from_static(target));
        headers.insert(date_header(), self.amz_date_header.clone());
        headers.insert(AUTHORIZATION, authorization);
        Ok(request)
    }
}

/// A response reduced to what the load generator looks at.
pub(crate) struct Response {
    pub status: u16,
    pub body: Bytes,
}

/// One HTTP/1.1 connection with keep-alive, driven by its own task.
///
/// When the server closes the connection between requests (servers without keep-alive,
/// such as moto's, close after every response), the next [`Conn::send`] opens a new one
/// and counts it in [`Conn::reconnects`]; the reconnection time is part of that request's
/// latency, as it is for any client of such a server.
pub(crate) struct Conn {
    addr: SocketAddr,
    sender: SendRequest<Full<Bytes>>,
    /// Connections opened after the first one.
    pub reconnects: u64,
}

impl Conn {
    pub(crate) async fn connect(addr: SocketAddr) -> Result<Self, BenchError> {
        Ok(Self { addr, sender: Self::open(addr).await?, reconnects: 0 })
    }

    async fn open(addr: SocketAddr) -> Result<SendRequest<Full<Bytes>>, BenchError> {
        let stream = TcpStream::connect(addr).await.map_err(|source| BenchError::Connect { addr, source })?;
        // Small request/response pairs: never wait for Nagle.
        stream.set_nodelay(true).map_err(|source| BenchError::Connect { addr, source })?;
        let (sender, connection) = handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            // The connection ends when the sender is dropped or the server closes it; the
            // request that observes a closed connection reports the error.
            let _ = connection.await;
        });
        Ok(sender)
    }

    /// Sends one request and reads the whole response body.
    pub(crate) async fn send(&mut self, request: Request<Full<Bytes>>) -> Result<Response, BenchError> {
        if self.sender.ready().await.is_err() {
            self.sender = Self::open(self.addr).await?;
            self.reconnects += 1;
            self.sender.ready().await?;
        }
        let response = self.sender.send_request(request).await?;
        let status = response.status().as_u16();
        let body = response.into_body().collect().await?.to_bytes();
        Ok(Response { status, body })
    }

    /// Signs and sends a setup or probe request built from JSON.
    pub(crate) async fn call(
        &mut self,
        signer: &mut RequestSigner,
        target: &'static str,
        body: &serde_json::Value,
    ) -> Result<Response, BenchError> {
        let bytes = Bytes::from(body.to_string());
        let hash = sigv4::payload_hash(&bytes);
        let request = signer.request(target, &bytes, &hash)?;
        self.send(request).await
    }
}

/// The error `__type` of a DynamoDB error body without the `com.amazonaws…#` prefix, or
/// `HTTP <status>` when the body carries none.
pub(crate) fn error_kind(status: u16, body: &[u8]) -> String {
    let parsed: Option<String> = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("__type").and_then(|t| t.as_str()).map(str::to_owned));
    match parsed {
        Some(t) => t.rsplit('#').next().unwrap_or(&t).to_owned(),
        None => format!("HTTP {status}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_kind_strips_the_namespace() {
        let body =
            br#"{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"x"}"#;
        assert_eq!(error_kind(400, body), "ConditionalCheckFailedException");
        assert_eq!(error_kind(400, br#"{"__type":"ValidationException"}"#), "ValidationException");
        assert_eq!(error_kind(502, b"<html>bad gateway</html>"), "HTTP 502");
    }

    #[test]
    fn requests_carry_the_signed_headers() {
        let endpoint = Endpoint::parse("http://127.0.0.1:8000").unwrap();
        let mut signer = RequestSigner::new(&endpoint, &SigningConfig::default()).unwrap();
        let body = Bytes::from_static(b"{}");
        let req = signer.request("DynamoDB_20120810.GetItem", &body, &sigv4::payload_hash(&body)).unwrap();
        let h = req.headers();
        assert_eq!(h["host"], "127.0.0.1:8000");
        assert_eq!(h["x-amz-target"], "DynamoDB_20120810.GetItem");
        assert_eq!(h["content-type"], "application/x-amz-json-1.0");
        assert_eq!(h["x-amz-date"].len(), 16);
        let auth = h["authorization"].to_str().unwrap();
        assert!(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDMONOTABLEBENCH/"), "{auth}");
        assert!(auth.contains("SignedHeaders=content-type;host;x-amz-date;x-amz-target"));
    }
}
