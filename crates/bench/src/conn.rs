//! One kept-alive HTTP/1.1 connection and the signing of each request sent on it.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
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
    signatures: Arc<SignatureCache>,
}

/// `Authorization` values of the current second, shared by every connection of a run.
///
/// A SigV4 signature covers the target, the body (through its hash) and the `x-amz-date`
/// second, nothing else that varies here; the same pre-built request sent again within the
/// same second carries the same signature an SDK would compute, so it is computed once. The
/// map is emptied when the second changes: at most one entry per distinct request.
#[derive(Default)]
pub(crate) struct SignatureCache {
    inner: Mutex<(u64, ByTarget)>,
}

/// Signatures by target, then by body hash.
type ByTarget = HashMap<&'static str, HashMap<Box<str>, HeaderValue>>;

impl SignatureCache {
    fn get_or_sign(
        &self,
        second: u64,
        target: &'static str,
        body_hash: &str,
        sign: impl FnOnce() -> Result<HeaderValue, BenchError>,
    ) -> Result<HeaderValue, BenchError> {
        // A poisoned lock only means another task panicked mid-insert; the map is still sound.
        let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (at, map) = &mut *guard;
        if *at != second {
            *at = second;
            map.clear();
        }
        let per_target = map.entry(target).or_default();
        if let Some(value) = per_target.get(body_hash) {
            return Ok(value.clone());
        }
        let value = sign()?;
        per_target.insert(body_hash.into(), value.clone());
        Ok(value)
    }
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
            signatures: Arc::new(SignatureCache::default()),
        })
    }

    /// A signer for another connection of the same run, sharing this one's signature cache.
    pub(crate) fn sharing(&self) -> RequestSigner {
        RequestSigner {
            signer: self.signer.clone(),
            host: self.host.clone(),
            last_second: u64::MAX,
            amz_date_header: HeaderValue::from_static(""),
            date_signer: None,
            signatures: Arc::clone(&self.signatures),
        }
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
        // Refresh once: the cache key, the signature and the x-amz-date header below must all
        // belong to the same second, even when the clock ticks over during this call.
        self.date_signer();
        let Self { signatures, date_signer, last_second, .. } = &*self;
        let authorization = signatures.get_or_sign(*last_second, target, body_hash, || {
            let text = date_signer.as_ref().map(|d| d.authorization(target, body_hash)).unwrap_or_default();
            HeaderValue::from_maybe_shared(Bytes::from(text))
                .map_err(|_| BenchError::InvalidConfig("credentials must be printable ASCII".into()))
        })?;
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
    fn a_cached_signature_is_the_one_signing_again_gives() {
        let endpoint = Endpoint::parse("http://127.0.0.1:8000").unwrap();
        let target = "DynamoDB_20120810.GetItem";
        let (one, two) = (Bytes::from_static(b"{\"a\":1}"), Bytes::from_static(b"{\"a\":2}"));
        let auth = |signer: &mut RequestSigner, body: &Bytes| {
            let req = signer.request(target, body, &sigv4::payload_hash(body)).unwrap();
            (req.headers()["x-amz-date"].clone(), req.headers()["authorization"].clone())
        };
        // Retried when the wall-clock second changes between the calls.
        for _ in 0..5 {
            let mut first = RequestSigner::new(&endpoint, &SigningConfig::default()).unwrap();
            let mut shared = first.sharing();
            let mut fresh = RequestSigner::new(&endpoint, &SigningConfig::default()).unwrap();
            let a = auth(&mut first, &one);
            let (b, c, d) = (auth(&mut shared, &one), auth(&mut fresh, &one), auth(&mut shared, &two));
            if [&b.0, &c.0, &d.0].iter().any(|date| **date != a.0) {
                continue;
            }
            assert_eq!(a.1, b.1, "the sharing signer reuses the signature");
            assert_eq!(a.1, c.1, "a signer with its own cache computes the same one");
            assert_ne!(a.1, d.1, "another body is signed anew");
            return;
        }
        panic!("the clock second changed on every attempt");
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
